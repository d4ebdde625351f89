/* test_raise.c: unit tests of frontend/tvm/raise.c: a user Diag raises the caller's kind with
 * its message as it is; an internal one raises InternalError (a RuntimeError, so `except
 * Error` catches it and the session goes on) saying where and asking for a report; an empty
 * one is an InternalError too, never NULL with nothing raised. */
#include <stdio.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/packages.h"
#include "frontend/tvm/raise.h"

#include "tests/unit/check.h"
#include "tests/unit/exc_text.h"

static Interp *I;

static void test_user_diag(void) {
  Diag d = DIAG_INIT;
  ir_error(&d, "cannot compute_at: stage B is not a producer of C");
  CHECK(bi_raise_diag(I, EXC_ScheduleError, &d) == NULL);
  CHECK(interp_error_matches(I, EXC_ScheduleError));
  CHECK(strcmp(exc_text(I), "cannot compute_at: stage B is not a producer of C") == 0);
}

static void test_internal_diag(void) {
  Diag d = DIAG_INIT;
  ir_internal_error_at(&d, "../ir/lower.c", 42, "IR after tir.Simplify is malformed: x");
  CHECK(bi_raise_diag(I, EXC_LowerError, &d) == NULL);
  CHECK(interp_error_matches(I, EXC_InternalError) && interp_error_matches(I, EXC_RuntimeError));
  CHECK(!interp_error_matches(I, EXC_LowerError));
  CHECK(strcmp(exc_text(I),
               "IR after tir.Simplify is malformed: x (at ir/lower.c:42; " TES_BUG_NOTE ")") == 0);
  diag_clear(&d);
  ir_internal_error_at(&d, NULL, 0, "IR after tir.Simplify is malformed: y");
  bi_raise_diag(I, EXC_LowerError, &d);
  CHECK(interp_error_matches(I, EXC_InternalError));
  CHECK(strcmp(exc_text(I), "IR after tir.Simplify is malformed: y (" TES_BUG_NOTE ")") == 0);
}

static void test_empty_diag(void) {
  Diag d = DIAG_INIT;
  CHECK(bi_raise_diag(I, EXC_BuildError, &d) == NULL);
  CHECK(interp_error_matches(I, EXC_InternalError));
  CHECK(strstr(exc_text(I), "a BuildError was expected but none was recorded") != NULL);
}

int main(void) {
  tvm_register_modules();
  I = interp_new();
  test_user_diag();
  test_internal_diag();
  test_empty_diag();
  interp_free(I);
  return finish();
}
