/* module_source.c: what a built Module gives as text and files: get_source, save and
 * export_library (a shared object and a C header of its entry points). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/np/ndarray.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/raise.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/vta_runtime.h"

/* A cuda module's text by fmt: its own (CUDA C, or the host's launches), "cuda" (the kernels),
 * "ptx"; NULL for another fmt. */
static const char *cuda_text(const Built *m, const char *fmt) {
  if (!*fmt) return m->c_source;
  if (strcmp(fmt, "cuda") == 0 || strcmp(fmt, "cu") == 0)
    return m->cuda_source ? m->cuda_source : m->c_source;
  if (strcmp(fmt, "ptx") == 0) return m->ptx;
  return NULL;
}

bool bi_build_is_cuda(Value *module) { return built_of(module)->cuda; }

char *bi_build_source(Value *module, const char *fmt, Diag *d) {
  Built *m = built_of(module);
  if (m->cuda) {
    const char *text = cuda_text(m, fmt);
    if (text) return xstrdup(text);
    return ir_error(d, "a cuda module has 'cuda' and 'ptx' source, not '%s'", fmt), NULL;
  }
  if (!m->code) {
    if (!*fmt || strcmp(fmt, "c") == 0) return xstrdup(m->c_source);
  } else if (!*fmt || strcmp(fmt, "ll") == 0 || strcmp(fmt, "llvm") == 0) {
    return xstrdup(bi_llvm->ir_text(m->code));
  } else if (strcmp(fmt, "asm") == 0 || strcmp(fmt, "s") == 0) {
    return bi_llvm->asm_text(m->code, d);
  }
  ir_error(d, "%s", m->code ? "no such source (ll, asm)" : "a c module has only 'c' source");
  return NULL;
}

/* fmt: "" or "ll" (LLVM IR, TVM's default for llvm modules), "asm" or "s" (assembly). */
Value *bi_module_get_source(Interp *I, Value *self, Value **a) {
  Built *m = built_of(self);
  const char *fmt = bi_te_str_arg(I, a[0], "get_source", "fmt", "");
  if (!fmt) return NULL;
  if (m->cuda) {
    Diag d = DIAG_INIT;
    char *text = bi_build_source(self, fmt, &d);
    return text ? val_str_take(text, strlen(text)) : bi_raise_diag(I, EXC_ValueError, &d);
  }
  if (!m->code) {
    if (!*fmt || strcmp(fmt, "c") == 0) return val_cstr(m->c_source);
    return interp_raise(I, EXC_ValueError, "get_source: a c module has only 'c' source, not '%s'",
                        fmt);
  }
  if (!*fmt || strcmp(fmt, "ll") == 0 || strcmp(fmt, "llvm") == 0)
    return val_cstr(bi_llvm->ir_text(m->code));
  if (strcmp(fmt, "asm") == 0 || strcmp(fmt, "s") == 0) {
    Diag d = DIAG_INIT;
    char *text = bi_llvm->asm_text(m->code, &d);
    return text ? val_str_take(text, strlen(text)) : bi_raise_diag(I, EXC_RuntimeError, &d);
  }
  return interp_raise(I, EXC_ValueError, "get_source: unknown format '%s' (ll, asm)", fmt);
}

static int write_file(Interp *I, const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
    int e = errno;
    if (f) fclose(f);
    interp_raise(I, EXC_RuntimeError, "cannot write '%s': %s", path, strerror(e));
    return -1;
  }
  return 0;
}

static const char *extension(const char *path) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  return dot && (!slash || dot > slash) ? dot + 1 : "";
}

/* save(path, fmt=''): LLVM IR (.ll), assembly (.s) or an object file (.o), by fmt or else
 * the path's extension. */
Value *bi_module_save(Interp *I, Value *self, Value **a) {
  Built *m = built_of(self);
  const char *path = bi_te_str_arg(I, a[0], "save", "file_name", NULL);
  const char *fmt = path ? bi_te_str_arg(I, a[1], "save", "fmt", "") : NULL;
  if (!path || !fmt) return NULL;
  if (!*fmt) fmt = extension(path);
  Diag d = DIAG_INIT;
  char *data = NULL;
  size_t len = 0;
  int rc;
  if (m->cuda) {
    const char *text = cuda_text(m, fmt);
    if (!text)
      return interp_raise(I, EXC_ValueError, "save: a cuda module saves as cu or ptx, not '%s'",
                          fmt);
    return write_file(I, path, text, strlen(text)) < 0 ? NULL : val_none();
  }
  if (!m->code && m->lib)
    return interp_raise(I, EXC_RuntimeError, "not supported yet: save of a module load_module "
                        "gave (save the module vta.build gave)");
  if (!m->code) {
    if (strcmp(fmt, "c") != 0)
      return interp_raise(I, EXC_ValueError, "save: a c module saves as c, not '%s'", fmt);
    rc = write_file(I, path, m->c_source, strlen(m->c_source));
  } else if (strcmp(fmt, "ll") == 0) {
    rc = write_file(I, path, bi_llvm->ir_text(m->code), strlen(bi_llvm->ir_text(m->code)));
  } else if (strcmp(fmt, "s") == 0 || strcmp(fmt, "asm") == 0) {
    if (!(data = bi_llvm->asm_text(m->code, &d))) return bi_raise_diag(I, EXC_RuntimeError, &d);
    rc = write_file(I, path, data, strlen(data));
  } else if (strcmp(fmt, "o") == 0 || strcmp(fmt, "obj") == 0) {
    if (!bi_llvm->object(m->code, (void **)&data, &len, &d))
      return bi_raise_diag(I, EXC_RuntimeError, &d);
    rc = write_file(I, path, data, len);
    if (rc == 0 && m->vta) bi_vta_saved(m, data, len); /* for LocalSession.load_module */
  } else {
    return interp_raise(I, EXC_ValueError, "save: unknown format '%s' (ll, s, o)", fmt);
  }
  free(data);
  return rc < 0 ? NULL : val_none();
}

/* PATH's header: the same path ending in .h instead of its extension. */
static char *header_path(const char *path) {
  const char *ext = extension(path);
  size_t stem = *ext ? (size_t)(ext - 1 - path) : strlen(path);
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%.*s.h", (int)stem, path);
  return sb_take(&b, NULL);
}

/* export_library(file_name): a shared object of the compiled code linked with the system C
 * compiler, and beside it a C header declaring the entry points (docs/build.md). */
Value *bi_module_export_library(Interp *I, Value *self, Value **a) {
  Built *m = built_of(self);
  const char *path = bi_te_str_arg(I, a[0], "export_library", "file_name", NULL);
  if (!path) return NULL;
  if (m->vta)
    return interp_raise(I, EXC_RuntimeError,
                        "not supported yet: export_library of a VTA module (VTA's runtime is "
                        "tes's own: save it as .o and load it with LocalSession.load_module)");
  if (!m->code)
    return interp_raise(I, EXC_RuntimeError, "not supported yet: export_library of a %s module",
                        m->cuda ? "cuda" : "c");
  if ((a[1] && a[1]->kind != VAL_NONE) || (a[2] && a[2]->kind != VAL_NONE))
    return interp_raise(I, EXC_RuntimeError,
                        "not supported yet: export_library with fcompile or options");
  Diag d = DIAG_INIT;
  char *header = bi_llvm->c_header(m->code, m->f, &d);
  if (!header) return bi_raise_diag(I, EXC_RuntimeError, &d);
  void *obj = NULL;
  size_t len;
  char *hpath = header_path(path);
  int rc = -1;
  if (!bi_llvm->object(m->code, &obj, &len, &d) || !bi_llvm->export_shared(path, obj, len, &d))
    bi_raise_diag(I, EXC_RuntimeError, &d);
  else
    rc = write_file(I, hpath, header, strlen(header));
  free(obj);
  free(header);
  free(hpath);
  return rc < 0 ? NULL : val_none();
}
