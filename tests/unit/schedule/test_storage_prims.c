/* test_storage_prims.c: the buffer-layout primitives storage_align and double_buffer
 * (ir/schedule/schedule_lang.c): what they refuse and record, the attrs loop-nest
 * construction puts around the stage (schedule_ops.c), and what lowering makes of them
 * (storage flattening's padded strides, tir.InjectDoubleBuffer's two halves). */
#include "tests/unit/schedule/sched_test.h"

static Tensor *ta, *tb, *tc;
static IterVar *k;

/* C[i, j] = sum(B[i, k] * A[k, j]) with B[i, j] = A[i, j]: B is the stage laid out. */
static Schedule *matmul(void) {
  Expr *shape[2] = {I(64), I(64)};
  ta = placeholder("A", 2, I(64), I(64));
  ComputeDef db = axes(2, shape, NULL);
  tb = compute("B", db, at(ta, iv_ref(db.axis[0]), iv_ref(db.axis[1])));
  ComputeDef dc = axes(2, shape, NULL);
  k = reduce_axis("k", I(64));
  Expr *prod = mul(at(tb, iv_ref(dc.axis[0]), iv_ref(k)), at(ta, iv_ref(k), iv_ref(dc.axis[1])));
  tc = compute("C", dc, sum(prod, 1, &k));
  return schedule(1, tc);
}

/* Refused with this message, and nothing recorded. */
static void refused(Schedule *s, bool ok, const char *msg) {
  CHECK(!ok);
  CHECK_TEXT(s->diag.msg, msg);
}

static void test_storage_prims_align_errors(void) {
  Schedule *s = matmul();
  Stage *sb_ = S(s, tb), *sc = S(s, tc);
  refused(s, sched_storage_align(sb_, axis_of(tc, 0), 32, 1),
          "cannot storage_align: i is not an axis of stage B");
  refused(s, sched_storage_align(sc, k, 32, 1),
          "cannot storage_align: axis k of stage C is not one of its output dimensions (op.axis)");
  IterVar *xo, *xi;
  CHECK(sched_split(sc, axis_of(tc, 0), I(8), NULL, &xo, &xi));
  refused(s, sched_storage_align(sc, xo, 32, 1),
          "cannot storage_align: axis i.outer of stage C is not one of its output dimensions "
          "(op.axis)");
  refused(s, sched_storage_align(sb_, axis_of(tb, 0), 0, 0),
          "cannot storage_align axis i of stage B: factor must be positive, not 0");
  refused(s, sched_storage_align(sb_, axis_of(tb, 0), -4, 0),
          "cannot storage_align axis i of stage B: factor must be positive, not -4");
  refused(s, sched_storage_align(sb_, axis_of(tb, 1), 32, 32),
          "cannot storage_align axis j of stage B: offset 32 is not in [0, 32)");
  refused(s, sched_storage_align(sb_, axis_of(tb, 1), 32, -1),
          "cannot storage_align axis j of stage B: offset -1 is not in [0, 32)");
  refused(s, sched_storage_align(S(s, ta), axis_of(tb, 0), 32, 1),
          "cannot storage_align: stage A is a placeholder");
  refused(s, sched_storage_align(sb_, NULL, 32, 1),
          "cannot storage_align: (none) is not an axis of stage B");
  CHECK(sched_iter_attr(sb_, axis_of(tb, 0)) == NULL &&
        sched_iter_attr(sb_, axis_of(tb, 1)) == NULL);
  /* a root axis that was split is still a dimension of the buffer */
  CHECK(sched_storage_align(sc, axis_of(tc, 0), 16, 3));
  const IterVarAttr *at = sched_iter_attr(sc, axis_of(tc, 0));
  CHECK(at && at->dim_align_factor == 16 && at->dim_align_offset == 3);
  CHECK(sched_storage_align(sc, axis_of(tc, 0), 8, 0)); /* asked again: the last one holds */
  CHECK(at->dim_align_factor == 8 && at->dim_align_offset == 0);
}

static void test_storage_prims_double_buffer_errors(void) {
  Schedule *s = matmul();
  refused(s, sched_double_buffer(S(s, tc)),
          "cannot double_buffer: stage C is an output of the schedule (only a buffer computed "
          "inside a loop can be)");
  CHECK(!S(s, tc)->double_buffer);
  refused(s, sched_double_buffer(S(s, ta)), "cannot double_buffer: stage A is a placeholder");
  CHECK(!S(s, tb)->double_buffer);
  CHECK(sched_double_buffer(S(s, tb)));
  CHECK(S(s, tb)->double_buffer);
}

/* ---- lowering ---- */

static StrBuf ops_text, flat_text;

static void capture(void *user, const char *pass, const Stmt *body, bool changed,
                  int ndevice, const DeviceFunc *device) {
  (void)ndevice, (void)device;
  (void)user, (void)changed;
  StrBuf *b = strcmp(pass, "schedule_ops") == 0         ? &ops_text
              : strcmp(pass, "tir.StorageFlatten") == 0 ? &flat_text
                                                        : NULL;
  if (!b) return;
  b->len = 0;
  ir_print_stmt(b, body, 0);
}

static const char *lower_abc(Schedule *s) {
  LowerOptions opt = {.dump = capture};
  Tensor *args[2] = {ta, tc};
  return lowered_with(s, &opt, 2, args);
}

/* B in shared memory, computed at C's k.outer: its region is one row segment, [i, 1] x
 * [k.outer*8, 8]. */
static Schedule *tiled(IterVar **ko) {
  Schedule *s = matmul();
  IterVar *ki;
  CHECK(sched_split(S(s, tc), k, I(8), NULL, ko, &ki));
  CHECK(sched_set_scope(S(s, tb), "shared"));
  CHECK(sched_compute_at(S(s, tb), S(s, tc), *ko));
  return s;
}

static void test_storage_prims_align_lowered(void) {
  IterVar *ko;
  Schedule *s = tiled(&ko);
  CHECK(sched_storage_align(S(s, tb), axis_of(tb, 0), 32, 1));
  const char *out = lower_abc(s);
  CHECK(strstr(sb_cstr(&ops_text),
               "attr [B] \"buffer_dim_align\" = @tir.tvm_tuple(0, 32, 1, dtype=handle);\n"
               "        realize B([i, 1], [(k.outer*8), 8]) {\n") != NULL);
  /* stride of dim 0: 8, padded to 33 (33 % 32 == 1); one row of it: 33 elements */
  CHECK(strstr(sb_cstr(&flat_text), "allocate(B: Pointer(shared float32), float32, [33])") != NULL);
  CHECK(strstr(sb_cstr(&flat_text), "B[(((i - i)*33) + ") != NULL);
  CHECK(strstr(out, "B[j] = A[(((i*64) + (k.outer*8)) + j)]") != NULL);
  /* both dimensions of the whole of B, each padded from the stride the inner ones give */
  Schedule *t = matmul();
  CHECK(sched_storage_align(S(t, tb), axis_of(tb, 1), 4, 2));
  CHECK(sched_storage_align(S(t, tb), axis_of(tb, 0), 16, 5));
  out = lower_abc(t);
  /* dim 1: 1 -> 2 (2 % 4 == 2); dim 0: 2*64 = 128 -> 133 (133 % 16 == 5); 133*64 elements */
  CHECK(strstr(out,
               "allocate(B: Pointer(global float32), float32, [8512]), storage_scope = global") !=
        NULL);
  CHECK(strstr(out, "B[((i*133) + (j*2))] = A[((i*64) + j)]") != NULL);
  CHECK(strstr(out, "B[((i*133) + (k*2))]") != NULL);
}

static void test_storage_prims_double_buffer_lowered(void) {
  IterVar *ko;
  Schedule *s = tiled(&ko);
  CHECK(sched_double_buffer(S(s, tb)));
  const char *out = lower_abc(s);
  CHECK(strstr(sb_cstr(&ops_text), "realize B([i, 1], [(k.outer*8), 8]) {\n"
                                   "          attr [B] \"double_buffer_scope\" = 1;\n") != NULL);
  CHECK(strstr(sb_cstr(&flat_text), "allocate(B: Pointer(shared float32), float32, [8]), "
                                    "storage_scope = shared {\n"
                                    "        attr [B] \"double_buffer_scope\" = 1;\n") != NULL);
  CHECK(strstr(out, "allocate(B: Pointer(shared float32), float32, [16])") != NULL);
  CHECK(strstr(out, "for (k.outer.outer: int32, 0, 7) {\n") != NULL);
  CHECK(strstr(out, "attr [B] \"double_buffer_write\" = 1;\n") != NULL);
  CHECK(strstr(out, "B[((floormod((k.outer.outer + 1), 2)*8) + j)] = ") != NULL);
  CHECK(strstr(out, "B[((floormod(k.outer.outer, 2)*8) + k.inner)]") != NULL);
  CHECK(strstr(out, "B[(k.inner + 8)]") != NULL); /* the last iteration reads the second half */
  /* at the root, with no loop to fill ahead of, it stays a single buffer */
  Schedule *t = matmul();
  CHECK(sched_double_buffer(S(t, tb)));
  out = lower_abc(t);
  CHECK(strstr(out, "double_buffer") == NULL);
  CHECK(strstr(out, "allocate(B: Pointer(global float32), float32, [4096])") != NULL);
}

int main(void) {
  arena_init(&A);
  test_storage_prims_align_errors();
  test_storage_prims_double_buffer_errors();
  test_storage_prims_align_lowered();
  test_storage_prims_double_buffer_lowered();
  sb_free(&ops_text);
  sb_free(&flat_text);
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
