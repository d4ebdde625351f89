/* repl.h: the interactive session (GNU readline) and the stdin session of SPEC §2, plus the
 * error reporting and SIGINT handling that main.c shares with them. */
#ifndef TES_REPL_H
#define TES_REPL_H

#include <stdbool.h>

#include <stdio.h>

#include "frontend/lang/interp.h"
#include "ir/strbuf.h"

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

/* ---- the same machinery for tes --serve (serve.c; docs/serve.md) ---- */

typedef struct Repl Repl;

/* A session of meta commands on *pI that keeps its failures for the caller instead of printing
 * them. `:reset` replaces *pI as in repl_run. */
Repl *repl_session_new(Interp **pI);
void repl_session_free(Repl *r);
/* Where :ir, :watch and the watched schedule's updates print (NULL: the script's stdout). */
void repl_session_set_ir_out(Repl *r, FILE *out);
/* What errors in a meta command's code (:ir's SCHED, :time's EXPR) call it (NULL: "<stdin>");
 * the string must outlive its use. */
void repl_session_set_name(Repl *r, const char *name);
/* Runs one meta command line (":ir s"). 0 done; 1 it was :quit; -1 failed with the exception
 * pending on *pI; -2 a usage error, its message in *msg (malloc'd; NULL otherwise). */
int repl_session_meta(Repl *r, const char *line, char **msg);

/* Evaluates e (of u) at module level, as a REPL entry runs: a new reference, or NULL with the
 * error pending and located. */
Value *repl_eval_expr(Interp *I, Unit *u, Node *e);

/* TAB's candidates at byte `cursor` of line, as the REPL offers them: a malloc'd array of *n
 * malloc'd strings (NULL when none) replacing line[*start..cursor). */
char **repl_complete(Interp *I, const char *line, size_t cursor, size_t *start, int *n);

/* What :help NAME prints, appended to b; false when it is "no help for NAME". */
bool repl_help_text(Interp *I, const char *name, StrBuf *b);

/* The REPL's continuation test on a whole cell: complete (a blank line ends a block),
 * incomplete (it would prompt for more) or invalid (it would run into a syntax error). */
typedef enum { REPL_COMPLETE, REPL_INCOMPLETE, REPL_INVALID } ReplInputState;
ReplInputState repl_input_state(const char *text, size_t len);

#endif
