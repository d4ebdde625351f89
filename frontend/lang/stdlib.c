/* stdlib.c: finding tes's TES library files (see stdlib.h) and loading source modules. */
#include "frontend/lang/stdlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules.h"

static Source *library_source(const char *name, const char *text, size_t len) {
  Source *src = src_new(name, text, len);
  src->library = true;
  return src;
}

Source *stdlib_source(const char *path, char *why, size_t why_len) {
  const char *dir = getenv("TES_STDLIB");
  if (dir && *dir) {
    size_t n = strlen(dir) + strlen(path) + 2, len;
    char *full = xmalloc(n);
    snprintf(full, n, "%s/%s", dir, path);
    char *text = read_whole_file(full, &len);
    if (!text) snprintf(why, why_len, "cannot read %s (TES_STDLIB): %s", full, strerror(errno));
    Source *src = text ? library_source(full, text, len) : NULL;
    free(text);
    free(full);
    return src;
  }
  for (const StdlibFile *f = stdlib_files; f->path; f++) {
    if (strcmp(f->path, path) != 0) continue;
    char name[256];
    snprintf(name, sizeof name, "stdlib/%s", f->path);
    return library_source(name, f->text, f->len);
  }
  snprintf(why, why_len, "stdlib/%s is not part of this build", path);
  return NULL;
}

int mod_load_source(Interp *I, Value *m) {
  Module *mod = m->u.mod;
  const char *path = mod->source;
  if (!path) return 0;
  char why[512];
  Source *src = stdlib_source(path, why, sizeof why);
  if (!src) {
    interp_raise(I, EXC_ImportError, "cannot load module '%s': %s", mod->name->u.str.s, why);
    return -1;
  }
  /* Cleared first: the file's own lookups in its module (and a module importing it back)
   * see what is defined so far instead of loading it again. A failed load leaves the module
   * half-defined but still marked, so the next use retries it. */
  mod->source = NULL;
  int r = interp_run_source_in(I, src, mod->dict);
  src_decref(src);
  if (r < 0) mod->source = path;
  return r;
}
