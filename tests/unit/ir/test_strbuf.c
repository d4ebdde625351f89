/* test_strbuf.c: ir/strbuf.c's growable buffers, and the fallible mode that text a script
 * sizes is built in: a lost write stops the writes that follow, keeps the text so far and
 * records the size asked for, where a plain buffer would end the process. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/strbuf.h"
#include "tests/unit/check.h"

static void test_strbuf_grows(void) {
  StrBuf b = STRBUF_INIT;
  CHECK(strcmp(sb_cstr(&b), "") == 0);
  for (int i = 0; i < 1000; i++) sb_printf(&b, "%d,", i % 10);
  CHECK(b.len == 2000 && b.cap > b.len && b.s[b.len] == 0 && !b.failed);
  CHECK(strncmp(b.s, "0,1,2,", 6) == 0);
  sb_free(&b);
}

/* A size past what a size_t holds cannot be had: the write is lost, those after it too. */
static void test_strbuf_fallible(void) {
  StrBuf b = {.fallible = true};
  sb_puts(&b, "[1, 2");
  CHECK(sb_try_reserve(&b, 10) && !b.failed);
  sb_putn(&b, "x", SIZE_MAX - 2);
  CHECK(b.failed == SIZE_MAX && b.len == 5);
  sb_puts(&b, ", 3]");
  sb_printf(&b, "%d", 4);
  CHECK(b.len == 5 && strcmp(sb_cstr(&b), "[1, 2") == 0);
  sb_free(&b);
  CHECK(!b.failed && b.fallible && b.len == 0);
  /* failing before any text: the buffer reads as empty, and sb_take gives NULL */
  sb_putn(&b, "x", SIZE_MAX);
  CHECK(b.failed == SIZE_MAX && strcmp(sb_cstr(&b), "") == 0);
  size_t len = 1;
  CHECK(sb_take(&b, &len) == NULL && len == 0 && !b.failed);
  sb_free(&b);
}

int main(void) {
  test_strbuf_grows();
  test_strbuf_fallible();
  return finish();
}
