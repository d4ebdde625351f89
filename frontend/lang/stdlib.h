/* stdlib.h: tes's library written in TES (stdlib/, e.g. TOPI). Its files are compiled into
 * the binary (meson.build generates stdlib_source.c from every .tes file under stdlib/), so
 * tes needs no install layout; TES_STDLIB=DIR reads them from DIR instead, so an edit to
 * stdlib/ takes effect without a rebuild. Modules are found by path (modules.c): a file here is
 * a module, with nothing to declare in C. */
#ifndef TES_STDLIB_H
#define TES_STDLIB_H

#include "frontend/lang/ast.h"

typedef struct StdlibFile {
  const char *path; /* relative to stdlib/: "topi/nn/pooling.tes" */
  const char *text;
  size_t len;
} StdlibFile;

/* The compiled-in files, {0}-terminated (stdlib_source.c, generated). */
extern const StdlibFile stdlib_files[];

/* Library file `path` as a Source marked library (refcount 1), named "stdlib/PATH" (or the
 * file under $TES_STDLIB); NULL when there is none, with the reason in why[why_len]. */
Source *stdlib_source(const char *path, char *why, size_t why_len);

/* `path` (relative to stdlib/) as a string that lives as long as the process, if that library
 * file exists (compiled in, or under $TES_STDLIB); else NULL. */
const char *stdlib_find(const char *path);

/* The doc line of library file `path` (malloc'd), or NULL: the first sentence of its opening
 * comment, after the "stdlib/PATH: " that starts it. */
char *stdlib_doc(const char *path);

#endif
