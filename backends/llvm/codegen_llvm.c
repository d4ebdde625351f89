/* codegen_llvm.c: the LLVM module of a lowered function: the target machine (the host CPU's
 * name and features unless the target string names others), the entry points of the ABI in
 * codegen_llvm.h, verification, the optimisation pipeline (codegen_pipeline.c), and emission
 * as IR text, assembly or an object file. Emission runs on a copy of the module, because
 * LLVM's code generation passes rewrite the IR they are given and get_source("ll") must show
 * it as optimised. Each build has an LLVM context of its own, so builds share no LLVM state
 * but the target machines (codegen_target.c).
 *
 * The compile cache's side (the frontend keeps the files, jit/objcache.h): what a module's key
 * hashes (its unoptimised module as bitcode, its assertion messages, LLVM's version, the
 * target machine and the pipeline) and what an entry holds (the messages, the optimised IR's
 * text and the object file). A code loaded from an entry has no LLVM module: get_source("ll")
 * is the entry's text, and assembly is made from that text parsed again. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "backends/llvm/codegen_llvm_impl.h"
#include "ir/printer.h"
#include "jit/plugin_api.h"

struct CgLlvmCode {
  LLVMContextRef ctx;
  LLVMModuleRef mod;     /* NULL when loaded from a cache entry, until assembly is asked for */
  LLVMTargetMachineRef tm; /* shared, codegen_target.c */
  char *name, *triple;
  int opt_level;
  bool optimised;
  char *ir_text; /* cached on first use */
  void *obj;     /* the object file, cached on first use */
  size_t objlen;
  void *jit_obj; /* the bundle of objects the JIT loads (codegen_split.c), or NULL: obj */
  size_t jit_objlen;
  char **messages;
  int nmessages;
};

/* ---- the generator's bookkeeping ---- */

void cg_bind(Cg *cg, const Var *v, LLVMValueRef val) {
  VEC_GROW(NULL, cg->env, cg->capenv, cg->nenv + 1);
  cg->env[cg->nenv++] = (CgBinding){v, val, NULL};
}
void cg_bind_wide(Cg *cg, const Var *v, LLVMValueRef val, LLVMValueRef wide) {
  cg_bind(cg, v, val);
  cg->env[cg->nenv - 1].wide = wide;
}

void cg_unbind(Cg *cg, int n) { cg->nenv -= n; }

LLVMValueRef cg_lookup(Cg *cg, const Var *v) {
  for (int i = cg->nenv - 1; i >= 0; i--)
    if (cg->env[i].var == v) return cg->env[i].val;
  return NULL;
}

LLVMValueRef cg_lookup_wide(Cg *cg, const Var *v) {
  for (int i = cg->nenv - 1; i >= 0; i--)
    if (cg->env[i].var == v) return cg->env[i].wide;
  return NULL;
}

LLVMValueRef cg_entry_alloca(Cg *cg, LLVMTypeRef t, unsigned count, unsigned align) {
  LLVMBasicBlockRef here = LLVMGetInsertBlock(cg->b);
  LLVMPositionBuilderAtEnd(cg->b, cg->alloca_bb);
  /* [count x t], not `alloca t, count`: SROA leaves array allocations alone, so a local
   * accumulator would stay in memory through the loop passes until instcombine rewrote it */
  LLVMValueRef p = LLVMBuildAlloca(cg->b, count == 1 ? t : LLVMArrayType2(t, count), "");
  LLVMSetAlignment(p, align);
  LLVMPositionBuilderAtEnd(cg->b, here);
  return p;
}

LLVMValueRef cg_intrinsic(Cg *cg, const char *name, LLVMTypeRef *types, int ntypes,
                          LLVMTypeRef *fn_type) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  TES_ASSERT(id != 0, "no LLVM intrinsic %s", name);
  *fn_type = LLVMIntrinsicGetType(cg->ctx, id, types, (size_t)ntypes);
  return LLVMGetIntrinsicDeclaration(cg->mod, id, types, (size_t)ntypes);
}

LLVMValueRef cg_call_named(Cg *cg, const char *name, LLVMTypeRef fty, LLVMValueRef *args, int n) {
  LLVMValueRef f = LLVMGetNamedFunction(cg->mod, name);
  if (!f) f = LLVMAddFunction(cg->mod, name, fty);
  if (LLVMGlobalGetValueType(f) != fty) {
    ir_error(cg->diag, "function '%s' is called with two different signatures", name);
    return LLVMGetPoison(LLVMGetReturnType(fty));
  }
  return LLVMBuildCall2(cg->b, fty, f, args, (unsigned)n, "");
}

void cg_return_code(Cg *cg, LLVMValueRef code) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(cg->ctx, 0);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(cg->ctx), &ptr, 1, 0);
  for (int i = cg->nheap - 1; i >= 0; i--) cg_call_named(cg, "free", fty, &cg->heap[i], 1);
  LLVMBuildRet(cg->b, code);
}

/* ---- the ABI ---- */

static void add_attr(Cg *cg, LLVMValueRef fn, int index, const char *kind, uint64_t val) {
  unsigned k = LLVMGetEnumAttributeKindForName(kind, strlen(kind));
  LLVMAddAttributeAtIndex(fn, (LLVMAttributeIndex)index, LLVMCreateEnumAttribute(cg->ctx, k, val));
}

void cg_buffer_param(Cg *cg, LLVMValueRef fn, int index) {
  add_attr(cg, fn, index + 1, "noalias", 0);
  add_attr(cg, fn, index + 1, "align", 64);
}

static void add_string_attr(Cg *cg, LLVMValueRef fn, const char *key, const char *val) {
  LLVMAddAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(cg->ctx, key, (unsigned)strlen(key), val, (unsigned)strlen(val)));
}

/* The target's CPU and features on every function, so each is compiled as the target machine
 * would, and 512-bit vectors where the CPU has AVX-512 (LLVM otherwise splits them in two). */
static void function_attrs(Cg *cg, LLVMValueRef fn, const char *cpu, const char *features) {
  add_string_attr(cg, fn, "target-cpu", cpu);
  if (*features) add_string_attr(cg, fn, "target-features", features);
  if (strstr(features, "+avx512f")) {
    add_string_attr(cg, fn, "prefer-vector-width", "512");
    add_string_attr(cg, fn, "min-legal-vector-width", "512");
  }
  add_attr(cg, fn, (int)LLVMAttributeFunctionIndex, "nounwind", 0);
}

static LLVMTypeRef entry_type(Cg *cg, const LoweredFunc *f, Var **shape, int nshape) {
  int n = f->nparams + nshape;
  LLVMTypeRef *params = xmalloc((size_t)(n + 1) * sizeof *params);
  for (int i = 0; i < f->nparams; i++) params[i] = LLVMPointerTypeInContext(cg->ctx, 0);
  for (int i = 0; i < nshape; i++) params[f->nparams + i] = cg_type(cg, shape[i]->dtype);
  LLVMTypeRef t = LLVMFunctionType(LLVMInt32TypeInContext(cg->ctx), params, (unsigned)n, 0);
  free(params);
  return t;
}

static LLVMValueRef gen_entry(Cg *cg, const LoweredFunc *f, Var **shape, int nshape) {
  LLVMTypeRef fty = entry_type(cg, f, shape, nshape);
  LLVMValueRef fn = LLVMAddFunction(cg->mod, f->name, fty);
  for (int i = 0; i < f->nparams; i++) {
    cg_buffer_param(cg, fn, i);
    LLVMSetValueName2(LLVMGetParam(fn, (unsigned)i), f->params[i]->name,
                      strlen(f->params[i]->name));
  }
  cg->fn = fn;
  cg->alloca_bb = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cg->ctx, fn, "body");
  LLVMPositionBuilderAtEnd(cg->b, body);
  for (int i = 0; i < f->nparams; i++)
    cg_bind(cg, f->params[i]->data, LLVMGetParam(fn, (unsigned)i));
  for (int i = 0; i < nshape; i++) {
    LLVMValueRef p = LLVMGetParam(fn, (unsigned)(f->nparams + i));
    LLVMSetValueName2(p, shape[i]->name, strlen(shape[i]->name));
    cg_bind(cg, shape[i], p);
  }
  cg_stmt(cg, f->body);
  LLVMBuildRet(cg->b, LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), 0, 0));
  LLVMPositionBuilderAtEnd(cg->b, cg->alloca_bb);
  LLVMBuildBr(cg->b, body);
  return fn;
}

/* NAME_packed(void **args): NAME(*(T0 *)args[0], ...). */
static LLVMValueRef gen_packed(Cg *cg, LLVMValueRef entry, const char *name) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(cg->ctx, 0), i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMTypeRef fty = LLVMFunctionType(i32, &ptr, 1, 0), ety = LLVMGlobalGetValueType(entry);
  size_t len = strlen(name);
  char *pname = xmalloc(len + 8);
  memcpy(pname, name, len);
  memcpy(pname + len, "_packed", 8);
  LLVMValueRef fn = LLVMAddFunction(cg->mod, pname, fty);
  free(pname);
  LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry"));
  unsigned n = LLVMCountParamTypes(ety);
  LLVMTypeRef *types = xmalloc((n + 1) * sizeof *types);
  LLVMValueRef *args = xmalloc((n + 1) * sizeof *args);
  LLVMGetParamTypes(ety, types);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(cg->ctx), i, 0);
    LLVMValueRef slot =
        LLVMBuildLoad2(cg->b, ptr, LLVMBuildGEP2(cg->b, ptr, LLVMGetParam(fn, 0), &k, 1, ""), "");
    args[i] = LLVMBuildLoad2(cg->b, types[i], slot, "");
  }
  LLVMBuildRet(cg->b, LLVMBuildCall2(cg->b, ety, entry, args, n, ""));
  free(types);
  free(args);
  return fn;
}

/* ---- building ---- */

static bool verify(CgLlvmCode *c, Diag *d) {
  char *msg = NULL;
  if (LLVMVerifyModule(c->mod, LLVMReturnStatusAction, &msg)) {
    ir_internal_error(d, "the generated LLVM IR is invalid: %s", msg);
    LLVMDisposeMessage(msg);
    return false;
  }
  LLVMDisposeMessage(msg);
  return true;
}

bool cg_llvm_optimize(CgLlvmCode *c, Diag *d) {
  if (c->optimised) return true;
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopUnrolling(opts, 1);
  LLVMPassBuilderOptionsSetLoopVectorization(opts, c->opt_level >= 2);
  LLVMErrorRef e = LLVMRunPasses(c->mod, cg_pipeline(c->opt_level), c->tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  c->optimised = !e;
  if (!e) return true;
  char *why = cg_llvm_message(LLVMGetErrorMessage(e));
  ir_error(d, "%s", why);
  free(why);
  return false;
}

static void generate(Cg *cg, const LoweredFunc *f, const CgTarget *t) {
  int nshape = ir_func_shape_vars(f, NULL, 0);
  Var **shape = xmalloc((size_t)(nshape + 1) * sizeof *shape);
  ir_func_shape_vars(f, shape, nshape);
  LLVMValueRef entry = gen_entry(cg, f, shape, nshape);
  function_attrs(cg, entry, t->cpu, t->features);
  function_attrs(cg, gen_packed(cg, entry, f->name), t->cpu, t->features);
  for (LLVMValueRef fn = LLVMGetFirstFunction(cg->mod); fn; fn = LLVMGetNextFunction(fn))
    if (LLVMGetLinkage(fn) == LLVMInternalLinkage) function_attrs(cg, fn, t->cpu, t->features);
  free(shape);
}

static CgLlvmCode *new_code(const LoweredFunc *f, const CgTarget *t, LLVMTargetMachineRef tm) {
  CgLlvmCode *c = xcalloc(1, sizeof *c);
  c->ctx = LLVMContextCreate();
  c->mod = LLVMModuleCreateWithNameInContext(f->name, c->ctx);
  c->tm = tm;
  c->name = xstrdup(f->name);
  c->triple = xstrdup(t->triple);
  c->opt_level = t->opt_level;
  LLVMSetTarget(c->mod, t->triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(c->mod, td);
  LLVMDisposeTargetData(td);
  return c;
}

CgLlvmCode *cg_llvm_generate(const LoweredFunc *f, const char *target, Diag *d) {
  CgTarget t;
  if (!cg_target_parse(target, &t, d)) return NULL;
  LLVMTargetMachineRef tm = cg_target_machine(&t, d);
  if (!tm) {
    cg_target_free(&t);
    return NULL;
  }
  CgLlvmCode *c = new_code(f, &t, tm);
  Cg cg = {.ctx = c->ctx,
           .mod = c->mod,
           .b = LLVMCreateBuilderInContext(c->ctx),
           .td = LLVMGetModuleDataLayout(c->mod),
           .name = f->name,
           .diag = d,
           .features = t.features};
  generate(&cg, f, &t);
  LLVMDisposeBuilder(cg.b);
  free(cg.env);
  free(cg.heap);
  c->messages = cg.messages;
  c->nmessages = cg.nmessages;
  bool ok = !diag_failed(d) && verify(c, d);
  cg_target_free(&t);
  if (!ok) {
    cg_llvm_free(c);
    return NULL;
  }
  return c;
}

CgLlvmCode *cg_llvm_build(const LoweredFunc *f, const char *target, Diag *d) {
  CgLlvmCode *c = cg_llvm_generate(f, target, d);
  if (c && !cg_llvm_optimize(c, d)) {
    cg_llvm_free(c);
    return NULL;
  }
  return c;
}

static void drop_module(CgLlvmCode *c) {
  if (c->mod) LLVMDisposeModule(c->mod);
  if (c->ctx) LLVMContextDispose(c->ctx);
  c->mod = NULL;
  c->ctx = NULL;
}

static void free_messages(CgLlvmCode *c) {
  for (int i = 0; i < c->nmessages; i++) free(c->messages[i]);
  free(c->messages);
  c->messages = NULL;
  c->nmessages = 0;
}

void cg_llvm_free(CgLlvmCode *c) {
  if (!c) return;
  drop_module(c);
  free_messages(c);
  free(c->name);
  free(c->triple);
  free(c->ir_text);
  free(c->obj);
  free(c->jit_obj);
  free(c);
}

const char *cg_llvm_name(const CgLlvmCode *c) { return c->name; }

const char *cg_llvm_ir_text(CgLlvmCode *c) {
  if (!c->ir_text) c->ir_text = cg_llvm_message(LLVMPrintModuleToString(c->mod));
  return c->ir_text;
}

/* The module of a code loaded from a cache entry, parsed from its text. */
static bool reparse(CgLlvmCode *c, Diag *d) {
  if (c->mod) return true;
  c->ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(
      c->ir_text, strlen(c->ir_text), "tes-cached-module", 1);
  char *msg = NULL;
  if (!LLVMParseIRInContext(c->ctx, buf, &c->mod, &msg)) return true; /* it took buf */
  ir_internal_error(d, "the cached LLVM IR does not parse: %s", msg ? msg : "");
  LLVMDisposeMessage(msg);
  LLVMContextDispose(c->ctx);
  c->ctx = NULL;
  c->mod = NULL;
  return false;
}

/* Code generation for the target machine, on a copy of the module (code generated from the
 * module itself differs in register choice and order from that of its copy, which every build
 * made so far). The text is printed only when asked for (get_source, the cache's entry). */
static bool emit(CgLlvmCode *c, LLVMCodeGenFileType kind, void **data, size_t *len, Diag *d) {
  if (!reparse(c, d)) return false;
  LLVMModuleRef copy = LLVMCloneModule(c->mod);
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  bool failed = LLVMTargetMachineEmitToMemoryBuffer(c->tm, copy, kind, &msg, &buf);
  LLVMDisposeModule(copy);
  if (failed) {
    ir_error(d, "llvm code generation failed: %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    return false;
  }
  *len = LLVMGetBufferSize(buf);
  *data = xmalloc(*len + 1);
  memcpy(*data, LLVMGetBufferStart(buf), *len);
  ((char *)*data)[*len] = 0;
  LLVMDisposeMemoryBuffer(buf);
  return true;
}

char *cg_llvm_asm_text(CgLlvmCode *c, Diag *d) {
  void *data;
  size_t len;
  return emit(c, LLVMAssemblyFile, &data, &len, d) ? data : NULL;
}

bool cg_llvm_object(CgLlvmCode *c, void **data, size_t *len, Diag *d) {
  if (!c->obj && !emit(c, LLVMObjectFile, &c->obj, &c->objlen, d)) return false;
  *len = c->objlen;
  *data = xmalloc(c->objlen + 1);
  memcpy(*data, c->obj, c->objlen + 1);
  return true;
}

bool cg_llvm_jit_object(CgLlvmCode *c, void **data, size_t *len, Diag *d) {
  if (!c->jit_obj && !c->obj && c->mod) {
    int made = cg_split_emit(c->mod, c->tm, c->opt_level, &c->jit_obj, &c->jit_objlen, d);
    if (made < 0) return false;
  }
  if (!c->jit_obj) return cg_llvm_object(c, data, len, d);
  *len = c->jit_objlen;
  *data = xmalloc(c->jit_objlen);
  memcpy(*data, c->jit_obj, c->jit_objlen);
  return true;
}

/* ---- the compile cache ---- */

static void put_bytes(StrBuf *b, const void *p, size_t n) {
  uint8_t len[8];
  for (int i = 0; i < 8; i++) len[i] = (uint8_t)((uint64_t)n >> (8 * i));
  sb_putn(b, (const char *)len, 8);
  sb_putn(b, p, n);
}

/* The next length-prefixed field of [*p, end), or NULL when it runs past end. */
static const char *get_bytes(const char **p, const char *end, size_t *n) {
  if (end - *p < 8) return NULL;
  uint64_t len = 0;
  for (int i = 0; i < 8; i++) len |= (uint64_t)(uint8_t)(*p)[i] << (8 * i);
  *p += 8;
  if ((uint64_t)(end - *p) < len) return NULL;
  const char *s = *p;
  *p += len;
  *n = (size_t)len;
  return s;
}

char *cg_llvm_cache_input(CgLlvmCode *c, size_t *len) {
  TES_ASSERT(c->mod && !c->optimised, "cache input of an optimised module");
  StrBuf b = STRBUF_INIT;
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  char *cpu = LLVMGetTargetMachineCPU(c->tm), *features = LLVMGetTargetMachineFeatureString(c->tm);
  sb_printf(&b, "llvm %u.%u.%u\ntriple %s\ncpu %s\nfeatures %s\nopt %d\npipeline %s\nargs %s\n",
            major, minor, patch, c->triple, cpu, features, c->opt_level,
            cg_pipeline(c->opt_level), cg_llvm_args());
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  for (int i = 0; i < c->nmessages; i++) put_bytes(&b, c->messages[i], strlen(c->messages[i]));
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(c->mod);
  put_bytes(&b, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc));
  LLVMDisposeMemoryBuffer(bc);
  return sb_take(&b, len);
}

bool cg_llvm_cache_save(CgLlvmCode *c, void **data, size_t *len, Diag *d) {
  void *obj;
  size_t objlen;
  if (!cg_llvm_jit_object(c, &obj, &objlen, d)) return false;
  StrBuf b = STRBUF_INIT;
  char count[16];
  snprintf(count, sizeof count, "%d", c->nmessages);
  put_bytes(&b, count, strlen(count));
  for (int i = 0; i < c->nmessages; i++) put_bytes(&b, c->messages[i], strlen(c->messages[i]));
  const char *text = cg_llvm_ir_text(c);
  put_bytes(&b, text, strlen(text));
  put_bytes(&b, obj, objlen);
  free(obj);
  *data = sb_take(&b, len);
  return true;
}

bool cg_llvm_cache_load(CgLlvmCode *c, const void *data, size_t len) {
  const char *p = data, *end = p + len, *s;
  size_t n;
  char count[16];
  if (!(s = get_bytes(&p, end, &n)) || n >= sizeof count) return false;
  memcpy(count, s, n);
  count[n] = 0;
  char *stop;
  long nmsg = strtol(count, &stop, 10);
  if (*stop || nmsg < 0 || nmsg > (end - p) / 8) return false;
  char **messages = xcalloc((size_t)nmsg + 1, sizeof *messages);
  const char *text = NULL, *obj = NULL;
  size_t ntext = 0, nobj = 0;
  bool ok = true;
  for (long i = 0; ok && i < nmsg; i++)
    if ((ok = (s = get_bytes(&p, end, &n)) != NULL)) messages[i] = xstrndup(s, n);
  ok = ok && (text = get_bytes(&p, end, &ntext)) && (obj = get_bytes(&p, end, &nobj)) && p == end;
  if (!ok) {
    for (long i = 0; i < nmsg; i++) free(messages[i]);
    free(messages);
    return false;
  }
  drop_module(c);
  free_messages(c);
  c->messages = messages;
  c->nmessages = (int)nmsg;
  free(c->ir_text);
  c->ir_text = xstrndup(text, ntext);
  free(c->obj);
  free(c->jit_obj);
  c->obj = c->jit_obj = NULL;
  if (nobj >= TES_OBJECT_BUNDLE_MAGIC_LEN &&
      memcmp(obj, TES_OBJECT_BUNDLE_MAGIC, TES_OBJECT_BUNDLE_MAGIC_LEN) == 0) {
    c->jit_obj = xmalloc(nobj); /* the ELF object is made from the IR text when asked for */
    memcpy(c->jit_obj, obj, nobj);
    c->jit_objlen = nobj;
  } else {
    c->obj = xmalloc(nobj + 1);
    memcpy(c->obj, obj, nobj);
    ((char *)c->obj)[nobj] = 0;
    c->objlen = nobj;
  }
  c->optimised = true;
  return true;
}

bool cg_llvm_runs_here(const CgLlvmCode *c) {
  char *host = cg_host_triple();
  bool same = strcmp(host, c->triple) == 0;
  free(host);
  return same;
}

const char *cg_llvm_error_message(const CgLlvmCode *c, int32_t code, char buf[64]) {
  if (code >= 1 && code <= c->nmessages) return c->messages[code - 1];
  if (code == CG_LLVM_ERR_NOMEM) return "out of memory";
  if (code == CG_LLVM_ERR_INTERRUPTED) return "interrupted";
  if (code == CG_LLVM_ERR_PACKED)
    return "a packed function failed (call_packed: none registered under that name, or called "
           "from a parallel loop's worker thread)";
  snprintf(buf, 64, "unknown error code %d", (int)code);
  return buf;
}

/* ---- the C header of an exported library ---- */

static bool c_identifier(const char *s) {
  if (!*s || isdigit((unsigned char)*s)) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

/* C's name for an element type in the exported header (float16 as its bits, bool a byte). */
static const char *c_type(DType t) { return dt_c_name(t, true); }

/* A buffer's name as a C parameter: what is not a letter, digit or _ becomes _. */
static void c_param_name(StrBuf *b, const LoweredFunc *f, int i) {
  const char *name = f->params[i]->name;
  if (*name >= '0' && *name <= '9') sb_putc(b, '_');
  for (const char *p = name; *p; p++)
    sb_putc(b, isalnum((unsigned char)*p) || *p == '_' ? *p : '_');
}

static void c_signature(StrBuf *b, const LoweredFunc *f, Var **shape, int nshape) {
  sb_printf(b, "int32_t %s(", f->name);
  for (int i = 0; i < f->nparams; i++) {
    sb_printf(b, "%s%s *TES_RESTRICT ", i ? ", " : "", c_type(f->params[i]->dtype));
    c_param_name(b, f, i);
  }
  for (int i = 0; i < nshape; i++)
    sb_printf(b, "%s%s %s", f->nparams + i ? ", " : "",
              shape[i]->dtype.bits == 64 ? "int64_t" : "int32_t", shape[i]->name);
  sb_puts(b, ");\n");
}

char *cg_llvm_c_header(const CgLlvmCode *c, const LoweredFunc *f, Diag *d) {
  int nshape = ir_func_shape_vars(f, NULL, 0);
  Var **shape = xmalloc((size_t)(nshape + 1) * sizeof *shape);
  ir_func_shape_vars(f, shape, nshape);
  const char *bad = c_identifier(f->name) ? NULL : f->name;
  for (int i = 0; !bad && i < nshape; i++)
    if (!c_identifier(shape[i]->name)) bad = shape[i]->name;
  if (bad) {
    free(shape);
    ir_error(d, "'%s' is not a C identifier, so no C header can declare it", bad);
    return NULL;
  }
  StrBuf b = STRBUF_INIT;
  sb_printf(&b,
            "/* %s: made by tes's export_library. Each buffer argument is a compact row-major\n"
            " * array, 64-byte aligned, not overlapping another; then the shape variables.\n"
            " * float16 elements are their bits (uint16_t), bool elements one byte.\n"
            " * NAME_packed(args): the same with args[i] pointing at the i-th argument.\n"
            " * Returns 0, or -1 when a buffer could not be allocated",
            f->name);
  for (int i = 0; i < c->nmessages; i++)
    sb_printf(&b, ",\n * %d when \"%s\" fails", i + 1, c->messages[i]);
  sb_puts(&b, ". */\n");
  sb_printf(&b, "#ifndef TES_EXPORT_%s_H\n#define TES_EXPORT_%s_H\n\n#include <stdint.h>\n\n",
            f->name, f->name);
  sb_puts(&b, "#ifdef __cplusplus\n#define TES_RESTRICT __restrict\nextern \"C\" {\n#else\n"
              "#define TES_RESTRICT restrict\n#endif\n\n");
  for (int i = 0; i < f->nparams; i++) {
    char dt[32];
    sb_puts(&b, "/* ");
    c_param_name(&b, f, i);
    sb_printf(&b, ": %s [", dt_name(dt_element(f->params[i]->dtype), dt));
    for (int d = 0; d < f->params[i]->ndim; d++) {
      if (d) sb_puts(&b, ", ");
      ir_print_expr(&b, f->params[i]->shape[d]);
    }
    sb_puts(&b, "] */\n");
  }
  c_signature(&b, f, shape, nshape);
  sb_printf(&b, "int32_t %s_packed(void **args);\n\n#ifdef __cplusplus\n}\n#endif\n#endif\n",
            f->name);
  free(shape);
  return sb_take(&b, NULL);
}
