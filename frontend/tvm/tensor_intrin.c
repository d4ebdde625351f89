/* tensor_intrin.c: te.decl_tensor_intrin and the TensorIntrin value (SPEC §12): a compute
 * declaring what an instruction computes, the buffers its operands bind to, and the
 * statements (intrin_func's body, reduce_init, reduce_update) that do it. Stage.tensorize
 * (sched.c) takes it; ir/schedule/tensorize.c matches and emits it. The value points at a
 * TensorIntrin of the session's arena and owns nothing. */
#include <string.h>

#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tensor_intrin.h"
#include "frontend/tvm/tir.h"

extern const ObjClass bi_tensor_intrin_class;

TensorIntrin *bi_tensor_intrin_of(Value *v) { return val_obj_of(v, &bi_tensor_intrin_class); }

static TensorIntrin *intrin_at(Value *self) { return self->u.obj.p; }

static Value *intrin_name(Interp *I, Value *self) { return val_cstr(intrin_at(self)->name); }
static Value *intrin_op(Interp *I, Value *self) { return bi_te_wrap_op(intrin_at(self)->op); }

static Value *intrin_buffers(Interp *I, Value *self) {
  const TensorIntrin *in = intrin_at(self);
  Value *l = val_list_new(in->nbuffers);
  for (int i = 0; i < in->nbuffers; i++) val_list_append_take(l, bi_tir_wrap_buffer(in->buffers[i]));
  return l;
}

static Value *stmt_or_none(Stmt *s) { return s ? bi_tir_wrap_stmt(s) : val_none(); }
static Value *intrin_body(Interp *I, Value *self) { return stmt_or_none(intrin_at(self)->body); }
static Value *intrin_init(Interp *I, Value *self) {
  return stmt_or_none(intrin_at(self)->reduce_init);
}
static Value *intrin_update(Interp *I, Value *self) {
  return stmt_or_none(intrin_at(self)->reduce_update);
}

static const Property intrin_props[] = {
    {"name", intrin_name, "the intrinsic's name"},
    {"op", intrin_op, "the compute it stands for"},
    {"buffers", intrin_buffers, "the buffers of the op's inputs, then of its outputs"},
    {"body", intrin_body, "the statement computing the whole region, or None"},
    {"reduce_init", intrin_init, "the statement starting a reduction, or None"},
    {"reduce_update", intrin_update, "the statement going on with a reduction, or None"},
    {0},
};

static Value *intrin_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "TensorIntrin(name=%s, op=%s)", intrin_at(self)->name, intrin_at(self)->op->name);
  return val_str_sb(&b);
}

const ObjClass bi_tensor_intrin_class = {
    .type = {"TensorIntrin", NULL, VAL_OBJ, NULL},
    .repr = intrin_repr,
    .props = intrin_props,
};

/* ---- decl_tensor_intrin ---- */

/* binds[t] for a tensor t (the dict's keys compare by the node they wrap), or NULL. */
static int bound_buffer(Interp *I, Value *binds, const Tensor *t, Buffer **out) {
  *out = NULL;
  if (!binds || binds->kind == VAL_NONE) return 0;
  int64_t pos = 0;
  Value *k, *v;
  while (dict_next(binds, &pos, &k, &v)) {
    if (bi_te_tensor_of(k) != t) continue;
    if (!(*out = bi_tir_buffer_of(v))) {
      interp_raise(I, EXC_TypeError, "decl_tensor_intrin: binds[%s] must be a Buffer, not '%s'",
                   t->name, val_type_name(v));
      return -1;
    }
    return 0;
  }
  return 0;
}

/* default_buffer_params: {"offset_factor": n, "data_alignment": n} (others are refused). */
static int buffer_params(Interp *I, Value *d, int *factor, int *align) {
  *factor = 0, *align = -1;
  if (!d || d->kind == VAL_NONE) return 0;
  if (d->kind != VAL_DICT) {
    interp_raise(I, EXC_TypeError, "decl_tensor_intrin: default_buffer_params must be a dict");
    return -1;
  }
  int64_t pos = 0;
  Value *k, *v;
  while (dict_next(d, &pos, &k, &v)) {
    bool f = k->kind == VAL_STR && strcmp(k->u.str.s, "offset_factor") == 0;
    bool al = k->kind == VAL_STR && strcmp(k->u.str.s, "data_alignment") == 0;
    if ((!f && !al) || v->kind != VAL_INT) {
      interp_raise(I, EXC_ValueError,
                   "decl_tensor_intrin: default_buffer_params takes offset_factor and "
                   "data_alignment (ints)");
      return -1;
    }
    *(f ? factor : align) = (int)v->u.i;
  }
  return 0;
}

/* A compact buffer over t, as TVM's default: an elem_offset variable when offset_factor is
 * given. */
static Buffer *default_buffer(Interp *I, const Tensor *t, int factor, int align) {
  Arena *a = arena(I);
  Buffer *b = arena_alloc(a, sizeof *b);
  const char *name = t->op->name;
  *b = (Buffer){.name = name,
                .data = ir_var(a, name, DT_HANDLE64),
                .dtype = t->dtype,
                .ndim = t->ndim,
                .shape = t->shape,
                .scope = "global",
                .data_alignment = align > 0 ? align : 64,
                .offset_factor = factor > 0 ? factor : 1};
  if (factor > 0) {
    size_t n = strlen(name) + sizeof "_elem_offset";
    char *vn = arena_alloc(a, n);
    snprintf(vn, n, "%s_elem_offset", name);
    b->elem_offset = ir_varref(a, ir_var(a, vn, t->ndim ? t->shape[0]->dtype : DT_I32));
  }
  return b;
}

static Value *buffer_list(int from, int to, Buffer **bufs) {
  Value *l = val_list_new(to - from);
  for (int i = from; i < to; i++) val_list_append_take(l, bi_tir_wrap_buffer(bufs[i]));
  return l;
}

/* One part of intrin_func's result: a Stmt, a call (as Evaluate) or None. */
static int part(Interp *I, Value *v, const char *what, Stmt **out) {
  *out = NULL;
  if (v->kind == VAL_NONE) return 0;
  *out = bi_tir_to_stmt(I, v, what);
  return *out ? 0 : -1;
}

static Value *fn_decl_tensor_intrin(Interp *I, Value *self, Value **a) {
  Arena *ar = arena(I);
  Operation *op = bi_te_op_of(a[0]);
  if (!op || op->kind != OP_COMPUTE)
    return interp_raise(I, EXC_TypeError,
                        "decl_tensor_intrin: op must be a compute operation (C.op), not '%s'",
                        val_type_name(a[0]));
  const char *name = bi_te_str_arg(I, a[3], "decl_tensor_intrin", "name", NULL);
  if (!name && interp_error_pending(I)) return NULL;
  if (!name) {
    size_t n = strlen(op->name) + sizeof ".intrin";
    char *s = arena_alloc(ar, n);
    snprintf(s, n, "%s.intrin", op->name);
    name = s;
  }
  int factor, align;
  if (buffer_params(I, a[4], &factor, &align) < 0) return NULL;
  TensorIntrin *in = arena_alloc(ar, sizeof *in);
  in->name = arena_strndup(ar, name, strlen(name));
  in->op = op;
  in->nbuffers = op->ninputs + op->noutputs;
  in->buffers = arena_alloc(ar, (size_t)in->nbuffers * sizeof *in->buffers);
  for (int i = 0; i < in->nbuffers; i++) {
    const Tensor *t = i < op->ninputs ? op->inputs[i] : op->outputs[i - op->ninputs];
    if (bound_buffer(I, a[2], t, &in->buffers[i]) < 0) return NULL;
    Buffer *b = in->buffers[i];
    if (!b) {
      in->buffers[i] = default_buffer(I, t, factor, align);
      continue;
    }
    char x[32], y[32];
    if (b->ndim != t->ndim || !dt_eq(b->dtype, t->dtype))
      return interp_raise(I, EXC_ValueError,
                          "decl_tensor_intrin: buffer %s (%s, %d dimensions) bound to tensor %s "
                          "(%s, %d dimensions)",
                          b->name, dt_name(b->dtype, x), b->ndim, t->name, dt_name(t->dtype, y),
                          t->ndim);
  }
  Value *args[2] = {buffer_list(0, op->ninputs, in->buffers),
                    buffer_list(op->ninputs, in->nbuffers, in->buffers)};
  Value *r = interp_callv(I, a[1], 2, args);
  val_decref(args[0]);
  val_decref(args[1]);
  if (!r) return NULL;
  int rc;
  if (r->kind == VAL_TUPLE && VAL_SEQ_N(r) == 3) {
    rc = part(I, VAL_SEQ_ITEM(r, 0), "decl_tensor_intrin: the body intrin_func returns",
              &in->body);
    if (rc == 0)
      rc = part(I, VAL_SEQ_ITEM(r, 1), "decl_tensor_intrin: the reset intrin_func returns",
                &in->reduce_init);
    if (rc == 0)
      rc = part(I, VAL_SEQ_ITEM(r, 2), "decl_tensor_intrin: the update intrin_func returns",
                &in->reduce_update);
  } else {
    rc = part(I, r, "decl_tensor_intrin: what intrin_func returns (a Stmt or (body, reset, "
                    "update))",
              &in->body);
  }
  val_decref(r);
  if (rc < 0) return NULL;
  return val_obj_new(&bi_tensor_intrin_class, in);
}

const Builtin bi_tensor_intrin_funcs[] = {
    {"decl_tensor_intrin", fn_decl_tensor_intrin, 2,
     PARAMS("op", "intrin_func", "binds", "name", "default_buffer_params"),
     "decl_tensor_intrin(op, intrin_func, binds=None, name=None, default_buffer_params=None) "
     "-> TensorIntrin: intrin_func(ins, outs) gives the statements computing op"},
    {0},
};

int bi_tensor_intrin_init(Interp *I, Value *m) {
  for (const Builtin *f = bi_tensor_intrin_funcs; f->name; f++)
    bi_set_member_take(m, f->name, val_builtin(f, NULL));
  bi_set_member_take(m, bi_tensor_intrin_class.type.name,
                     val_type(&bi_tensor_intrin_class.type));
  return 0;
}
