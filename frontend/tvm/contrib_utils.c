/* contrib_utils.c: tvm.contrib.utils.tempdir (SPEC §9), TVM's TempDirectory: a fresh directory
 * under $TMPDIR (or the custom_path given, made), `temp_dir`, `relpath(name)`, `listdir()` and
 * `remove()`. Like TVM's, it is removed with everything in it when the last reference goes, and
 * at exit those still alive are (keep_for_debug=True keeps it). */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/packages.h"
#include "frontend/tvm/te_impl.h"

typedef struct TempDir {
  char *path;
  bool keep;
  struct TempDir *next; /* the live ones, removed at exit */
} TempDir;

static TempDir *live;
static bool atexit_set;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  remove(path);
  return 0;
}

static void remove_tree(TempDir *d) {
  if (!d->path || d->keep) return;
  nftw(d->path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(d->path);
  d->path = NULL;
}

static void remove_live(void) {
  for (TempDir *d = live; d; d = d->next) remove_tree(d);
}

static void tempdir_free(void *p) {
  TempDir *d = p;
  for (TempDir **q = &live; *q; q = &(*q)->next)
    if (*q == d) {
      *q = d->next;
      break;
    }
  remove_tree(d);
  free(d->path);
  free(d);
}

static const ObjClass tempdir_class;

static TempDir *alive(Interp *I, Value *self) {
  TempDir *d = self->u.obj.p;
  if (!d->path)
    return interp_raise(I, EXC_RuntimeError, "TempDirectory: the directory was removed"), NULL;
  return d;
}

static Value *tempdir_path(Interp *I, Value *self) {
  TempDir *d = alive(I, self);
  return d ? val_cstr(d->path) : NULL;
}

static Value *tempdir_relpath(Interp *I, Value *self, Value **a) {
  TempDir *d = alive(I, self);
  const char *name = d ? bi_te_str_arg(I, a[0], "relpath", "name", NULL) : NULL;
  if (!name) return NULL;
  size_t n = strlen(d->path) + strlen(name) + 2;
  char *p = malloc(n);
  snprintf(p, n, "%s/%s", d->path, name);
  Value *r = val_cstr(p);
  free(p);
  return r;
}

static int cmp_names(const void *x, const void *y) {
  return strcmp(*(char *const *)x, *(char *const *)y);
}

/* os.listdir's names, sorted so that a script's output does not depend on the file system. */
static Value *tempdir_listdir(Interp *I, Value *self, Value **a) {
  (void)a;
  TempDir *d = alive(I, self);
  if (!d) return NULL;
  DIR *dir = opendir(d->path);
  if (!dir)
    return interp_raise(I, EXC_RuntimeError, "listdir: %s: %s", d->path, strerror(errno));
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (n == cap) names = realloc(names, (cap = cap ? 2 * cap : 8) * sizeof *names);
    names[n++] = strdup(e->d_name);
  }
  closedir(dir);
  if (n) qsort(names, n, sizeof *names, cmp_names);
  Value *r = val_list_new((int64_t)n);
  for (size_t i = 0; i < n; i++) val_list_append_take(r, val_cstr(names[i])), free(names[i]);
  free(names);
  return r;
}

static Value *tempdir_remove(Interp *I, Value *self, Value **a) {
  (void)I, (void)a;
  TempDir *d = self->u.obj.p;
  bool keep = d->keep;
  d->keep = false;
  remove_tree(d);
  d->keep = keep;
  return val_none();
}

static Value *tempdir_repr(Interp *I, Value *self) {
  (void)I;
  TempDir *d = self->u.obj.p;
  size_t n = (d->path ? strlen(d->path) : 9) + 32;
  char *s = malloc(n);
  snprintf(s, n, "<TempDirectory %s>", d->path ? d->path : "(removed)");
  Value *r = val_cstr(s);
  free(s);
  return r;
}

static const Property tempdir_props[] = {
    {"temp_dir", tempdir_path, "the directory's path"},
    {0},
};

static const Builtin tempdir_methods[] = {
    {"relpath", tempdir_relpath, 1, PARAMS("name"),
     "relpath(name) -> str: the path of name inside the directory"},
    {"listdir", tempdir_listdir, 0, NOPARAMS, "listdir() -> list: the names in the directory"},
    {"remove", tempdir_remove, 0, NOPARAMS,
     "remove(): delete the directory and what it holds now"},
    {0},
};

static const ObjClass tempdir_class = {
    .type = {"TempDirectory", NULL, VAL_OBJ, NULL},
    .free = tempdir_free,
    .repr = tempdir_repr,
    .methods = tempdir_methods,
    .props = tempdir_props,
};

/* tempdir(custom_path=None, keep_for_debug=None) */
static Value *fn_tempdir(Interp *I, Value *self, Value **a) {
  (void)self;
  Value *custom = a[0] && a[0]->kind != VAL_NONE ? a[0] : NULL;
  const char *path = custom ? bi_te_str_arg(I, custom, "tempdir", "custom_path", NULL) : NULL;
  if (custom && !path) return NULL;
  char *dir;
  if (path) {
    if (mkdir(path, 0700) != 0)
      return interp_raise(I, EXC_RuntimeError, "tempdir: cannot make %s: %s", path,
                          strerror(errno));
    dir = strdup(path);
  } else {
    const char *tmp = getenv("TMPDIR");
    size_t n = strlen(tmp && *tmp ? tmp : "/tmp") + 16;
    dir = malloc(n);
    snprintf(dir, n, "%s/tmpXXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
      int err = errno;
      free(dir);
      return interp_raise(I, EXC_RuntimeError, "tempdir: cannot make a directory: %s",
                          strerror(err));
    }
  }
  TempDir *d = calloc(1, sizeof *d);
  d->path = dir;
  d->keep = a[1] && a[1]->kind != VAL_NONE && val_truthy(I, a[1]) > 0;
  d->next = live;
  live = d;
  if (!atexit_set) atexit(remove_live), atexit_set = true;
  return val_obj_new(&tempdir_class, d);
}

const Builtin bi_contrib_utils_funcs[] = {
    {"tempdir", fn_tempdir, 0, PARAMS("custom_path", "keep_for_debug"),
     "tempdir(custom_path=None, keep_for_debug=None) -> TempDirectory: a new directory, "
     "removed with what it holds when the last reference goes or at exit"},
    {0},
};
