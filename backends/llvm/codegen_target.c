/* codegen_target.c: llvm target strings and the target machines they make. "llvm" alone is
 * the host: LLVMGetHostCPUName and LLVMGetHostCPUFeatures, every ISA extension the CPU has.
 * -mcpu=NAME takes that CPU's own features instead, -mattr adds to either. LLVM does not
 * check a CPU or feature name through its C API, and an unknown CPU makes it abort while
 * generating 64-bit code, so the names are checked here against the lists LLVM itself prints
 * for -mcpu=help (read once, with stderr sent to a scratch file while it prints them), and
 * +64bit goes first in the features of a named CPU, so that a 32-bit CPU is a feature set on
 * the 64-bit host, not a crash. */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Support.h>

#include "backends/llvm/codegen_llvm_impl.h"

char *cg_fmt(const char *fmt, ...) {
  StrBuf b = STRBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&b, fmt, ap);
  va_end(ap);
  return sb_take(&b, NULL);
}

char *cg_llvm_message(char *s) {
  char *c = xstrdup(s ? s : "");
  LLVMDisposeMessage(s);
  return c;
}

char *cg_host_triple(void) {
  char *raw = LLVMGetDefaultTargetTriple();
  char *norm = LLVMNormalizeTargetTriple(raw);
  LLVMDisposeMessage(raw);
  return cg_llvm_message(norm);
}

/* The SLP vectorizer is off: LLVM 19.1 (19.1.7 here) miscompiles valid IR with it. Building a
 * gather of sixteen lanes whose scalars repeat (eight distinct ones), taken partly from an
 * extract shuffle of other vectors and partly from constants or a vector it built before, it
 * drops the second part: those lanes are poison. tes made such IR from a legal schedule (an
 * unrolled integer reduction computed at a transpose's axis over a vectorized producer,
 * tests/numeric/slp_gather_reuse.tes); reduced, it goes wrong for i8, i16, i32 and float lanes
 * and for any x86 CPU (sixteen i8 fill an SSE register). Parsing "default<O2>" or "<O3>" turns
 * SLP on whatever the pass builder options say, so it is switched off by its own option, which
 * is global to the process's LLVM; only this plugin uses it. tes vectorizes where schedules say
 * and the loop vectorizer still runs: the bench kernels are as fast without SLP (opt_gemm's
 * blocking stage faster), the register-tiled GEMM's code the same. */
static char *llvm_args; /* TES_LLVM_ARGS as parsed, or "" */

static void init_llvm(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMInitializeNativeAsmParser();
  /* TES_LLVM_ARGS: more of LLVM's own options, space-separated (-time-passes), to study a
   * build; they are part of the compile cache's key (cg_llvm_args). */
  const char *argv[16] = {"tes", "-vectorize-slp=false"};
  int argc = 2;
  const char *env = getenv("TES_LLVM_ARGS");
  llvm_args = xstrdup(env ? env : "");
  char *args = xstrdup(llvm_args), *save = NULL;
  for (char *a = strtok_r(args, " ", &save); a && argc < 16; a = strtok_r(NULL, " ", &save))
    argv[argc++] = a;
  LLVMParseCommandLineOptions(argc, argv, NULL);
  free(args);
}

const char *cg_llvm_args(void) {
  cg_llvm_init();
  return llvm_args;
}

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

void cg_llvm_init(void) { pthread_once(&llvm_once, init_llvm); }

void cg_target_free(CgTarget *t) {
  free(t->triple);
  free(t->cpu);
  free(t->features);
  memset(t, 0, sizeof *t);
}

/* ---- the names LLVM knows ---- */

typedef struct NameList {
  char **names;
  int n, cap;
} NameList;

static struct {
  pthread_once_t once;
  bool known; /* the lists could be read */
  NameList cpus, features;
} help = {.once = PTHREAD_ONCE_INIT};

static void add_name(NameList *l, const char *s, size_t n) {
  VEC_GROW(NULL, l->names, l->cap, l->n + 1);
  l->names[l->n++] = xstrndup(s, n);
}

/* "Available CPUs for this target:" then "  name  - Select ...", and the same for features. */
static void parse_help(const char *text) {
  NameList *into = NULL;
  for (const char *line = text; *line;
       line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
    if (strncmp(line, "Available CPUs", 14) == 0)
      into = &help.cpus;
    else if (strncmp(line, "Available features", 18) == 0)
      into = &help.features;
    else if (into && line[0] == ' ' && line[1] == ' ' && line[2] != ' ') {
      size_t n = strcspn(line + 2, " \n");
      if (n) add_name(into, line + 2, n);
    } else if (line[0] != '\n' && line[0] != ' ') {
      into = NULL;
    }
  }
}

/* LLVM prints its lists to stderr when a target machine asks for CPU "help". */
static void read_help(void) {
  char *triple = cg_host_triple(), *msg = NULL;
  LLVMTargetRef target;
  FILE *tmp = tmpfile();
  int saved = dup(2);
  if (LLVMGetTargetFromTriple(triple, &target, &msg) || !tmp || saved < 0) {
    LLVMDisposeMessage(msg);
    if (tmp) fclose(tmp);
    if (saved >= 0) close(saved);
    free(triple);
    return;
  }
  fflush(stderr);
  dup2(fileno(tmp), 2);
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
      target, triple, "help", "", LLVMCodeGenLevelNone, LLVMRelocPIC, LLVMCodeModelDefault);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  LLVMDisposeTargetMachine(tm);
  free(triple);
  long len = ftell(tmp);
  char *text = len > 0 ? xmalloc((size_t)len + 1) : NULL;
  if (text) {
    rewind(tmp);
    text[fread(text, 1, (size_t)len, tmp)] = 0;
    parse_help(text);
    free(text);
  }
  fclose(tmp);
  help.known = help.cpus.n > 0 && help.features.n > 0;
}

static bool listed(const NameList *l, const char *s, size_t n) {
  for (int i = 0; i < l->n; i++)
    if (strlen(l->names[i]) == n && strncmp(l->names[i], s, n) == 0) return true;
  return false;
}

static bool check_cpu(const char *cpu, Diag *d) {
  pthread_once(&help.once, read_help);
  if (!help.known || listed(&help.cpus, cpu, strlen(cpu))) return true;
  ir_error(d,
           "llvm target: unknown CPU '%s' (LLVM's names: skylake-avx512, znver4, "
           "x86-64-v3, ...; -mcpu=native is the host)",
           cpu);
  return false;
}

static bool check_features(const char *mattr, Diag *d) {
  pthread_once(&help.once, read_help);
  for (const char *p = mattr; *p; p += *p == ',') {
    size_t n = strcspn(p, ",");
    if ((p[0] != '+' && p[0] != '-') || n < 2) {
      ir_error(d, "llvm target: -mattr takes +feature or -feature, not '%.*s'", (int)n, p);
      return false;
    }
    if (help.known && !listed(&help.features, p + 1, n - 1)) {
      ir_error(d, "llvm target: unknown feature '%.*s'", (int)n - 1, p + 1);
      return false;
    }
    p += n;
  }
  return true;
}

/* ---- target strings ---- */

static bool option_is(const char *opt, const char *name, const char **value) {
  size_t n = strlen(name);
  if (strncmp(opt, name, n) != 0 || opt[n] != '=') return false;
  *value = opt + n + 1;
  return true;
}

static void set_str(char **slot, const char *v) {
  free(*slot);
  *slot = xstrdup(v);
}

/* One "-name=value" option of an llvm target string into t (t->features: the -mattr list). */
static bool target_option(const char *opt, CgTarget *t, Diag *d) {
  static const char *const ignored[] = {"-keys", "-device", "-model", "-libs", "-tag", "-host"};
  const char *v;
  if (option_is(opt, "-mcpu", &v)) return set_str(&t->cpu, v), true;
  if (option_is(opt, "-mtriple", &v)) return set_str(&t->triple, v), true;
  if (option_is(opt, "-mattr", &v)) {
    char *all = cg_fmt("%s%s%s", t->features ? t->features : "", t->features ? "," : "", v);
    free(t->features);
    t->features = all;
    return true;
  }
  if (option_is(opt, "-opt-level", &v)) {
    if (v[0] >= '0' && v[0] <= '3' && !v[1]) return t->opt_level = v[0] - '0', true;
    ir_error(d, "llvm target: -opt-level must be 0 to 3, not '%s'", v);
    return false;
  }
  for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
    if (option_is(opt, ignored[i], &v)) return true;
  if (strcmp(opt, "-system-lib") == 0) return true;
  ir_error(d,
           "llvm target: unknown option '%s' (known: -mcpu=, -mattr=, -mtriple=, "
           "-opt-level=)",
           opt);
  return false;
}

/* Other machines' triples would need their LLVM targets, which tes does not initialise. */
static bool check_triple(const char *triple, Diag *d) {
  char *host = cg_host_triple();
  size_t n = strcspn(host, "-");
  bool same_arch = strncmp(triple, host, n) == 0 && (triple[n] == '-' || !triple[n]);
  if (!same_arch)
    ir_error(d, "not supported yet: cross-compiling for '%s' (this machine is %s)", triple, host);
  free(host);
  return same_arch;
}

/* The host's CPU name and features, asked of LLVM once (each asking runs cpuid many times). */
static struct {
  pthread_once_t once;
  char *cpu, *features;
} host = {.once = PTHREAD_ONCE_INIT};

static void read_host(void) {
  host.cpu = cg_llvm_message(LLVMGetHostCPUName());
  host.features = cg_llvm_message(LLVMGetHostCPUFeatures());
}

/* The CPU, features and triple: the host's unless the options name others. */
static bool resolve(CgTarget *t, Diag *d) {
  char *mattr = t->features;
  t->features = NULL;
  bool host_cpu = !t->cpu || strcmp(t->cpu, "native") == 0 || strcmp(t->cpu, "host") == 0;
  bool ok = (!t->triple || check_triple(t->triple, d)) && (host_cpu || check_cpu(t->cpu, d)) &&
            (!mattr || check_features(mattr, d));
  if (ok) {
    pthread_once(&host.once, read_host);
    if (host_cpu) {
      free(t->cpu);
      t->cpu = xstrdup(host.cpu);
    }
    t->features = xstrdup(host_cpu ? host.features : "+64bit");
    if (mattr) {
      char *all = cg_fmt("%s%s%s", t->features, *t->features ? "," : "", mattr);
      free(t->features);
      t->features = all;
    }
    if (!t->triple) t->triple = cg_host_triple();
  }
  free(mattr);
  return ok;
}

bool cg_target_parse(const char *target, CgTarget *t, Diag *d) {
  cg_llvm_init();
  memset(t, 0, sizeof *t);
  t->opt_level = 3;
  char *copy = xstrdup(target ? target : "llvm"), *save = NULL;
  char *tok = strtok_r(copy, " \t", &save);
  bool ok = tok && strcmp(tok, "llvm") == 0;
  if (!ok) ir_error(d, "not an llvm target: '%s'", target ? target : "");
  while (ok && (tok = strtok_r(NULL, " \t", &save))) ok = target_option(tok, t, d);
  free(copy);
  if (ok) ok = resolve(t, d);
  if (!ok) cg_target_free(t);
  return ok;
}

bool cg_llvm_target_check(const char *target, Diag *d) {
  CgTarget t;
  if (!cg_target_parse(target, &t, d)) return false;
  cg_target_free(&t);
  return true;
}

/* The target machines made so far, one for each triple, CPU, features and level: making one
 * parses the CPU's features and sets up its subtargets, work no build need repeat. */
static struct {
  pthread_mutex_t lock;
  struct Machine {
    CgTarget t;
    LLVMTargetMachineRef tm;
  } *list;
  int n, cap;
} machines = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool same_target(const CgTarget *a, const CgTarget *b) {
  return a->opt_level == b->opt_level && strcmp(a->triple, b->triple) == 0 &&
         strcmp(a->cpu, b->cpu) == 0 && strcmp(a->features, b->features) == 0;
}

static LLVMTargetMachineRef new_machine(const CgTarget *t, Diag *d);

LLVMTargetMachineRef cg_target_machine(const CgTarget *t, Diag *d) {
  pthread_mutex_lock(&machines.lock);
  LLVMTargetMachineRef tm = NULL;
  for (int i = 0; i < machines.n && !tm; i++)
    if (same_target(&machines.list[i].t, t)) tm = machines.list[i].tm;
  if (!tm && (tm = new_machine(t, d))) {
    VEC_GROW(NULL, machines.list, machines.cap, machines.n + 1);
    struct Machine *m = &machines.list[machines.n++];
    m->t = (CgTarget){xstrdup(t->triple), xstrdup(t->cpu), xstrdup(t->features), t->opt_level};
    m->tm = tm;
  }
  pthread_mutex_unlock(&machines.lock);
  return tm;
}

static LLVMTargetMachineRef new_machine(const CgTarget *t, Diag *d) {
  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(t->triple, &target, &msg)) {
    ir_error(d, "llvm target: %s", msg ? msg : t->triple);
    LLVMDisposeMessage(msg);
    return NULL;
  }
  static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                               LLVMCodeGenLevelDefault, LLVMCodeGenLevelAggressive};
  /* PIC: the same object serves the JIT and a shared library (export_library) */
  return LLVMCreateTargetMachine(target, t->triple, t->cpu, t->features, levels[t->opt_level],
                                 LLVMRelocPIC, LLVMCodeModelDefault);
}
