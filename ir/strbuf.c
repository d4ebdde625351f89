/* strbuf.c: growable byte buffers. */
#include "ir/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(StrBuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap * 2 : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  b->s = xrealloc(b->s, cap);
  b->cap = cap;
}

void sb_putn(StrBuf *b, const char *s, size_t n) {
  reserve(b, n);
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

void sb_putc(StrBuf *b, char c) { sb_putn(b, &c, 1); }
void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  reserve(b, (size_t)n);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(b, fmt, ap);
  va_end(ap);
}

const char *sb_cstr(StrBuf *b) {
  if (!b->s) reserve(b, 0), b->s[0] = 0;
  return b->s;
}

char *sb_take(StrBuf *b, size_t *len) {
  sb_cstr(b);
  char *s = b->s;
  if (len) *len = b->len;
  b->s = NULL;
  b->len = b->cap = 0;
  return s;
}

void sb_free(StrBuf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}
