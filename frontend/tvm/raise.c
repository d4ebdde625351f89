/* raise.c: turning a Diag into a TES exception (raise.h). */
#include "frontend/tvm/raise.h"

Value *bi_raise_diag(Interp *I, ExcKind user_kind, const Diag *d) {
  switch (d->kind) {
  case DIAG_USER:
    return interp_raise(I, user_kind, "%s", d->msg);
  case DIAG_INTERNAL:
    if (d->file)
      return interp_raise(I, EXC_InternalError, "%s (at %s:%d; " TES_BUG_NOTE ")", d->msg, d->file,
                          d->line);
    return interp_raise(I, EXC_InternalError, "%s (" TES_BUG_NOTE ")", d->msg);
  case DIAG_NONE:
    break;
  }
  return interp_raise(I, EXC_InternalError,
                      "a %s was expected but none was recorded (" TES_BUG_NOTE ")",
                      exc_types[user_kind].name);
}
