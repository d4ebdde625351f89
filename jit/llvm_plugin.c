/* llvm_plugin.c: finding and loading libtes-llvm.so (llvm_plugin.h). */
#include "jit/llvm_plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/support.h"

static const TesLlvm *loaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Opens path and takes its table; NULL with dlerror's words in why. */
static const TesLlvm *open_plugin(const char *path, Diag *why) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  TesLlvmPluginFn fn = h ? (TesLlvmPluginFn)dlsym(h, TES_LLVM_PLUGIN_SYMBOL) : NULL;
  if (fn) return fn();
  ir_error(why, "%s", dlerror());
  if (h) dlclose(h);
  return NULL;
}

/* dir/../FILE or dir/FILE of the running binary into buf. */
static bool beside_binary(char *buf, size_t size, bool up) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return false;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return false;
  *slash = 0;
  return snprintf(buf, size, "%s%s/%s", exe, up ? "/.." : "", TES_LLVM_PLUGIN_FILE) <
         (int)size;
}

static const TesLlvm *load(Diag *why) {
  const char *env = getenv("TES_LLVM_PLUGIN");
  if (env && *env) return open_plugin(env, why);
  char path[PATH_MAX + 64];
  for (int up = 0; up <= 1; up++) {
    if (!beside_binary(path, sizeof path, up)) continue;
    if (access(path, R_OK) == 0) return open_plugin(path, why);
  }
  ir_error(why, "cannot find " TES_LLVM_PLUGIN_FILE " (the LLVM back end) beside the tes "
                "binary; set TES_LLVM_PLUGIN to its path");
  return NULL;
}

const TesLlvm *tes_llvm(Diag *d) {
  pthread_mutex_lock(&lock);
  if (!loaded) {
    Diag why = DIAG_INIT;
    loaded = load(&why);
    if (!loaded) ir_error(d, "cannot load the LLVM back end: %s", why.msg);
  }
  const TesLlvm *t = loaded;
  pthread_mutex_unlock(&lock);
  return t;
}
