/* support.c: checked allocation, growing arrays and the internal-error exit. */
#include "ir/support.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arena.h"

void tes_internal_error(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fprintf(stderr, "tes: internal error at %s:%d: ", tes_source_path(file), line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\n(" TES_BUG_NOTE ")\n", stderr);
  abort();
}

const char *tes_source_path(const char *file) {
  while (strncmp(file, "../", 3) == 0) file += 3;
  return file;
}

static void *oom(size_t n) {
  fprintf(stderr, "tes: out of memory (asked for %zu bytes)\n", n);
  exit(70);
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  return p ? p : oom(n);
}

void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  return p ? p : oom(n * size);
}

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  return q ? q : oom(n);
}

char *xstrndup(const char *s, size_t n) {
  char *d = xmalloc(n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *read_whole_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = xmalloc(cap);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (cap - n - 1 == 0) buf = xrealloc(buf, cap *= 2);
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}

void *vec_grow(Arena *a, void *items, int *cap, int need, size_t size) {
  if (need <= *cap) return items;
  int ncap = *cap > 0 ? *cap : 8;
  while (ncap < need) ncap = ncap > INT_MAX / 2 ? need : ncap * 2;
  size_t bytes, old = (size_t)(*cap > 0 ? *cap : 0) * size;
  TES_ASSERT(!__builtin_mul_overflow((size_t)ncap, size, &bytes),
             "array of %d elements of %zu bytes", ncap, size);
  *cap = ncap;
  return a ? arena_realloc(a, items, old, bytes) : xrealloc(items, bytes);
}
