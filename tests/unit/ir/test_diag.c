/* test_diag.c: unit tests of ir/diag.c: the first error stays, internal errors carry the place
 * in tes's source without the build directory's "../", a long message is cut, not overrun. */
#include <stdio.h>
#include <string.h>

#include "ir/diag.h"

#include "tests/unit/check.h"

static bool refuse(Diag *d, int n) { return ir_error(d, "cannot split axis i%d", n); }

static void test_first_error_stays(void) {
  Diag d = DIAG_INIT;
  CHECK(!diag_failed(&d) && d.msg[0] == 0);
  CHECK(!refuse(&d, 1));
  CHECK(d.kind == DIAG_USER && strcmp(d.msg, "cannot split axis i1") == 0 && !d.file);
  CHECK(!refuse(&d, 2));
  CHECK(strcmp(d.msg, "cannot split axis i1") == 0);
  /* an internal error after a user error is a consequence of it: dropped too */
  CHECK(!ir_internal_error(&d, "late"));
  CHECK(d.kind == DIAG_USER);
  diag_clear(&d);
  CHECK(!diag_failed(&d) && d.msg[0] == 0 && !d.file);
  CHECK(!refuse(&d, 3) && strcmp(d.msg, "cannot split axis i3") == 0);
}

static void test_internal_error(void) {
  Diag d = DIAG_INIT;
  int line = __LINE__ + 1;
  CHECK(!ir_internal_error(&d, "IR after %s is malformed", "tir.Simplify"));
  CHECK(d.kind == DIAG_INTERNAL && strcmp(d.msg, "IR after tir.Simplify is malformed") == 0);
  CHECK(d.line == line && d.file && strstr(d.file, "test_diag.c") && strncmp(d.file, "../", 3));
  diag_clear(&d);
  CHECK(!ir_internal_error_at(&d, "../../ir/lower.c", 7, "x") && strcmp(d.file, "ir/lower.c") == 0);
  diag_clear(&d);
  CHECK(!ir_internal_error_at(&d, NULL, 0, "no place") && !d.file && d.kind == DIAG_INTERNAL);
}

static void test_long_message_is_cut(void) {
  static char big[3 * DIAG_MSG_MAX];
  memset(big, 'x', sizeof big - 1);
  Diag d = DIAG_INIT;
  ir_error(&d, "log: %s", big);
  CHECK(strlen(d.msg) == DIAG_MSG_MAX - 1 && strncmp(d.msg, "log: xxx", 8) == 0);
}

int main(void) {
  test_first_error_stays();
  test_internal_error();
  test_long_message_is_cut();
  return finish();
}
