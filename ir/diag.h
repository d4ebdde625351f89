/* diag.h: the one way ir/, backends/ and jit/ tell their caller what went wrong. A call that
 * fails records a Diag and returns false or NULL; the front end turns it into a TES exception
 * in one place (frontend/tvm/raise.h), at the script's call, which gives the user's location.
 *
 * Two kinds, as Halide's user_error and internal_error: a user error is the script's mistake
 * ("cannot compute_at: stage B is not a producer of C"), raised as the caller's exception kind
 * (ScheduleError, LowerError, BuildError, ...); an internal error is a bug in tes (a pass that
 * left malformed IR, LLVM rejecting the module we generated), raised as InternalError with the
 * place in tes's source and a request for a report. Neither aborts: TES_ASSERT (ir/support.h)
 * is for states no script can reach. */
#ifndef TES_IR_DIAG_H
#define TES_IR_DIAG_H

#include <stdarg.h>
#include <stdbool.h>

#include "ir/support.h"

typedef enum { DIAG_NONE, DIAG_USER, DIAG_INTERNAL } DiagKind;

/* Room for a compiler's log or LLVM's verifier output; longer messages are cut. */
enum { DIAG_MSG_MAX = 2048 };

typedef struct Diag {
  DiagKind kind;
  const char *file; /* DIAG_INTERNAL: where in tes's source it was found, or NULL */
  int line;
  char msg[DIAG_MSG_MAX];
} Diag;

/* An empty Diag; a Diag needs nothing freed. */
#define DIAG_INIT                                                                                  \
  { DIAG_NONE, NULL, 0, "" }

/* Record an error on d and return false, so that `return ir_error(d, ...)` reads well in a
 * function returning bool (and `return ir_error(d, ...), NULL` in one returning a pointer).
 * The first error recorded stays: a later one is a consequence of it (a code generator goes
 * on after the first unsupported node), so it is dropped. */
bool ir_error(Diag *d, const char *fmt, ...) TES_PRINTF(2, 3);
bool ir_verror(Diag *d, const char *fmt, va_list ap) TES_PRINTF(2, 0);
/* ir_verror with "prefix: " before the message: the pass, or the primitive and what it was
 * doing, ahead of what went wrong. */
bool ir_verror_prefixed(Diag *d, const char *prefix, const char *fmt, va_list ap)
    TES_PRINTF(3, 0);
/* An internal error, at this place in tes's source (file NULL: the message says where, as the
 * verifier's names the pass that broke the IR). */
#define ir_internal_error(d, ...) ir_internal_error_at((d), __FILE__, __LINE__, __VA_ARGS__)
bool ir_internal_error_at(Diag *d, const char *file, int line, const char *fmt, ...)
    TES_PRINTF(4, 5);

/* Forget what d holds (a schedule's Diag before its next primitive). */
void diag_clear(Diag *d);
static inline bool diag_failed(const Diag *d) { return d->kind != DIAG_NONE; }

#endif
