/* vta.h: the `vta` module and vta.testing.simulator (tvm/vta.c, SPEC §13). */
#ifndef TES_TVM_VTA_H
#define TES_TVM_VTA_H

#include "frontend/lang/value.h"
#include "jit/vta_sim.h"

/* vta: get_env; its init adds the class Environment. */
extern const Builtin bi_vta_funcs[];
int bi_vta_init(Interp *I, Value *module);
/* vta.testing.simulator: clear_stats, stats. */
extern const Builtin bi_vta_simulator_funcs[];
/* tvm.rpc: LocalSession (tvm/vta_rpc.c). */
extern const Builtin bi_vta_rpc_funcs[];
/* env.dev: a new DevContext (vta_dev.c). */
Value *bi_vta_dev_new(Interp *I);
/* The session's VTA simulator (default configuration), made on first use; NULL with the error
 * raised when it cannot be. */
VtaSim *bi_vta_sim(Interp *I);

#endif
