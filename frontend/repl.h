/* repl.h: the interactive session (GNU readline) and the stdin session of SPEC §2, plus the
 * error reporting and SIGINT handling that main.c shares with them. */
#ifndef TES_REPL_H
#define TES_REPL_H

#include <stdbool.h>

#include "frontend/lang/interp.h"

/* Installs the SIGINT handler (no SA_RESTART, so a blocking read returns EINTR): it sets
 * tes_interrupted, which the interpreter turns into KeyboardInterrupt, a running kernel into an
 * early return (then KeyboardInterrupt) and the REPL into "cancel this input". */
void repl_install_sigint(void);

/* Takes the pending exception of I and prints it on stderr (stdout flushed first), except
 * SystemExit, which prints nothing and sets *exiting. Returns the exit status it calls for:
 * SystemExit's code, 2 for SyntaxError, 1 otherwise. */
int repl_report_error(Interp *I, bool *exiting);

/* Reads and runs a session on *pI until end of input, `:quit` or SystemExit. interactive: the
 * readline REPL with prompts, history and completion; otherwise lines from stdin with no
 * prompt but the same chunking, echo and error recovery. `:reset` replaces *pI (argv kept);
 * the caller frees the final *pI. Returns the exit status: SystemExit's code; interactive 0;
 * otherwise that of the last failed statement (`status` if none failed), else 0. */
int repl_run(Interp **pI, bool interactive, int status);

#endif
