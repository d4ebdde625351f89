/* ndarray.h: the array Value of SPEC §10 (numpy's ndarray, also what tvm.nd.array and
 * tvm.nd.empty return): a VAL_OBJ of class bi_ndarray_class over a jit/ndarray.h NDArray it
 * owns. The numpy subset (the files of frontend/np/) implements it; tvm.build's Module call reads and writes
 * arrays through these. */
#ifndef TES_NP_NDARRAY_H
#define TES_NP_NDARRAY_H

#include "frontend/lang/value.h"
#include "jit/ndarray.h"

extern const ObjClass bi_ndarray_class;

/* Wraps a (takes ownership: freed with the Value). */
Value *bi_ndarray_wrap(NDArray *a);
/* numpy's scalar (np.float32 ...): 0-d a wrapped as what reductions over every axis give,
 * an array that prints as numpy's scalar does (takes ownership; NULL when a is NULL). */
Value *bi_ndarray_scalar_wrap(NDArray *a);
/* The array of v (a scalar's too), or NULL when v is not an array (nothing raised). */
NDArray *bi_ndarray_of(Value *v);

#endif
