/* blas_info.h: what the OpenBLAS peers print after their timing: the library's version and
 * the kernel set (core) it runs, as " version=0.3.21 core=SkylakeX". bench/kernels.py runs
 * each peer once per OPENBLAS_CORETYPE the library accepts and keeps the fastest. */
#ifndef TES_BENCH_BLAS_INFO_H
#define TES_BENCH_BLAS_INFO_H

#include <cblas.h>
#include <stdio.h>
#include <string.h>

static inline void blas_info_print(void) {
  /* openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64" */
  char version[32] = "?";
  const char *config = openblas_get_config();
  if (config && strncmp(config, "OpenBLAS ", 9) == 0) sscanf(config + 9, "%31s", version);
  printf(" version=%s core=%s\n", version, openblas_get_corename());
}

#endif
