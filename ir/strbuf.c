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

/* Room for extra more bytes; false when a fallible buffer has run out (nothing is written
 * then, nor after). */
static bool reserve(StrBuf *b, size_t extra) {
  if (b->failed) return false;
  size_t cap = grown_cap(b, extra);
  if (cap && b->len + extra + 1 <= b->cap) return true;
  if (b->fallible) {
    if (sb_try_reserve(b, extra)) return true;
    b->failed = cap ? b->len + extra + 1 : SIZE_MAX;
    return false;
  }
  b->s = xrealloc(b->s, cap ? cap : SIZE_MAX); /* SIZE_MAX: out of memory, reported */
  b->cap = cap;
  return true;
}

bool sb_try_reserve(StrBuf *b, size_t extra) {
  size_t cap = grown_cap(b, extra);
  if (!cap) return false;
  if (b->len + extra + 1 <= b->cap) return true;
  /* Doubled; if that is too much, an eighth more than is needed: still geometric, since near
   * the limit appends of a few bytes would otherwise each move the whole text. Exactly what is
   * needed only for one big request ("x".ljust(n)), which is made once. */
  size_t need = b->len + extra + 1, some = need / 8 > SIZE_MAX - need ? need : need + need / 8;
  char *s = realloc(b->s, cap);
  if (!s && cap > some) s = realloc(b->s, cap = some);
  if (!s && cap > need && extra >= b->len / 8) s = realloc(b->s, cap = need);
  if (!s) return false;
  if (!b->s) s[0] = 0;
  b->s = s;
  b->cap = cap;
  return true;
}

void sb_putn(StrBuf *b, const char *s, size_t n) {
  if (!reserve(b, n)) return;
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
  if (n < 0 || !reserve(b, (size_t)n)) return;
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
  if (!b->s) {
    if (!reserve(b, 0)) return "";
    b->s[0] = 0;
  }
  return b->s;
}

char *sb_take(StrBuf *b, size_t *len) {
  sb_cstr(b);
  char *s = b->s;
  if (len) *len = b->len;
  b->s = NULL;
  b->len = b->cap = b->failed = 0;
  return s;
}

void sb_free(StrBuf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = b->failed = 0;
}
