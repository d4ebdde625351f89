/* codegen_split.c: the machine code of an optimised module made on two threads at once.
 *
 * Code generation (instruction selection, loop strength reduction, register allocation,
 * scheduling) works one function at a time and is most of a build's time. A module with
 * parallel loops holds several sizable functions (the entry and each loop's chunk function),
 * so its functions are split into two groups of about equal weight (IR instructions, and
 * FUNC_WEIGHT per function; the heaviest first, each to the lighter group), and each group is
 * generated into an object file of its own: one on the calling thread from a copy of the
 * module, the other on a helper thread from the module's bitcode read into a context of its
 * own, with a target machine of its own (LLVM shares neither between threads). In each copy the other group's functions become
 * declarations; a function defined with internal linkage becomes hidden, so that the other
 * object reaches it by name inside the JITDylib that loads both (and nothing outside it does).
 * A function's machine code is the same as in one object: code generation never looks across
 * functions.
 *
 * Not split (one object, as before): a module of one sizable function (the lighter group under
 * SPLIT_MIN_WEIGHT: a thread and a second module cost more than they save), one that defines
 * a global variable other than a constant of its own (two objects would each hold one) or an
 * unnamed function, and any module with TES_LLVM_SPLIT=0 or TES_LLVM_ARGS in the
 * environment or in a process bound to one CPU. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>

#include "backends/llvm/codegen_llvm_impl.h"
#include "jit/plugin_api.h"

/* A function's code generation costs about as much as FUNC_WEIGHT IR instructions besides its
 * own (passes set up, frames laid out: the GEMM's packing loop of 94 instructions takes 0.6 of
 * the time of its register tile of 275); groups are weighed so. */
enum { FUNC_WEIGHT = 100, SPLIT_MIN_WEIGHT = 250 };

/* TES_LLVM_ARGS's options (-time-passes, -print-after-all) keep process-wide state that two
 * threads would share: a build studied with them runs on one thread. So does a process that
 * may run on one CPU only (taskset), where a second thread would only wait. */
static bool split_off(void) {
  const char *env = getenv("TES_LLVM_SPLIT");
  if ((env && strcmp(env, "0") == 0) || *cg_llvm_args()) return true;
  cpu_set_t cpus;
  return sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) < 2;
}

static int count_insns(LLVMValueRef fn) {
  int n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) n++;
  return n;
}

static bool is_local(LLVMValueRef g) {
  LLVMLinkage l = LLVMGetLinkage(g);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

/* The two groups: group[i] (0 or 1) for the i-th defined function; false when the module is
 * not worth splitting or cannot be split. */
static bool partition(LLVMModuleRef mod, int n, int *group) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g) && !(LLVMIsGlobalConstant(g) && is_local(g))) return false;
  if (LLVMGetFirstGlobalAlias(mod) || LLVMGetFirstGlobalIFunc(mod)) return false;
  int *size = xmalloc((size_t)n * sizeof *size), i = 0;
  size_t len;
  for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn)) continue;
    LLVMGetValueName2(fn, &len);
    if (len == 0) { /* the other object could not name it */
      free(size);
      return false;
    }
    size[i++] = FUNC_WEIGHT + count_insns(fn);
  }
  long load[2] = {0, 0};
  for (int k = 0; k < n; k++) group[k] = -1;
  for (int k = 0; k < n; k++) {
    int big = -1;
    for (int j = 0; j < n; j++)
      if (group[j] < 0 && (big < 0 || size[j] > size[big])) big = j;
    int to = load[1] < load[0];
    group[big] = to;
    load[to] += size[big];
  }
  free(size);
  return (load[0] < load[1] ? load[0] : load[1]) >= SPLIT_MIN_WEIGHT;
}

static int count_defined(LLVMModuleRef mod) {
  int n = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn)) n++;
  return n;
}

/* Keeps in mod the defined functions of group `keep` (the k-th defined function is in
 * group[k]); the others become declarations. Internal functions become hidden. */
static void keep_group(LLVMModuleRef mod, const int *group, int keep) {
  int n = count_defined(mod);
  LLVMValueRef *defined = xmalloc((size_t)(n + 1) * sizeof *defined);
  int k = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn)) defined[k++] = fn;
  for (k = 0; k < n; k++) {
    LLVMValueRef fn = defined[k];
    if (is_local(fn)) {
      LLVMSetLinkage(fn, LLVMExternalLinkage);
      LLVMSetVisibility(fn, LLVMHiddenVisibility);
    }
    if (group[k] == keep) continue;
    size_t len;
    char *name = xstrdup(LLVMGetValueName2(fn, &len));
    LLVMValueRef decl = LLVMAddFunction(mod, "", LLVMGlobalGetValueType(fn));
    LLVMSetFunctionCallConv(decl, LLVMGetFunctionCallConv(fn));
    LLVMSetVisibility(decl, LLVMGetVisibility(fn));
    LLVMReplaceAllUsesWith(fn, decl);
    LLVMDeleteFunction(fn);
    LLVMSetValueName2(decl, name, len);
    free(name);
  }
  free(defined);
}

static bool emit_module(LLVMTargetMachineRef tm, LLVMModuleRef mod, void **data, size_t *len,
                        char **err) {
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &msg, &buf)) {
    *err = cg_llvm_message(msg);
    return false;
  }
  *len = LLVMGetBufferSize(buf);
  *data = xmalloc(*len);
  memcpy(*data, LLVMGetBufferStart(buf), *len);
  LLVMDisposeMemoryBuffer(buf);
  return true;
}

/* The helper thread's target machine: one per main target machine, made by the helper on
 * first use; its lock is held while a helper uses it (a second build at the same time does not
 * split). */
static struct {
  pthread_mutex_t lock;
  struct Helper {
    LLVMTargetMachineRef main, tm;
    pthread_mutex_t busy;
  } **list; /* each one allocated once: its lock does not move */
  int n, cap;
} helpers = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct Helper *helper_for(LLVMTargetMachineRef main) {
  pthread_mutex_lock(&helpers.lock);
  struct Helper *h = NULL;
  for (int i = 0; i < helpers.n && !h; i++)
    if (helpers.list[i]->main == main) h = helpers.list[i];
  if (!h) {
    VEC_GROW(NULL, helpers.list, helpers.cap, helpers.n + 1);
    h = helpers.list[helpers.n++] = xcalloc(1, sizeof *h);
    h->main = main;
    pthread_mutex_init(&h->busy, NULL);
  }
  pthread_mutex_unlock(&helpers.lock);
  return pthread_mutex_trylock(&h->busy) == 0 ? h : NULL;
}

typedef struct Part {
  struct Helper *helper;
  int opt_level;
  const char *bitcode;
  size_t bitcode_len;
  const int *group;
  void *obj;
  size_t len;
  char *err;
} Part;

static void *emit_helper_part(void *arg) {
  Part *p = arg;
  if (!p->helper->tm) {
    static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                 LLVMCodeGenLevelDefault,
                                                 LLVMCodeGenLevelAggressive};
    LLVMTargetMachineRef m = p->helper->main;
    char *triple = LLVMGetTargetMachineTriple(m), *cpu = LLVMGetTargetMachineCPU(m),
         *features = LLVMGetTargetMachineFeatureString(m);
    p->helper->tm = LLVMCreateTargetMachine(LLVMGetTargetMachineTarget(m), triple, cpu, features,
                                            levels[p->opt_level], LLVMRelocPIC,
                                            LLVMCodeModelDefault);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRange(p->bitcode, p->bitcode_len, "tes-part", 0);
  LLVMModuleRef mod = NULL;
  if (LLVMParseBitcodeInContext2(ctx, buf, &mod)) {
    p->err = xstrdup("the module's bitcode does not read back");
  } else {
    keep_group(mod, p->group, 1);
    emit_module(p->helper->tm, mod, &p->obj, &p->len, &p->err);
    LLVMDisposeModule(mod);
  }
  LLVMDisposeMemoryBuffer(buf);
  LLVMContextDispose(ctx);
  return NULL;
}

/* The bundle of jit/plugin_api.h: its magic, the count, then each object's length and bytes
 * (lengths as 8 bytes, least significant first). */
static void put_len(StrBuf *b, uint64_t n) {
  char bytes[8];
  for (int i = 0; i < 8; i++) bytes[i] = (char)(uint8_t)(n >> (8 * i));
  sb_putn(b, bytes, 8);
}

static void *bundle(void *const *obj, const size_t *len, int n, size_t *out) {
  StrBuf b = STRBUF_INIT;
  sb_putn(&b, TES_OBJECT_BUNDLE_MAGIC, TES_OBJECT_BUNDLE_MAGIC_LEN);
  put_len(&b, (uint64_t)n);
  for (int i = 0; i < n; i++) {
    put_len(&b, len[i]);
    sb_putn(&b, obj[i], len[i]);
  }
  return sb_take(&b, out);
}

int cg_split_emit(LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level, void **data,
                  size_t *len, Diag *d) {
  if (split_off()) return 0;
  int n = count_defined(mod);
  if (n < 2) return 0;
  int *group = xmalloc((size_t)n * sizeof *group);
  struct Helper *h;
  if (!partition(mod, n, group) || !(h = helper_for(tm))) {
    free(group);
    return 0;
  }
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(mod);
  Part part = {.helper = h,
               .opt_level = opt_level,
               .bitcode = LLVMGetBufferStart(bc),
               .bitcode_len = LLVMGetBufferSize(bc),
               .group = group};
  pthread_t thread;
  bool threaded = pthread_create(&thread, NULL, emit_helper_part, &part) == 0;
  if (!threaded) emit_helper_part(&part);
  LLVMModuleRef copy = LLVMCloneModule(mod);
  keep_group(copy, group, 0);
  void *obj[2] = {NULL, NULL};
  size_t objlen[2] = {0, 0};
  char *err = NULL;
  emit_module(tm, copy, &obj[0], &objlen[0], &err);
  LLVMDisposeModule(copy);
  if (threaded) pthread_join(thread, NULL);
  pthread_mutex_unlock(&h->busy);
  LLVMDisposeMemoryBuffer(bc);
  free(group);
  obj[1] = part.obj;
  objlen[1] = part.len;
  if (!err) err = part.err;
  else free(part.err);
  if (!err) *data = bundle(obj, objlen, 2, len);
  free(obj[0]);
  free(obj[1]);
  if (!err) return 1;
  ir_error(d, "llvm code generation failed: %s", err);
  free(err);
  return -1;
}
