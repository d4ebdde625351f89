/* stdlib.h: tes's library written in TES (stdlib/, e.g. TOPI). Its files are compiled into
 * the binary (meson.build generates stdlib_source.c from them), so tes needs no install
 * layout; TES_STDLIB=DIR reads them from DIR instead, so an edit to stdlib/ takes effect
 * without a rebuild. */
#ifndef TES_STDLIB_H
#define TES_STDLIB_H

#include "frontend/lang/ast.h"

typedef struct StdlibFile {
  const char *path; /* relative to stdlib/: "topi/nn.tes" */
  const char *text;
  size_t len;
} StdlibFile;

/* The compiled-in files, {0}-terminated (stdlib_source.c, generated). */
extern const StdlibFile stdlib_files[];

/* Library file `path` as a Source marked library (refcount 1), named "stdlib/PATH" (or the
 * file under $TES_STDLIB); NULL when there is none, with the reason in why[why_len]. */
Source *stdlib_source(const char *path, char *why, size_t why_len);

#endif
