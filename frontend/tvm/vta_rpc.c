/* vta_rpc.c: tvm.rpc.LocalSession() (SPEC §13), the RPC session VTA's tutorials open in
 * simulation: in-process, no server. upload records a file under its base name, ext_dev(0) is
 * VTA's device, load_module links an object file a vta.build module saved (Module.save) back
 * into the process, its calls of VTA's runtime resolved to this process's runtime. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/vta.h"
#include "frontend/tvm/vta_runtime.h"
#include "ir/support.h"


typedef struct Session {
  char **names, **paths; /* uploaded files: base name -> path as given */
  int n;
} Session;

static void session_free(void *p) {
  Session *s = p;
  for (int i = 0; i < s->n; i++) free(s->names[i]), free(s->paths[i]);
  free(s->names);
  free(s->paths);
  free(s);
}

static Value *session_repr(Interp *I, Value *self) { return val_cstr("<tvm.rpc.LocalSession>"); }

static Value *m_upload(Interp *I, Value *self, Value **a) {
  Session *s = self->u.obj.p;
  if (a[0]->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "upload: the path must be a str, not '%s'",
                        val_type_name(a[0]));
  const char *path = a[0]->u.str.s;
  const char *slash = strrchr(path, '/');
  const char *name = a[1] && a[1]->kind == VAL_STR ? a[1]->u.str.s : slash ? slash + 1 : path;
  s->names = xrealloc(s->names, (size_t)(s->n + 1) * sizeof *s->names);
  s->paths = xrealloc(s->paths, (size_t)(s->n + 1) * sizeof *s->paths);
  s->names[s->n] = xstrdup(name);
  s->paths[s->n++] = xstrdup(path);
  return val_none();
}

/* The file's bytes (malloc'd), or NULL with RuntimeError. */
static char *read_all(Interp *I, const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return interp_raise(I, EXC_RuntimeError, "load_module: cannot open %s: %s", path,
                        strerror(errno)),
           NULL;
  char *data = NULL;
  size_t n = 0, cap = 0, got;
  do {
    if (n == cap) data = xrealloc(data, cap = cap ? 2 * cap : 1 << 16);
    got = fread(data + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  bool bad = ferror(f);
  fclose(f);
  if (bad) {
    free(data);
    return interp_raise(I, EXC_RuntimeError, "load_module: cannot read %s", path), NULL;
  }
  *len = n;
  return data;
}

static Value *m_load_module(Interp *I, Value *self, Value **a) {
  Session *s = self->u.obj.p;
  if (a[0]->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "load_module: the name must be a str, not '%s'",
                        val_type_name(a[0]));
  const char *name = a[0]->u.str.s, *path = NULL;
  for (int i = s->n - 1; i >= 0 && !path; i--)
    if (strcmp(s->names[i], name) == 0) path = s->paths[i];
  if (!path)
    return interp_raise(I, EXC_RuntimeError,
                        "load_module: no file '%s' was uploaded to this session (upload it "
                        "first)", name);
  size_t len;
  char *obj = read_all(I, path, &len);
  if (!obj) return NULL;
  Lowered *l;
  const LoweredFunc *f;
  if (!bi_vta_saved_find(obj, len, &l, &f)) {
    free(obj);
    return interp_raise(I, EXC_RuntimeError,
                        "not supported yet: load_module of '%s', which no vta.build module of "
                        "this session saved (tes takes a module's signature from the session)",
                        name);
  }
  Value *mod = NULL;
  if (bi_build_llvm_loaded(I) && bi_vta_runtime_ready(I))
    mod = bi_build_load_object(I, l, f, "llvm", obj, len, true);
  else
    bi_sched_lowered_release(l);
  free(obj);
  return mod;
}

static Value *m_ext_dev(Interp *I, Value *self, Value **a) {
  int64_t id = 0;
  if (a[0] && (!val_is_int(a[0]) || (id = a[0]->u.i) < 0))
    return interp_raise(I, EXC_ValueError, "ext_dev: the device id must be an int >= 0");
  return bi_build_device_new(ND_EXT_DEV, (int)id);
}

static Value *m_cpu(Interp *I, Value *self, Value **a) {
  int64_t id = 0;
  if (a[0] && (!val_is_int(a[0]) || (id = a[0]->u.i) < 0))
    return interp_raise(I, EXC_ValueError, "cpu: the device id must be an int >= 0");
  return bi_build_device_new(ND_CPU, (int)id);
}

static const Builtin session_methods[] = {
    {"upload", m_upload, 1, PARAMS("data", "target"),
     "upload(path, target=None): make a file known to the session under its base name"},
    {"load_module", m_load_module, 1, PARAMS("path"),
     "load_module(name) -> Module: links the object file uploaded as name (a vta.build "
     "module's save) into this process"},
    {"ext_dev", m_ext_dev, 0, PARAMS("dev_id"), "ext_dev(dev_id=0) -> Device: VTA's device"},
    {"cpu", m_cpu, 0, PARAMS("dev_id"), "cpu(dev_id=0) -> Device: the host"},
    {0},
};

static const ObjClass session_class = {
    .type = {"LocalSession", NULL, VAL_OBJ, NULL},
    .free = session_free,
    .repr = session_repr,
    .methods = session_methods,
};

static Value *fn_local_session(Interp *I, Value *self, Value **a) {
  return val_obj_new(&session_class, xcalloc(1, sizeof(Session)));
}

const Builtin bi_vta_rpc_funcs[] = {
    {"LocalSession", fn_local_session, 0, NOPARAMS,
     "LocalSession() -> LocalSession: an RPC session in this process (upload, load_module, "
     "ext_dev)"},
    {0},
};
