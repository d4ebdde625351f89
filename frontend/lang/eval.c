/* eval.c: expressions. interp_eval returns a new reference, or NULL with an exception pending
 * that carries the location of the innermost node that failed. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp_impl.h"
#include "ir/strbuf.h"

/* The helpers interp_eval dispatches to stay out of it, so that it stays a jump table with no
 * frame of its own: every node of an expression passes through it. */
#define EVAL_HELPER static __attribute__((noinline)) Value *

static Value *fail_at(Interp *I, Frame *F, Node *n) {
  interp_locate(I, F, n->loc);
  return NULL;
}

/* ---- names ---- */

static Value *env_at_depth(Value *env, int depth) {
  while (depth-- > 0) env = env->u.env->parent;
  return env;
}

/* NameError for a global or builtin name found in neither, with Python's "did you mean" over
 * the names the code could have meant: the frame's bound locals, its globals, the builtins. */
static void raise_name_error(Interp *I, Frame *F, Sym *id) {
  Value *names = val_list_new(16), *k, *v;
  if (F->def && F->env)
    for (int i = 0; i < F->def->nslots; i++)
      if (F->env->u.env->slots[i]) val_list_append(names, F->def->slot_names[i]);
  Value *scopes[] = {F->globals, I->builtins};
  for (size_t s = 0; s < sizeof scopes / sizeof *scopes; s++)
    for (int64_t pos = 0; dict_next(scopes[s], &pos, &k, &v);)
      if (k->kind == VAL_STR) val_list_append(names, k);
  const char *near = val_nearest_name(names, SYM_STR(id));
  if (near)
    interp_raise(I, EXC_NameError, "name '%s' is not defined (did you mean '%s'?)", SYM_STR(id),
                 near);
  else
    interp_raise(I, EXC_NameError, "name '%s' is not defined", SYM_STR(id));
  val_decref(names);
}

EVAL_HELPER load_name(Interp *I, Frame *F, Node *n) {
  Sym *id = n->u.name.id;
  switch (n->u.name.scope) {
  case SCOPE_LOCAL: {
    Value *v = F->env->u.env->slots[n->u.name.slot];
    if (v) return val_incref(v);
    interp_raise(I, EXC_NameError, "local variable '%s' referenced before assignment", SYM_STR(id));
    return fail_at(I, F, n);
  }
  case SCOPE_FREE: {
    Value *v = env_at_depth(F->env, n->u.name.depth)->u.env->slots[n->u.name.slot];
    if (v) return val_incref(v);
    interp_raise(I, EXC_NameError,
                 "free variable '%s' referenced before assignment in enclosing scope", SYM_STR(id));
    return fail_at(I, F, n);
  }
  case SCOPE_GLOBAL: {
    Value *v = dict_get_sym_cached(F->globals, I->builtins, id, &n->u.name.cache);
    if (v) return val_incref(v);
    raise_name_error(I, F, id);
    return fail_at(I, F, n);
  }
  case SCOPE_UNRESOLVED: break;
  }
  TES_UNREACHABLE();
}

/* A local variable or an int literal, the usual operands and arguments, without the whole
 * dispatch of interp_eval. */
static inline Value *eval_operand(Interp *I, Frame *F, Node *n) {
  if (n->kind == AST_NAME && n->u.name.scope == SCOPE_LOCAL) {
    Value *v = F->env->u.env->slots[n->u.name.slot];
    if (v) return val_incref(v);
  } else if (n->kind == AST_INT) {
    return val_incref(n->konst);
  }
  return interp_eval(I, F, n);
}

/* ---- operators, with fast paths for the int and float cases loops are made of ---- */

/* x OP y for the int operations that need no error and no bool result; false: not one. */
static bool int_fast(int op, int64_t x, int64_t y, int64_t *r) {
  switch (op) {
  case BIN_ADD: return !__builtin_add_overflow(x, y, r);
  case BIN_SUB: return !__builtin_sub_overflow(x, y, r);
  case BIN_MUL: return !__builtin_mul_overflow(x, y, r);
  case BIN_FLOORDIV:
  case BIN_MOD:
    if (y <= 0) return false;
    { /* floored: the remainder takes the divisor's sign */
      int64_t q = x / y, m = x % y;
      if (m < 0) q--, m += y;
      *r = op == BIN_MOD ? m : q;
    }
    return true;
  default: return false;
  }
}

static bool float_fast(int op, double x, double y, double *r) {
  switch (op) {
  case BIN_ADD: *r = x + y; return true;
  case BIN_SUB: *r = x - y; return true;
  case BIN_MUL: *r = x * y; return true;
  default: return false;
  }
}

/* a OP b, taking the references to a and b. A temporary operand (one reference, ours) of the
 * result's kind becomes the result, as in (i * i + 3) % m: no cell is made or freed. */
static Value *binop_take(Interp *I, int op, Value *a, Value *b) {
  Value *r = NULL, *reuse = a->refcnt == 1 ? a : b->refcnt == 1 ? b : NULL;
  if (a->kind == VAL_INT && b->kind == VAL_INT) {
    int64_t x;
    if (int_fast(op, a->u.i, b->u.i, &x)) {
      if (!val_int_small(x) && reuse) { /* only heap ints have one reference */
        reuse->u.i = x;
        val_decref(reuse == a ? b : a);
        return reuse;
      }
      r = val_int(x);
    }
  } else if (a->kind == VAL_FLOAT && b->kind == VAL_FLOAT) {
    double x;
    if (float_fast(op, a->u.f, b->u.f, &x)) {
      if (reuse) {
        reuse->u.f = x;
        val_decref(reuse == a ? b : a);
        return reuse;
      }
      r = val_float(x);
    }
  }
  if (!r) r = val_binop(I, op, a, b);
  val_decref(a);
  val_decref(b);
  return r;
}

static Value *compare(Interp *I, CmpOp op, Value *a, Value *b) {
  if (a->kind == VAL_INT && b->kind == VAL_INT) {
    int64_t x = a->u.i, y = b->u.i;
    switch (op) {
    case CMP_LT: return val_bool(x < y);
    case CMP_LE: return val_bool(x <= y);
    case CMP_GT: return val_bool(x > y);
    case CMP_GE: return val_bool(x >= y);
    case CMP_EQ: return val_bool(x == y);
    case CMP_NE: return val_bool(x != y);
    default: break;
    }
  }
  if (op == CMP_IS) return val_bool(a == b);
  if (op == CMP_ISNOT) return val_bool(a != b);
  return val_compare(I, op, a, b);
}

int interp_truthy(Interp *I, Value *v) {
  if (v->kind == VAL_BOOL) return (int)v->u.i;
  return val_truthy(I, v);
}

EVAL_HELPER eval_compare(Interp *I, Frame *F, Node *n) {
  Value *left = eval_operand(I, F, n->u.cmp.first);
  if (!left) return NULL;
  for (int i = 0; i < n->u.cmp.n; i++) {
    Value *right = eval_operand(I, F, n->u.cmp.rest[i]);
    if (!right) return val_decref(left), NULL;
    Value *r = compare(I, n->u.cmp.ops[i], left, right);
    val_decref(left);
    if (!r) return val_decref(right), fail_at(I, F, n);
    if (i == n->u.cmp.n - 1) return val_decref(right), r;
    int t = interp_truthy(I, r);
    if (t <= 0) return val_decref(right), t < 0 ? (val_decref(r), fail_at(I, F, n)) : r;
    val_decref(r);
    left = right;
  }
  return left;
}

static bool has_logic(Value *v) { return v->kind == VAL_OBJ && v->u.obj.cls->logic; }

/* An object that builds `a and b` itself (a tensor expression): both sides are evaluated. */
static Value *logic_hook(Interp *I, Frame *F, Node *n, Value *a, Value **b) {
  LogicOp op = n->kind == AST_AND ? LOGIC_AND : LOGIC_OR;
  if (!has_logic(a) || !(*b = interp_eval(I, F, n->u.bin.b))) return NULL;
  Value *r = a->u.obj.cls->logic(I, op, a, *b);
  return r || !interp_error_pending(I) ? r : fail_at(I, F, n);
}

EVAL_HELPER eval_logic(Interp *I, Frame *F, Node *n) {
  Value *a = interp_eval(I, F, n->u.bin.a);
  if (!a) return NULL;
  Value *b = NULL;
  Value *built = logic_hook(I, F, n, a, &b);
  if (built || interp_error_pending(I)) return val_decref(a), val_xdecref(b), built;
  int t = interp_truthy(I, a);
  if (t < 0) return val_decref(a), val_xdecref(b), fail_at(I, F, n);
  if ((n->kind == AST_AND) != (t != 0)) return val_xdecref(b), a; /* `and` stops on false */
  val_decref(a);
  return b ? b : interp_eval(I, F, n->u.bin.b);
}

/* ---- calls ---- */

/* Argument vector with room for the common case on the stack. */
typedef struct ArgVec {
  int n, cap;
  Value **v;
  Value *inline_[8];
} ArgVec;

static void argvec_push(ArgVec *a, Value *v) {
  if (a->n == a->cap) {
    int cap = a->cap * 2;
    Value **nv = xmalloc(sizeof(Value *) * (size_t)cap);
    memcpy(nv, a->v, sizeof(Value *) * (size_t)a->n);
    if (a->v != a->inline_) free(a->v);
    a->v = nv;
    a->cap = cap;
  }
  a->v[a->n++] = v;
}

static void argvec_free(ArgVec *a) {
  for (int i = 0; i < a->n; i++) val_decref(a->v[i]);
  if (a->v != a->inline_) free(a->v);
}

#define ARGVEC_INIT(a) ((a).n = 0, (a).cap = 8, (a).v = (a).inline_)

/* Room for extra more values: a starred list is as long as a script makes it. */
static int argvec_reserve(Interp *I, ArgVec *a, int64_t extra) {
  if (a->n + extra <= a->cap) return 0;
  if (extra > INT_MAX / 2 - a->n) return val_mem_error(I, ((double)a->n + (double)extra) * 8), -1;
  Value **nv = val_alloc(I, a->n + extra, sizeof *nv);
  if (!nv) return -1;
  memcpy(nv, a->v, sizeof(Value *) * (size_t)a->n);
  if (a->v != a->inline_) free(a->v);
  a->v = nv;
  a->cap = a->n + (int)extra;
  return 0;
}

static int push_starred(Interp *I, ArgVec *pos, Value *seq) {
  Value *l = val_to_list(I, seq);
  if (!l) return -1;
  if (argvec_reserve(I, pos, VAL_SEQ_N(l)) < 0) return val_decref(l), -1;
  for (int64_t i = 0; i < VAL_SEQ_N(l); i++) argvec_push(pos, val_incref(VAL_SEQ_ITEM(l, i)));
  val_decref(l);
  return 0;
}

static int push_kwargs(Interp *I, ArgVec *names, ArgVec *vals, Value *d) {
  if (d->kind != VAL_DICT) {
    interp_raise(I, EXC_TypeError, "argument after ** must be a dict, not %s", val_type_name(d));
    return -1;
  }
  int64_t pos = 0;
  Value *k, *v;
  while (dict_next(d, &pos, &k, &v)) {
    if (k->kind != VAL_STR) {
      interp_raise(I, EXC_TypeError, "keywords must be strings");
      return -1;
    }
    argvec_push(names, val_incref(sym_intern(k->u.str.s, (size_t)k->u.str.len)));
    argvec_push(vals, val_incref(v));
  }
  return 0;
}

static int eval_args(Interp *I, Frame *F, NodeList *args, ArgVec *pos, ArgVec *names,
                     ArgVec *vals) {
  for (int i = 0; i < args->n; i++) {
    Node *a = args->items[i];
    Node *e = a->kind == AST_STARRED ? a->u.unary.a : a->kind == AST_KEYWORD ? a->u.kw.value : a;
    Value *v = interp_eval(I, F, e);
    if (!v) return -1;
    int r = 0;
    if (a->kind == AST_STARRED) {
      r = push_starred(I, pos, v);
    } else if (a->kind == AST_KEYWORD && !a->u.kw.name) {
      r = push_kwargs(I, names, vals, v);
    } else if (a->kind == AST_KEYWORD) {
      argvec_push(names, a->u.kw.name);
      argvec_push(vals, val_incref(v));
    } else {
      argvec_push(pos, val_incref(v));
    }
    val_decref(v);
    if (r < 0) return fail_at(I, F, a), -1;
  }
  return 0;
}

/* A call whose arguments are all positional, none starred, at most `max`: the common case,
 * which needs no argument vectors. */
static bool plain_call(NodeList *args, int max) {
  if (args->n > max) return false;
  for (int i = 0; i < args->n; i++)
    if (args->items[i]->kind == AST_STARRED || args->items[i]->kind == AST_KEYWORD) return false;
  return true;
}

EVAL_HELPER eval_call(Interp *I, Frame *F, Node *n) {
  Value *fn = interp_eval(I, F, n->u.call.fn);
  if (!fn) return NULL;
  NodeList *args = &n->u.call.args;
  if (plain_call(args, 8)) {
    Value *v[8], *r = NULL;
    int i = 0;
    while (i < args->n && (v[i] = eval_operand(I, F, args->items[i]))) i++;
    if (i == args->n) {
      CallArgs ca = {i, v, 0, NULL, NULL};
      if (!(r = interp_call(I, fn, &ca))) interp_trace_call(I, F, n->loc);
    }
    while (i > 0) val_decref(v[--i]);
    val_decref(fn);
    return r;
  }
  ArgVec pos, names, vals;
  ARGVEC_INIT(pos);
  ARGVEC_INIT(names);
  ARGVEC_INIT(vals);
  Value *r = NULL;
  if (eval_args(I, F, &n->u.call.args, &pos, &names, &vals) == 0) {
    CallArgs ca = {pos.n, pos.v, names.n, names.v, vals.v};
    r = interp_call(I, fn, &ca);
    if (!r) interp_trace_call(I, F, n->loc);
  }
  argvec_free(&pos);
  argvec_free(&names); /* interned names are immortal: the decref is a no-op */
  argvec_free(&vals);
  val_decref(fn);
  return r;
}

/* ---- displays and comprehensions ---- */

EVAL_HELPER eval_seq(Interp *I, Frame *F, Node *n) {
  ArgVec items;
  ARGVEC_INIT(items);
  for (int i = 0; i < n->u.list.n; i++) {
    Node *e = n->u.list.items[i];
    Value *v = interp_eval(I, F, e->kind == AST_STARRED ? e->u.unary.a : e);
    if (!v) return argvec_free(&items), NULL;
    if (e->kind == AST_STARRED) {
      int r = push_starred(I, &items, v);
      val_decref(v);
      if (r < 0) return argvec_free(&items), fail_at(I, F, e);
    } else {
      argvec_push(&items, v);
    }
  }
  Value *r;
  r = n->kind == AST_LIST ? val_list_alloc(I, items.n) : val_tuple_alloc(I, items.n);
  if (!r) return argvec_free(&items), fail_at(I, F, n);
  if (n->kind == AST_LIST)
    for (int i = 0; i < items.n; i++) val_list_append_take(r, items.v[i]);
  else
    for (int i = 0; i < items.n; i++) val_seq_set_take(r, i, items.v[i]);
  items.n = 0;
  argvec_free(&items);
  return r;
}

EVAL_HELPER eval_dict(Interp *I, Frame *F, Node *n) {
  Value *d = val_dict_new();
  for (int i = 0; i < n->u.dict.keys.n; i++) {
    Value *k = interp_eval(I, F, n->u.dict.keys.items[i]);
    if (!k) return val_decref(d), NULL;
    Value *v = interp_eval(I, F, n->u.dict.values.items[i]);
    if (!v) return val_decref(k), val_decref(d), NULL;
    int r = dict_set(I, d, k, v);
    val_decref(k);
    val_decref(v);
    if (r < 0) return val_decref(d), fail_at(I, F, n->u.dict.keys.items[i]);
  }
  return d;
}

static int comp_emit(Interp *I, Frame *C, Node *n, Value *result) {
  Value *v = interp_eval(I, C, n->u.comp.elt);
  if (!v) return -1;
  if (n->kind == AST_LISTCOMP) return val_list_push_take(I, result, v);
  Value *k = interp_eval(I, C, n->u.comp.key);
  if (!k) return val_decref(v), -1;
  int r = dict_set(I, result, k, v);
  val_decref(k);
  val_decref(v);
  if (r < 0) fail_at(I, C, n->u.comp.key);
  return r;
}

static int comp_filter(Interp *I, Frame *C, NodeList *ifs) {
  for (int i = 0; i < ifs->n; i++) {
    Value *c = interp_eval(I, C, ifs->items[i]);
    if (!c) return -1;
    int t = interp_truthy(I, c);
    val_decref(c);
    if (t <= 0) return t < 0 ? (fail_at(I, C, ifs->items[i]), -1) : 0;
  }
  return 1;
}

static int comp_loop(Interp *I, Frame *C, Node *n, int level, Value *iterable, Value *result) {
  Node *g = n->u.comp.gens.items[level];
  ValIter it;
  if (val_iter_init(I, &it, iterable) < 0) return fail_at(I, C, g->u.compfor.iter), -1;
  int r = 0;
  Value *item;
  while (r == 0 && (item = val_iter_next(I, &it))) {
    r = interp_assign(I, C, g->u.compfor.target, item);
    val_decref(item);
    if (r < 0) break;
    int keep = comp_filter(I, C, &g->u.compfor.ifs);
    if (keep < 0) r = -1;
    if (keep <= 0) continue;
    if (level + 1 == n->u.comp.gens.n) {
      r = comp_emit(I, C, n, result);
    } else {
      Value *inner = interp_eval(I, C, n->u.comp.gens.items[level + 1]->u.compfor.iter);
      r = inner ? comp_loop(I, C, n, level + 1, inner, result) : -1;
      val_xdecref(inner);
    }
    if (r == 0) r = interp_tick(I);
  }
  if (r == 0 && interp_error_pending(I)) r = -1;
  val_iter_done(&it);
  return r;
}

EVAL_HELPER eval_comp(Interp *I, Frame *F, Node *n) {
  Value *first = interp_eval(I, F, n->u.comp.gens.items[0]->u.compfor.iter);
  if (!first) return NULL;
  FuncDef *d = n->u.comp.scope;
  Frame C = {.env = val_env_new(d->nslots, F->env), .def = d, .unit = F->unit,
             .globals = F->globals, .name = d->name};
  Value *result = n->kind == AST_LISTCOMP ? val_list_new(0) : val_dict_new();
  int r = comp_loop(I, &C, n, 0, first, result);
  val_decref(first);
  val_decref(C.env);
  if (r < 0) return val_decref(result), NULL;
  return result;
}

/* ---- f-strings ---- */

static int fstr_part(Interp *I, Frame *F, Node *p, StrBuf *sb) {
  if (p->kind == AST_STR) {
    sb_putn(sb, p->u.str.s, p->u.str.len);
    return 0;
  }
  Value *v = interp_eval(I, F, p->u.fmt.expr);
  if (!v) return -1;
  if (p->u.fmt.conv) {
    Value *c = p->u.fmt.conv == 'r' ? val_repr(I, v) : val_to_str(I, v);
    val_decref(v);
    if (!(v = c)) return fail_at(I, F, p), -1;
  }
  Value *spec = p->u.fmt.spec ? interp_eval(I, F, p->u.fmt.spec) : NULL;
  if (p->u.fmt.spec && !spec) return val_decref(v), -1;
  Value *s = spec ? val_format(I, v, spec->u.str.s, (size_t)spec->u.str.len) : val_format(I, v, "", 0);
  val_decref(v);
  val_xdecref(spec);
  if (!s) return fail_at(I, F, p), -1;
  sb_putn(sb, s->u.str.s, (size_t)s->u.str.len);
  val_decref(s);
  return 0;
}

EVAL_HELPER eval_fstr(Interp *I, Frame *F, Node *n) {
  StrBuf sb = {.fallible = true};
  for (int i = 0; i < n->u.list.n; i++)
    if (fstr_part(I, F, n->u.list.items[i], &sb) < 0) return sb_free(&sb), NULL;
  Value *r = val_str_sb_fallible(I, &sb);
  return r ? r : fail_at(I, F, n);
}

/* ---- the rest ---- */

EVAL_HELPER eval_slice(Interp *I, Frame *F, Node *n) {
  Node *parts[3] = {n->u.slice.lo, n->u.slice.hi, n->u.slice.step};
  Value *v[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) {
    if (parts[i] && !(v[i] = interp_eval(I, F, parts[i]))) {
      for (int j = 0; j < i; j++) val_xdecref(v[j]);
      return NULL;
    }
  }
  Value *s = val_slice_new(v[0], v[1], v[2]);
  for (int i = 0; i < 3; i++) val_xdecref(v[i]);
  return s;
}

EVAL_HELPER eval_binop(Interp *I, Frame *F, Node *n) {
  Value *a = eval_operand(I, F, n->u.bin.a);
  if (!a) return NULL;
  Value *b = eval_operand(I, F, n->u.bin.b);
  if (!b) return val_decref(a), NULL;
  Value *r = binop_take(I, n->u.bin.op, a, b);
  return r ? r : fail_at(I, F, n);
}

EVAL_HELPER eval_unary(Interp *I, Frame *F, Node *n) {
  Value *a = interp_eval(I, F, n->u.unary.a);
  if (!a) return NULL;
  Value *r;
  if (n->u.unary.op == UN_NOT && has_logic(a) &&
      ((r = a->u.obj.cls->logic(I, LOGIC_NOT, a, NULL)) || interp_error_pending(I))) {
    /* built by the object */
  } else if (n->u.unary.op == UN_NOT) {
    int t = interp_truthy(I, a);
    r = t < 0 ? NULL : val_bool(!t);
  } else if (n->u.unary.op == UN_NEG && a->kind == VAL_FLOAT) {
    r = val_float(-a->u.f);
  } else {
    r = val_unop(I, n->u.unary.op, a);
  }
  val_decref(a);
  return r ? r : fail_at(I, F, n);
}

EVAL_HELPER eval_attr(Interp *I, Frame *F, Node *n) {
  Value *o = interp_eval(I, F, n->u.attr.obj);
  if (!o) return NULL;
  Value *r = val_getattr(I, o, n->u.attr.name);
  val_decref(o);
  return r ? r : fail_at(I, F, n);
}

EVAL_HELPER eval_subscript(Interp *I, Frame *F, Node *n) {
  Value *o = interp_eval(I, F, n->u.sub.obj);
  if (!o) return NULL;
  Value *k = interp_eval(I, F, n->u.sub.index);
  if (!k) return val_decref(o), NULL;
  Value *r = val_getitem(I, o, k);
  val_decref(o);
  val_decref(k);
  return r ? r : fail_at(I, F, n);
}

EVAL_HELPER eval_ifexp(Interp *I, Frame *F, Node *n) {
  Value *c = interp_eval(I, F, n->u.ifexp.cond);
  if (!c) return NULL;
  int t = interp_truthy(I, c);
  val_decref(c);
  if (t < 0) return fail_at(I, F, n);
  return interp_eval(I, F, t ? n->u.ifexp.then : n->u.ifexp.orelse);
}

Value *interp_eval(Interp *I, Frame *F, Node *n) {
  switch (n->kind) {
  case AST_INT:
  case AST_FLOAT:
  case AST_STR: return val_incref(n->konst);
  case AST_TRUE: return val_bool(true);
  case AST_FALSE: return val_bool(false);
  case AST_NONE: return val_none();
  case AST_ELLIPSIS: return val_ellipsis();
  case AST_NAME:
    if (n->u.name.scope == SCOPE_LOCAL && F->env->u.env->slots[n->u.name.slot])
      return val_incref(F->env->u.env->slots[n->u.name.slot]);
    return load_name(I, F, n);
  case AST_FSTR: return eval_fstr(I, F, n);
  case AST_ATTR: return eval_attr(I, F, n);
  case AST_SUBSCRIPT: return eval_subscript(I, F, n);
  case AST_SLICE: return eval_slice(I, F, n);
  case AST_CALL: return eval_call(I, F, n);
  case AST_BINOP: return eval_binop(I, F, n);
  case AST_UNARY: return eval_unary(I, F, n);
  case AST_AND:
  case AST_OR: return eval_logic(I, F, n);
  case AST_COMPARE: return eval_compare(I, F, n);
  case AST_IFEXP: return eval_ifexp(I, F, n);
  case AST_LAMBDA: return interp_make_function(I, F, n->u.def);
  case AST_TUPLE:
  case AST_LIST: return eval_seq(I, F, n);
  case AST_DICT: return eval_dict(I, F, n);
  case AST_LISTCOMP:
  case AST_DICTCOMP: return eval_comp(I, F, n);
  /* Kinds that only occur inside the nodes above, and statements: the parser and resolve.c
   * never hand them to interp_eval. */
  case AST_FMTVAL: case AST_KEYWORD: case AST_STARRED: case AST_COMPFOR:
  case AST_EXPRSTMT: case AST_ASSIGN: case AST_AUGASSIGN: case AST_IF: case AST_FOR:
  case AST_WHILE: case AST_BREAK: case AST_CONTINUE: case AST_PASS: case AST_DEF:
  case AST_RETURN: case AST_IMPORT: case AST_FROMIMPORT: case AST_WITH: case AST_ASSERT:
  case AST_TRY: case AST_EXCEPT: case AST_RAISE: case AST_GLOBAL: case AST_DEL:
  case AST_MODULE: case AST_KIND_COUNT: break;
  }
  TES_UNREACHABLE();
}
