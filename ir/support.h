/* support.h: the few helpers every folder of tes uses: checked allocation and internal asserts.
 * Internal asserts are for states no script can reach; user mistakes, and bugs a caller can
 * stop at (malformed IR after a pass), are reported on a Diag (ir/diag.h) and become TES
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

#endif
