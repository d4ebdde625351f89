/* test_lower.c: the lowering pipeline (ir/lower.c): the pass table and its names, the
 * --dump-after callback after schedule_ops and every pass (with "unchanged" when a pass
 * returned its input), the PrimFunc printer, outputs that are not arguments, and the argument
 * lists it refuses. */
#include "tests/unit/schedule/sched_test.h"

static Var *m;
static Tensor *ta, *tb, *tc;

static StrBuf log_;

static void record(void *user, const char *pass, const Stmt *body, bool changed,
                  int ndevice, const DeviceFunc *device) {
  (void)ndevice, (void)device;
  (void)body;
  sb_printf(&log_, "%s%s;", pass, changed ? "" : "=");
  (*(int *)user)++;
}

/* SPEC §8's order, under TVM's names, and tes's bound check before flattening (and before
 * tir.InjectPrefetch, whose prefetches may pass the end of a tensor) */
static const char *const passes[] = {
    "tes.CheckBounds",    "tir.InjectPrefetch", "tir.StorageFlatten", "vta.InjectDMAIntrin",
    "vta.InjectSkipCopy",
    "vta.AnnotateALUCoProcScope", "tir.LiftAttrScope.coproc_uop_scope",
    "vta.LiftAllocToScopeBegin", "tir.LiftAttrScope.coproc_scope", "vta.InjectCoProcSync",
    "vta.EarlyRewrite", "tir.InjectVirtualThread",
    "tir.InjectDoubleBuffer", "tir.StorageRewrite", "tir.LoopPartition",
    "tir.UnrollLoop", "vta.InjectALUIntrin",
    "tir.InstrumentBoundCheckers", "tir.VectorizeLoop", "tir.Simplify",
    "tir.HoistIfThenElse", "tir.LowerDeviceStorageAccessInfo", "vta.FoldUopLoop",
    "vta.CPUAccessRewrite", "tir.ThreadSync", "tir.LowerThreadAllreduce",
    "tir.LowerWarpMemory", "tir.InferFragment", "tir.SplitHostDevice",
};
enum { NPASSES = sizeof passes / sizeof *passes };

static void test_lower_passes(void) {
  for (int i = 0; i < NPASSES; i++) CHECK_TEXT(lower_pass_name(i), passes[i]);
  CHECK(lower_pass_name(NPASSES) == NULL && lower_pass_name(-1) == NULL);
}

/* tvm.lower leaves out the passes of the GPU build, and VTA's (vta.lower runs them), and in
 * simple mode (LowerOptions.loop_partition false) tir.LoopPartition */
static bool gpu_only(const char *pass) {
  return strncmp(pass, "vta.", 4) == 0 || strncmp(pass, "tir.LiftAttrScope", 17) == 0 ||
         strcmp(pass, "tir.LowerDeviceStorageAccessInfo") == 0 ||
         strcmp(pass, "tir.LoopPartition") == 0 || strcmp(pass, "tir.ThreadSync") == 0 || strcmp(pass, "tir.LowerThreadAllreduce") == 0 ||
         strcmp(pass, "tir.LowerWarpMemory") == 0 || strcmp(pass, "tir.InferFragment") == 0 ||
         strcmp(pass, "tir.SplitHostDevice") == 0;
}
enum { NGPU_ONLY = 18 }; /* the GPU build's 5, VTA's 12, and tir.LoopPartition */

/* What the dump log reads when no pass changes anything after flattening. */
static const char *unchanged_log(void) {
  static StrBuf b;
  if (!b.len) {
    sb_puts(&b, "schedule_ops;");
    for (int i = 0; i < NPASSES; i++)
      if (!gpu_only(passes[i]))
        sb_printf(&b, "%s%s;", passes[i], strcmp(passes[i], "tir.StorageFlatten") ? "=" : "");
  }
  return sb_cstr(&b);
}

static void test_lower_dump(void) {
  int calls = 0;
  LowerOptions opt = {.dump = record, .dump_user = &calls};
  Tensor *args[3] = {ta, tb, tc};
  Schedule *s = schedule(1, tc);
  lowered_with(s, &opt, 3, args);
  CHECK(calls == NPASSES - NGPU_ONLY + 1);
  CHECK_TEXT(sb_cstr(&log_), unchanged_log());
  /* a split guard: the simplifier keeps it, the hoister moves nothing in one dimension */
  log_.len = 0;
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, tc), axis_of(tc, 0), I(8), NULL, &xo, &xi));
  opt.name = "vadd";
  CHECK_TEXT(lowered_with(s, &opt, 3, args),
             "@vadd = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m]), "
             "C: Buffer(float32, [m])) {\n"
             "  for (i.outer: int32, 0, floordiv((m + 7), 8)) {\n"
             "    for (i.inner: int32, 0, 8) {\n"
             "      if @tir.likely((((i.outer*8) + i.inner) < m), dtype=bool) {\n"
             "        C[((i.outer*8) + i.inner)] = (A[((i.outer*8) + i.inner)] + "
             "B[((i.outer*8) + i.inner)])\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
  CHECK_TEXT(sb_cstr(&log_), unchanged_log());
  /* lowering for a GPU runs them too, last */
  log_.len = 0;
  opt.gpu = true;
  lowered_with(s, &opt, 3, args);
  CHECK(strstr(sb_cstr(&log_), ";tir.HoistIfThenElse=;tir.ThreadSync=;") != NULL);
  /* out of simple mode (tvm.build) tir.LoopPartition runs: the guard of the last block stays */
  log_.len = 0;
  opt.gpu = false;
  opt.loop_partition = true;
  const char *text = lowered_with(s, &opt, 3, args);
  CHECK(strstr(sb_cstr(&log_), ";tir.StorageRewrite=;tir.LoopPartition;tir.UnrollLoop=;") != NULL);
  CHECK(strstr(text, "for (i.outer: int32, 0, floordiv(m, 8)) {\n") != NULL);
  CHECK(strstr(text, "if ((((floordiv(m, 8)*8) + (i.outer*8)) + i.inner) < m) {\n") != NULL);
}

/* seeds/000_*.txt lowers with the inputs only: the output gets an allocation */
static void test_lower_output_not_argument(void) {
  CHECK_TEXT(lowered(schedule(1, tc), 2, ta, tb),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m])) {\n"
             "  allocate(C: Pointer(global float32), float32, [m]), storage_scope = global;\n"
             "  for (i: int32, 0, m) {\n"
             "    C[i] = (A[i] + B[i])\n"
             "  }\n"
             "}\n");
}

static void test_lower_errors(void) {
  Schedule *s = schedule(1, tc);
  CHECK_TEXT(lowered(s, 2, ta, tc),
             "error: cannot lower: placeholder B is read but is not an argument");
  CHECK_TEXT(lowered(s, 3, ta, tb, ta),
             "error: cannot lower: tensor A is given twice as an argument");
  CHECK_TEXT(lowered(s, 2, ta, NULL), "error: cannot lower: argument 1 is not a tensor");
  /* the schedule's own errors come through */
  Tensor *d;
  Expr *shape[1] = {V(m)};
  ComputeDef dd = axes(1, shape, NULL);
  d = compute("D", dd, add(at(tc, iv_ref(dd.axis[0])), F(1)));
  Schedule *s2 = schedule(1, d);
  IterVar *xo, *xi;
  CHECK(sched_compute_at(S(s2, tc), S(s2, d), axis_of(d, 0)));
  CHECK(sched_split(S(s2, d), axis_of(d, 0), I(2), NULL, &xo, &xi));
  CHECK_TEXT(lowered(s2, 3, ta, tb, d),
             "error: cannot compute_at: axis i of stage D, where C is computed, is no longer a "
             "loop of D (it was split or fused)");
  /* lowering reports to a Diag of its own: the schedule's stays as it was */
  CHECK(!diag_failed(&s2->diag));
  CHECK(sched_compute_root(S(s2, tc)));
  CHECK(strncmp(lowered(s2, 3, ta, tb, d), "@main", 5) == 0);
}

int main(void) {
  arena_init(&A);
  m = var("m");
  ta = placeholder("A", 1, V(m));
  tb = placeholder("B", 1, V(m));
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  tc = compute("C", d, add(at(ta, iv_ref(d.axis[0])), at(tb, iv_ref(d.axis[0]))));
  test_lower_passes();
  test_lower_dump();
  test_lower_output_not_argument();
  test_lower_errors();
  sb_free(&log_);
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
