/* jit.c: the process's ORC LLJIT session and the JITDylibs of loaded objects. The session
 * starts on the first load and lives until the process ends. Each loaded object is added under
 * a ResourceTracker of its own, and unloading removes the tracker, which frees the object's
 * code and memory. Its JITDylib is then cleared and kept for the next load (ORC's C API cannot
 * remove one), so a REPL that builds in a loop holds as many as it has modules alive, not as
 * many as it has built.
 * Every LLVM error comes back as its message. jit_export_shared, at the end, makes a shared
 * object of an object file with the system's C compiler instead. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>

#include "ir/support.h"
#include "jit/jit.h"
#include "jit/plugin_api.h"
#include "jit/process.h"
#include "jit/runtime.h"

struct JitLib {
  LLVMOrcJITDylibRef jd;
  LLVMOrcResourceTrackerRef rt; /* the object's code and memory */
};

static struct {
  pthread_once_t once;
  pthread_mutex_t lock;
  LLVMOrcLLJITRef jit;
  char *start_error; /* why the session could not start */
  LLVMOrcJITDylibRef *spare;
  int nspare, capspare;
  int ndylibs;    /* made so far, for unique names */
  char *reported; /* what ORC reported during the current lookup (the real cause of its error) */
} S = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static char *take_error(LLVMErrorRef e) {
  char *msg = LLVMGetErrorMessage(e);
  char *copy = xstrdup(msg);
  LLVMDisposeErrorMessage(msg);
  return copy;
}

/* Records prefix + msg on d and frees msg; false. */
static bool fail(Diag *d, const char *prefix, char *msg) {
  ir_error(d, "%s%s", prefix, msg);
  free(msg);
  return false;
}

/* ORC reports why materialising failed here (an unresolved symbol) and gives the lookup only
 * "Failed to materialize symbols", so the lookup's message gets this one. Runs on the looking
 * up thread, which holds S.lock. */
static void report(void *ctx, LLVMErrorRef e) {
  (void)ctx;
  char *msg = take_error(e);
  if (S.reported)
    free(msg);
  else
    S.reported = msg;
}

static void start_session(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&S.jit, LLVMOrcCreateLLJITBuilder());
  if (e) {
    char *why = take_error(e);
    size_t n = strlen(why) + 64;
    S.start_error = xmalloc(n);
    snprintf(S.start_error, n, "cannot start the LLVM JIT: %s", why);
    free(why);
    S.jit = NULL;
    return;
  }
  LLVMOrcExecutionSessionSetErrorReporter(LLVMOrcLLJITGetExecutionSession(S.jit), report, NULL);
#if defined(__x86_64__) && defined(__GLIBC__)
  /* glibc's vector math, which the llvm back end calls for exp, log, ... on vectors: loaded
   * into the process's global scope, where the JITDylibs' process search finds it. Where it
   * cannot be loaded, a module calling it fails to link, naming the symbol. */
  (void)dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL);
#endif
}

/* Functions of the host that generated code calls by name (jit_define_host_symbols); set
 * under S.lock, read by define_runtime under it. */
static struct {
  const char **names;
  void **addrs;
  int n;
} host_syms;

void jit_define_host_symbols(int n, const char *const *names, void *const *addrs) {
  pthread_mutex_lock(&S.lock);
  for (int i = 0; i < n; i++) {
    int j = 0;
    while (j < host_syms.n && strcmp(host_syms.names[j], names[i]) != 0) j++;
    if (j == host_syms.n) {
      host_syms.names = xrealloc(host_syms.names, (size_t)(j + 1) * sizeof *host_syms.names);
      host_syms.addrs = xrealloc(host_syms.addrs, (size_t)(j + 1) * sizeof *host_syms.addrs);
      host_syms.names[j] = names[i]; /* the caller's: static strings */
      host_syms.n++;
    }
    host_syms.addrs[j] = addrs[i];
  }
  pthread_mutex_unlock(&S.lock);
}

/* The runtime's functions and its interrupt flag (the one in use now: the host's, once it has
 * named it), which the process need not export for dlsym to see them. */
static LLVMErrorRef define_runtime(LLVMOrcJITDylibRef jd) {
  enum { NRT = 3 };
  const struct {
    const char *name;
    void *addr;
    bool callable;
  } defs[NRT] = {{"rt_parallel_for", (void *)rt_parallel_for, true},
                 {"rt_call_packed", (void *)rt_call_packed, true},
                 {RT_INTERRUPT_SYMBOL, (void *)rt_interrupt_flag(), false}};
  int N = NRT + host_syms.n;
  LLVMOrcCSymbolMapPair *syms = xmalloc((size_t)N * sizeof *syms);
  for (int i = 0; i < N; i++) {
    if (i >= NRT) { /* the host's functions (jit_define_host_symbols) */
      syms[i].Name = LLVMOrcLLJITMangleAndIntern(S.jit, host_syms.names[i - NRT]);
      syms[i].Sym.Address = (LLVMOrcJITTargetAddress)(uintptr_t)host_syms.addrs[i - NRT];
      syms[i].Sym.Flags.GenericFlags =
          LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
      syms[i].Sym.Flags.TargetFlags = 0;
      continue;
    }
    syms[i].Name = LLVMOrcLLJITMangleAndIntern(S.jit, defs[i].name);
    syms[i].Sym.Address = (LLVMOrcJITTargetAddress)(uintptr_t)defs[i].addr;
    syms[i].Sym.Flags.GenericFlags =
        LLVMJITSymbolGenericFlagsExported |
        (defs[i].callable ? LLVMJITSymbolGenericFlagsCallable : LLVMJITSymbolGenericFlagsNone);
    syms[i].Sym.Flags.TargetFlags = 0;
  }
  LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(syms, (size_t)N);
  free(syms);
  LLVMErrorRef e = LLVMOrcJITDylibDefine(jd, mu);
  if (e) LLVMOrcDisposeMaterializationUnit(mu);
  return e;
}

/* A spare JITDylib, or a new one that sees the process's libraries. Called with S.lock. */
static LLVMOrcJITDylibRef get_dylib(Diag *d) {
  if (S.nspare) return S.spare[--S.nspare];
  char name[32];
  snprintf(name, sizeof name, "tes.module.%d", S.ndylibs++);
  LLVMOrcJITDylibRef jd =
      LLVMOrcExecutionSessionCreateBareJITDylib(LLVMOrcLLJITGetExecutionSession(S.jit), name);
  LLVMOrcDefinitionGeneratorRef gen;
  LLVMErrorRef e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(S.jit), NULL, NULL);
  if (e) {
    fail(d, "cannot search the process's symbols: ", take_error(e));
    return NULL; /* the JITDylib stays unused in the session: ORC cannot remove it */
  }
  LLVMOrcJITDylibAddGenerator(jd, gen);
  return jd;
}

static void put_dylib(LLVMOrcJITDylibRef jd) {
  if (S.nspare == S.capspare) {
    S.capspare = S.capspare ? 2 * S.capspare : 8;
    S.spare = xrealloc(S.spare, (size_t)S.capspare * sizeof *S.spare);
  }
  S.spare[S.nspare++] = jd;
}

/* Frees what rt tracks (the object), then what the JITDylib holds besides (the runtime's
 * symbols, defined again at the next load), and keeps the JITDylib for the next load. Called
 * with S.lock; rt may be NULL. */
static void release_dylib(LLVMOrcJITDylibRef jd, LLVMOrcResourceTrackerRef rt) {
  if (rt) {
    LLVMErrorRef e = LLVMOrcResourceTrackerRemove(rt);
    if (e) LLVMConsumeError(e);
    LLVMOrcReleaseResourceTracker(rt);
  }
  LLVMErrorRef e = LLVMOrcJITDylibClear(jd);
  if (e) LLVMConsumeError(e);
  put_dylib(jd);
}

void jit_start(void) { pthread_once(&S.once, start_session); }

/* The next 8-byte length of a bundle (jit/plugin_api.h) at *p, if [*p, end) holds one. */
static bool bundle_len(const unsigned char **p, const unsigned char *end, uint64_t *n) {
  if (end - *p < 8) return false;
  *n = 0;
  for (int i = 0; i < 8; i++) *n |= (uint64_t)(*p)[i] << (8 * i);
  *p += 8;
  return true;
}

/* Adds the object, or each object of a bundle, under rt. Called with S.lock. */
static LLVMErrorRef add_objects(LLVMOrcResourceTrackerRef rt, const void *obj, size_t len) {
  const unsigned char *p = obj, *end = p + len;
  uint64_t n = 1, size = len;
  bool bundled = len >= TES_OBJECT_BUNDLE_MAGIC_LEN &&
                 memcmp(obj, TES_OBJECT_BUNDLE_MAGIC, TES_OBJECT_BUNDLE_MAGIC_LEN) == 0;
  if (bundled) {
    p += TES_OBJECT_BUNDLE_MAGIC_LEN;
    if (!bundle_len(&p, end, &n)) n = 0;
  }
  if (n == 0) return LLVMCreateStringError("a bundle of objects that holds none");
  for (uint64_t i = 0; i < n; i++) {
    if (bundled && (!bundle_len(&p, end, &size) || size > (uint64_t)(end - p)))
      return LLVMCreateStringError("a bundle of objects cut short");
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)p, (size_t)size, "tes-module");
    LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(S.jit, rt, buf);
    if (e) return e;
    p += size;
  }
  return NULL;
}

JitLib *jit_load_object(const void *obj, size_t len, Diag *d) {
  pthread_once(&S.once, start_session);
  if (!S.jit) return ir_error(d, "%s", S.start_error), NULL;
  pthread_mutex_lock(&S.lock);
  LLVMOrcJITDylibRef jd = get_dylib(d);
  LLVMOrcResourceTrackerRef rt = NULL;
  LLVMErrorRef e = NULL;
  if (jd && !(e = define_runtime(jd))) {
    rt = LLVMOrcJITDylibCreateResourceTracker(jd);
    e = add_objects(rt, obj, len);
  }
  if (e) {
    fail(d, "cannot load the compiled module: ", take_error(e));
    release_dylib(jd, rt);
    jd = NULL;
  }
  pthread_mutex_unlock(&S.lock);
  if (!jd) return NULL;
  JitLib *lib = xmalloc(sizeof *lib);
  lib->jd = jd;
  lib->rt = rt;
  return lib;
}

typedef struct Lookup {
  int done;
  LLVMOrcJITTargetAddress addr;
  char *err;
} Lookup;

static void lookup_done(LLVMErrorRef e, LLVMOrcCSymbolMapPairs result, size_t n, void *ctx) {
  Lookup *l = ctx;
  l->done = 1;
  if (e)
    l->err = take_error(e);
  else if (n >= 1)
    l->addr = result[0].Sym.Address;
}

void *jit_lookup(JitLib *lib, const char *name, Diag *d) {
  LLVMOrcCJITDylibSearchOrderElement order = {lib->jd, LLVMOrcJITDylibLookupFlagsMatchAllSymbols};
  LLVMOrcCLookupSetElement sym = {LLVMOrcLLJITMangleAndIntern(S.jit, name),
                                  LLVMOrcSymbolLookupFlagsRequiredSymbol};
  Lookup l = {0};
  pthread_mutex_lock(&S.lock);
  /* The session runs its tasks on the calling thread (no compile threads), so the result is
   * in before the call returns. */
  LLVMOrcExecutionSessionLookup(LLVMOrcLLJITGetExecutionSession(S.jit), LLVMOrcLookupKindStatic,
                                &order, 1, &sym, 1, lookup_done, &l);
  char *cause = S.reported;
  S.reported = NULL;
  pthread_mutex_unlock(&S.lock);
  if (cause && l.err) {
    free(l.err);
    l.err = cause;
  } else {
    free(cause);
  }
  TES_ASSERT(l.done, "ORC lookup of %s did not finish on the calling thread", name);
  if (l.err) return fail(d, "cannot link the compiled module: ", l.err), NULL;
  if (!l.addr) return ir_error(d, "symbol not found: %s", name), NULL;
  return (void *)(uintptr_t)l.addr;
}

void jit_unload(JitLib *lib) {
  if (!lib) return;
  pthread_mutex_lock(&S.lock);
  release_dylib(lib->jd, lib->rt);
  pthread_mutex_unlock(&S.lock);
  free(lib);
}

/* ---- shared objects ---- */

typedef struct Scratch {
  char dir[256];
  char obj[300], rt_c[300], rt_dir[300], rt_h[300], log[300];
} Scratch;

static bool write_all(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

static bool make_scratch(Scratch *sc, const void *obj, size_t len, Diag *d) {
  const char *tmp = getenv("TMPDIR");
  snprintf(sc->dir, sizeof sc->dir, "%s/tes-export-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(sc->dir))
    return ir_error(d, "export: cannot make a scratch directory: %s", strerror(errno));
  snprintf(sc->obj, sizeof sc->obj, "%s/module.o", sc->dir);
  snprintf(sc->rt_c, sizeof sc->rt_c, "%s/runtime.c", sc->dir);
  snprintf(sc->rt_dir, sizeof sc->rt_dir, "%s/jit", sc->dir);
  snprintf(sc->rt_h, sizeof sc->rt_h, "%s/jit/runtime.h", sc->dir);
  snprintf(sc->log, sizeof sc->log, "%s/cc.log", sc->dir);
  if (write_all(sc->obj, obj, len) && write_all(sc->rt_c, rt_source_c, strlen(rt_source_c)) &&
      mkdir(sc->rt_dir, 0700) == 0 && write_all(sc->rt_h, rt_source_h, strlen(rt_source_h)))
    return true;
  return ir_error(d, "export: cannot write the scratch files: %s", strerror(errno));
}

static void remove_scratch(Scratch *sc) {
  const char *files[] = {sc->obj, sc->rt_c, sc->rt_h, sc->log};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) unlink(files[i]);
  rmdir(sc->rt_dir);
  rmdir(sc->dir);
}

/* The compiler's output, for the error message. */
static char *read_log(const char *path) {
  FILE *f = fopen(path, "rb");
  char buf[2048];
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) n--;
  buf[n] = 0;
  return xstrdup(buf);
}

bool jit_export_shared(const char *path, const void *obj, size_t len, Diag *d) {
  Scratch sc;
  if (!make_scratch(&sc, obj, len, d)) {
    remove_scratch(&sc);
    return false;
  }
  const char *cc = getenv("CC");
  char inc[310];
  snprintf(inc, sizeof inc, "-I%s", sc.dir);
  /* the runtime's symbols stay inside the object: two exported libraries never clash */
  /* -z defs: a symbol nothing defines fails here, not when a program loads the library */
  char *argv[] = {(char *)(cc && *cc ? cc : "cc"),
                  "-shared",
                  "-fPIC",
                  "-O2",
                  "-D_GNU_SOURCE",
                  "-fvisibility=hidden",
                  inc,
                  "-o",
                  (char *)path,
                  sc.obj,
                  sc.rt_c,
                  "-Wl,-z,defs",
                  "-lpthread",
                  "-lm",
#if defined(__x86_64__) && defined(__GLIBC__)
                  "-lmvec", /* the vector math of codegen_vecmath.c */
#endif
                  NULL};
  int status = jit_run_logged(argv, sc.log);
  bool ok = status == 0;
  if (!ok)
    fail(d, status < 0 ? "export: cannot run the C compiler: " : "export: the C compiler failed: ",
         read_log(sc.log));
  remove_scratch(&sc);
  return ok;
}
