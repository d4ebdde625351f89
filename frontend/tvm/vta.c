/* vta.c: the `vta` module (SPEC §13): vta.get_env() and vta.Environment, VTA's configuration
 * with the fields the tutorials read, and vta.testing.simulator (clear_stats, stats), the
 * counters of the session's VTA simulator (jit/vta_sim.h). env.gemm is vta.intrin.gemm
 * (stdlib/vta/intrin.tes); vta.lower is tvm.lower under vta.build_config(), vta.build that
 * and VTA's runtime calls (vta_runtime.c) built for the host. */
#include "frontend/tvm/vta.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/raise.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/vta_runtime.h"
#include "ir/pass/vta_lower_runtime.h"
#include "frontend/tvm/pass.h"
#include "frontend/tvm/sched.h"
#include "ir/strbuf.h"
#include "ir/support.h"
#include "jit/vta_sim.h"

typedef struct VtaEnv {
  VtaConfig cfg;
  Value *gemm; /* env.gemm, built on first use (vta.intrin.gemm, stdlib/vta/intrin.tes) */
  Value *dev;  /* env.dev, made on first use (vta_dev.c) */
} VtaEnv;

static const ObjClass env_class;

static char *text_of(const char *fmt, ...) TES_PRINTF(1, 2);
static char *text_of(const char *fmt, ...) {
  StrBuf b = {0};
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&b, fmt, ap);
  va_end(ap);
  return sb_take(&b, NULL);
}

static const VtaConfig *cfg_of(Value *self) { return &((VtaEnv *)self->u.obj.p)->cfg; }

/* ---- the derived fields, as VTA's Environment derives them ---- */

static int log_out_buff(const VtaConfig *c) {
  return c->log_acc_buff_size + vta_log_out_width(c) - c->log_acc_width;
}
/* "1x16_i8w8a32_15_15_18_17": VTA's bitstream name of the configuration */
static char *bitstream(const VtaConfig *c) {
  return text_of("%dx%d_i%dw%da%d_%d_%d_%d_%d", vta_batch(c), vta_block(c),
                   1 << c->log_inp_width, 1 << c->log_wgt_width, 1 << c->log_acc_width,
                   c->log_uop_buff_size, c->log_inp_buff_size, c->log_wgt_buff_size,
                   c->log_acc_buff_size);
}
static Value *str_take(char *s) {
  Value *v = val_cstr(s);
  free(s);
  return v;
}

#define ENV_INTS(X)                                                                             \
  X(LOG_INP_WIDTH, c->log_inp_width, "log2 of the input width in bits")                         \
  X(LOG_WGT_WIDTH, c->log_wgt_width, "log2 of the weight width in bits")                        \
  X(LOG_ACC_WIDTH, c->log_acc_width, "log2 of the accumulator width in bits")                   \
  X(LOG_OUT_WIDTH, vta_log_out_width(c), "log2 of the output width in bits (the input's)")      \
  X(LOG_BATCH, c->log_batch, "log2 of the GEMM's batch")                                        \
  X(LOG_BLOCK, c->log_block, "log2 of the GEMM's block")                                        \
  X(LOG_BLOCK_IN, c->log_block, "log2 of the GEMM's input block")                               \
  X(LOG_BLOCK_OUT, c->log_block, "log2 of the GEMM's output block")                             \
  X(LOG_UOP_BUFF_SIZE, c->log_uop_buff_size, "log2 of the micro-op buffer's bytes")             \
  X(LOG_INP_BUFF_SIZE, c->log_inp_buff_size, "log2 of the input buffer's bytes")                \
  X(LOG_WGT_BUFF_SIZE, c->log_wgt_buff_size, "log2 of the weight buffer's bytes")               \
  X(LOG_ACC_BUFF_SIZE, c->log_acc_buff_size, "log2 of the accumulator buffer's bytes")          \
  X(LOG_OUT_BUFF_SIZE, log_out_buff(c), "log2 of the output buffer's bytes")                    \
  X(INP_WIDTH, 1 << c->log_inp_width, "bits of an input value")                                 \
  X(WGT_WIDTH, 1 << c->log_wgt_width, "bits of a weight value")                                 \
  X(ACC_WIDTH, 1 << c->log_acc_width, "bits of an accumulator value")                           \
  X(OUT_WIDTH, 1 << vta_log_out_width(c), "bits of an output value")                            \
  X(BATCH, vta_batch(c), "the GEMM's batch: rows of an input element")                          \
  X(BLOCK_IN, vta_block(c), "the GEMM's input block: the reduction's length")                   \
  X(BLOCK_OUT, vta_block(c), "the GEMM's output block: columns of an output element")           \
  X(UOP_BUFF_SIZE, 1 << c->log_uop_buff_size, "bytes of the micro-op buffer")                   \
  X(INP_BUFF_SIZE, 1 << c->log_inp_buff_size, "bytes of the input buffer")                      \
  X(WGT_BUFF_SIZE, 1 << c->log_wgt_buff_size, "bytes of the weight buffer")                     \
  X(ACC_BUFF_SIZE, 1 << c->log_acc_buff_size, "bytes of the accumulator buffer")                \
  X(OUT_BUFF_SIZE, 1 << log_out_buff(c), "bytes of the output buffer")                          \
  X(INP_ELEM_BITS, 8 * (int)vta_elem_bytes(c, VTA_MEM_INP), "bits of an input element")         \
  X(WGT_ELEM_BITS, 8 * (int)vta_elem_bytes(c, VTA_MEM_WGT), "bits of a weight element")         \
  X(ACC_ELEM_BITS, 8 * (int)vta_elem_bytes(c, VTA_MEM_ACC), "bits of an accumulator element")   \
  X(OUT_ELEM_BITS, 8 * (int)vta_elem_bytes(c, VTA_MEM_OUT), "bits of an output element")        \
  X(INP_ELEM_BYTES, (int)vta_elem_bytes(c, VTA_MEM_INP), "bytes of an input element")           \
  X(WGT_ELEM_BYTES, (int)vta_elem_bytes(c, VTA_MEM_WGT), "bytes of a weight element")           \
  X(ACC_ELEM_BYTES, (int)vta_elem_bytes(c, VTA_MEM_ACC), "bytes of an accumulator element")     \
  X(OUT_ELEM_BYTES, (int)vta_elem_bytes(c, VTA_MEM_OUT), "bytes of an output element")          \
  X(DEBUG_DUMP_INSN, 1 << 1, "debug flag: print the instruction stream")                        \
  X(DEBUG_DUMP_UOP, 1 << 2, "debug flag: print the micro-op kernels")                           \
  X(DEBUG_SKIP_READ_BARRIER, 1 << 3, "debug flag: skip the read barriers")                      \
  X(DEBUG_SKIP_WRITE_BARRIER, 1 << 4, "debug flag: skip the write barriers")

#define ENV_STRS(X)                                                                             \
  X(TARGET, xstrdup("sim"), "the device: 'sim', VTA's functional simulator")                    \
  X(HW_VER, xstrdup("0.0.2"), "the hardware version")                                           \
  X(inp_dtype, text_of("int%d", 1 << c->log_inp_width), "the inputs' dtype")                  \
  X(wgt_dtype, text_of("int%d", 1 << c->log_wgt_width), "the weights' dtype")                 \
  X(acc_dtype, text_of("int%d", 1 << c->log_acc_width), "the accumulators' dtype")            \
  X(out_dtype, text_of("int%d", 1 << vta_log_out_width(c)), "the outputs' dtype")             \
  X(inp_scope, xstrdup("local.inp_buffer"), "the storage scope of the input buffer")            \
  X(wgt_scope, xstrdup("local.wgt_buffer"), "the storage scope of the weight buffer")           \
  X(acc_scope, xstrdup("local.acc_buffer"), "the storage scope of the accumulator buffer")      \
  X(dma_copy, xstrdup("dma_copy"), "the pragma that makes a copy stage a DMA load or store")    \
  X(alu, xstrdup("alu"), "the pragma that makes a stage ALU instructions")                      \
  X(BITSTREAM, bitstream(c), "the bitstream's name of the configuration")                       \
  X(MODEL, text_of("sim_%s", bs = bitstream(c)), "TARGET_BITSTREAM")                          \
  X(target_host, xstrdup("llvm"), "the host's target: 'llvm' for the simulator")

#define INT_GETTER(name, expr, doc)                                                             \
  static Value *env_##name(Interp *I, Value *self) {                                            \
    const VtaConfig *c = cfg_of(self);                                                          \
    (void)c;                                                                                    \
    return val_int(expr);                                                                       \
  }
#define STR_GETTER(name, expr, doc)                                                             \
  static Value *env_##name(Interp *I, Value *self) {                                            \
    const VtaConfig *c = cfg_of(self);                                                          \
    char *bs = NULL;                                                                            \
    (void)c;                                                                                    \
    Value *v = str_take(expr);                                                                  \
    free(bs);                                                                                   \
    return v;                                                                                   \
  }
ENV_INTS(INT_GETTER)
ENV_STRS(STR_GETTER)
#undef INT_GETTER
#undef STR_GETTER

static Value *env_target(Interp *I, Value *self) {
  char *bs = bitstream(cfg_of(self));
  char *text = text_of("ext_dev -keys=vta,cpu -device=vta -model=sim_%s", bs);
  Value *t = bi_build_target_new(text);
  free(bs);
  free(text);
  return t;
}

/* env.gemm: VTA's GEMM tensor intrinsic, declared in TES (stdlib/vta/intrin.tes) and kept,
 * so that every read gives the same intrinsic */
static Value *env_gemm(Interp *I, Value *self) {
  VtaEnv *e = self->u.obj.p;
  if (e->gemm) return val_incref(e->gemm);
  Value *m = mod_import(I, interp_modules(I), "vta.intrin");
  Value *fn = m ? val_getattr(I, m, sym_cstr("gemm")) : NULL;
  if (m) val_decref(m);
  if (!fn) return NULL;
  e->gemm = interp_callv(I, fn, 1, &self);
  val_decref(fn);
  return e->gemm ? val_incref(e->gemm) : NULL;
}

/* env.dev: VTA's DevContext, one per environment */
static Value *env_dev(Interp *I, Value *self) {
  VtaEnv *e = self->u.obj.p;
  if (!e->dev) e->dev = bi_vta_dev_new(I);
  return val_incref(e->dev);
}

static void env_free(void *p) {
  VtaEnv *e = p;
  if (e->dev) val_decref(e->dev);
  if (e->gemm) val_decref(e->gemm);
  free(e);
}

static const Property env_props[] = {
#define PROP(name, expr, doc) {#name, env_##name, doc},
    ENV_INTS(PROP) ENV_STRS(PROP)
#undef PROP
    {"target", env_target, "the target of VTA code: ext_dev -keys=vta,cpu -device=vta -model=..."},
    {"dev", env_dev, "VTA's DevContext: vta_axis, command_handle, vta_push_uop, the memory, ALU "
                     "opcode and queue numbers, get_task_qid"},
    {"gemm", env_gemm, "the GEMM tensor intrinsic: BATCH x BLOCK_IN inputs times BLOCK_OUT x "
                       "BLOCK_IN weights into BATCH x BLOCK_OUT accumulators, in VTA's buffers"},
    {0},
};

static Value *env_repr(Interp *I, Value *self) {
  char *bs = bitstream(cfg_of(self));
  Value *v = str_take(text_of("<vta.Environment sim_%s>", bs));
  free(bs);
  return v;
}

static const ObjClass env_class = {
    .type = {"Environment", NULL, VAL_OBJ, NULL},
    .free = env_free,
    .repr = env_repr,
    .props = env_props,
};

static Value *env_new(const VtaConfig *c) {
  VtaEnv *e = xmalloc(sizeof *e);
  e->cfg = *c;
  e->gemm = NULL;
  e->dev = NULL;
  return val_obj_new(&env_class, e);
}

static Value *fn_get_env(Interp *I, Value *self, Value **a) {
  return env_new(&vta_default_config);
}

/* ---- vta.Environment(cfg): a configuration given as vta_config.json's dict ---- */

static const struct {
  const char *key;
  size_t offset;
} cfg_keys[] = {
    {"LOG_INP_WIDTH", offsetof(VtaConfig, log_inp_width)},
    {"LOG_WGT_WIDTH", offsetof(VtaConfig, log_wgt_width)},
    {"LOG_ACC_WIDTH", offsetof(VtaConfig, log_acc_width)},
    {"LOG_BATCH", offsetof(VtaConfig, log_batch)},
    {"LOG_BLOCK", offsetof(VtaConfig, log_block)},
    {"LOG_UOP_BUFF_SIZE", offsetof(VtaConfig, log_uop_buff_size)},
    {"LOG_INP_BUFF_SIZE", offsetof(VtaConfig, log_inp_buff_size)},
    {"LOG_WGT_BUFF_SIZE", offsetof(VtaConfig, log_wgt_buff_size)},
    {"LOG_ACC_BUFF_SIZE", offsetof(VtaConfig, log_acc_buff_size)},
};

static int cfg_set(Interp *I, VtaConfig *c, Value *key, Value *v) {
  if (key->kind != VAL_STR) {
    interp_raise(I, EXC_TypeError, "vta.Environment: configuration keys are str, not '%s'",
                 val_type_name(key));
    return -1;
  }
  const char *k = key->u.str.s;
  if (strcmp(k, "TARGET") == 0 || strcmp(k, "HW_VER") == 0) {
    const char *want = k[0] == 'T' ? "sim" : "0.0.2";
    if (v->kind == VAL_STR && strcmp(v->u.str.s, want) == 0) return 0;
    interp_raise(I, EXC_RuntimeError, "not supported yet: vta.Environment with %s other than "
                 "'%s'", k, want);
    return -1;
  }
  for (size_t i = 0; i < sizeof cfg_keys / sizeof *cfg_keys; i++)
    if (strcmp(k, cfg_keys[i].key) == 0) {
      if (!val_is_int(v) || v->u.i < 0 || v->u.i > 30) {
        interp_raise(I, EXC_ValueError, "vta.Environment: %s must be an int from 0 to 30", k);
        return -1;
      }
      *(int *)((char *)c + cfg_keys[i].offset) = (int)v->u.i;
      return 0;
    }
  interp_raise(I, EXC_KeyError, "vta.Environment: unknown configuration key '%s'", k);
  return -1;
}

static const Builtin env_ctor = {
    "Environment", NULL, 0, PARAMS("cfg"),
    "Environment(cfg=None) -> Environment: VTA's configuration; cfg a dict of vta_config.json's "
    "keys over the default"};

static Value *env_class_call(Interp *I, Value *self, CallArgs *args) {
  Value *slots[1];
  if (interp_bind_builtin(I, &env_ctor, args, slots) < 0) return NULL;
  VtaConfig c = vta_default_config;
  if (slots[0] && slots[0]->kind != VAL_NONE) {
    if (slots[0]->kind != VAL_DICT)
      return interp_raise(I, EXC_TypeError, "vta.Environment: cfg must be a dict, not '%s'",
                          val_type_name(slots[0]));
    int64_t pos = 0;
    Value *k, *v;
    while (dict_next(slots[0], &pos, &k, &v))
      if (cfg_set(I, &c, k, v) < 0) return NULL;
  }
  /* the simulator's limits, checked now rather than at the first run */
  char err[VTA_SIM_ERR];
  VtaSim *probe = vta_sim_new(&c, 1u << 16, err);
  if (!probe)
    return interp_raise(I, strstr(err, "not supported yet") ? EXC_RuntimeError : EXC_ValueError,
                        "vta.Environment: %s", err);
  vta_sim_free(probe);
  return env_new(&c);
}

static Value *env_class_repr(Interp *I, Value *self) {
  return val_cstr("<class 'vta.Environment'>");
}

static const ObjClass env_class_class = {
    .type = {"type", NULL, VAL_OBJ, NULL},
    .repr = env_class_repr,
    .call = env_class_call,
};

/* ---- vta.build_config() and vta.lower: lowering with VTA's passes ---- */

static Value *build_config(Interp *I, const VtaConfig *c) {
  VtaTarget t = {.batch = vta_batch(c),
                 .block_in = vta_block(c),
                 .block_out = vta_block(c),
                 .inp_bits = 1 << c->log_inp_width,
                 .wgt_bits = 1 << c->log_wgt_width,
                 .acc_bits = 1 << c->log_acc_width,
                 .inp_buff_bytes = (int64_t)1 << c->log_inp_buff_size,
                 .wgt_buff_bytes = (int64_t)1 << c->log_wgt_buff_size,
                 .acc_buff_bytes = (int64_t)1 << c->log_acc_buff_size,
                 .uop_buff_bytes = (int64_t)1 << c->log_uop_buff_size};
  return bi_pass_context_vta(I, &t);
}

static Value *fn_build_config(Interp *I, Value *self, Value **a) {
  return build_config(I, &vta_default_config);
}

static Value *call_method(Interp *I, Value *obj, const char *name) {
  Value *m = val_getattr(I, obj, sym_cstr(name));
  Value *r = m ? interp_callv(I, m, 0, NULL) : NULL;
  if (m) val_decref(m);
  return r;
}

/* tvm.lower(a...) inside `with vta.build_config():` */
static Value *lower_in_config(Interp *I, Value **a) {
  Value *ctx = build_config(I, &vta_default_config);
  Value *entered = call_method(I, ctx, "__enter__");
  if (!entered) {
    val_decref(ctx);
    return NULL;
  }
  val_decref(entered);
  Value *r = bi_sched_lower(I, NULL, a);
  Value *err = r ? NULL : interp_error_take(I);
  Value *exited = call_method(I, ctx, "__exit__");
  if (exited) val_decref(exited);
  val_decref(ctx);
  if (err) {
    interp_raise_value(I, err);
    val_decref(err);
  }
  return r;
}

/* vta.lower(...): tvm.lower(...) inside `with vta.build_config():` */
static Value *fn_lower(Interp *I, Value *self, Value **a) { return lower_in_config(I, a); }

/* vta.build(inputs, args, target="ext_dev", target_host=None, name="default_function"): a
 * schedule lowered with VTA's passes (an IRModule or PrimFunc as it is), VTA's builtins made
 * calls of its runtime (ir/pass/vta_lower_runtime.c), then built for the host by the llvm back
 * end; the module runs on ext_dev arrays, driving VTA's command queue and the simulator. */
static Value *fn_build(Interp *I, Value *self, Value **a) {
  const char *target =
      a[2] && a[2]->kind != VAL_NONE ? bi_target_text(I, a[2], "vta.build") : "ext_dev";
  if (!target) return NULL;
  if (!bi_target_kind_is(target, "ext_dev"))
    return interp_raise(I, EXC_BuildError, "vta.build: the target is VTA's 'ext_dev', not '%s'",
                        target);
  const char *host = a[3] && a[3]->kind != VAL_NONE ? bi_target_text(I, a[3], "vta.build")
                                                    : "llvm";
  if (!host) return NULL;
  if (!bi_target_kind_is(host, "llvm"))
    return interp_raise(I, EXC_BuildError, "not supported yet: vta.build with target_host '%s' "
                        "(the simulator's host is 'llvm')", host);
  const char *name = bi_te_str_arg(I, a[4], "vta.build", "name", "default_function");
  if (!name) return NULL;
  Lowered *l = bi_sched_lowered_of(a[0]);
  if (l) {
    l = bi_sched_lowered_ref(l);
  } else {
    if (!val_obj_of(a[0], &bi_sched_schedule_class))
      return interp_raise(I, EXC_TypeError,
                          "vta.build: expected a Schedule or an IRModule, not '%s'",
                          val_type_name(a[0]));
    if (!a[1] || a[1]->kind == VAL_NONE)
      return interp_raise(I, EXC_ValueError, "vta.build: args must be given to build a "
                          "schedule");
    Value *nm = val_cstr(name);
    Value *largs[5] = {a[0], a[1], nm, a[5], NULL};
    Value *lowered = lower_in_config(I, largs);
    val_decref(nm);
    if (!lowered) return NULL;
    l = bi_sched_lowered_ref(bi_sched_lowered_of(lowered));
    val_decref(lowered);
  }
  if (!bi_build_llvm_loaded(I) || !bi_vta_runtime_ready(I)) {
    bi_sched_lowered_release(l);
    return NULL;
  }
  Diag d = DIAG_INIT;
  LoweredFunc *f = arena_alloc(&l->arena, sizeof *f);
  *f = *l->f;
  if (a[4] && a[4]->kind != VAL_NONE) f->name = arena_strndup(&l->arena, name, strlen(name));
  PassCtx ctx = {.arena = &l->arena, .diag = &d};
  f->body = pass_vta_lower_runtime(l->f->body, &ctx);
  if (diag_failed(&d)) {
    bi_sched_lowered_release(l);
    return bi_raise_diag(I, strstr(d.msg, "not supported yet") ? EXC_RuntimeError : EXC_BuildError,
                         &d);
  }
  Value *mod = bi_build_llvm_func(I, l, f, host, true);
  BiLowerHooks *h = bi_pass_hooks(I);
  if (mod && h->built) h->built(h->built_user, I, mod);
  return mod;
}

const Builtin bi_vta_funcs[] = {
    {"build_config", fn_build_config, 0, NOPARAMS,
     "build_config() -> PassContext: lowering with VTA's passes (config tir.add_lower_pass), "
     "for a `with` block"},
    {"lower", fn_lower, 1, BI_SCHED_LOWER_PARAMS,
     "lower(sch, args, name='main', binds=None, simple_mode=False): tvm.lower with VTA's passes "
     "(vta.build_config)"},
    {"build", fn_build, 1, PARAMS("inputs", "args", "target", "target_host", "name", "binds"),
     "build(inputs, args=None, target='ext_dev', target_host=None, name='default_function') -> "
     "Module: VTA's lowering, its runtime's calls, the host's code; runs on ext_dev arrays"},
    {"get_env", fn_get_env, 0, NOPARAMS,
     "get_env() -> Environment: VTA's configuration, the default one (TARGET 'sim')"},
    {0},
};

int bi_vta_init(Interp *I, Value *module) {
  bi_set_member_take(module, "Environment", val_obj_new(&env_class_class, NULL));
  return 0;
}

/* ---- vta.testing.simulator: the session's simulator and its counters ---- */

static VtaSim *session_sim;

static void free_session_sim(void) { vta_sim_free(session_sim); }

VtaSim *bi_vta_sim(Interp *I) {
  if (session_sim) return session_sim;
  char err[VTA_SIM_ERR];
  /* 1 GiB of DRAM, reserved and committed as it is touched; less under a `ulimit -v` */
  for (int log = 30; !session_sim && log >= 24; log -= 2)
    session_sim = vta_sim_new(&vta_default_config, (size_t)1 << log, err);
  if (!session_sim) {
    interp_raise(I, EXC_RuntimeError, "%s", err);
    return NULL;
  }
  atexit(free_session_sim);
  return session_sim;
}

static Value *fn_clear_stats(Interp *I, Value *self, Value **a) {
  VtaSim *s = bi_vta_sim(I);
  if (!s) return NULL;
  vta_sim_clear_stats(s);
  return val_none();
}

static Value *fn_stats(Interp *I, Value *self, Value **a) {
  VtaSim *s = bi_vta_sim(I);
  if (!s) return NULL;
  VtaStats st = vta_sim_stats(s);
  Value *d = val_dict_new();
#define ENTRY(name)                                                                             \
  {                                                                                             \
    Value *k = val_cstr(#name), *v = val_int((int64_t)st.name);                                 \
    int rc = dict_set(I, d, k, v);                                                              \
    val_decref(k);                                                                              \
    val_decref(v);                                                                              \
    if (rc < 0) {                                                                               \
      val_decref(d);                                                                            \
      return NULL;                                                                              \
    }                                                                                           \
  }
  VTA_STATS_FIELDS(ENTRY)
#undef ENTRY
  return d;
}

const Builtin bi_vta_simulator_funcs[] = {
    {"clear_stats", fn_clear_stats, 0, NOPARAMS,
     "clear_stats(): set the VTA simulator's counters to 0"},
    {"stats", fn_stats, 0, NOPARAMS,
     "stats() -> dict: the VTA simulator's counters: inp/wgt/acc/uop_load_nbytes, "
     "out_store_nbytes, gemm_counter, alu_counter"},
    {0},
};
