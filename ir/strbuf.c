/* strbuf.c: growable byte buffers. */
#include "ir/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The capacity that holds len + extra + 1 bytes, doubling; 0 when that overflows a size_t. */
static size_t grown_cap(const StrBuf *b, size_t extra) {
  size_t need, cap = b->cap ? b->cap : 64;
  if (__builtin_add_overflow(b->len, extra + 1, &need) || extra == SIZE_MAX) return 0;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  return cap;
}

static void reserve(StrBuf *b, size_t extra) {
  size_t cap = grown_cap(b, extra);
  if (cap && b->len + extra + 1 <= b->cap) return;
  b->s = xrealloc(b->s, cap ? cap : SIZE_MAX); /* SIZE_MAX: out of memory, reported */
  b->cap = cap;
}

bool sb_try_reserve(StrBuf *b, size_t extra) {
  size_t cap = grown_cap(b, extra);
  if (!cap) return false;
  if (b->len + extra + 1 <= b->cap) return true;
  char *s = realloc(b->s, cap); /* doubled; if that is too much, exactly what is needed */
  if (!s && cap > b->len + extra + 1) s = realloc(b->s, cap = b->len + extra + 1);
  if (!s) return false;
  if (!b->s) s[0] = 0;
  b->s = s;
  b->cap = cap;
  return true;
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
