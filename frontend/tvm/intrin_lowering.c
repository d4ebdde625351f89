/* intrin_lowering.c: TVM's intrinsic lowering rules, as its "Intrinsics and Math Functions"
 * tutorial uses them: tvm.ir.register_intrin_lowering, tvm.ir.register_op_attr, the Op that
 * Call.op gives, tvm.tir.CallEffectKind, and the build step that applies the rules.
 *
 * A rule is a TES function registered for an op name ("tir.exp", or an op of the script's own
 * that it calls with tvm.tir.call_intrin) and a target kind ("cuda", "llvm", "c", or
 * "default" for every target). tvm.build hands each call of such an op, in the code it is
 * about to generate, to the rule for the build's kind (else the "default" one) and puts what
 * the rule returns in its place, lowering that again; a rule that returns its argument leaves
 * the call to the back end, which emits the ops it knows as it always does. On the cuda target
 * the kernels get the rules, the host code only the "default" ones. A rule replaces one of
 * lower level and is ignored beside one of higher level; two rules of one level for one op
 * and kind are an error, as in TVM. The back ends' own translations (tir.exp to expf on cuda)
 * are not rules here, so a rule of any level overrides them (TVM's have level 10).
 *
 * The registry is a dict of the session (Interp.intrin_rules): "KIND:OP" to (rule, level), and
 * "effect:OP" to the op's TCallEffectKind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir_impl.h"
#include "ir/strbuf.h"

enum { RULE_DEPTH_MAX = 16 }; /* rules applied to the result of a rule, nested */

static Value *registry(Interp *I) {
  if (!I->intrin_rules) I->intrin_rules = val_dict_new();
  return I->intrin_rules;
}

static Sym *key(const char *what, const char *op) {
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s:%s", what, op);
  Sym *s = sym_cstr(sb_cstr(&b));
  sb_free(&b);
  return s;
}

/* ---- tvm.ir.Op: an operator by name, what Call.op gives ---- */

static void op_free(void *p) { free(p); }

static Value *op_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "Op(%s)", (const char *)self->u.obj.p);
  return val_str_sb(&b);
}

static Value *op_name(Interp *I, Value *self) { return val_cstr(self->u.obj.p); }

static const Property op_props[] = {{"name", op_name, "the operator's name, a str ('tir.exp')"},
                                    {0}};

static const ObjClass op_class;

/* Ops are one per name in TVM, so two Op values of one name are the same op. */
static Value *op_compare(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  const char *x = val_obj_of(a, &op_class), *y = val_obj_of(b, &op_class);
  if ((op != CMP_EQ && op != CMP_NE) || !x || !y) return NULL;
  return val_bool((strcmp(x, y) == 0) == (op == CMP_EQ));
}

static int op_hash(Interp *I, Value *self, uint64_t *out) { /* the name's, as a str hashes */
  Value *name = val_cstr(self->u.obj.p);
  int rc = val_hash(I, name, out);
  val_decref(name);
  return rc;
}

static const ObjClass op_class = {
    .type = {"Op", NULL, VAL_OBJ, NULL},
    .free = op_free,
    .repr = op_repr,
    .compare = op_compare,
    .hash = op_hash,
    .props = op_props,
};

Value *bi_ir_op_new(const char *name) { return val_obj_new(&op_class, xstrdup(name)); }

const char *bi_ir_op_name(Value *v) { return val_obj_of(v, &op_class); }

/* ---- tvm.tir.CallEffectKind ---- */

static Value *effect_expr_annotation(Interp *I, Value *self) { return val_int(0); }
static Value *effect_pure(Interp *I, Value *self) { return val_int(1); }
static Value *effect_read_state(Interp *I, Value *self) { return val_int(2); }
static Value *effect_update_state(Interp *I, Value *self) { return val_int(3); }

static const Property effect_props[] = {
    {"ExprAnnotation", effect_expr_annotation, "0: an annotation, the identity (likely)"},
    {"Pure", effect_pure, "1: no side effect, reads no state"},
    {"ReadState", effect_read_state, "2: reads state, writes none"},
    {"UpdateState", effect_update_state, "3: writes state"},
    {"Opaque", effect_update_state, "3: UpdateState, as TVM's Opaque is"},
    {0},
};

static Value *effect_repr(Interp *I, Value *self) {
  return val_cstr("<class 'tvm.tir.CallEffectKind'>");
}

static const ObjClass effect_class = {
    .type = {"CallEffectKind", NULL, VAL_OBJ, NULL},
    .repr = effect_repr,
    .props = effect_props,
};

int bi_ir_tir_init(Interp *I, Value *tir) {
  bi_set_member_take(tir, "CallEffectKind", val_obj_new(&effect_class, NULL));
  return 0;
}

bool bi_ir_op_is_pure(Interp *I, const char *op) {
  Value *v = I->intrin_rules ? dict_get_sym(I->intrin_rules, key("effect", op)) : NULL;
  return v && val_is_int(v) && (v->u.i == 0 || v->u.i == 1);
}

/* ---- registering ---- */

static const char *op_name_arg(Interp *I, Value *v, const char *fn) {
  const char *name = bi_ir_op_name(v);
  return name ? name : bi_te_str_arg(I, v, fn, "op_name", NULL);
}

static int rule_level(Interp *I, Value *v, const char *fn, int64_t *level) {
  *level = 10;
  if (!v || v->kind == VAL_NONE) return 0;
  if (!val_is_int(v)) {
    interp_raise(I, EXC_TypeError, "%s: level must be an int, not '%s'", fn, val_type_name(v));
    return -1;
  }
  *level = v->u.i;
  return 0;
}

/* Registers f for op and kind at level; f itself back, or NULL with an error raised. */
static Value *register_rule(Interp *I, const char *op, const char *kind, Value *f,
                            int64_t level) {
  if (!val_is_callable(f))
    return interp_raise(I, EXC_TypeError, "register_intrin_lowering: f must be callable, not '%s'",
                        val_type_name(f));
  Sym *k = key(kind, op);
  Value *old = dict_get_sym(registry(I), k);
  if (old) {
    int64_t was = VAL_SEQ_ITEM(old, 1)->u.i;
    if (was == level)
      return interp_raise(I, EXC_ValueError,
                          "register_intrin_lowering: %s already has a rule for '%s' at level "
                          "%lld; register at a higher level to replace it",
                          op, kind, (long long)level);
    if (was > level) return val_incref(f); /* the higher level stays */
  }
  Value *lv = val_int(level);
  Value *entry = val_tuple_of(2, f, lv);
  val_decref(lv);
  if (!entry) return NULL;
  dict_set_sym(registry(I), k, entry);
  val_decref(entry);
  return val_incref(f);
}

/* What register_intrin_lowering(op, target) without f gives: applied to a function, it
 * registers that and gives it back (a decorator). */
typedef struct PendingRule {
  char *op, *kind;
  int64_t level;
} PendingRule;

static void pending_free(void *p) {
  PendingRule *r = p;
  free(r->op), free(r->kind), free(r);
}

static Value *pending_call(Interp *I, Value *self, CallArgs *args) {
  const PendingRule *r = self->u.obj.p;
  if (args->n != 1 || args->nkw)
    return interp_raise(I, EXC_TypeError,
                        "register_intrin_lowering(\"%s\", \"%s\") takes the rule to register",
                        r->op, r->kind);
  return register_rule(I, r->op, r->kind, args->v[0], r->level);
}

static const ObjClass pending_class = {
    .type = {"register_intrin_lowering", NULL, VAL_OBJ, NULL},
    .free = pending_free,
    .call = pending_call,
};

/* register_intrin_lowering(op_name, target, f=None, level=10) */
static Value *fn_register_intrin_lowering(Interp *I, Value *self, Value **a) {
  const char *fn = "register_intrin_lowering";
  const char *op = op_name_arg(I, a[0], fn);
  const char *kind = op ? bi_te_str_arg(I, a[1], fn, "target", NULL) : NULL;
  int64_t level;
  if (!kind || rule_level(I, a[3], fn, &level) < 0) return NULL;
  if (a[2] && a[2]->kind != VAL_NONE) return register_rule(I, op, kind, a[2], level);
  PendingRule *r = xmalloc(sizeof *r);
  *r = (PendingRule){xstrdup(op), xstrdup(kind), level};
  return val_obj_new(&pending_class, r);
}

/* register_op_attr(op_name, attr_key, value=None, level=10): TCallEffectKind is kept (a Pure
 * or ExprAnnotation op's calls are pure); FLowerIntrinsic keys ("cuda.FLowerIntrinsic") are
 * rules; other keys are accepted and have no use in tes. */
static Value *fn_register_op_attr(Interp *I, Value *self, Value **a) {
  const char *fn = "register_op_attr";
  const char *op = op_name_arg(I, a[0], fn);
  const char *attr = op ? bi_te_str_arg(I, a[1], fn, "attr_key", NULL) : NULL;
  int64_t level;
  if (!attr || rule_level(I, a[3], fn, &level) < 0) return NULL;
  if (!a[2] || a[2]->kind == VAL_NONE)
    return interp_raise(I, EXC_TypeError, "not supported yet: register_op_attr as a decorator "
                                          "(give the value)");
  const char *dot = strrchr(attr, '.');
  if (dot && strcmp(dot, ".FLowerIntrinsic") == 0) {
    char *kind = xstrdup(attr);
    kind[dot - attr] = '\0';
    Value *r = register_rule(I, op, kind, a[2], level);
    free(kind);
    if (!r) return NULL;
    val_decref(r);
    return val_none();
  }
  if (strcmp(attr, "TCallEffectKind") == 0) {
    Expr *e = bi_te_expr_of(a[2]);
    int64_t v;
    if (!(val_is_int(a[2]) ? (v = a[2]->u.i, 1) : e && ir_as_int(e, &v)) || v < 0 || v > 3)
      return interp_raise(I, EXC_ValueError, "register_op_attr: TCallEffectKind must be one of "
                                             "tvm.tir.CallEffectKind's values");
    Value *iv = val_int(v);
    dict_set_sym(registry(I), key("effect", op), iv);
    val_decref(iv);
  }
  return val_none();
}

const Builtin bi_ir_funcs[] = {
    {"register_intrin_lowering", fn_register_intrin_lowering, 2,
     PARAMS("op_name", "target", "f", "level"),
     "register_intrin_lowering(op_name, target, f=None, level=10) -> f: f(call) -> PrimExpr "
     "replaces op_name's calls when building for target (\"default\": any); without f, a "
     "decorator"},
    {"register_op_attr", fn_register_op_attr, 2, PARAMS("op_name", "attr_key", "value", "level"),
     "register_op_attr(op_name, attr_key, value, level=10) -> None: TCallEffectKind (pure calls) "
     "or KIND.FLowerIntrinsic (a lowering rule)"},
    {0},
};

int bi_ir_module_init(Interp *I, Value *m) {
  bi_set_member_take(m, "Op", val_type(&op_class.type));
  return 0;
}

/* ---- the build step ---- */

typedef struct RuleCtx {
  IrMutator m; /* first: the mutator's hooks get this context */
  Interp *I;
  const char *kind; /* the target kind, or NULL: "default" rules only */
  int depth;
  bool failed;
} RuleCtx;

static Value *rule_for(Interp *I, const char *kind, const char *op) {
  Value *r = kind ? dict_get_sym(I->intrin_rules, key(kind, op)) : NULL;
  if (!r) r = dict_get_sym(I->intrin_rules, key("default", op));
  return r ? VAL_SEQ_ITEM(r, 0) : NULL;
}

static Expr *apply_rules(IrMutator *m, Expr *e) {
  RuleCtx *c = (RuleCtx *)m;
  Value *f = !c->failed && e->kind == EXPR_CALL ? rule_for(c->I, c->kind, e->u.call.op) : NULL;
  if (!f) return c->failed ? e : ir_mutate_children_expr(m, e);
  if (c->depth == RULE_DEPTH_MAX) {
    interp_raise(c->I, EXC_BuildError,
                 "the lowering rules of %s rewrote their own results %d times over; a rule "
                 "should return its argument when it has nothing to change",
                 e->u.call.op, RULE_DEPTH_MAX);
    c->failed = true;
    return e;
  }
  Value *arg = bi_te_wrap_expr(e);
  Value *r = arg ? interp_callv(c->I, f, 1, &arg) : NULL;
  val_xdecref(arg);
  Expr *x = r ? bi_te_expr_of(r) : NULL;
  if (r && !x)
    interp_raise(c->I, EXC_TypeError, "the lowering rule of %s returned '%s', not a PrimExpr",
                 e->u.call.op, val_type_name(r));
  else if (x && !dt_eq(x->dtype, e->dtype)) {
    char want[32], got[32];
    interp_raise(c->I, EXC_TypeError, "the lowering rule of %s returned a %s for a call of %s",
                 e->u.call.op, dt_name(x->dtype, got), dt_name(e->dtype, want));
    x = NULL;
  }
  val_xdecref(r);
  if (!x) {
    c->failed = true;
    return e;
  }
  if (x == e) return ir_mutate_children_expr(m, e);
  c->depth++;
  x = ir_mutate_expr(m, x);
  c->depth--;
  return x;
}

const LoweredFunc *bi_ir_lower_intrin(Interp *I, Arena *a, const LoweredFunc *f,
                                      const char *target) {
  if (!I->intrin_rules || dict_len(I->intrin_rules) == 0) return f;
  bool gpu = bi_target_kind_is(target, "cuda");
  const char *kinds[] = {"cuda", "llvm", "c"};
  const char *kind = NULL;
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (bi_target_kind_is(target, kinds[i])) kind = kinds[i];
  RuleCtx c = {{a, apply_rules, NULL}, I, gpu ? NULL : kind, 0, false};
  LoweredFunc *g = arena_alloc(a, sizeof *g);
  *g = *f;
  g->body = ir_mutate_stmt(&c.m, f->body);
  if (f->ndevice) {
    g->device = arena_alloc(a, (size_t)f->ndevice * sizeof *g->device);
    c.kind = kind;
    for (int i = 0; i < f->ndevice && !c.failed; i++) {
      g->device[i] = f->device[i];
      g->device[i].body = ir_mutate_stmt(&c.m, f->device[i].body);
    }
  }
  return c.failed ? NULL : g;
}
