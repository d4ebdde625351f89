/* lower.c: the lowering pipeline, one function and one table (STYLE 6): the loop nest from the
 * schedule (dump name "schedule_ops"), then each pass in the order of SPEC §8 under its TVM
 * name, so that --dump-after, the config and the log agree. */
#include "ir/lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/printer.h"
#include "ir/verify.h"

typedef enum { RUN_ALWAYS, RUN_ON_GPU, RUN_ON_VTA, RUN_UNLESS_SIMPLE } PassWhen;

typedef struct PassDef {
  const char *name;
  Stmt *(*run)(Stmt *, PassCtx *);
  PassWhen when;
} PassDef;

/* SPEC §8's order. TVM 0.8-0.10 hoist guards last, after simplification. tes.CheckBounds
 * (tes's own) reads tensor accesses, so it comes before flattening; the bound checkers (on with
 * tir.instrument_bound_checkers) want scalar indices, so they come before vectorization. */
static const PassDef lowering[] = {
    {"tes.CheckBounds", pass_check_bounds, RUN_ALWAYS},
    {"tir.InjectPrefetch", pass_inject_prefetch, RUN_ALWAYS},
    {"tir.StorageFlatten", pass_storage_flatten, RUN_ALWAYS},
    /* VTA's phase-1 passes (vta.build_config's tir.add_lower_pass), after flattening */
    {"vta.InjectDMAIntrin", pass_vta_inject_dma, RUN_ON_VTA},
    {"vta.InjectSkipCopy", pass_vta_inject_skip_copy, RUN_ON_VTA},
    {"vta.AnnotateALUCoProcScope", pass_vta_annotate_alu, RUN_ON_VTA},
    {"tir.LiftAttrScope.coproc_uop_scope", pass_lift_attr_scope_uop, RUN_ON_VTA},
    {"vta.LiftAllocToScopeBegin", pass_vta_lift_alloc, RUN_ON_VTA},
    {"tir.LiftAttrScope.coproc_scope", pass_lift_attr_scope_coproc, RUN_ON_VTA},
    {"vta.InjectCoProcSync", pass_vta_inject_coproc_sync, RUN_ON_VTA},
    {"vta.EarlyRewrite", pass_vta_early_rewrite, RUN_ON_VTA},
    {"tir.InjectVirtualThread", pass_inject_virtual_thread, RUN_ALWAYS},
    {"tir.InjectDoubleBuffer", pass_inject_double_buffer, RUN_ALWAYS},
    {"tir.StorageRewrite", pass_storage_rewrite, RUN_ALWAYS},
    /* TVM's phase 2 opens with it; tvm.lower(simple_mode=True) leaves it out */
    {"tir.LoopPartition", pass_loop_partition, RUN_UNLESS_SIMPLE},
    {"tir.UnrollLoop", pass_unroll_loop, RUN_ALWAYS},
    /* VTA's phase-2 pass */
    {"vta.InjectALUIntrin", pass_vta_inject_alu, RUN_ON_VTA},
    {"tir.InstrumentBoundCheckers", pass_instrument_bound_checkers, RUN_ALWAYS},
    {"tir.VectorizeLoop", pass_vectorize_loop, RUN_ALWAYS},
    {"tir.Simplify", pass_simplify, RUN_ALWAYS},
    {"tir.HoistIfThenElse", pass_hoist_if_then_else, RUN_ALWAYS},
    /* VTA's phase-3 passes, at the end */
    {"tir.LowerDeviceStorageAccessInfo", pass_lower_device_storage_access_info, RUN_ON_VTA},
    {"vta.FoldUopLoop", pass_vta_fold_uop_loop, RUN_ON_VTA},
    {"vta.CPUAccessRewrite", pass_vta_cpu_access_rewrite, RUN_ON_VTA},
    {"tir.ThreadSync", pass_thread_sync, RUN_ON_GPU},
    {"tir.LowerThreadAllreduce", pass_lower_thread_allreduce, RUN_ON_GPU},
    {"tir.LowerWarpMemory", pass_lower_warp_memory, RUN_ON_GPU},
    {"tir.InferFragment", pass_infer_fragment, RUN_ON_GPU},
    /* last: a pass after it sees only the host function (the kernels are in ctx->device), so
     * passes over kernel bodies (thread allreduce, warp memory) go before it */
    {"tir.SplitHostDevice", pass_split_host_device, RUN_ON_GPU},
};

enum { NPASSES = sizeof lowering / sizeof lowering[0] };

const char *lower_pass_name(int i) { return i >= 0 && i < NPASSES ? lowering[i].name : NULL; }

bool lower_pass_is_vta(int i) { return i >= 0 && i < NPASSES && lowering[i].when == RUN_ON_VTA; }

/* ---- arguments ---- */

/* A parameter's buffer: compact row-major over the tensor's shape, in global memory. */
static Buffer *param_buffer(Arena *a, Tensor *t) {
  Buffer *b = arena_alloc(a, sizeof *b);
  *b = (Buffer){.name = t->name,
                .data = ir_var(a, t->name, DT_HANDLE64),
                .dtype = t->dtype,
                .ndim = t->ndim,
                .shape = t->shape,
                .scope = "global",
                .data_alignment = 64,
                .offset_factor = 1};
  return b;
}

static bool is_arg(int nargs, Tensor **args, const Tensor *t) {
  for (int i = 0; i < nargs; i++)
    if (args[i] == t) return true;
  return false;
}

/* Placeholders have no storage of their own: the schedule must get each one as an argument. */
static bool check_args(const Schedule *s, int nargs, Tensor **args, Diag *d) {
  for (int i = 0; i < nargs; i++) {
    if (!args[i]) return ir_error(d, "cannot lower: argument %d is not a tensor", i);
    for (int j = 0; j < i; j++)
      if (args[j] == args[i])
        return ir_error(d, "cannot lower: tensor %s is given twice as an argument", args[i]->name);
  }
  for (int i = 0; i < s->nstages; i++) {
    const Operation *op = s->stages[i]->op;
    if (op->kind == OP_PLACEHOLDER && !is_arg(nargs, args, op->outputs[0]) &&
        !sched_is_scan_state(s, op->outputs[0]))
      return ir_error(d, "cannot lower: placeholder %s is read but is not an argument",
                      op->outputs[0]->name);
  }
  return true;
}

/* ---- the pipeline ---- */

static void after(const LowerOptions *opt, const char *pass, const Stmt *body, bool changed,
                  const PassCtx *ctx) {
  if (opt->dump) opt->dump(opt->dump_user, pass, body, changed, ctx ? ctx->ndevice : 0,
                           ctx ? ctx->device : NULL);
}

/* With TES_VERIFY_IR set in the environment (to anything but "" or "0": ./check and the lit
 * configuration set it) or at debug >= 1, the IR is checked after each step, so that a step
 * that breaks it is named as the culprit where it does: an internal error, not a crash or wrong
 * code later. Without it, lowering checks the IR once, after the last pass, before code
 * generation (lower_run), and lowers again checking each step only when that finds it
 * malformed; the per-step checks were half of a build's lowering time. flattened:
 * tir.StorageFlatten has run. */
bool lower_verifies_each_pass(const LowerOptions *opt) {
  if (opt && opt->debug >= 1) return true;
  const char *env = getenv("TES_VERIFY_IR");
  return env && *env && strcmp(env, "0") != 0;
}

static bool check_ir(const Stmt *body, const PassCtx *ctx, bool flattened, const char *pass) {
  return ir_verify_func(body, ctx, flattened, pass, ctx->diag);
}

/* Inlining puts producers' bodies into their consumers, so schedule_ops may give expressions
 * deeper than a script may build, too deep for the passes' recursion (IR_MAX_LOWERED_DEPTH). */
static bool shallow_enough(const Stmt *body, Diag *d) {
  const Stmt *deep = ir_find_deep_stmt(body, IR_MAX_LOWERED_DEPTH);
  if (!deep) return true;
  const char *name = deep->kind == STMT_PROVIDE ? deep->u.provide.tensor->name : NULL;
  return ir_error(d,
                  "cannot lower: an expression%s%s is more than %d nested operations deep "
                  "after inlining (inline fewer stages)",
                  name ? " of " : "", name ? name : "", IR_MAX_LOWERED_DEPTH);
}

static bool is_axis(const Schedule *s, const Var *v) {
  for (int i = 0; i < s->nstages; i++) {
    const Stage *st = s->stages[i];
    for (int j = 0; j < st->nall; j++)
      if (st->all_iter_vars[j]->var == v) return true;
    for (int j = 0; j < st->nattr; j++)
      if (st->attrs[j].bind_thread && st->attrs[j].bind_thread->var == v) return true;
  }
  return false;
}

/* The function's free variables, as TVM keeps them: what the loop nest reads unbound, but for
 * axes, whose every read the loop nest must bind (the verifier reports one it does not). */
static void find_free_vars(Schedule *s, Arena *a, const Stmt *body, PassCtx *ctx) {
  Var **vars;
  int n = ir_unbound_vars(a, body, ctx, &vars), kept = 0;
  for (int i = 0; i < n; i++)
    if (!is_axis(s, vars[i])) vars[kept++] = vars[i];
  vars[kept] = NULL;
  ctx->nfree = kept;
  ctx->free_vars = vars;
}

/* PassContext(disabled_pass=...) names passes as TVM does; names of passes we do not have
 * (Relay's, say) are allowed and match nothing, as in TVM. */
static bool is_disabled(const LowerOptions *opt, const char *pass) {
  for (int i = 0; i < opt->ndisabled; i++)
    if (strcmp(opt->disabled[i], pass) == 0) return true;
  return false;
}

/* The context the passes of f share: its arguments' buffers, the options, the diagnostics. */
static PassCtx pass_ctx(Arena *a, const LoweredFunc *f, const LowerOptions *opt, bool gpu,
                        Diag *d) {
  return (PassCtx){.arena = a,
                   .nbinds = f->nparams,
                   .bind_tensors = f->param_tensors,
                   .bind_buffers = f->params,
                   .gpu = gpu,
                   .vta = opt->vta,
                   .noptions = opt->noptions,
                   .options = opt->options,
                   .diag = d,
                   .warn = opt->warn,
                   .warn_user = opt->warn_user,
                   .func_name = f->name};
}

/* The passes of the table, in order; false with ctx->diag set when one fails or, with `each`,
 * leaves malformed IR; gpu_only: the GPU passes alone (a function lowered without them).
 * *flattened: tir.StorageFlatten has run; *last: the last pass run. */
static bool run_passes(const LowerOptions *opt, PassCtx *ctx, Stmt **body, bool each,
                       bool gpu_only, bool *flattened, const char **last) {
  for (int i = 0; i < NPASSES; i++) {
    if (lowering[i].when == RUN_ON_GPU ? !ctx->gpu : gpu_only) continue;
    if (lowering[i].when == RUN_ON_VTA && !ctx->vta) continue;
    if (lowering[i].when == RUN_UNLESS_SIMPLE && !opt->loop_partition) continue;
    if (is_disabled(opt, lowering[i].name)) continue;
    if (opt->debug >= 1) fprintf(stderr, "lower: %s\n", lowering[i].name);
    Stmt *next = lowering[i].run(*body, ctx);
    if (diag_failed(ctx->diag)) {
      if (lowering[i].when == RUN_ON_GPU && opt->gpu_pass_failed) *opt->gpu_pass_failed = true;
      return false;
    }
    after(opt, lowering[i].name, next, next != *body, ctx);
    *body = next;
    *flattened = *flattened || strcmp(lowering[i].name, "tir.StorageFlatten") == 0;
    *last = lowering[i].name;
    if (each && !check_ir(*body, ctx, *flattened, lowering[i].name)) return false;
  }
  return true;
}

/* lower_run's work; with `each`, the IR is verified after every step, else only at the end,
 * where *bad_ir tells a malformed result from a user's error. */
static LoweredFunc *lower_once(Arena *a, Schedule *s, int nargs, Tensor **args,
                               const LowerOptions *opt, bool each, bool *bad_ir, Diag *d) {
  *bad_ir = false;
  if (!check_args(s, nargs, args, d)) return NULL;
  if (opt->debug >= 1) fprintf(stderr, "lower: schedule_ops\n");
  SchedBounds *b = sched_infer_bound(s, a, d);
  Stmt *body = b ? sched_schedule_ops(b) : NULL;
  if (!body) return NULL;
  after(opt, "schedule_ops", body, true, NULL);
  LoweredFunc *f = arena_alloc(a, sizeof *f);
  f->name =
      arena_strndup(a, opt->name ? opt->name : "main", strlen(opt->name ? opt->name : "main"));
  f->nparams = nargs;
  f->params = arena_alloc(a, (size_t)(nargs + 1) * sizeof *f->params);
  f->param_tensors = arena_alloc(a, (size_t)(nargs + 1) * sizeof *f->param_tensors);
  for (int i = 0; i < nargs; i++) {
    f->param_tensors[i] = args[i];
    Buffer *bound = opt->arg_buffers ? opt->arg_buffers[i] : NULL;
    if (bound && (bound->ndim != args[i]->ndim || !dt_eq(bound->dtype, args[i]->dtype)))
      return ir_error(d, "cannot lower: buffer %s bound to argument %s has %d dimensions of a "
                         "different shape or dtype",
                      bound->name, args[i]->name, bound->ndim),
             NULL;
    f->params[i] = bound ? bound : param_buffer(a, args[i]);
  }
  PassCtx ctx = pass_ctx(a, f, opt, opt->gpu, d);
  bool flattened = false;
  const char *last = "schedule_ops";
  if (!shallow_enough(body, d)) return NULL;
  find_free_vars(s, a, body, &ctx);
  if (each && !check_ir(body, &ctx, flattened, "schedule_ops")) return NULL;
  if (!run_passes(opt, &ctx, &body, each, false, &flattened, &last)) return NULL;
  if (!each && !check_ir(body, &ctx, flattened, last)) return *bad_ir = true, NULL;
  f->body = body;
  f->thread_synced = opt->gpu && !is_disabled(opt, "tir.ThreadSync");
  f->ndevice = ctx.ndevice;
  f->device = ctx.device;
  return f;
}

LoweredFunc *lower_gpu_passes(Arena *a, const LoweredFunc *f, const LowerOptions *opt,
                              Diag *d) {
  LoweredFunc *g = arena_alloc(a, sizeof *g);
  *g = *f;
  PassCtx ctx = pass_ctx(a, f, opt, true, d);
  bool flattened = true;
  const char *last = NULL;
  if (!run_passes(opt, &ctx, &g->body, false, true, &flattened, &last)) return NULL;
  g->thread_synced = !is_disabled(opt, "tir.ThreadSync");
  g->ndevice = ctx.ndevice;
  g->device = ctx.device;
  return g;
}

static void quiet(void *user, const char *msg) { (void)user, (void)msg; }

/* Malformed IR is an internal error naming the pass that made it. A lowering that verifies
 * only the result (TES_VERIFY_IR unset) finds that pass by lowering again, verifying each step,
 * quietly (no dumps, no warnings twice); lowering is deterministic, so the second run fails
 * where the first went wrong. */
LoweredFunc *lower_run(Arena *a, Schedule *s, int nargs, Tensor **args, const LowerOptions *opt,
                       Diag *d) {
  static const LowerOptions defaults = {0};
  if (!opt) opt = &defaults;
  /* the passes tell their failure by d, so it must start empty */
  TES_ASSERT(!diag_failed(d), "lower_run given a Diag that holds: %s", d->msg);
  bool bad_ir;
  LoweredFunc *f = lower_once(a, s, nargs, args, opt, lower_verifies_each_pass(opt), &bad_ir, d);
  if (f || !bad_ir) return f;
  LowerOptions again = *opt;
  again.dump = NULL;
  again.warn = quiet;
  Diag culprit = DIAG_INIT;
  if (!lower_once(a, s, nargs, args, &again, true, &bad_ir, &culprit) && diag_failed(&culprit))
    *d = culprit;
  return NULL;
}

/* ---- printing ---- */

void lower_print_func(StrBuf *out, const LoweredFunc *f) {
  ir_print_primfn(out, f->name, f->nparams, f->params, f->body);
  for (int i = 0; i < f->ndevice; i++) lower_print_device_func(out, &f->device[i]);
}

void lower_print_device_func(StrBuf *out, const DeviceFunc *k) {
  static const char *const tags[6] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                      "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  char dt[32];
  sb_printf(out, "@%s = primfn(", k->name);
  for (int i = 0; i < k->nbufs; i++)
    sb_printf(out, "%s%s: handle(%s)", i ? ", " : "", k->bufs[i]->name,
              dt_name(k->buf_dtypes[i], dt));
  for (int i = 0; i < k->nscalars; i++)
    sb_printf(out, "%s%s: %s", k->nbufs + i ? ", " : "", k->scalars[i]->name,
              dt_name(k->scalars[i]->dtype, dt));
  sb_puts(out, ") attr = {\"tir.kernel_launch_params\": [");
  int n = 0;
  for (int i = 0; i < 6; i++) {
    const Expr *e = i < 3 ? k->grid[i] : k->block[i - 3];
    if (e) sb_printf(out, "%s\"%s\"", n++ ? ", " : "", tags[i]);
  }
  sb_puts(out, "]} {\n");
  ir_print_stmt(out, k->body, 1);
  sb_puts(out, "}\n");
}
