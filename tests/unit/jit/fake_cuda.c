/* fake_cuda.c: a FAKE libcuda.so.1 for tests on machines without a GPU. It computes nothing:
 * "device memory" is host memory, a launch runs no kernel and is only written down, and event
 * times are made up. What it lets tests check is tes's host side: the probe, copies to and from
 * device memory, the arguments marshalled for cuLaunchKernel, grids and blocks, and the
 * handling of the driver's errors. It exports the entry points jit/cuda_driver.c resolves.
 *
 * Devices: ordinal i is handle 100 + i; device 0 has compute capability 8.6, the others 7.0;
 * every device has the limits of attribute() below. The environment picks the rest:
 *   FAKE_CUDA_DEVICES     how many devices (default 2)
 *   FAKE_CUDA_MAX_THREADS, FAKE_CUDA_MAX_SHARED   device 0's threads and shared memory a block
 *   FAKE_CUDA_INIT        cuInit's result; FAKE_CUDA_COUNT_ERROR cuDeviceGetCount's
 *   FAKE_CUDA_FAIL=NAME:CODE   entry point NAME returns CODE (a CUresult) every time
 *   FAKE_CUDA_LOG=PATH    appends one line per allocation, copy, module, launch and sync, and
 *                         at exit the allocations never freed; pointers are written as the
 *                         allocation they fall in ("buf#2"), so logs do not depend on addresses
 * A launch of an entry the PTX does not declare, a copy outside the allocations, or a pointer
 * argument that is not device memory are errors, as the real driver would fault on them.
 * Built once whole and once without each of two entry points (FAKE_CUDA_NO_INIT,
 * FAKE_CUDA_NO_ATTRIBUTE, see tests/meson.build). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_FAILED = 719,
};

/* How often cuInit ran: the probe must run once however often it is asked. */
int fake_cuda_init_calls;

static int env_int(const char *name, int otherwise) {
  const char *s = getenv(name);
  return s && *s ? atoi(s) : otherwise;
}

static int devices(void) { return env_int("FAKE_CUDA_DEVICES", 2); }

/* FAKE_CUDA_FAIL's code when it names fn, else 0. */
static int injected(const char *fn) {
  const char *s = getenv("FAKE_CUDA_FAIL");
  size_t n = strlen(fn);
  return s && strncmp(s, fn, n) == 0 && s[n] == ':' ? atoi(s + n + 1) : 0;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  const char *path = getenv("FAKE_CUDA_LOG");
  FILE *f = path && *path ? fopen(path, "a") : NULL;
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
}

#ifndef FAKE_CUDA_NO_INIT
int cuInit(unsigned flags) {
  fake_cuda_init_calls++;
  return flags != 0 ? CUDA_ERROR_INVALID_VALUE : env_int("FAKE_CUDA_INIT", 0);
}
#endif

/* a made-up version no real driver reports: 99.5 */
int cuDriverGetVersion(int *version) {
  *version = 99050;
  return 0;
}

int cuDeviceGetCount(int *count) {
  int err = env_int("FAKE_CUDA_COUNT_ERROR", 0);
  if (!err) *count = devices();
  return err;
}

int cuDeviceGet(int *dev, int ordinal) {
  if (ordinal < 0 || ordinal >= devices()) return CUDA_ERROR_INVALID_DEVICE;
  *dev = 100 + ordinal;
  return 0;
}

#ifndef FAKE_CUDA_NO_ATTRIBUTE
/* Plausible limits of a recent GPU, by CUdevice_attribute number. */
static int attribute(int attr, int dev) {
  switch (attr) {
  case 1: return dev == 100 ? env_int("FAKE_CUDA_MAX_THREADS", 1024) : 512; /* MAX_THREADS_PER_BLOCK */
  case 2: case 3: return 1024;       /* MAX_BLOCK_DIM_X, Y */
  case 4: return 64;                 /* MAX_BLOCK_DIM_Z */
  case 5: return 2147483647;         /* MAX_GRID_DIM_X */
  case 6: case 7: return 65535;      /* MAX_GRID_DIM_Y, Z */
  case 8: return env_int("FAKE_CUDA_MAX_SHARED", 49152); /* MAX_SHARED_MEMORY_PER_BLOCK */
  case 10: return 32;                /* WARP_SIZE */
  case 16: return 4;                 /* MULTIPROCESSOR_COUNT */
  case 75: return dev == 100 ? 8 : 7; /* COMPUTE_CAPABILITY_MAJOR */
  case 76: return dev == 100 ? 6 : 0; /* COMPUTE_CAPABILITY_MINOR */
  case 97: return 101376;            /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
  default: return -1;
  }
}

int cuDeviceGetAttribute(int *value, int attr, int dev) {
  if (dev < 100 || dev >= 100 + devices()) return CUDA_ERROR_INVALID_DEVICE;
  if (injected("cuDeviceGetAttribute")) return injected("cuDeviceGetAttribute");
  int v = attribute(attr, dev);
  if (v < 0) return CUDA_ERROR_INVALID_VALUE;
  *value = v;
  return 0;
}
#endif

/* ---- contexts ---- */

static int contexts[16]; /* a context is a pointer to its device's slot */
static int *current;

int cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  if (dev < 100 || dev >= 100 + devices() || dev >= 116) return CUDA_ERROR_INVALID_DEVICE;
  if (injected("cuDevicePrimaryCtxRetain")) return injected("cuDevicePrimaryCtxRetain");
  contexts[dev - 100] = dev;
  *ctx = &contexts[dev - 100];
  return 0;
}

int cuCtxSetCurrent(void *ctx) {
  current = ctx;
  return 0;
}

int cuCtxSynchronize(void) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  say("sync cuda(%d)", *current - 100);
  return injected("cuCtxSynchronize");
}

/* ---- memory: host blocks, numbered ---- */

typedef struct Block {
  char *p;
  size_t n;
  int device;
  int live;
} Block;
static Block blocks[4096];
static int nblocks;

/* The block p points into (its number in *k, offset in *off), or NULL. */
static Block *block_of(uint64_t p, size_t bytes, int *k, size_t *off) {
  for (int i = 0; i < nblocks; i++) {
    Block *b = &blocks[i];
    uint64_t base = (uint64_t)(uintptr_t)b->p;
    if (b->live && p >= base && p - base + bytes <= b->n) {
      *k = i, *off = (size_t)(p - base);
      return b;
    }
  }
  return NULL;
}

int cuMemAlloc_v2(uint64_t *dptr, size_t bytes) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (injected("cuMemAlloc_v2")) return injected("cuMemAlloc_v2");
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (nblocks == (int)(sizeof blocks / sizeof *blocks)) return CUDA_ERROR_OUT_OF_MEMORY;
  char *p = calloc(1, bytes);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  blocks[nblocks] = (Block){p, bytes, *current - 100, 1};
  say("alloc buf#%d %zu bytes on cuda(%d)", nblocks, bytes, *current - 100);
  nblocks++;
  *dptr = (uint64_t)(uintptr_t)p;
  return 0;
}

int cuMemFree_v2(uint64_t dptr) {
  int k;
  size_t off;
  Block *b = block_of(dptr, 0, &k, &off);
  if (!b || off) return CUDA_ERROR_INVALID_VALUE;
  say("free buf#%d", k);
  free(b->p);
  b->live = 0;
  return 0;
}

int cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t bytes) {
  int k;
  size_t off;
  if (injected("cuMemcpyHtoD_v2")) return injected("cuMemcpyHtoD_v2");
  Block *b = block_of(dst, bytes, &k, &off);
  if (!b) return CUDA_ERROR_INVALID_VALUE;
  memcpy(b->p + off, src, bytes);
  say("copy %zu bytes host -> buf#%d", bytes, k);
  return 0;
}

int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes) {
  int k;
  size_t off;
  if (injected("cuMemcpyDtoH_v2")) return injected("cuMemcpyDtoH_v2");
  Block *b = block_of(src, bytes, &k, &off);
  if (!b) return CUDA_ERROR_INVALID_VALUE;
  memcpy(dst, b->p + off, bytes);
  say("copy %zu bytes buf#%d -> host", bytes, k);
  return 0;
}

int cuMemcpyDtoD_v2(uint64_t dst, uint64_t src, size_t bytes) {
  int kd, ks;
  size_t od, os;
  Block *d = block_of(dst, bytes, &kd, &od), *s = block_of(src, bytes, &ks, &os);
  if (!d || !s) return CUDA_ERROR_INVALID_VALUE;
  memmove(d->p + od, s->p + os, bytes);
  say("copy %zu bytes buf#%d -> buf#%d", bytes, ks, kd);
  return 0;
}

/* ---- modules: PTX text, its .entry declarations read for their parameters ---- */

typedef struct Func {
  char name[256];
  int nparams;
  int bytes[64]; /* each parameter's size, from its .u64/.u32/.s32/.f32 ... type */
} Func;

typedef struct Module {
  char *ptx;
  Func funcs[32];
  int nfuncs;
} Module;

int cuModuleLoadDataEx(void **module, const void *image, unsigned nopts, int *opts, void **vals) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  const char *ptx = image;
  int err = injected("cuModuleLoadDataEx");
  if (!err && !strstr(ptx, ".version")) err = CUDA_ERROR_INVALID_PTX;
  if (err) {
    for (unsigned i = 0; i < nopts; i++) /* CU_JIT_ERROR_LOG_BUFFER */
      if (opts[i] == 5 && vals[i]) snprintf(vals[i], 64, "fake JIT log: refused");
    return err;
  }
  Module *m = calloc(1, sizeof *m);
  m->ptx = strdup(ptx);
  say("load module on cuda(%d)", *current - 100);
  *module = m;
  return 0;
}

/* The entry's parameters: ".param .u64 NAME_param_0," up to its closing parenthesis. */
static int read_params(const char *p, Func *f) {
  const char *end = strchr(p, ')');
  if (!end) return CUDA_ERROR_INVALID_PTX;
  for (const char *q = strstr(p, ".param"); q && q < end && f->nparams < 64;
       q = strstr(q + 6, ".param")) {
    const char *t = q + 6;
    while (*t == ' ' || *t == '\t') t++;
    if (*t != '.') return CUDA_ERROR_INVALID_PTX;
    f->bytes[f->nparams++] = atoi(t + 2) / 8;
  }
  return 0;
}

int cuModuleGetFunction(void **hfunc, void *hmod, const char *name) {
  Module *m = hmod;
  char want[300];
  snprintf(want, sizeof want, ".entry %s(", name);
  const char *p = strstr(m->ptx, want);
  if (!p || m->nfuncs == 32) return CUDA_ERROR_NOT_FOUND;
  Func *f = &m->funcs[m->nfuncs];
  memset(f, 0, sizeof *f);
  snprintf(f->name, sizeof f->name, "%s", name);
  int err = read_params(p + strlen(want), f);
  if (err) return err;
  m->nfuncs++;
  *hfunc = f;
  return 0;
}

int cuModuleUnload(void *hmod) {
  Module *m = hmod;
  say("unload module");
  free(m->ptx);
  free(m);
  return 0;
}

/* ---- launches: written down, never run ---- */

static int launches; /* how many, for the made-up event times */

int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  Func *f = fn;
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (injected("cuLaunchKernel")) return injected("cuLaunchKernel");
  if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > 1024 || extra || stream ||
      !params)
    return CUDA_ERROR_INVALID_VALUE;
  char args[2048] = "";
  size_t len = 0;
  for (int i = 0; i < f->nparams; i++) {
    const char *sep = i ? ", " : "";
    if (f->bytes[i] == 8) {
      uint64_t v;
      memcpy(&v, params[i], 8);
      int k;
      size_t off;
      /* a pointer argument: it must be device memory, as the real kernel would fault */
      if (!block_of(v, 0, &k, &off)) return CUDA_ERROR_ILLEGAL_ADDRESS;
      len += (size_t)snprintf(args + len, sizeof args - len, "%sbuf#%d", sep, k);
      if (off) len += (size_t)snprintf(args + len, sizeof args - len, "+%zu", off);
    } else if (f->bytes[i] == 4) {
      int32_t v;
      memcpy(&v, params[i], 4);
      len += (size_t)snprintf(args + len, sizeof args - len, "%s%d", sep, v);
    } else {
      return CUDA_ERROR_INVALID_VALUE;
    }
    if (len >= sizeof args) return CUDA_ERROR_INVALID_VALUE;
  }
  launches++;
  say("launch %s grid=(%u,%u,%u) block=(%u,%u,%u) shared=%u args=(%s)", f->name, gx, gy, gz, bx,
      by, bz, shared, args);
  return 0;
}

/* ---- events: a launch "takes" 0.5 ms, so timings are known in advance ---- */

typedef struct Event {
  int recorded, at;
} Event;

int cuEventCreate(void **event, unsigned flags) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  *event = calloc(1, sizeof(Event));
  return 0;
}

int cuEventRecord(void *event, void *stream) {
  Event *e = event;
  if (stream) return CUDA_ERROR_INVALID_VALUE;
  e->recorded = 1;
  e->at = launches;
  return 0;
}

int cuEventSynchronize(void *event) { return event ? 0 : CUDA_ERROR_INVALID_HANDLE; }

int cuEventElapsedTime(float *ms, void *start, void *end) {
  Event *a = start, *b = end;
  if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
  *ms = 0.5f * (float)(b->at - a->at);
  return 0;
}

int cuEventDestroy_v2(void *event) {
  free(event);
  return 0;
}

/* ---- errors ---- */

static const struct {
  int code;
  const char *name, *text;
} errors[] = {
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

static int error_entry(int code) {
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
    if (errors[i].code == code) return (int)i;
  return -1;
}

int cuGetErrorName(int error, const char **str) {
  int i = error_entry(error);
  if (i < 0) return CUDA_ERROR_INVALID_VALUE;
  *str = errors[i].name;
  return 0;
}

int cuGetErrorString(int error, const char **str) {
  int i = error_entry(error);
  if (i < 0) return CUDA_ERROR_INVALID_VALUE;
  *str = errors[i].text;
  return 0;
}

/* At exit: the device memory never freed (a leak in tes). */
__attribute__((destructor)) static void report_leaks(void) {
  int live = 0;
  for (int i = 0; i < nblocks; i++) live += blocks[i].live;
  if (nblocks) say("exit: %d of %d allocations not freed", live, nblocks);
}
