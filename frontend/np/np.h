/* frontend/np/ -- the numpy subset (SPEC §10). The array value (ndarray.h) over jit/ndarray.h's
 * n-d array, numpy's kernels written against that array (ops.c, reduce.c, index.c, dtype.c,
 * print.c, io.c, random.c, testing.c), the module (this header). It may include
 * frontend/lang/ and jit/ndarray.h, nothing of frontend/tvm or the driver: what tvm adds to
 * arrays (tvm.nd) is in frontend/tvm/nd_bridge.c.
 */
/* np.h: the numpy subset of SPEC §10 as a module: numpy (with numpy.random and numpy.testing
 * as members), which np.c registers with the language's import; the files of this folder
 * implement it over the array value of np/ndarray.h. */
#ifndef TES_NP_H
#define TES_NP_H

#include "frontend/lang/value.h"

/* Registers numpy (and its prebound name np) with the language's import (mod_register);
 * tvm_register_modules calls it. Calling it again does nothing. */
void np_register_modules(void);

/* The integer a value of a room above this one stands for, or false: te's integer constants,
 * which numpy takes in shapes and axes (np.zeros(A.shape)). np/ may not see te's expressions,
 * so the tvm package sets the hook when it is imported, before any such value exists. */
typedef bool (*NpIntHook)(Value *v, int64_t *out);
void bi_np_set_int_hook(NpIntHook hook);

/* Arrays that live in a room above this one (tvm's device arrays, whose data the host must
 * not read): numpy never sees them as arrays (bi_ndarray_of is for host arrays only), and
 * these hooks, set by the tvm package when it is imported, say why an operation refuses one
 * and copy a host array to such a place. */
typedef struct NpDeviceHooks {
  /* v is such an array: raises why it cannot be used here and gives true; else false. */
  bool (*refuse)(Interp *I, Value *v);
  /* host_array.copyto(target) for a target numpy does not know (a Device, a device array):
   * the result, or NULL with an error raised. */
  Value *(*copyto)(Interp *I, Value *self, Value *target);
} NpDeviceHooks;
void bi_np_set_device_hooks(const NpDeviceHooks *hooks);

#endif
