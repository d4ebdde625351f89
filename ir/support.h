/* support.h: the few helpers every folder of tes uses: checked allocation, growing arrays and
 * internal asserts. Internal asserts are for states no script can reach; user mistakes, and
 * bugs a caller can stop at (malformed IR after a pass), are reported on a Diag (ir/diag.h)
 * and become TES
 * exceptions. */
#ifndef TES_SUPPORT_H
#define TES_SUPPORT_H

#include <stddef.h>
#include <stdnoreturn.h>

#define TES_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))

/* What every report of an internal error ends with: tes_internal_error's exit and the
 * InternalError an ir/diag.h internal Diag raises say the same. */
#define TES_BUG_NOTE "this is a bug in tes, not in your script: please report it"

noreturn void tes_internal_error(const char *file, int line, const char *fmt, ...) TES_PRINTF(3, 4);
/* __FILE__ as the checkout names it ("ir/expr.c"), without the build directory's "../". */
const char *tes_source_path(const char *file);

#define TES_ASSERT(cond, ...) \
  do { if (!(cond)) tes_internal_error(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define TES_UNREACHABLE() tes_internal_error(__FILE__, __LINE__, "unreachable")

/* Allocation that never returns NULL: out of memory is fatal. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* The whole file, NUL-terminated, its length in *len (free() it); NULL with errno set when it
 * cannot be opened or read. */
char *read_whole_file(const char *path, size_t *len);

/* The array items, of *cap elements of size bytes, with room for at least need: items itself
 * when it has that room, else a copy in a larger block of the arena a (the old block stays
 * there until the arena is freed), or items moved by xrealloc when a is NULL. The capacity
 * doubles, from 8, so that appending n elements one by one copies O(n) of them. A capacity or
 * byte size that overflows is an internal error: memory runs out long before a script could
 * ask for one. */
struct Arena;
void *vec_grow(struct Arena *a, void *items, int *cap, int need, size_t size);
/* vec_grow on a typed array and its int capacity: VEC_GROW(arena, st->items, st->cap, n + 1). */
#define VEC_GROW(a, items, cap, need)                                                           \
  ((items) = vec_grow((a), (items), &(cap), (need), sizeof *(items)))

#endif
