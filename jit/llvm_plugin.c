/* llvm_plugin.c: finding and loading libtes-llvm.so (llvm_plugin.h). */
#include "jit/llvm_plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/diag.h"
#include "ir/strbuf.h"
#include "ir/support.h"
#include "jit/ndarray.h"

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

/* The folder of the running binary into buf, symlinks resolved; false when unknown. */
static bool binary_dir(char *buf, size_t size) {
  ssize_t n = readlink("/proc/self/exe", buf, size - 1);
  if (n <= 0) return false;
  buf[n] = 0;
  char *slash = strrchr(buf, '/');
  if (!slash) return false;
  *slash = 0;
  return true;
}

/* Drops the last n folders of dir in place ("/" becomes ""); false when it has fewer. */
static bool drop_dirs(char *dir, int n) {
  for (; n > 0; n--) {
    char *slash = strrchr(dir, '/');
    if (!slash) return false;
    *slash = 0;
  }
  return true;
}

enum { MAX_PLACES = 4 };
typedef struct Places {
  char path[MAX_PLACES][PATH_MAX + 64];
  int n;
} Places;

/* dir/sub/FILE as the next place, unless it is too long or listed already. */
static void add_place(Places *p, const char *dir, const char *sub) {
  if (p->n == MAX_PLACES) return;
  char *path = p->path[p->n];
  int len = snprintf(path, sizeof p->path[0], "%s%s%s/%s", dir, *sub ? "/" : "", sub,
                     TES_LLVM_PLUGIN_FILE);
  if (len < 0 || len >= (int)sizeof p->path[0]) return;
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->path[i], path) == 0) return;
  p->n++;
}

/* Where the plugin may be, in order (docs/build.md): beside the binary, or one folder up (a
 * build tree: tes in build/, the C tests in build/tests/); the install's plugin folder found
 * from the binary (an installed tree that was moved, or staged under DESTDIR); that folder as
 * configured (a tes binary copied elsewhere alone). meson.build defines the TES_PLUGIN_*. */
static void plugin_places(Places *p) {
  p->n = 0;
  char dir[PATH_MAX], up[PATH_MAX];
  if (binary_dir(dir, sizeof dir)) {
    add_place(p, dir, "");
    strcpy(up, dir);
    if (drop_dirs(up, 1)) add_place(p, up, "");
#ifdef TES_PLUGIN_SUBDIR
    strcpy(up, dir);
    if (drop_dirs(up, TES_PLUGIN_BIN_DEPTH)) add_place(p, up, TES_PLUGIN_SUBDIR);
#endif
  }
#ifdef TES_PLUGIN_DIR
  add_place(p, TES_PLUGIN_DIR, "");
#endif
}

static const TesLlvm *load(Diag *why) {
  const char *env = getenv("TES_LLVM_PLUGIN");
  if (env && *env) return open_plugin(env, why);
  Places places;
  plugin_places(&places);
  for (int i = 0; i < places.n; i++)
    if (access(places.path[i], R_OK) == 0) return open_plugin(places.path[i], why);
  StrBuf tried = STRBUF_INIT;
  for (int i = 0; i < places.n; i++) sb_printf(&tried, "%s%s", i ? ", " : "", places.path[i]);
  ir_error(why, "cannot find " TES_LLVM_PLUGIN_FILE " (tried %s); set TES_LLVM_PLUGIN to its path",
           sb_cstr(&tried));
  sb_free(&tried);
  return NULL;
}

const TesLlvm *tes_llvm(Diag *d) {
  pthread_mutex_lock(&lock);
  if (!loaded) {
    Diag why = DIAG_INIT;
    loaded = load(&why);
    if (!loaded) ir_error(d, "cannot load the LLVM back end: %s", why.msg);
    const char *const *names;
    void *const *addrs;
    int n = loaded ? nd_half_libcalls(&names, &addrs) : 0;
    if (n) loaded->define_host_symbols(n, names, addrs);
  }
  const TesLlvm *t = loaded;
  pthread_mutex_unlock(&lock);
  return t;
}
