/* raise.h: the one place a Diag of ir/, backends/ or jit/ becomes a TES exception. */
#ifndef TES_TVM_RAISE_H
#define TES_TVM_RAISE_H

#include "frontend/lang/interp.h"
#include "ir/diag.h"

/* Raises d at the builtin's call (which gives the script's location) and returns NULL: a user
 * error as user_kind (ScheduleError, LowerError, BuildError, ...) with d's message as it is;
 * an internal error as InternalError, saying where in tes it was found and asking for a
 * report (the words of tes_internal_error, ir/support.h). A Diag with nothing recorded is
 * itself a bug of its caller: an InternalError too, never a silent NULL. */
Value *bi_raise_diag(Interp *I, ExcKind user_kind, const Diag *d);

#endif
