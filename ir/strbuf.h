/* strbuf.h: a growable byte buffer for building strings. */
#ifndef TES_STRBUF_H
#define TES_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "ir/support.h"

typedef struct StrBuf {
  char *s; /* NUL-terminated while len > 0 or after sb_cstr */
  size_t len, cap;
  /* Set fallible for text a script sizes (the repr of a list): when memory runs out, writes
   * stop, the text so far stays, and failed holds the bytes that were asked for, for the
   * owner to raise MemoryError. Otherwise running out ends the process, as xmalloc does. */
  bool fallible;
  size_t failed; /* 0: no write was lost */
} StrBuf;

#define STRBUF_INIT {0}
/* Room for extra more bytes, or false (b as it was) when memory runs out: for text a script
 * sizes, which must fail with MemoryError rather than end the process. */
bool sb_try_reserve(StrBuf *b, size_t extra);
void sb_putc(StrBuf *b, char c);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_puts(StrBuf *b, const char *s);
void sb_printf(StrBuf *b, const char *fmt, ...) TES_PRINTF(2, 3);
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
const char *sb_cstr(StrBuf *b); /* "" when empty; owned by b */
/* The malloc'd buffer (NULL: a fallible one that failed before holding any); b is empty after. */
char *sb_take(StrBuf *b, size_t *len);
void sb_free(StrBuf *b);

#endif
