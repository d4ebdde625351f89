/* nvrtc.h: CUDA C to PTX through NVRTC, loaded with dlopen at the first compile (the toolkit
 * may be absent: tes neither links it nor needs it to start). The library tried are
 * libnvrtc.so.13, then .12, each in $CUDA_HOME/lib64, /usr/local/cuda/lib64, then wherever the
 * loader finds it. */
#ifndef TES_JIT_NVRTC_H
#define TES_JIT_NVRTC_H

#include "ir/diag.h"

/* PTX (malloc'd) of src compiled for arch ("sm_80"), or NULL with a user error on d: NVRTC
 * missing (what to install), or its log when src does not compile, followed by the generated
 * line the log first names. */
char *nvrtc_compile(const char *src, const char *arch, Diag *d);

/* Whether NVRTC can be loaded; false with the reason on d. */
bool nvrtc_available(Diag *d);

/* NVRTC's version (12 and 4 for 12.4); false with the reason on d when it cannot be loaded. */
bool nvrtc_version(int *major, int *minor, Diag *d);

#endif
