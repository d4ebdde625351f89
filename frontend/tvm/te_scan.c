/* te_scan.c: te.scan (SPEC §6): a recurrence over the first axis, as TVM's
 * python/tvm/te/operation.py builds it: the states' first rows come from init, every later
 * row t from update, which reads the states' earlier rows through state_placeholder. The
 * schedule rules and lowering are ir/schedule/scan.c's. */
#include <string.h>

#include "frontend/tvm/te_impl.h"

static bool same_extent(const Expr *x, const Expr *y) {
  int64_t a, b;
  if (ir_as_int(x, &a) && ir_as_int(y, &b)) return a == b;
  return ir_expr_equal(x, y);
}

/* TVM's ScanOp checks: per state, init, update and the placeholder agree in rank and dtype,
 * and in every dimension but the first. */
static int check_state(Interp *I, const Tensor *init, const Tensor *update, const Tensor *state) {
  StrBuf b = STRBUF_INIT;
  const Tensor *other[2] = {init, update};
  for (int k = 0; k < 2; k++) {
    const Tensor *t = other[k];
    bool ok = t->ndim == state->ndim && t->ndim >= 1 && dt_eq(t->dtype, state->dtype);
    for (int d = 1; ok && d < t->ndim; d++) ok = same_extent(t->shape[d], state->shape[d]);
    if (ok) continue;
    char d1[32], d2[32];
    sb_printf(&b, "scan: the %s %s (%s, shape [", k ? "update" : "init", t->name,
              dt_name(t->dtype, d1));
    for (int d = 0; d < t->ndim; d++) {
      if (d) sb_puts(&b, ", ");
      ir_print_expr(&b, t->shape[d]);
    }
    sb_printf(&b, "]) does not match the state %s (%s, shape [", state->name,
              dt_name(state->dtype, d2));
    for (int d = 0; d < state->ndim; d++) {
      if (d) sb_puts(&b, ", ");
      ir_print_expr(&b, state->shape[d]);
    }
    sb_puts(&b, "]): they must agree in dtype and in every dimension but the first");
    interp_raise(I, EXC_ValueError, "%s", sb_cstr(&b));
    sb_free(&b);
    return -1;
  }
  return 0;
}

/* te.scan(init, update, state_placeholder, inputs=None, name="scan", tag="", attrs=None) ->
 * Tensor, or a list of them for several states. */
Value *bi_te_scan(Interp *I, Value *self, Value **a) {
  int ninit, nupdate, nstate, ninputs = 0;
  Tensor **init = bi_te_tensor_list(I, a[0], "scan", "init", true, &ninit);
  Tensor **update = init ? bi_te_tensor_list(I, a[1], "scan", "update", true, &nupdate) : NULL;
  Tensor **state = update ? bi_te_tensor_list(I, a[2], "scan", "state_placeholder", true, &nstate) : NULL;
  if (!state) return NULL;
  if (ninit != nupdate || ninit != nstate)
    return interp_raise(I, EXC_ValueError, "scan: %d init, %d update and %d state_placeholder "
                        "tensors; there must be one of each per state", ninit, nupdate, nstate);
  Tensor **inputs = NULL;
  if (a[3] && a[3]->kind != VAL_NONE) {
    if ((a[3]->kind == VAL_TUPLE || a[3]->kind == VAL_LIST) && VAL_SEQ_N(a[3]) == 0)
      inputs = NULL;
    else if (!(inputs = bi_te_tensor_list(I, a[3], "scan", "inputs", true, &ninputs)))
      return NULL;
  }
  const char *name, *tag;
  if (bi_te_op_naming(I, "scan", a[4], "scan", a[5], a[6], &name, &tag) < 0) return NULL;
  for (int i = 0; i < nstate; i++) {
    if (state[i]->op->kind != OP_PLACEHOLDER)
      return interp_raise(I, EXC_ValueError, "scan: state_placeholder %s must be a "
                          "te.placeholder, not the output of %s", state[i]->name,
                          state[i]->op->name);
    if (check_state(I, init[i], update[i], state[i]) < 0) return NULL;
    if (update[i]->op->kind != OP_COMPUTE || init[i]->op->kind != OP_COMPUTE)
      return interp_raise(I, EXC_ValueError, "scan: init and update must be te.compute "
                          "tensors (%s, %s)", init[i]->name, update[i]->name);
  }
  Operation *op = ir_scan_op(arena(I), name, tag, nstate, init, update, state, ninputs, inputs);
  if (bi_te_set_op_attrs(I, op, a[6]) < 0) return NULL;
  if (nstate == 1) return bi_te_wrap_tensor(op->outputs[0]);
  Value *l = val_list_new(nstate);
  for (int i = 0; i < nstate; i++) val_list_append_take(l, bi_te_wrap_tensor(op->outputs[i]));
  return l;
}
