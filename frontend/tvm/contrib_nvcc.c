/* contrib_nvcc.c: tvm.contrib.nvcc's questions about a CUDA architecture, as TVM answers them:
 * parse_compute_version, have_fp16, have_int8 and have_tensorcore (compute capability 7.0 or
 * newer: from the argument, else the first CUDA device, else the target's -arch=sm_XX; False
 * when there is none of them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/packages.h"
#include "jit/cuda_driver.h"

/* "7.0" (a str) into major and minor; RuntimeError as TVM's otherwise. */
static bool parse_version(Interp *I, Value *v, int *major, int *minor) {
  char tail;
  if (v->kind == VAL_STR && sscanf(v->u.str.s, "%d.%d%c", major, minor, &tail) == 2) return true;
  if (v->kind == VAL_STR)
    return interp_raise(I, EXC_RuntimeError, "Compute version parsing error: %s", v->u.str.s),
           false;
  return interp_raise(I, EXC_TypeError, "a compute version is a str such as '8.0', not '%s'",
                      val_type_name(v)),
         false;
}

static Value *fn_parse_compute_version(Interp *I, Value *self, Value **a) {
  int major, minor;
  if (!parse_version(I, a[0], &major, &minor)) return NULL;
  Value *r = val_tuple_new(2);
  val_seq_set_take(r, 0, val_int(major));
  val_seq_set_take(r, 1, val_int(minor));
  return r;
}

/* The compute capability: compute_version when given, else the first device's, else the
 * target's -arch=sm_XY (X.Y). 1: known; 0: none of them; -1: an exception was raised. */
static int capability(Interp *I, Value *compute_version, Value *target, int *major, int *minor) {
  if (compute_version && compute_version->kind != VAL_NONE)
    return parse_version(I, compute_version, major, minor) ? 1 : -1;
  if (cuda_device_count() > 0 && cuda_compute_capability(0, major, minor)) return 1;
  if (!target || target->kind == VAL_NONE) return 0;
  const char *text = bi_target_text(I, target, "have_tensorcore");
  if (!text) return -1;
  char *arch = bi_target_option(text, "arch");
  bool ok = arch && strncmp(arch, "sm_", 3) == 0 && strlen(arch) >= 5 &&
            strspn(arch + 3, "0123456789") == strlen(arch + 3);
  if (ok) *major = arch[3] - '0', *minor = atoi(arch + 4);
  free(arch);
  return ok;
}

static Value *have(Interp *I, Value *compute_version, Value *target, int want_major,
                   int want_minor) {
  int major = 0, minor = 0, known = capability(I, compute_version, target, &major, &minor);
  if (known < 0) return NULL;
  return val_bool(known && (major > want_major || (major == want_major && minor >= want_minor)));
}

static Value *fn_have_tensorcore(Interp *I, Value *self, Value **a) {
  return have(I, a[0], a[1], 7, 0);
}
static Value *fn_have_fp16(Interp *I, Value *self, Value **a) { return have(I, a[0], NULL, 5, 3); }
static Value *fn_have_int8(Interp *I, Value *self, Value **a) { return have(I, a[0], NULL, 6, 1); }

const Builtin bi_nvcc_funcs[] = {
    {"have_tensorcore", fn_have_tensorcore, 0, PARAMS("compute_version", "target"),
     "have_tensorcore(compute_version=None, target=None) -> bool: TensorCores (compute "
     "capability >= 7.0) on the version given, else the first CUDA device, else the target's "
     "-arch; False without any"},
    {"have_fp16", fn_have_fp16, 1, PARAMS("compute_version"),
     "have_fp16(compute_version) -> bool: float16 arithmetic (compute capability >= 5.3)"},
    {"have_int8", fn_have_int8, 1, PARAMS("compute_version"),
     "have_int8(compute_version) -> bool: int8 dot products (compute capability >= 6.1)"},
    {"parse_compute_version", fn_parse_compute_version, 1, PARAMS("compute_version"),
     "parse_compute_version(compute_version) -> (major, minor): '8.6' as (8, 6)"},
    {0},
};
