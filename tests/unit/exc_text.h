/* exc_text.h: for unit tests that run TES text in an interpreter. exc_text(I) is the message
 * of I's pending exception ("" when there is none, or its message is not a str), copied into a
 * buffer the next call overwrites; the exception is cleared. */
#ifndef TES_TEST_EXC_TEXT_H
#define TES_TEST_EXC_TEXT_H

#include <stdio.h>

#include "frontend/lang/interp.h"

static const char *exc_text(Interp *I) {
  static char text[4096];
  Value *exc = interp_error_take(I);
  const Value *msg = exc && exc->kind == VAL_EXC ? exc->u.exc->msg : NULL;
  snprintf(text, sizeof text, "%s", msg && msg->kind == VAL_STR ? msg->u.str.s : "");
  val_xdecref(exc);
  return text;
}

#endif
