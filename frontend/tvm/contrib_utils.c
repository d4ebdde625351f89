/* contrib_utils.c: tvm.contrib.utils.tempdir() (SPEC §9), a fresh directory under $TMPDIR (else
 * /tmp) for the files a tutorial writes (Module.save, export_library): relpath(name) is a path
 * in it, listdir() its entries, temp_dir the directory. The directory and the files in it are
 * removed when the object is freed, as TVM's TempDirectory removes them; a subdirectory a
 * script made in it stays. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/packages.h"
#include "ir/strbuf.h"
#include "ir/support.h"

static char *dir_of(Value *self) { return self->u.obj.p; }

static void tempdir_free(void *p) {
  char *dir = p;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    StrBuf path = STRBUF_INIT;
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
        path.len = 0;
        sb_printf(&path, "%s/%s", dir, e->d_name);
        unlink(sb_cstr(&path));
      }
    sb_free(&path);
    closedir(d);
  }
  rmdir(dir);
  free(dir);
}

static Value *m_relpath(Interp *I, Value *self, Value **a) {
  if (a[0]->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "relpath: the name must be a str, not '%s'",
                        val_type_name(a[0]));
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s/%s", dir_of(self), a[0]->u.str.s);
  return val_str_sb(&b);
}

static int cmp_names(const void *x, const void *y) {
  return strcmp(*(char *const *)x, *(char *const *)y);
}

static Value *m_listdir(Interp *I, Value *self, Value **a) {
  DIR *d = opendir(dir_of(self));
  if (!d)
    return interp_raise(I, EXC_RuntimeError, "listdir: %s: %s", dir_of(self), strerror(errno));
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
      names = xrealloc(names, (n + 1) * sizeof *names);
      names[n++] = xstrdup(e->d_name);
    }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_names); /* readdir's order is the file system's */
  Value *l = val_list_new((int64_t)n);
  for (size_t i = 0; i < n; i++) {
    val_list_append_take(l, val_cstr(names[i]));
    free(names[i]);
  }
  free(names);
  return l;
}

static Value *p_temp_dir(Interp *I, Value *self) { return val_cstr(dir_of(self)); }

static Value *tempdir_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "<TempDirectory %s>", dir_of(self));
  return val_str_sb(&b);
}

static const Builtin tempdir_methods[] = {
    {"relpath", m_relpath, 1, PARAMS("name"), "relpath(name) -> str: the path of name in it"},
    {"listdir", m_listdir, 0, NOPARAMS, "listdir() -> list: the names of its entries, sorted"},
    {0},
};

static const Property tempdir_props[] = {
    {"temp_dir", p_temp_dir, "the directory's path"},
    {0},
};

static const ObjClass tempdir_class = {
    .type = {"TempDirectory", NULL, VAL_OBJ, NULL},
    .free = tempdir_free,
    .repr = tempdir_repr,
    .methods = tempdir_methods,
    .props = tempdir_props,
};

static Value *fn_tempdir(Interp *I, Value *self, Value **a) {
  if (a[0] && a[0]->kind != VAL_NONE)
    return interp_raise(I, EXC_RuntimeError,
                        "not supported yet: tempdir(custom_path) (a directory of its own only)");
  const char *tmp = getenv("TMPDIR");
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s/tvm_tes_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  char *dir = sb_take(&b, NULL);
  if (!mkdtemp(dir)) {
    Value *r = interp_raise(I, EXC_RuntimeError, "tempdir: cannot make %s: %s", dir,
                            strerror(errno));
    free(dir);
    return r;
  }
  return val_obj_new(&tempdir_class, dir);
}

const Builtin bi_contrib_utils_funcs[] = {
    {"tempdir", fn_tempdir, 0, PARAMS("custom_path", "keep_for_debug"),
     "tempdir() -> TempDirectory: a new directory, removed with its files when freed"},
    {0},
};
