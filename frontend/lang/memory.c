/* memory.c: allocation of what a script sizes ([0] * n, "x".ljust(n), list(range(n)), arrays).
 * xmalloc ends the process when memory runs out, which is right for the interpreter's own small
 * blocks but not for a size a script chose: these raise MemoryError instead, so that the REPL
 * and its variables survive the failed line. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/lang/value_impl.h"

double val_mem_physical(void) {
  static double bytes; /* asked once: sysconf is a system call, and lists are made often */
  if (!bytes) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    bytes = pages > 0 && size > 0 ? (double)pages * (double)size : 1e18;
  }
  return bytes;
}

void val_mem_format(char buf[32], double bytes) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) {
    snprintf(buf, 32, "%.0f bytes", bytes);
    return;
  }
  int u = -1;
  while (bytes >= 1024 && u < 5) bytes /= 1024, u++;
  snprintf(buf, 32, "%.3g %s", bytes, units[u]);
}

Value *val_mem_error(Interp *I, double bytes) {
  char size[32];
  val_mem_format(size, bytes);
  return interp_raise(I, EXC_MemoryError, "cannot allocate %s", size);
}

/* A block larger than the machine's memory is refused before it is asked for: with overcommit
 * the kernel would grant it, and kill the process while it is being filled. */
int val_mem_check(Interp *I, double bytes) {
  if (bytes <= val_mem_physical()) return 0;
  val_mem_error(I, bytes);
  return -1;
}

/* n * elem, as a double for the message when it does not fit a size_t. */
static bool block_bytes(int64_t n, size_t elem, size_t *out, double *asked) {
  *asked = (double)(n < 0 ? 0 : n) * (double)elem;
  return n >= 0 && !__builtin_mul_overflow((size_t)n, elem, out);
}

void *val_alloc(Interp *I, int64_t n, size_t elem) {
  size_t bytes;
  double asked;
  if (!block_bytes(n, elem, &bytes, &asked)) {
    val_mem_error(I, asked);
    return NULL;
  }
  if (val_mem_check(I, asked) < 0) return NULL;
  void *p = calloc(bytes ? bytes : 1, 1);
  if (!p) val_mem_error(I, asked);
  return p;
}

void *val_realloc(Interp *I, void *p, int64_t n, size_t elem) {
  size_t bytes;
  double asked;
  if (!block_bytes(n, elem, &bytes, &asked)) {
    val_mem_error(I, asked);
    return NULL;
  }
  if (val_mem_check(I, asked) < 0) return NULL;
  void *q = realloc(p, bytes ? bytes : 1);
  if (!q) val_mem_error(I, asked);
  return q;
}

char *val_alloc_text(Interp *I, int64_t len) {
  if (len < INT64_MAX) return val_alloc(I, len + 1, 1);
  val_mem_error(I, (double)len + 1);
  return NULL;
}

/* ---- containers ---- */

static Value *seq_alloc(Interp *I, Value *v, int64_t n) {
  if (n == 0) return v;
  Value **items = val_alloc(I, n, sizeof *items);
  if (!items) {
    val_decref(v);
    return NULL;
  }
  v->u.list->items = items;
  v->u.list->cap = n;
  return v;
}

Value *val_list_alloc(Interp *I, int64_t cap) { return seq_alloc(I, val_list_new(0), cap); }

Value *val_tuple_alloc(Interp *I, int64_t n) {
  Value *t = seq_alloc(I, val_tuple_new(0), n);
  if (t) t->u.list->n = n; /* the slots are NULL until filled, as val_tuple_new leaves them */
  return t;
}

int val_list_reserve(Interp *I, Value *list, int64_t extra) {
  List *l = list->u.list;
  int64_t need;
  if (__builtin_add_overflow(l->n, extra, &need)) {
    val_mem_error(I, (double)l->n + (double)extra);
    return -1;
  }
  if (need <= l->cap) return 0;
  /* double, as appends do; when the doubled block cannot be had, the exact one may */
  int64_t cap = l->cap < 2 ? 4 : l->cap;
  while (cap < need) cap = cap > INT64_MAX / 2 ? need : cap * 2;
  Value **items = NULL;
  size_t bytes;
  if (!__builtin_mul_overflow((size_t)cap, sizeof *items, &bytes) &&
      (double)bytes <= val_mem_physical())
    items = realloc(l->items, bytes);
  if (!items && !(items = val_realloc(I, l->items, cap = need, sizeof *items))) return -1;
  l->items = items;
  l->cap = cap;
  return 0;
}

int val_list_push_take(Interp *I, Value *list, Value *item) {
  if (val_list_reserve(I, list, 1) < 0) {
    val_decref(item);
    return -1;
  }
  val_list_append_take(list, item);
  return 0;
}

int val_sb_reserve(Interp *I, StrBuf *b, int64_t extra) {
  double asked = (double)b->len + (double)extra + 1;
  TES_ASSERT(extra >= 0, "val_sb_reserve: negative size %lld", (long long)extra);
  if (val_mem_check(I, asked) < 0) return -1;
  if (sb_try_reserve(b, (size_t)extra)) return 0;
  val_mem_error(I, asked);
  return -1;
}

Value *val_str_sb_fallible(Interp *I, StrBuf *b) {
  if (!b->failed) return val_str_sb(b);
  double asked = (double)b->failed;
  sb_free(b);
  return val_mem_error(I, asked);
}
