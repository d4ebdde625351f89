/* cuda_vector.c: vector code in CUDA C (backends/cuda/cuda_dialect.h).
 *
 * A vector store C[ramp(b, 1, 4)] = value is printed lane by lane, each lane a scalar
 * expression of constant lane (C's printing at p->lane_at):
 *
 *   {
 *     float4 A_v = *(float4*)(A + b);      the dense loads whose alignment is proved
 *     float4 C_v;
 *     C_v.x = (expf(A_v.x) + B[b]);         lane 0; B[b + 1] in lane 1 when B's is not
 *     ...
 *     *(float4*)(C + b) = C_v;              or C[b] = ...; C[(b + 1)] = ...; lane by lane
 *   }
 *
 * Alignment: a parameter's data starts at its buffer's data_alignment (64 bytes; the runtime
 * allocates device memory so), an allocation of the kernel that moves vectors is printed
 * __align__(16), and the index (plus the buffer's elem_offset) must be a multiple of the lanes
 * of the CUDA type by the analyzer's modular sets (ramp bases, and the scalar lets in scope).
 * Wider vectors (float32x8) move as several float4; what is not provably aligned, strided,
 * gathered, predicated or of an element type without a CUDA vector type (bool) moves element
 * by element. A dense load is read before any lane is computed unless it is under the branch
 * of an if_then_else (which may guard an address that is out of bounds) or a let; a lane that
 * reads what an earlier lane of the same store writes gets the value of all lanes first, in a
 * variable, as vector semantics want. A vector let becomes a variable of the same kind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_dialect.h"

/* ---- CUDA's vector types ---- */

typedef struct VecType {
  uint8_t code, bits;
  const char *name; /* float: float2, float4 */
  int max;          /* the most lanes, within 16 bytes */
} VecType;

static const VecType vec_types[] = {
    {DT_FLOAT, 32, "float", 4},   {DT_FLOAT, 64, "double", 2},  {DT_FLOAT, 16, "half", 2},
    {DT_INT, 8, "char", 4},       {DT_UINT, 8, "uchar", 4},     {DT_INT, 16, "short", 4},
    {DT_UINT, 16, "ushort", 4},   {DT_INT, 32, "int", 4},       {DT_UINT, 32, "uint", 4},
    {DT_INT, 64, "longlong", 2},  {DT_UINT, 64, "ulonglong", 2},
};

static const VecType *vec_type(DType t) {
  for (size_t i = 0; i < sizeof vec_types / sizeof *vec_types; i++)
    if (vec_types[i].code == t.code && vec_types[i].bits == t.bits) return &vec_types[i];
  return NULL;
}

/* The widest CUDA vector of t dividing lanes, for a value; 0: none (an array holds it). */
static int value_width(DType t, int lanes) {
  const VecType *vt = vec_type(t);
  for (int w = vt ? vt->max : 0; w >= 2; w /= 2)
    if (lanes % w == 0) return w;
  return 0;
}

/* ---- alignment ---- */

void cuda_vec_init(CudaVec *v, const LoweredFunc *f) {
  *v = (CudaVec){.f = f};
  arena_init(&v->arena);
  v->an = arith_new(&v->arena);
}

void cuda_vec_free(CudaVec *v) {
  arith_free(v->an);
  arena_free(&v->arena);
  free(v->aligned);
  free(v->vals);
  free(v->temps);
}

void cuda_vec_note_let(CudaVec *v, const Stmt *s) {
  DType t = s->u.let.value->dtype;
  if (dt_is_int(t) && t.lanes == 1) arith_bind_value(v->an, s->u.let.var, s->u.let.value);
}

/* The bytes buf's data is known to be aligned to. */
static int64_t base_alignment(const CudaVec *v, const Buffer *buf) {
  for (int i = 0; i < v->f->nparams; i++)
    if (v->f->params[i]->data == buf->data && buf->data_alignment > 0) return buf->data_alignment;
  for (int i = 0; i < v->naligned; i++)
    if (v->aligned[i] == buf->data) return 16;
  return 1;
}

static bool multiple_of(ModularSet m, int64_t w) { return m.coeff % w == 0 && m.base % w == 0; }

/* The lanes of the CUDA vectors a dense access of `lanes` elements of t at index moves as,
 * when its address is provably their multiple; 0 when it moves element by element. */
static int memory_width(CudaVec *v, const Buffer *buf, const Expr *index, DType t, int lanes) {
  const VecType *vt = vec_type(t);
  if (!vt || index->kind != EXPR_RAMP || !ir_is_const_int(index->u.ramp.stride, 1)) return 0;
  ModularSet m = arith_modular_set(v->an, index->u.ramp.base), o = {0, 0};
  if (buf->elem_offset) o = arith_modular_set(v->an, buf->elem_offset);
  int64_t align = base_alignment(v, buf);
  for (int w = vt->max; w >= 2; w /= 2)
    if (lanes % w == 0 && w * t.bits / 8 <= align && multiple_of(m, w) && multiple_of(o, w))
      return w;
  return 0;
}

/* Whether a dense access of t at index starts on a 16-byte boundary (w elements of t). */
static bool aligned16(CudaVec *v, const Buffer *buf, const Expr *index, int w) {
  if (index->kind != EXPR_RAMP || !ir_is_const_int(index->u.ramp.stride, 1)) return false;
  if (base_alignment(v, buf) < 16) return false;
  if (!multiple_of(arith_modular_set(v->an, index->u.ramp.base), w)) return false;
  return !buf->elem_offset || multiple_of(arith_modular_set(v->an, buf->elem_offset), w);
}

/* The elements a copy of t (dense load to dense store) moves per 16-byte uint4, when its CUDA
 * vectors are narrower (half2, char4, short4) and both addresses are 16-byte aligned; 0 when
 * it moves in t's own vectors. */
static int copy_width(CudaVec *v, const Buffer *dst, const Expr *index, const Expr *value) {
  DType t = dt_element(value->dtype);
  const VecType *vt = vec_type(t);
  if (!vt || vt->max * t.bits >= 128 || value->kind != EXPR_LOAD) return 0;
  int w = 128 / t.bits;
  if (value->dtype.lanes % w != 0) return 0;
  if (!aligned16(v, dst, index, w) || !aligned16(v, value->u.load.buf, value->u.load.index, w))
    return 0;
  return w;
}

/* Whether a load (a store) of the buffer variable data reads (writes) it as a dense vector. */
static bool dense(const Expr *index) {
  return index->kind == EXPR_RAMP && ir_is_const_int(index->u.ramp.stride, 1);
}

static bool dense_expr(const Expr *e, const void *data) {
  return e->kind == EXPR_LOAD && e->u.load.buf->data == data && dense(e->u.load.index);
}

static bool dense_stmt(const Stmt *s, const void *data) {
  return s->kind == STMT_STORE && s->u.store.buf->data == data && dense(s->u.store.index);
}

const char *cuda_vec_align(CudaVec *v, const Stmt *alloc) {
  /* the allocation's body reads or writes it as a dense vector */
  if (!ir_stmt_any(alloc->u.alloc.body, dense_expr, dense_stmt, alloc->u.alloc.buffer_var))
    return "";
  v->aligned = xrealloc(v->aligned, (size_t)(v->naligned + 1) * sizeof *v->aligned);
  v->aligned[v->naligned++] = alloc->u.alloc.buffer_var;
  return "__align__(16) ";
}

/* ---- values held in variables ---- */

static CudaLanes *push_val(CudaVec *v) {
  v->vals = xrealloc(v->vals, (size_t)(v->nvals + 1) * sizeof *v->vals);
  CudaLanes *h = &v->vals[v->nvals++];
  *h = (CudaLanes){0};
  return h;
}

/* A variable named `name`: in a store's block, one no other variable of the block has taken
 * (the same as an earlier block's when it can); elsewhere a new one. */
static Var *temp_var(CudaVec *v, const char *name, DType t) {
  if (!v->in_block) return ir_var(&v->arena, name, t);
  for (int i = 0; i < v->ntemps; i++)
    if (!v->temps[i].taken && strcmp(v->temps[i].name, name) == 0) {
      v->temps[i].taken = true;
      return v->temps[i].var;
    }
  v->temps = xrealloc(v->temps, (size_t)(v->ntemps + 1) * sizeof *v->temps);
  Var *var = ir_var(&v->arena, name, t);
  v->temps[v->ntemps++] = (CudaTemp){var->name, var, true};
  return var;
}

/* h's variables for `lanes` lanes of width w (0: an array), named base, or base0, base1, ... */
static void name_chunks(CudaVec *v, CudaLanes *h, const char *base, DType t, int lanes, int w) {
  h->width = w;
  h->nchunks = w ? lanes / w : 1;
  h->names = arena_alloc(&v->arena, (size_t)h->nchunks * sizeof *h->names);
  char name[256];
  for (int j = 0; j < h->nchunks; j++) {
    if (h->nchunks == 1)
      snprintf(name, sizeof name, "%s", base);
    else
      snprintf(name, sizeof name, "%s%d", base, j);
    h->names[j] = temp_var(v, name, t);
  }
}

/* Lane k of h: A_v1.z, or x_v[3]. */
static void put_lane(CPrinter *p, const CudaLanes *h, int k) {
  if (h->width)
    sb_printf(&p->out, "%s.%c", cp_name_of(p, h->names[k / h->width]), "xyzw"[k % h->width]);
  else
    sb_printf(&p->out, "%s[%d]", cp_name_of(p, h->names[0]), k);
}

static void declare(CPrinter *p, const CudaLanes *h, DType t, int lanes) {
  for (int j = 0; j < h->nchunks; j++) {
    if (h->width)
      cp_line(p, "%s%d %s;\n", vec_type(t)->name, h->width, cp_name_of(p, h->names[j]));
    else
      cp_line(p, "%s %s[%d];\n", cp_type(p, t), cp_name_of(p, h->names[j]), lanes);
  }
}

static bool same_offset(const Buffer *a, const Buffer *b) {
  if (!a->elem_offset || !b->elem_offset) return a->elem_offset == b->elem_offset;
  return ir_expr_equal(a->elem_offset, b->elem_offset);
}

/* The variable holding load e (from the statement's loads), or NULL. */
static const CudaLanes *held_load(const CudaVec *v, const Expr *e) {
  for (int i = v->nvals - 1; i >= 0; i--) {
    const Expr *l = v->vals[i].load;
    if (l && (l == e || (l->u.load.buf->data == e->u.load.buf->data && !e->u.load.predicate &&
                         same_offset(l->u.load.buf, e->u.load.buf) &&
                         ir_expr_equal(l->u.load.index, e->u.load.index))))
      return &v->vals[i];
  }
  return NULL;
}

bool cuda_vec_expr(CPrinter *p, CudaVec *v, const Expr *e, bool lane) {
  if (!lane || p->lane_at < 0 || e->dtype.lanes == 1) return false;
  const CudaLanes *h = NULL;
  if (e->kind == EXPR_LOAD) h = held_load(v, e);
  for (int i = v->nvals - 1; i >= 0 && !h && e->kind == EXPR_VAR; i--)
    if (v->vals[i].var == e->u.var) h = &v->vals[i];
  if (!h) return false;
  put_lane(p, h, p->lane_at);
  return true;
}

/* NVRTC has no GNU statement expressions: a scalar let inside an expression is a lambda
 * called in place, ([&]() { float x = v; return (x + x); }()). A vector one is C's printing's
 * (its value in place of its variable, lane by lane). */
bool cuda_let_expr(CPrinter *p, const Expr *e, bool lane) {
  if (e->kind != EXPR_LET || e->u.let.value->dtype.lanes > 1) return false;
  sb_printf(&p->out, "([&]() { %s %s = ", cp_type(p, e->u.let.value->dtype),
            cp_name_of(p, e->u.let.var));
  cp_expr(p, e->u.let.value);
  cp_put(p, "; return ");
  cp_expr_lane(p, e->u.let.body, lane);
  cp_put(p, "; }())");
  return true;
}

/* ---- the loads a statement reads first ---- */

typedef struct Scan {
  IrVisitor v;
  CudaVec *cv;
  const Var *stored;        /* the buffer the statement stores to, or NULL */
  const Expr *store_index;
  bool hoistable;           /* not under a branch of if_then_else or inside a let */
  bool hazard;              /* a lane reads what another lane stores */
} Scan;

static void hoist(Scan *s, const Expr *e) {
  if (!s->hoistable || e->u.load.predicate || held_load(s->cv, e)) return;
  DType t = dt_element(e->dtype);
  int w = memory_width(s->cv, e->u.load.buf, e->u.load.index, t, e->dtype.lanes);
  if (!w) return;
  CudaLanes *h = push_val(s->cv);
  h->load = e;
  char base[256];
  snprintf(base, sizeof base, "%s_v", e->u.load.buf->data->name);
  name_chunks(s->cv, h, base, t, e->dtype.lanes, w);
}

static void scan_expr(IrVisitor *iv, const Expr *e) {
  Scan *s = (Scan *)iv;
  if (e->kind == EXPR_LOAD) {
    if (e->dtype.lanes > 1) hoist(s, e);
    bool same = s->store_index && ir_expr_equal(e->u.load.index, s->store_index);
    if (e->u.load.buf->data == s->stored && !held_load(s->cv, e) && !same) s->hazard = true;
  }
  bool branches = e->kind == EXPR_CALL && e->u.call.n == 3 &&
                  strcmp(e->u.call.op, "tir.if_then_else") == 0;
  if (branches || e->kind == EXPR_LET) {
    ir_visit_expr(iv, branches ? e->u.call.args[0] : e->u.let.value);
    bool was = s->hoistable;
    s->hoistable = false;
    if (branches) {
      ir_visit_expr(iv, e->u.call.args[1]);
      ir_visit_expr(iv, e->u.call.args[2]);
    } else {
      ir_visit_expr(iv, e->u.let.body);
    }
    s->hoistable = was;
    return;
  }
  ir_visit_children_expr(iv, e);
}

/* `A + index's base + elem_offset + j*w`, the address of chunk j of a dense access. */
static void chunk_address(CPrinter *p, const Buffer *buf, const Expr *index, int j, int w) {
  sb_printf(&p->out, "%s + ", cp_name_of(p, buf->data));
  cp_expr(p, index->u.ramp.base);
  if (buf->elem_offset) {
    cp_put(p, " + ");
    cp_expr(p, buf->elem_offset);
  }
  if (j) sb_printf(&p->out, " + %d", j * w);
}

/* The loads vals[from..] hold, read. */
static void read_loads(CPrinter *p, CudaVec *v, int from) {
  for (int i = from; i < v->nvals; i++) {
    const CudaLanes *h = &v->vals[i];
    const Expr *e = h->load;
    const char *ty = vec_type(dt_element(e->dtype))->name;
    for (int j = 0; j < h->nchunks; j++) {
      cp_line(p, "%s%d %s = *(%s%d*)(", ty, h->width, cp_name_of(p, h->names[j]), ty, h->width);
      chunk_address(p, e->u.load.buf, e->u.load.index, j, h->width);
      cp_put(p, ");\n");
    }
  }
}

/* Lane k of e, a vector expression. */
static void at_lane(CPrinter *p, const Expr *e, int k) {
  p->lane_at = k;
  cp_expr_lane(p, e, true);
  p->lane_at = -1;
}

/* `if (pred[k]) ` before a lane's statement, when there is a predicate. */
static void lane_guard(CPrinter *p, const Expr *pred, int k) {
  if (!pred) return;
  cp_put(p, "if (");
  at_lane(p, pred, k);
  cp_put(p, ") ");
}

/* h = value, lane by lane (lanes whose predicate is false left unset). */
static void assign(CPrinter *p, const CudaLanes *h, const Expr *value, const Expr *pred) {
  for (int k = 0; k < value->dtype.lanes; k++) {
    cp_line(p, "%s", "");
    lane_guard(p, pred, k);
    put_lane(p, h, k);
    cp_put(p, " = ");
    at_lane(p, value, k);
    cp_put(p, ";\n");
  }
}

static void scan(Scan *s, const Expr *e) {
  if (e) ir_visit_expr(&s->v, e);
}

/* Whether a dense store to dst in chunks of w lanes can take its value without a variable: a
 * copy of another buffer's dense load in the same chunks, or a broadcast of a constant, a
 * variable or an element (of another buffer: the statement has no hazard). */
static bool direct_value(CudaVec *v, const Buffer *dst, const Expr *value, int w) {
  if (value->kind == EXPR_LOAD)
    return value->u.load.buf->data != dst->data && !value->u.load.predicate &&
           memory_width(v, value->u.load.buf, value->u.load.index, dt_element(value->dtype),
                        value->dtype.lanes) == w;
  if (value->kind != EXPR_BROADCAST) return false;
  ExprKind k = value->u.bcast.value->kind;
  return value->u.bcast.value->dtype.lanes == 1 &&
         (k == EXPR_INT || k == EXPR_FLOAT || k == EXPR_VAR || k == EXPR_LOAD);
}

/* Chunk j of a direct value (direct_value): *(float4*)(A + ...) or make_float4(x, x, x, x). */
static void direct_chunk(CPrinter *p, const Expr *value, int j, int w) {
  const char *ty = vec_type(dt_element(value->dtype))->name;
  if (value->kind == EXPR_LOAD) {
    sb_printf(&p->out, "*(%s%d*)(", ty, w);
    chunk_address(p, value->u.load.buf, value->u.load.index, j, w);
    cp_put(p, ")");
    return;
  }
  sb_printf(&p->out, "make_%s%d(", ty, w);
  for (int k = 0; k < w; k++) {
    cp_put(p, k ? ", " : "");
    cp_expr(p, value->u.bcast.value);
  }
  cp_put(p, ")");
}

static void vec_store(CPrinter *p, CudaVec *v, const Stmt *s) {
  const Expr *value = s->u.store.value, *index = s->u.store.index, *pred = s->u.store.predicate;
  const Buffer *buf = s->u.store.buf;
  DType t = dt_element(value->dtype);
  int lanes = value->dtype.lanes, from = v->nvals;
  v->in_block = true;
  for (int i = 0; i < v->ntemps; i++) v->temps[i].taken = false;
  Scan sc = {{scan_expr, NULL}, v, buf->data, index, true, false};
  scan(&sc, value);
  scan(&sc, index);
  scan(&sc, pred);
  int w = pred ? 0 : memory_width(v, buf, index, t, lanes);
  bool direct = w && !sc.hazard && direct_value(v, buf, value, w);
  if (direct) v->nvals = from; /* a copy's load is read where it is stored */
  bool temp = !direct && (w || sc.hazard), block = temp || v->nvals > from;
  if (block) {
    cp_line(p, "{\n");
    p->indent++;
  }
  read_loads(p, v, from);
  CudaLanes *h = NULL;
  if (temp) {
    char base[256];
    snprintf(base, sizeof base, "%s_v", buf->data->name);
    h = push_val(v);
    name_chunks(v, h, base, t, lanes, w ? w : value_width(t, lanes));
    declare(p, h, t, lanes);
    assign(p, h, value, pred);
  }
  int wide = direct ? copy_width(v, buf, index, value) : 0;
  for (int j = 0; wide && j < lanes / wide; j++) {
    cp_line(p, "*(uint4*)(");
    chunk_address(p, buf, index, j, wide);
    cp_put(p, ") = *(uint4*)(");
    chunk_address(p, value->u.load.buf, value->u.load.index, j, wide);
    cp_put(p, ");\n");
  }
  for (int j = 0; w && !wide && j < lanes / w; j++) {
    cp_line(p, "*(%s%d*)(", vec_type(t)->name, w);
    chunk_address(p, buf, index, j, w);
    cp_put(p, ") = ");
    if (direct)
      direct_chunk(p, value, j, w);
    else
      cp_put(p, cp_name_of(p, h->names[j]));
    cp_put(p, ";\n");
  }
  for (int k = 0; !w && k < lanes; k++) {
    cp_line(p, "%s", "");
    lane_guard(p, pred, k);
    sb_printf(&p->out, "%s[", cp_name_of(p, buf->data));
    at_lane(p, index, k);
    if (buf->elem_offset) {
      cp_put(p, " + ");
      cp_expr(p, buf->elem_offset);
    }
    cp_put(p, "] = ");
    if (h)
      put_lane(p, h, k);
    else
      at_lane(p, value, k);
    cp_put(p, ";\n");
  }
  if (block) {
    p->indent--;
    cp_line(p, "}\n");
  }
  v->nvals = from;
  v->in_block = false;
}

static void vec_let(CPrinter *p, CudaVec *v, const Stmt *s) {
  const Expr *value = s->u.let.value;
  DType t = dt_element(value->dtype);
  int lanes = value->dtype.lanes, from = v->nvals;
  Scan sc = {{scan_expr, NULL}, v, NULL, NULL, true, false};
  scan(&sc, value);
  read_loads(p, v, from);
  CudaLanes held = {.var = s->u.let.var};
  name_chunks(v, &held, s->u.let.var->name, t, lanes, value_width(t, lanes));
  declare(p, &held, t, lanes);
  assign(p, &held, value, NULL);
  v->nvals = from;
  *push_val(v) = held;
  cp_stmt(p, s->u.let.body);
  v->nvals = from;
}

bool cuda_vec_stmt(CPrinter *p, CudaVec *v, const Stmt *s) {
  if (s->kind == STMT_STORE && s->u.store.value->dtype.lanes > 1) {
    vec_store(p, v, s);
    return true;
  }
  if (s->kind == STMT_LET && s->u.let.value->dtype.lanes > 1) {
    vec_let(p, v, s);
    return true;
  }
  return false;
}
