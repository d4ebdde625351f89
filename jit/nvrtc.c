/* nvrtc.c: see nvrtc.h. The few NVRTC entry points used are declared here rather than taken
 * from nvrtc.h, so the build needs no toolkit: their C ABI is stable (an nvrtcProgram is an
 * opaque pointer, nvrtcResult an enum whose success is 0). */
#include "jit/nvrtc.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *Program;

static struct {
  int (*create)(Program *, const char *, const char *, int, const char *const *,
                const char *const *);
  int (*compile)(Program, int, const char *const *);
  int (*ptx_size)(Program, size_t *);
  int (*ptx)(Program, char *);
  int (*log_size)(Program, size_t *);
  int (*log)(Program, char *);
  int (*destroy)(Program *);
  const char *(*error_string)(int);
  int (*version)(int *, int *);
} api;
static char why[512]; /* why NVRTC could not be loaded; empty when it was */
/* -I of the toolkit's headers (cuda_fp16.h), beside the library loaded; empty when none is */
static char include_opt[1100];
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void *open_nvrtc(void) {
  static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12"};
  const char *home = getenv("CUDA_HOME");
  const char *dirs[] = {home && *home ? home : NULL, "/usr/local/cuda"};
  char path[1024];
  for (size_t n = 0; n < sizeof names / sizeof *names; n++) {
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
      if (!dirs[i]) continue;
      snprintf(path, sizeof path, "%s/lib64/%s", dirs[i], names[n]);
      void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (lib) return lib;
    }
    void *lib = dlopen(names[n], RTLD_NOW | RTLD_LOCAL);
    if (lib) return lib;
  }
  return NULL;
}

/* The include folder of the toolkit NVRTC came from: lib64/../include (lib64 may be a link to
 * targets/ARCH/lib, whose ../include is the same folder's). */
static void find_include(void) {
  Dl_info info;
  if (!dladdr((void *)api.create, &info) || !info.dli_fname) return;
  const char *slash = strrchr(info.dli_fname, '/');
  if (!slash) return;
  char dir[1024];
  snprintf(dir, sizeof dir, "%.*s/../include", (int)(slash - info.dli_fname), info.dli_fname);
  char header[1100];
  snprintf(header, sizeof header, "%s/cuda_fp16.h", dir);
  if (access(header, R_OK) == 0) snprintf(include_opt, sizeof include_opt, "-I%s", dir);
}

static void load(void) {
  void *lib = open_nvrtc();
  if (!lib) {
    snprintf(why, sizeof why,
             "NVRTC was not found (libnvrtc.so.13 or .12 in $CUDA_HOME/lib64, "
             "/usr/local/cuda/lib64 or the loader's path): install the CUDA toolkit's NVRTC "
             "(cuda-nvrtc) or set CUDA_HOME");
    return;
  }
  static const char *const names[] = {"nvrtcCreateProgram", "nvrtcCompileProgram",
                                      "nvrtcGetPTXSize",    "nvrtcGetPTX",
                                      "nvrtcGetProgramLogSize", "nvrtcGetProgramLog",
                                      "nvrtcDestroyProgram", "nvrtcGetErrorString",
                                      "nvrtcVersion"};
  void **slots = (void **)&api;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    slots[i] = dlsym(lib, names[i]);
    if (!slots[i]) {
      snprintf(why, sizeof why, "the NVRTC library found has no entry point %s", names[i]);
      memset(&api, 0, sizeof api);
      return;
    }
  }
  find_include();
}

bool nvrtc_available(Diag *d) {
  pthread_once(&loaded, load);
  return why[0] ? ir_error(d, "%s", why) : true;
}

bool nvrtc_version(int *major, int *minor, Diag *d) {
  if (!nvrtc_available(d)) return false;
  int r = api.version(major, minor);
  return r == 0 ? true : ir_error(d, "nvrtcVersion failed: %s", api.error_string(r));
}

/* The line of src that NVRTC's log first names ("tes_kernel.cu(12): error: ..."), quoted. */
static void offending_line(const char *src, const char *log, char *out, size_t size) {
  out[0] = 0;
  const char *at = strstr(log, ".cu(");
  if (!at) return;
  int line = atoi(at + 4);
  const char *s = src;
  for (int i = 1; i < line && s; i++)
    if ((s = strchr(s, '\n'))) s++;
  if (!s || !*s) return;
  int len = (int)strcspn(s, "\n");
  snprintf(out, size, "\n  generated line %d: %.*s", line, len, s);
}

char *nvrtc_compile(const char *src, const char *arch, Diag *d) {
  if (!nvrtc_available(d)) return NULL;
  Program prog = NULL;
  int r = api.create(&prog, src, "tes_kernel.cu", 0, NULL, NULL);
  if (r != 0)
    return ir_internal_error(d, "nvrtcCreateProgram failed: %s", api.error_string(r)), NULL;
  char opt_arch[64];
  snprintf(opt_arch, sizeof opt_arch, "--gpu-architecture=%s", arch);
  const char *opts[] = {opt_arch, "--std=c++17", include_opt};
  r = api.compile(prog, include_opt[0] ? 3 : 2, opts);
  char *ptx = NULL;
  if (r != 0) {
    size_t n = 0;
    char *log = NULL;
    if (api.log_size(prog, &n) == 0 && n > 0 && (log = malloc(n + 1)) && api.log(prog, log) == 0) {
      log[n] = 0;
      char where[512];
      offending_line(src, log, where, sizeof where);
      ir_error(d, "NVRTC could not compile the generated CUDA C for %s:%s\n%s%s", arch, where, log,
               include_opt[0] || !strstr(log, "cuda_fp16.h")
                   ? ""
                   : "(float16 needs the toolkit's cuda_fp16.h, which is not in the include "
                     "folder beside NVRTC: set CUDA_HOME to the toolkit)\n");
    } else {
      ir_error(d, "NVRTC could not compile the generated CUDA C for %s: %s", arch,
               api.error_string(r));
    }
    free(log);
  } else {
    size_t n = 0;
    if (api.ptx_size(prog, &n) != 0 || !(ptx = malloc(n + 1)) || api.ptx(prog, ptx) != 0) {
      free(ptx);
      ptx = NULL;
      ir_internal_error(d, "NVRTC compiled the kernel but gave no PTX");
    } else {
      ptx[n] = 0;
    }
  }
  api.destroy(&prog);
  return ptx;
}
