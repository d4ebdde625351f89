/* stdlib.c: finding tes's TES library files (see stdlib.h) and loading source modules. */
#include "frontend/lang/stdlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules.h"
#include "ir/strbuf.h"

static Source *library_source(const char *name, const char *text, size_t len) {
  Source *src = src_new(name, text, len);
  src->library = true;
  return src;
}

/* $TES_STDLIB, or NULL when the compiled-in files are the library. */
static const char *stdlib_dir(void) {
  const char *dir = getenv("TES_STDLIB");
  return dir && *dir ? dir : NULL;
}

static char *dir_path(const char *dir, const char *path) {
  size_t n = strlen(dir) + strlen(path) + 2;
  char *full = xmalloc(n);
  snprintf(full, n, "%s/%s", dir, path);
  return full;
}

const char *stdlib_find(const char *path) {
  const char *dir = stdlib_dir();
  if (dir) {
    struct stat st;
    char *full = dir_path(dir, path);
    bool found = stat(full, &st) == 0 && S_ISREG(st.st_mode);
    free(full);
    /* interned: a module keeps the pointer (Module.source) and symbols are never freed */
    return found ? SYM_STR(sym_cstr(path)) : NULL;
  }
  for (const StdlibFile *f = stdlib_files; f->path; f++)
    if (strcmp(f->path, path) == 0) return f->path;
  return NULL;
}

Source *stdlib_source(const char *path, char *why, size_t why_len) {
  const char *dir = stdlib_dir();
  if (dir) {
    size_t len;
    char *full = dir_path(dir, path);
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

/* The opening comment runs up to the first line that is not a comment or is a bare "#". */
static void opening_comment(const char *s, StrBuf *b) {
  while (*s == '#') {
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    size_t skip = n > 1 && s[1] == ' ' ? 2 : 1;
    if (n <= skip) break;
    if (b->len) sb_putc(b, ' ');
    sb_putn(b, s + skip, n - skip);
    if (!e) break;
    s = e + 1;
  }
}

char *stdlib_doc(const char *path) {
  char why[512];
  Source *src = stdlib_source(path, why, sizeof why);
  if (!src) return NULL;
  StrBuf b = STRBUF_INIT;
  opening_comment(src->text, &b);
  src_decref(src);
  const char *text = sb_cstr(&b), *colon = strstr(text, ".tes: ");
  if (colon && !memchr(text, ' ', (size_t)(colon - text))) text = colon + 6; /* the path */
  const char *end = strstr(text, ". ");
  size_t n = end ? (size_t)(end - text) + 1 : strlen(text);
  char *doc = n ? xstrndup(text, n) : NULL;
  sb_free(&b);
  return doc;
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
