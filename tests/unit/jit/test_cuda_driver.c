/* test_cuda_driver.c: unit tests of jit/cuda_driver.c, the run-time probe of the CUDA driver.
 * Each probe runs in a child (the driver is probed once a process) pointed at a library by
 * TES_CUDA_DRIVER: a path that does not exist, and the stand-in drivers of fake_cuda.c (whole,
 * failing on request, lacking an entry point), whose paths meson passes as arguments; the
 * devices, compute capabilities and reasons the probe gives must be what the stand-in says.
 * Then what running needs (jit/cuda_driver.h's limits, memory, copies, modules, launches,
 * events; jit/nd_cuda.h's device arrays) against the FAKE driver, which runs no kernel: copies
 * and the messages of the driver's errors are what is checked. Then the machine's own
 * driver: with a device, each has a plausible compute capability; with none, those checks are
 * skipped and the reason is printed. */
#include <dlfcn.h>
#include <stdlib.h>

#include "jit/cuda_driver.h"
#include "jit/nd_cuda.h"
#include "tests/unit/check.h"

/* What a child saw of the driver. */
typedef struct Probe {
  int count, count_again, init_calls;
  bool exists[4]; /* devices -1, 0, 1, 2 */
  bool cc_ok[3];  /* devices 0, 1, 2 */
  int major[3], minor[3];
  bool threads_ok[3]; /* cuda_device_attribute(i, CUDA_ATTR_MAX_THREADS_PER_BLOCK) */
  int threads[3];
  bool unknown_ok; /* device 0's attribute 0, a number the driver does not know */
  char error[256]; /* cuda_driver_error(), "(null)" when NULL */
} Probe;

static void probe_here(const char *driver, Probe *p) {
  p->count = cuda_device_count();
  p->count_again = cuda_device_count();
  for (int i = 0; i < 4; i++) p->exists[i] = cuda_device_exists(i - 1);
  for (int i = 0; i < 3; i++) p->cc_ok[i] = cuda_compute_capability(i, &p->major[i], &p->minor[i]);
  for (int i = 0; i < 3; i++)
    p->threads_ok[i] = cuda_device_attribute(i, CUDA_ATTR_MAX_THREADS_PER_BLOCK, &p->threads[i]);
  int unknown;
  p->unknown_ok = cuda_device_attribute(0, 0, &unknown);
  const char *e = cuda_driver_error();
  snprintf(p->error, sizeof p->error, "%s", e ? e : "(null)");
  /* the stand-in is loaded already: this finds it, and its count of cuInit calls */
  void *lib = dlopen(driver, RTLD_NOW | RTLD_NOLOAD);
  int *calls = lib ? dlsym(lib, "fake_cuda_init_calls") : NULL;
  p->init_calls = calls ? *calls : -1;
}

/* Probes in a child with TES_CUDA_DRIVER=driver and the stand-in's settings (NAME=VALUE
 * strings, NULL-ended); false when the child did not report. */
static bool probe(const char *driver, const char *const *settings, Probe *p) {
  int fd[2];
  memset(p, 0, sizeof *p);
  if (pipe(fd) != 0) return false;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    setenv("TES_CUDA_DRIVER", driver, 1);
    for (int i = 0; settings && settings[i]; i++) putenv((char *)settings[i]);
    Probe q = {0};
    probe_here(driver, &q);
    _exit(write(fd[1], &q, sizeof q) == (ssize_t)sizeof q ? 0 : 1);
  }
  close(fd[1]);
  ssize_t got = read(fd[0], p, sizeof *p);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return got == (ssize_t)sizeof *p && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static bool no_devices(const Probe *p) {
  for (int i = 0; i < 4; i++)
    if (p->exists[i]) return false;
  return p->count == 0 && p->count_again == 0 && !p->cc_ok[0];
}

static void test_cuda_driver_missing_library(void) {
  Probe p;
  CHECK(probe("/nonexistent/libcuda.so.1", NULL, &p));
  CHECK(no_devices(&p));
  CHECK(strstr(p.error, "cannot load the CUDA driver: ") == p.error);
  CHECK(strstr(p.error, "/nonexistent/libcuda.so.1") != NULL);
}

static void test_cuda_driver_fake(const char *fake) {
  Probe p;
  CHECK(probe(fake, NULL, &p));
  CHECK(p.count == 2 && p.count_again == 2);
  CHECK(p.init_calls == 1); /* probed once, however often asked */
  CHECK(!p.exists[0] && p.exists[1] && p.exists[2] && !p.exists[3]);
  CHECK(p.cc_ok[0] && p.major[0] == 8 && p.minor[0] == 6);
  CHECK(p.cc_ok[1] && p.major[1] == 7 && p.minor[1] == 0);
  CHECK(!p.cc_ok[2]);
  CHECK(p.threads_ok[0] && p.threads[0] == 1024 && p.threads_ok[1] && p.threads[1] == 512);
  CHECK(!p.threads_ok[2] && !p.unknown_ok);
  CHECK(strcmp(p.error, "(null)") == 0);

  const char *one[] = {"FAKE_CUDA_DEVICES=1", NULL};
  CHECK(probe(fake, one, &p));
  CHECK(p.count == 1 && p.exists[1] && !p.exists[2] && p.cc_ok[0] && !p.cc_ok[1]);
}

static void test_cuda_driver_fake_fails(const char *fake) {
  Probe p;
  const char *init_fails[] = {"FAKE_CUDA_INIT=100", NULL};
  CHECK(probe(fake, init_fails, &p));
  CHECK(no_devices(&p) && p.init_calls == 1);
  CHECK_TEXT(p.error, "cuInit failed with CUDA error 100");

  const char *count_fails[] = {"FAKE_CUDA_COUNT_ERROR=3", NULL};
  CHECK(probe(fake, count_fails, &p));
  CHECK(no_devices(&p));
  CHECK_TEXT(p.error, "cuDeviceGetCount failed with CUDA error 3");

  const char *none[] = {"FAKE_CUDA_DEVICES=0", NULL};
  CHECK(probe(fake, none, &p));
  CHECK(no_devices(&p));
  CHECK_TEXT(p.error, "the CUDA driver sees no device");
}

/* A driver without the attribute query still has devices, but no compute capability. */
static void test_cuda_driver_no_attribute(const char *fake) {
  Probe p;
  CHECK(probe(fake, NULL, &p));
  CHECK(p.count == 2 && p.exists[1] && p.exists[2]);
  CHECK(!p.cc_ok[0] && !p.cc_ok[1] && !p.threads_ok[0]);
  CHECK(strcmp(p.error, "(null)") == 0);
}

static void test_cuda_driver_no_init(const char *fake) {
  Probe p;
  CHECK(probe(fake, NULL, &p));
  CHECK(no_devices(&p));
  CHECK(strstr(p.error, "has no entry point cuInit") != NULL);
  CHECK(strstr(p.error, fake) == p.error);
}

/* Runs fn in a child with TES_CUDA_DRIVER=driver and the stand-in's settings; the child's
 * checks are counted here (its passed and failed counts come back through a pipe). */
static void in_child(const char *driver, const char *const *settings, void (*fn)(void)) {
  int fd[2];
  if (pipe(fd) != 0) {
    failed++;
    return;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    setenv("TES_CUDA_DRIVER", driver, 1);
    for (int i = 0; settings && settings[i]; i++) putenv((char *)settings[i]);
    passed = failed = 0; /* the child's own counts, not the ones it inherited */
    fn();
    fflush(stdout);
    int counts[2] = {passed, failed};
    _exit(write(fd[1], counts, sizeof counts) == (ssize_t)sizeof counts ? 0 : 1);
  }
  close(fd[1]);
  int counts[2] = {0, 1};
  ssize_t got = read(fd[0], counts, sizeof counts);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != (ssize_t)sizeof counts || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    counts[0] = 0, counts[1] = 1;
  passed += counts[0];
  failed += counts[1];
}

/* Whether d holds an error whose message starts with `want`. */
static bool error_starts(const Diag *d, const char *want) {
  bool ok = diag_failed(d) && strncmp(d->msg, want, strlen(want)) == 0;
  if (!ok) printf("  want: %s...\n  got:  %s\n", want, diag_failed(d) ? d->msg : "(no error)");
  return ok;
}

/* A PTX module of one entry, k(u64, u32), as the stand-in reads it. */
static const char tiny_ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                               ".visible .entry k(\n\t.param .u64 k_param_0,\n"
                               "\t.param .u32 k_param_1\n)\n{\n\tret;\n}\n";

/* The limits, memory, copies, modules, launches and events of the stand-in, through the API
 * the runtime uses; the stand-in runs no kernel, so only the host side is checked. */
static void runtime_calls(void) {
  CudaLimits l;
  Diag d = DIAG_INIT;
  CHECK(cuda_device_limits(0, &l, &d));
  CHECK(l.max_threads_per_block == 1024 && l.max_shared_memory_per_block == 49152 &&
        l.max_shared_memory_per_block_optin == 101376 && l.warp_size == 32 &&
        l.multi_processor_count == 4 && l.cc_major == 8 && l.cc_minor == 6);
  CHECK(l.max_block[0] == 1024 && l.max_block[2] == 64 && l.max_grid[0] == 2147483647 &&
        l.max_grid[1] == 65535);
  CHECK(cuda_device_limits(1, &l, &d) && l.cc_major == 7 && l.cc_minor == 0);
  CHECK(!cuda_device_limits(2, &l, &d) && error_starts(&d, "there is no cuda(2): the CUDA "
                                                           "driver sees 2 devices"));

  /* memory: in, across, out */
  float in[16], out[16] = {0};
  for (int i = 0; i < 16; i++) in[i] = (float)i * 0.5f;
  CudaPtr a = 0, b = 0;
  d = (Diag)DIAG_INIT;
  CHECK(cuda_mem_alloc(0, sizeof in, &a, &d) && cuda_mem_alloc(0, sizeof in, &b, &d) && a && b);
  CHECK(cuda_copy_to_device(0, a, in, sizeof in, &d));
  CHECK(cuda_copy_on_device(0, b, a, sizeof in, &d));
  CHECK(cuda_copy_to_host(0, out, b, sizeof out, &d));
  CHECK(memcmp(in, out, sizeof in) == 0);
  CHECK(cuda_copy_to_host(0, out, b, 0, &d)); /* nothing to copy: no call */
  CHECK(!cuda_copy_to_device(0, b + 4, in, sizeof in, &d) &&
        error_starts(&d, "cuMemcpyHtoD_v2 failed with CUDA_ERROR_INVALID_VALUE (invalid "
                         "argument) while copying 64 bytes to cuda(0)"));
  d = (Diag)DIAG_INIT;
  CHECK(cuda_mem_free(0, b, &d));
  CHECK(!cuda_mem_free(0, b, &d) &&
        error_starts(&d, "cuMemFree_v2 failed with CUDA_ERROR_INVALID_VALUE"));
  CHECK(!cuda_mem_free(0, b, NULL)); /* no Diag: false, the message dropped */
  d = (Diag)DIAG_INIT;

  /* modules: PTX the stand-in refuses, a missing kernel, a launch and its errors */
  CHECK(!cuda_module_load(0, "not ptx", &d) &&
        error_starts(&d, "cuModuleLoadDataEx failed with CUDA_ERROR_INVALID_PTX (a PTX JIT "
                         "compilation failed) while loading the PTX on cuda(0): fake JIT log: "
                         "refused"));
  d = (Diag)DIAG_INIT;
  CudaLoaded *m = cuda_module_load(0, tiny_ptx, &d);
  CHECK(m && cuda_module_device(m) == 0);
  if (!m) return;
  CHECK(!cuda_module_function(m, "nope", &d) &&
        error_starts(&d, "cuModuleGetFunction failed with CUDA_ERROR_NOT_FOUND (named symbol "
                         "not found) while looking up kernel nope"));
  d = (Diag)DIAG_INIT;
  CudaFunction k = cuda_module_function(m, "k", &d);
  CHECK(k != NULL);
  int32_t n = 16;
  void *params[2] = {&a, &n};
  unsigned grid[3] = {2, 1, 1}, block[3] = {8, 1, 1}, none[3] = {0, 1, 1};
  CudaEvent e0 = cuda_event_new(0, &d), e1 = cuda_event_new(0, &d);
  CHECK(e0 && e1 && cuda_event_record(0, e0, &d));
  CHECK(cuda_launch(m, k, "k", grid, block, params, false, &d));
  CHECK(cuda_launch(m, k, "k", grid, block, params, true, &d));
  CHECK(cuda_event_record(0, e1, &d));
  float ms = -1;
  CHECK(cuda_event_elapsed_ms(0, e0, e1, &ms, &d) && ms == 1.0f); /* the stand-in's 0.5 each */
  CHECK(cuda_sync(0, &d));
  CHECK(!cuda_launch(m, k, "k", none, block, params, false, &d) &&
        error_starts(&d, "cuLaunchKernel failed with CUDA_ERROR_INVALID_VALUE (invalid argument) "
                         "while launching k with grid (0, 1, 1) and block (8, 1, 1) on cuda(0)"));
  cuda_event_free(0, e0);
  cuda_event_free(0, e1);
  cuda_module_unload(m);
  d = (Diag)DIAG_INIT;
  CHECK(cuda_mem_free(0, a, &d));

  /* device arrays: made on a device, copied in and out, freed by nd_free */
  int64_t shape[2] = {2, 8};
  NDArray *host = nd_new(DT_F32, 2, shape), *back = nd_new(DT_F32, 2, shape);
  NDArray *dev = nd_cuda_new(DT_F32, 2, shape, 1, &d);
  CHECK(host && back && dev && dev->device == ND_CUDA && dev->device_id == 1 && dev->size == 16);
  if (!host || !back || !dev) return;
  memcpy(host->data, in, sizeof in);
  CHECK(nd_cuda_copy(dev, host, &d) && nd_cuda_copy(back, dev, &d));
  CHECK(memcmp(back->data, in, sizeof in) == 0);
  CHECK(nd_copy(dev) == NULL); /* never a host copy of device memory */
  nd_free(dev);
  nd_free(host);
  nd_free(back);
  CHECK(!nd_cuda_new(DT_F32, 2, shape, 7, &d) && error_starts(&d, "there is no cuda(7)"));
}

static void runtime_call_fails(void) {
  Diag d = DIAG_INIT;
  CudaPtr p;
  CHECK(!cuda_mem_alloc(0, 1 << 20, &p, &d) &&
        error_starts(&d, "cuMemAlloc_v2 failed with CUDA_ERROR_OUT_OF_MEMORY (out of memory) "
                         "while allocating 1048576 bytes on cuda(0)"));
}

static void runtime_unknown_error(void) {
  Diag d = DIAG_INIT;
  CHECK(!cuda_sync(0, &d) &&
        error_starts(&d, "cuCtxSynchronize failed with CUDA error 12345 while synchronizing "
                         "cuda(0)"));
}

static void runtime_no_device(void) {
  Diag d = DIAG_INIT;
  CudaPtr p;
  CHECK(!cuda_mem_alloc(0, 16, &p, &d) &&
        error_starts(&d, "no CUDA device (the CUDA driver sees no device)"));
  CudaLimits l;
  d = (Diag)DIAG_INIT;
  CHECK(!cuda_device_limits(0, &l, &d) && error_starts(&d, "no CUDA device ("));
}

static void runtime_no_attribute(void) {
  Diag d = DIAG_INIT;
  CudaLimits l;
  CHECK(!cuda_device_limits(0, &l, &d) && error_starts(&d, "the CUDA driver ") &&
        strstr(d.msg, "has no entry point cuDeviceGetAttribute") != NULL);
}

static void test_cuda_driver_runtime(const char *fake, const char *no_attribute) {
  in_child(fake, NULL, runtime_calls);
  const char *oom[] = {"FAKE_CUDA_FAIL=cuMemAlloc_v2:2", NULL};
  in_child(fake, oom, runtime_call_fails);
  const char *unknown[] = {"FAKE_CUDA_FAIL=cuCtxSynchronize:12345", NULL};
  in_child(fake, unknown, runtime_unknown_error);
  const char *none[] = {"FAKE_CUDA_DEVICES=0", NULL};
  in_child(fake, none, runtime_no_device);
  in_child(no_attribute, NULL, runtime_no_attribute);
}

/* The machine's own driver, in this process (TES_CUDA_DRIVER is not set here). */
static void test_cuda_driver_real(void) {
  int n = cuda_device_count(), major = -1, minor = -1;
  CHECK(n >= 0);
  CHECK(cuda_device_count() == n);
  CHECK(!cuda_device_exists(-1));
  CHECK(!cuda_device_exists(n));
  CHECK(!cuda_compute_capability(n, &major, &minor));
  CHECK((n == 0) == (cuda_driver_error() != NULL));
  if (n == 0) {
    printf("skipped the checks of a real CUDA device: %s\n", cuda_driver_error());
    return;
  }
  for (int i = n - 1; i >= 0; i--) {
    CHECK(cuda_device_exists(i));
    CHECK(cuda_compute_capability(i, &major, &minor));
    CHECK(major >= 3 && major < 100 && minor >= 0 && minor < 10);
    int threads = 0;
    CHECK(cuda_device_attribute(i, CUDA_ATTR_MAX_THREADS_PER_BLOCK, &threads) && threads >= 512);
  }
  printf("%d CUDA device(s), device 0 of compute capability %d.%d\n", n, major, minor);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr,
            "usage: %s FAKE_CUDA FAKE_CUDA_NO_ATTRIBUTE FAKE_CUDA_NO_INIT "
            "(the stand-in drivers tests/meson.build builds)\n",
            argv[0]);
    failed++;
    return finish();
  }
  unsetenv("TES_CUDA_DRIVER");
  test_cuda_driver_missing_library();
  test_cuda_driver_fake(argv[1]);
  test_cuda_driver_fake_fails(argv[1]);
  test_cuda_driver_no_attribute(argv[2]);
  test_cuda_driver_no_init(argv[3]);
  test_cuda_driver_runtime(argv[1], argv[2]);
  test_cuda_driver_real();
  return finish();
}
