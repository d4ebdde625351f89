/* serve.h: `tes --serve`, the JSON-lines machine mode for front ends (docs/serve.md). */
#ifndef TES_SERVE_H
#define TES_SERVE_H

#include "frontend/lang/interp.h"

/* Answers requests from stdin on stdout until shutdown, end of input or sys.exit; `reset`
 * replaces *pI (the caller frees the final one). The versions go into the "ready" line.
 * Returns the exit status. */
int serve_run(Interp **pI, const char *tes_version, const char *llvm_version);

#endif
