/* vta_dev.c: env.dev, VTA's DevContext (vta/environment.py), what hand-written VTA IR and
 * VTA's intrinsics use: the "vta" thread axis of the coproc attrs (one per environment, so
 * every attr names the same), the command handle expression
 * @tir.tvm_thread_context(@tir.vta.command_handle()), the uop scope's "VTAPushGEMMOp", the
 * memory, ALU opcode and queue numbers, and get_task_qid. */
#include <stdlib.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/vta.h"
#include "ir/support.h"

typedef struct Dev {
  IterVar *vta_axis;
  Expr *command_handle, *push_uop;
} Dev;

static Dev *dev_of(Value *self) { return self->u.obj.p; }

static Value *p_vta_axis(Interp *I, Value *self) {
  return bi_te_wrap_itervar(dev_of(self)->vta_axis);
}
static Value *p_command_handle(Interp *I, Value *self) {
  return bi_te_wrap_expr(dev_of(self)->command_handle);
}
static Value *p_vta_push_uop(Interp *I, Value *self) {
  return bi_te_wrap_expr(dev_of(self)->push_uop);
}
static Value *p_no_sync(Interp *I, Value *self) { return val_bool(false); }

#define DEV_INTS(X)                                                                             \
  X(MEM_ID_UOP, 0, "the micro-op memory's number")                                              \
  X(MEM_ID_WGT, 1, "the weight memory's number")                                                \
  X(MEM_ID_INP, 2, "the input memory's number")                                                 \
  X(MEM_ID_ACC, 3, "the accumulator memory's number")                                           \
  X(MEM_ID_OUT, 4, "the output memory's number")                                                \
  X(MEM_ID_ACC_8BIT, 5, "the 8-bit accumulator memory's number")                                \
  X(ALU_OPCODE_MIN, 0, "the ALU's min")                                                         \
  X(ALU_OPCODE_MAX, 1, "the ALU's max")                                                         \
  X(ALU_OPCODE_ADD, 2, "the ALU's add")                                                         \
  X(ALU_OPCODE_SHR, 3, "the ALU's arithmetic shift right")                                      \
  X(ALU_OPCODE_MUL, 4, "the ALU's multiply")                                                    \
  X(QID_LOAD_INP, 1, "the queue that loads inputs")                                             \
  X(QID_LOAD_WGT, 1, "the queue that loads weights")                                            \
  X(QID_LOAD_OUT, 2, "the queue that loads accumulators")                                       \
  X(QID_STORE_OUT, 3, "the queue that stores outputs")                                          \
  X(QID_COMPUTE, 2, "the compute queue")

#define INT_GETTER(name, v, doc)                                                                \
  static Value *p_##name(Interp *I, Value *self) { return val_int(v); }
DEV_INTS(INT_GETTER)
#undef INT_GETTER

static const Property dev_props[] = {
    {"vta_axis", p_vta_axis, "the thread axis 'vta' that VTA's coproc attrs name"},
    {"command_handle", p_command_handle,
     "@tir.tvm_thread_context(@tir.vta.command_handle()): the first argument of VTA's calls"},
    {"vta_push_uop", p_vta_push_uop, "'VTAPushGEMMOp', the value of a GEMM's coproc_uop_scope"},
    {"DEBUG_NO_SYNC", p_no_sync, "False: every queue is its own (get_task_qid)"},
#define PROP(name, v, doc) {#name, p_##name, doc},
    DEV_INTS(PROP)
#undef PROP
    {0},
};

static Value *m_get_task_qid(Interp *I, Value *self, Value **a) {
  if (!val_is_int(a[0]))
    return interp_raise(I, EXC_TypeError, "get_task_qid: a queue number is an int, not '%s'",
                        val_type_name(a[0]));
  return val_incref(a[0]);
}

static const Builtin dev_methods[] = {
    {"get_task_qid", m_get_task_qid, 1, PARAMS("qid"),
     "get_task_qid(qid) -> int: the queue a task of queue qid runs in (qid itself)"},
    {0},
};

static Value *dev_repr(Interp *I, Value *self) { return val_cstr("<vta.DevContext>"); }

static void dev_free(void *p) { free(p); }

static const ObjClass dev_class = {
    .type = {"DevContext", NULL, VAL_OBJ, NULL},
    .free = dev_free,
    .repr = dev_repr,
    .props = dev_props,
    .methods = dev_methods,
};

Value *bi_vta_dev_new(Interp *I) {
  Arena *a = interp_ir_arena(I);
  Dev *d = xmalloc(sizeof *d);
  Range none = {NULL, NULL};
  d->vta_axis = ir_itervar(a, ir_var(a, "vta", DT_I32), none, ITER_THREAD, "vta");
  Expr *h = ir_call(a, DT_HANDLE64, "tir.vta.command_handle", CALL_PURE, 0, NULL);
  d->command_handle = ir_call(a, DT_HANDLE64, "tir.tvm_thread_context", CALL_PURE, 1, &h);
  d->push_uop = ir_str(a, "VTAPushGEMMOp");
  return val_obj_new(&dev_class, d);
}
