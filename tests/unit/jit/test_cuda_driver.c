/* test_cuda_driver.c: unit tests of jit/cuda_driver.c, the run-time probe of the CUDA driver.
 * Each probe runs in a child (the driver is probed once a process) pointed at a library by
 * TES_CUDA_DRIVER: a path that does not exist, and the stand-in drivers of fake_cuda.c (whole,
 * failing on request, lacking an entry point), whose paths meson passes as arguments; the
 * devices, compute capabilities and reasons the probe gives must be what the stand-in says.
 * Then the machine's own driver: with a device, each has a plausible compute capability; with
 * none, those checks are skipped and the reason is printed. */
#include <dlfcn.h>
#include <stdlib.h>

#include "jit/cuda_driver.h"
#include "tests/unit/check.h"

/* What a child saw of the driver. */
typedef struct Probe {
  int count, count_again, init_calls;
  bool exists[4]; /* devices -1, 0, 1, 2 */
  bool cc_ok[3];  /* devices 0, 1, 2 */
  int major[3], minor[3];
  bool threads_ok[3]; /* cuda_device_attribute(i, CUDA_ATTR_MAX_THREADS_PER_BLOCK) */
  int threads[3];
  bool warp_ok; /* device 0's warp size, an attribute the stand-in does not know */
  char error[256]; /* cuda_driver_error(), "(null)" when NULL */
} Probe;

static void probe_here(const char *driver, Probe *p) {
  p->count = cuda_device_count();
  p->count_again = cuda_device_count();
  for (int i = 0; i < 4; i++) p->exists[i] = cuda_device_exists(i - 1);
  for (int i = 0; i < 3; i++) p->cc_ok[i] = cuda_compute_capability(i, &p->major[i], &p->minor[i]);
  for (int i = 0; i < 3; i++)
    p->threads_ok[i] = cuda_device_attribute(i, CUDA_ATTR_MAX_THREADS_PER_BLOCK, &p->threads[i]);
  int warp;
  p->warp_ok = cuda_device_attribute(0, CUDA_ATTR_WARP_SIZE, &warp);
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
  CHECK(!p.threads_ok[2] && !p.warp_ok);
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
  test_cuda_driver_real();
  return finish();
}
