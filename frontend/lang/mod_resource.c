/* mod_resource.c: the resource module's getrusage, for scripts that watch their own memory
 * and CPU time (bench/interp/build_loop.tes, the build-loop test). Linux's ru_maxrss is the
 * peak resident set (VmHWM) in KiB, as Python gives it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "ir/strbuf.h"

/* Python's struct_rusage is a tuple with named fields; tes gives ru_utime, ru_stime and
 * ru_maxrss, in that order (usage_props), so r[2] and r.ru_maxrss agree. */
enum { NFIELDS = 3 };

typedef struct Usage {
  double utime, stime; /* seconds */
  int64_t maxrss;      /* KiB */
} Usage;

static Value *field(const Usage *u, int i) {
  return i == 0 ? val_float(u->utime) : i == 1 ? val_float(u->stime) : val_int(u->maxrss);
}

static void usage_free(void *p) { free(p); }

static Value *get_utime(Interp *I, Value *self) { return field(self->u.obj.p, 0); }
static Value *get_stime(Interp *I, Value *self) { return field(self->u.obj.p, 1); }
static Value *get_maxrss(Interp *I, Value *self) { return field(self->u.obj.p, 2); }

static const Property usage_props[] = {
    {"ru_utime", get_utime, "user CPU time, in seconds"},
    {"ru_stime", get_stime, "system CPU time, in seconds"},
    {"ru_maxrss", get_maxrss, "peak resident set size, in KiB"},
    {0},
};

static Value *usage_getitem(Interp *I, Value *self, Value *key) {
  int64_t i;
  if (bi_arg_index(I, key, &i) < 0) return NULL;
  if (i < 0) i += NFIELDS;
  if (i < 0 || i >= NFIELDS) return interp_raise(I, EXC_IndexError, "tuple index out of range");
  return field(self->u.obj.p, (int)i);
}

static int64_t usage_len(Interp *I, Value *self) { return NFIELDS; }

static Value *usage_repr(Interp *I, Value *self) {
  const Usage *u = self->u.obj.p;
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "resource.struct_rusage(ru_utime=%g, ru_stime=%g, ru_maxrss=%lld)", u->utime,
            u->stime, (long long)u->maxrss);
  return val_str_sb(&b);
}

static const ObjClass usage_class = {
    .type = {"struct_rusage", NULL, VAL_OBJ, NULL},
    .free = usage_free,
    .repr = usage_repr,
    .props = usage_props,
    .getitem = usage_getitem,
    .len = usage_len,
};

static double seconds(struct timeval tv) { return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec; }

static Value *bi_resource_getrusage(Interp *I, Value *self, Value **a) {
  int64_t who;
  if (bi_arg_index(I, a[0], &who) < 0) return NULL;
  if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN)
    return interp_raise(I, EXC_ValueError, "invalid who parameter");
  struct rusage ru;
  if (getrusage((int)who, &ru) != 0)
    return interp_raise(I, EXC_RuntimeError, "getrusage failed: %s", strerror(errno));
  Usage *u = xmalloc(sizeof *u);
  *u = (Usage){seconds(ru.ru_utime), seconds(ru.ru_stime), (int64_t)ru.ru_maxrss};
  return val_obj_new(&usage_class, u);
}

static int resource_init(Interp *I, Value *m) {
  bi_set_member_take(m, "RUSAGE_SELF", val_int(RUSAGE_SELF));
  bi_set_member_take(m, "RUSAGE_CHILDREN", val_int(RUSAGE_CHILDREN));
  return 0;
}

static const Builtin resource_funcs[] = {
    {"getrusage", bi_resource_getrusage, 1, PARAMS("who"),
     "getrusage(who) -> struct_rusage: ru_utime, ru_stime (seconds) and ru_maxrss (peak "
     "resident memory, KiB) of this process (RUSAGE_SELF) or its children"},
    {0},
};

const ModuleDef mod_resource = {"resource", resource_funcs, resource_init,
                                "resource usage: getrusage (CPU time, peak memory)", NULL, NULL};
