/* vta_rpc.c: tvm.rpc.LocalSession() (SPEC §13), the RPC session VTA's tutorials open in
 * simulation: in-process, no server. upload records a file under its base name, ext_dev(0) is
 * VTA's device; load_module of what vta.build saves arrives with vta.build. */
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/build.h"
#include "frontend/tvm/vta.h"
#include "ir/support.h"

#define DEV_EXT ((NDDevice)12) /* DLPack's kDLExtDev, VTA's ext_dev */

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

static Value *m_load_module(Interp *I, Value *self, Value **a) {
  return interp_raise(I, EXC_RuntimeError,
                      "not supported yet: LocalSession.load_module (VTA modules arrive with "
                      "vta.build)");
}

static Value *m_ext_dev(Interp *I, Value *self, Value **a) {
  int64_t id = 0;
  if (a[0] && (!val_is_int(a[0]) || (id = a[0]->u.i) < 0))
    return interp_raise(I, EXC_ValueError, "ext_dev: the device id must be an int >= 0");
  return bi_build_device_new(DEV_EXT, (int)id);
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
     "load_module(name) -> Module: a module uploaded (not supported yet: arrives with vta.build)"},
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
