/* cuda_driver.c: see cuda_driver.h. The driver's C ABI is stable and plain: a CUdevice is an
 * int, a CUresult an enum whose success is 0, a CUdeviceptr a 64-bit integer and contexts,
 * modules, functions, events and streams are pointers, so no CUDA header is needed; the few
 * enum values used are spelled out below with the name cuda.h gives them. The entry points
 * are the ones cuda.h's macros name by default (cuMemAlloc is cuMemAlloc_v2, cuEventDestroy
 * is cuEventDestroy_v2, cuEventElapsedTime is cuEventElapsedTime_v2 from CUDA 12.8 on;
 * cuLaunchKernel and cuEventRecord on the legacy default stream). */
#include "jit/cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir/strbuf.h"
#include "ir/support.h"

enum {                           /* CUjit_option */
       JIT_ERROR_LOG_BUFFER = 5, /* CU_JIT_ERROR_LOG_BUFFER */
       JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};                          /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */
enum { EVENT_DEFAULT = 0 }; /* CU_EVENT_DEFAULT */
enum { MAX_DEVICES = 64 };

static int device_count;
static int (*get_device)(int *dev, int ordinal);
static int (*get_attribute)(int *value, int attr, int dev);
static int (*driver_version)(int *version);
static char why[512]; /* why device_count is 0; empty when it is not */
static pthread_once_t probed = PTHREAD_ONCE_INIT;
static const char *lib_path;

/* The entry points running needs, each `CUresult name(params)` as cuda.h declares it. */
#define CU_CALLS(X)                                                                                \
  X(cuDevicePrimaryCtxRetain, (void **pctx, int dev))                                              \
  X(cuCtxSetCurrent, (void *ctx))                                                                  \
  X(cuCtxSynchronize, (void))                                                                      \
  X(cuMemAlloc_v2, (CudaPtr * dptr, size_t bytesize))                                              \
  X(cuMemFree_v2, (CudaPtr dptr))                                                                  \
  X(cuMemcpyHtoD_v2, (CudaPtr dst, const void *src, size_t bytes))                                 \
  X(cuMemcpyDtoH_v2, (void *dst, CudaPtr src, size_t bytes))                                       \
  X(cuMemcpyDtoD_v2, (CudaPtr dst, CudaPtr src, size_t bytes))                                     \
  X(cuModuleLoadDataEx,                                                                            \
    (void **module, const void *image, unsigned nopts, int *opts, void **vals))                    \
  X(cuModuleGetFunction, (void **hfunc, void *hmod, const char *name))                             \
  X(cuModuleUnload, (void *hmod))                                                                  \
  X(cuLaunchKernel,                                                                                \
    (void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,        \
     unsigned shared_bytes, void *stream, void **params, void **extra))                            \
  X(cuEventCreate, (void **event, unsigned flags))                                                 \
  X(cuEventRecord, (void *event, void *stream))                                                    \
  X(cuEventSynchronize, (void *event))                                                             \
  X(cuEventElapsedTime_v2, (float *ms, void *start, void *end))                                    \
  X(cuEventDestroy_v2, (void *event))                                                              \
  X(cuGetErrorName, (int error, const char **str))                                                 \
  X(cuGetErrorString, (int error, const char **str))

static struct {
#define CU_FIELD(name, params) int(*name) params;
  CU_CALLS(CU_FIELD)
#undef CU_FIELD
} cu;

static void *entry(void *lib, const char *path, const char *name) {
  void *f = dlsym(lib, name);
  if (!f && !why[0]) snprintf(why, sizeof why, "%s has no entry point %s", path, name);
  return f;
}

static void probe(void) {
  const char *path = getenv("TES_CUDA_DRIVER");
  if (!path || !*path) path = "libcuda.so.1";
  lib_path = path;
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, sizeof why, "cannot load the CUDA driver: %s", e ? e : path);
    return;
  }
  /* The library stays loaded: the driver does not support being unloaded once initialised. */
  int (*init)(unsigned) = (int (*)(unsigned))entry(lib, path, "cuInit");
  int (*count)(int *) = (int (*)(int *))entry(lib, path, "cuDeviceGetCount");
  get_device = (int (*)(int *, int))entry(lib, path, "cuDeviceGet");
  get_attribute = (int (*)(int *, int, int))entry(lib, path, "cuDeviceGetAttribute");
  driver_version = (int (*)(int *))dlsym(lib, "cuDriverGetVersion");
  /* what running needs is looked up now and missed only when it is called */
#define CU_LOOKUP(name, params) *(void **)&cu.name = dlsym(lib, #name);
  CU_CALLS(CU_LOOKUP)
#undef CU_LOOKUP
  /* cuda.h 12.8 on names cuEventElapsedTime_v2 (same signature); older drivers lack it */
  if (!cu.cuEventElapsedTime_v2)
    *(void **)&cu.cuEventElapsedTime_v2 = dlsym(lib, "cuEventElapsedTime");
  if (!init || !count) return;
  int n = 0, r = init(0);
  if (r != 0) {
    snprintf(why, sizeof why, "cuInit failed with CUDA error %d", r);
  } else if ((r = count(&n)) != 0) {
    snprintf(why, sizeof why, "cuDeviceGetCount failed with CUDA error %d", r);
  } else if (n <= 0) {
    snprintf(why, sizeof why, "the CUDA driver sees no device");
  } else {
    device_count = n;
    why[0] = 0; /* a missing attribute query only costs the compute capability */
  }
}

int cuda_device_count(void) {
  pthread_once(&probed, probe);
  return device_count;
}

const char *cuda_driver_error(void) { return cuda_device_count() ? NULL : why; }

int cuda_driver_version(void) {
  pthread_once(&probed, probe);
  int v = 0;
  return driver_version && driver_version(&v) == 0 ? v : 0;
}

bool cuda_device_exists(int id) { return id >= 0 && id < cuda_device_count(); }

bool cuda_device_attribute(int id, int attr, int *value) {
  int dev;
  return cuda_device_exists(id) && get_device && get_attribute && get_device(&dev, id) == 0 &&
         get_attribute(value, attr, dev) == 0;
}

bool cuda_compute_capability(int id, int *major, int *minor) {
  return cuda_device_attribute(id, CUDA_ATTR_CC_MAJOR, major) &&
         cuda_device_attribute(id, CUDA_ATTR_CC_MINOR, minor);
}

/* ---- errors ---- */

/* Records "FN failed with NAME (TEXT) while WHAT" on d; false. */
TES_PRINTF(4, 5)
static bool failed(Diag *d, int r, const char *fn, const char *what, ...) {
  const char *name = NULL, *text = NULL;
  if (!cu.cuGetErrorName || cu.cuGetErrorName(r, &name) != 0 || !name) name = NULL;
  if (!cu.cuGetErrorString || cu.cuGetErrorString(r, &text) != 0 || !text) text = NULL;
  StrBuf b = STRBUF_INIT;
  if (name)
    sb_printf(&b, "%s failed with %s", fn, name);
  else
    sb_printf(&b, "%s failed with CUDA error %d", fn, r);
  if (text) sb_printf(&b, " (%s)", text);
  sb_puts(&b, " while ");
  va_list ap;
  va_start(ap, what);
  sb_vprintf(&b, what, ap);
  va_end(ap);
  if (d) ir_error(d, "%s", sb_cstr(&b));
  sb_free(&b);
  return false;
}

static bool missing(Diag *d, const char *fn) {
  if (d) ir_error(d, "the CUDA driver %s has no entry point %s", lib_path, fn);
  return false;
}

/* Calls cu.FN(ARGS): true on success, else the error on d naming FN and what was being done. */
#define CU(d, fn, args, ...)                                                                       \
  (!cu.fn ? missing((d), #fn) : (r_ = cu.fn args) == 0 ? true : failed((d), r_, #fn, __VA_ARGS__))

/* ---- devices and their contexts ---- */

static void *contexts[MAX_DEVICES];
static CudaLimits limits[MAX_DEVICES];
static bool have_limits[MAX_DEVICES];

static bool no_device(int id, Diag *d) {
  int n = cuda_device_count();
  if (n == 0) return ir_error(d, "no CUDA device (%s)", why);
  return ir_error(d, "there is no cuda(%d): the CUDA driver sees %d device%s", id, n,
                  n == 1 ? "" : "s");
}

/* Makes device id's primary context current on this thread, retaining it the first time. */
static bool current(int id, Diag *d) {
  int r_ = 0, dev;
  if (!cuda_device_exists(id)) return no_device(id, d);
  if (id >= MAX_DEVICES) return ir_error(d, "cuda(%d): tes handles %d devices", id, MAX_DEVICES);
  if (!contexts[id]) {
    if (!get_device) return missing(d, "cuDeviceGet");
    if ((r_ = get_device(&dev, id)) != 0)
      return failed(d, r_, "cuDeviceGet", "opening cuda(%d)", id);
    if (!CU(d, cuDevicePrimaryCtxRetain, (&contexts[id], dev), "opening cuda(%d)", id))
      return false;
  }
  return CU(d, cuCtxSetCurrent, (contexts[id]), "making cuda(%d) current", id);
}

bool cuda_device_ready(int id, Diag *d) { return current(id, d); }

static bool attribute(int id, int dev, int attr, const char *what, int *out, Diag *d) {
  int r = get_attribute(out, attr, dev);
  return r == 0 ? true
                : failed(d, r, "cuDeviceGetAttribute", "asking cuda(%d) for its %s", id, what);
}

bool cuda_device_limits(int id, CudaLimits *out, Diag *d) {
  if (!cuda_device_exists(id)) return no_device(id, d);
  if (id >= MAX_DEVICES) return ir_error(d, "cuda(%d): tes handles %d devices", id, MAX_DEVICES);
  if (have_limits[id]) return *out = limits[id], true;
  if (!get_device) return missing(d, "cuDeviceGet");
  if (!get_attribute) return missing(d, "cuDeviceGetAttribute");
  int dev, r = get_device(&dev, id);
  if (r != 0) return failed(d, r, "cuDeviceGet", "opening cuda(%d)", id);
  CudaLimits l;
  static const char *const axis[3] = {"x", "y", "z"};
  bool ok = attribute(id, dev, CUDA_ATTR_MAX_THREADS_PER_BLOCK, "max threads per block",
                      &l.max_threads_per_block, d) &&
            attribute(id, dev, CUDA_ATTR_MAX_SHARED_MEMORY_PER_BLOCK, "max shared memory per block",
                      &l.max_shared_memory_per_block, d) &&
            attribute(id, dev, CUDA_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "opt-in shared memory per block",
                      &l.max_shared_memory_per_block_optin, d) &&
            attribute(id, dev, CUDA_ATTR_WARP_SIZE, "warp size", &l.warp_size, d) &&
            attribute(id, dev, CUDA_ATTR_MULTIPROCESSOR_COUNT, "multiprocessor count",
                      &l.multi_processor_count, d) &&
            attribute(id, dev, CUDA_ATTR_CC_MAJOR, "compute capability", &l.cc_major, d) &&
            attribute(id, dev, CUDA_ATTR_CC_MINOR, "compute capability", &l.cc_minor, d);
  for (int i = 0; ok && i < 3; i++) {
    char what[32];
    snprintf(what, sizeof what, "max block extent in %s", axis[i]);
    ok = attribute(id, dev, CUDA_ATTR_MAX_BLOCK_DIM_X + i, what, &l.max_block[i], d);
    snprintf(what, sizeof what, "max grid extent in %s", axis[i]);
    ok = ok && attribute(id, dev, CUDA_ATTR_MAX_GRID_DIM_X + i, what, &l.max_grid[i], d);
  }
  if (!ok) return false;
  limits[id] = l;
  have_limits[id] = true;
  return *out = l, true;
}

/* ---- memory ---- */

bool cuda_mem_alloc(int id, size_t bytes, CudaPtr *out, Diag *d) {
  int r_;
  *out = 0;
  /* the driver refuses 0 bytes; an empty array still gets an address of its own */
  size_t n = bytes ? bytes : 1;
  return current(id, d) &&
         CU(d, cuMemAlloc_v2, (out, n), "allocating %zu bytes on cuda(%d)", bytes, id);
}

bool cuda_mem_free(int id, CudaPtr p, Diag *d) {
  int r_;
  if (!p) return true;
  Diag scratch = DIAG_INIT;
  Diag *e = d ? d : &scratch;
  return current(id, e) && CU(e, cuMemFree_v2, (p), "freeing device memory on cuda(%d)", id);
}

bool cuda_copy_to_device(int id, CudaPtr dst, const void *src, size_t bytes, Diag *d) {
  int r_;
  return bytes == 0 || (current(id, d) && CU(d, cuMemcpyHtoD_v2, (dst, src, bytes),
                                             "copying %zu bytes to cuda(%d)", bytes, id));
}

bool cuda_copy_to_host(int id, void *dst, CudaPtr src, size_t bytes, Diag *d) {
  int r_;
  return bytes == 0 || (current(id, d) && CU(d, cuMemcpyDtoH_v2, (dst, src, bytes),
                                             "copying %zu bytes from cuda(%d)", bytes, id));
}

bool cuda_copy_on_device(int id, CudaPtr dst, CudaPtr src, size_t bytes, Diag *d) {
  int r_;
  return bytes == 0 || (current(id, d) && CU(d, cuMemcpyDtoD_v2, (dst, src, bytes),
                                             "copying %zu bytes within cuda(%d)", bytes, id));
}

/* ---- modules and launches ---- */

struct CudaLoaded {
  int id;
  void *mod;
};

CudaLoaded *cuda_module_load(int id, const char *ptx, Diag *d) {
  int r_;
  if (!current(id, d)) return NULL;
  char log[4096] = "";
  int opts[2] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  /* an option's value is the pointer, or the number cast to a pointer */
  void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
  void *mod = NULL;
  if (!CU(d, cuModuleLoadDataEx, (&mod, ptx, 2, opts, vals), "loading the PTX on cuda(%d)%s%s", id,
          log[0] ? ": " : "", log))
    return NULL;
  CudaLoaded *m = xmalloc(sizeof *m);
  m->id = id;
  m->mod = mod;
  return m;
}

CudaFunction cuda_module_function(CudaLoaded *m, const char *name, Diag *d) {
  int r_;
  void *f = NULL;
  if (!current(m->id, d) ||
      !CU(d, cuModuleGetFunction, (&f, m->mod, name), "looking up kernel %s", name))
    return NULL;
  return f;
}

void cuda_module_unload(CudaLoaded *m) {
  if (!m) return;
  /* a module being freed has nowhere to report to; the driver frees it with the context */
  Diag d = DIAG_INIT;
  if (current(m->id, &d) && cu.cuModuleUnload) cu.cuModuleUnload(m->mod);
  free(m);
}

int cuda_module_device(const CudaLoaded *m) { return m->id; }

bool cuda_launch(CudaLoaded *m, CudaFunction f, const char *name, const unsigned grid[3],
                 const unsigned block[3], void **params, bool sync, Diag *d) {
  int r_;
  if (!current(m->id, d)) return false;
  if (!CU(d, cuLaunchKernel,
          (f, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, NULL, params, NULL),
          "launching %s with grid (%u, %u, %u) and block (%u, %u, %u) on cuda(%d)", name, grid[0],
          grid[1], grid[2], block[0], block[1], block[2], m->id))
    return false;
  return !sync || CU(d, cuCtxSynchronize, (), "running %s on cuda(%d)", name, m->id);
}

bool cuda_sync(int id, Diag *d) {
  int r_;
  return current(id, d) && CU(d, cuCtxSynchronize, (), "synchronizing cuda(%d)", id);
}

/* ---- events ---- */

CudaEvent cuda_event_new(int id, Diag *d) {
  int r_;
  void *e = NULL;
  if (!current(id, d) ||
      !CU(d, cuEventCreate, (&e, EVENT_DEFAULT), "creating an event on cuda(%d)", id))
    return NULL;
  return e;
}

bool cuda_event_record(int id, CudaEvent e, Diag *d) {
  int r_;
  return current(id, d) && CU(d, cuEventRecord, (e, NULL), "recording an event on cuda(%d)", id);
}

bool cuda_event_elapsed_ms(int id, CudaEvent start, CudaEvent end, float *ms, Diag *d) {
  int r_;
  return current(id, d) &&
         CU(d, cuEventSynchronize, (end), "waiting for an event on cuda(%d)", id) &&
         CU(d, cuEventElapsedTime_v2, (ms, start, end), "timing events on cuda(%d)", id);
}

void cuda_event_free(int id, CudaEvent e) {
  Diag d = DIAG_INIT;
  if (e && current(id, &d) && cu.cuEventDestroy_v2) cu.cuEventDestroy_v2(e);
}
