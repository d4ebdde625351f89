/* lower.h: tvm.lower: a schedule to a function of loop IR (SPEC §8). Bound inference and
 * loop-nest construction (ir/schedule/), then the passes of ir/pass/ in one table, with a
 * callback after each for --dump-after. */
#ifndef TES_IR_LOWER_H
#define TES_IR_LOWER_H

#include <stdbool.h>

#include "ir/func.h"
#include "ir/pass/pass.h"
#include "ir/schedule/schedule.h"
#include "ir/strbuf.h"


/* Called with the IR after loop-nest construction (pass "schedule_ops") and after every pass
 * that runs; changed is false when the pass returned its input itself. From
 * tir.SplitHostDevice on, body is the host function and device[0..ndevice) its kernels
 * (lower_print_device_func prints one); before it ndevice is 0. */
typedef void (*LowerDumpFn)(void *user, const char *pass, const Stmt *body, bool changed,
                            int ndevice, const DeviceFunc *device);

typedef struct LowerOptions {
  const char *name; /* NULL: "main" */
  bool gpu;         /* run the GPU-only passes too */
  const VtaTarget *vta; /* run VTA's passes for this VTA (vta.build_config); NULL: none */
  int debug;        /* >= 1: name each pass on stderr as it runs */
  bool loop_partition; /* run tir.LoopPartition: tvm.build, tvm.lower(simple_mode=False) */
  LowerDumpFn dump; /* may be NULL */
  void *dump_user;
  int noptions; /* PassContext config */
  const PassOption *options;
  int ndisabled; /* PassContext(disabled_pass=[...]): names of passes not to run */
  const char *const *disabled;
  /* The passes' warnings about the program (tes.CheckBounds); NULL: stderr */
  void (*warn)(void *user, const char *msg);
  void *warn_user;
  /* Set (when not NULL) if the pass that refused the program is a GPU-only one, which TVM runs
   * in its device build: the caller raises a BuildError rather than a LowerError. */
  bool *gpu_pass_failed;
  /* Per argument, the buffer it is passed in (tvm.build's binds: strides, an offset or an
   * alignment of its own); NULL, or a NULL entry: a compact buffer over the tensor's shape. */
  Buffer *const *arg_buffers;
} LowerOptions;

/* Whether lower_run checks the IR after every step (ir/verify.h), not only after the last one:
 * at opt->debug >= 1, or with TES_VERIFY_IR set in the environment to anything but "" or "0".
 * opt may be NULL. */
bool lower_verifies_each_pass(const LowerOptions *opt);

/* Lowers s with args (placeholders and outputs; every placeholder the schedule reads must be
 * one) into a, which must outlive the result; s does not change. NULL with d set when the
 * schedule cannot be lowered (a user error: a LowerError) or a step of lowering left malformed
 * IR (an internal error naming the step); d must hold nothing before. opt may be NULL. */
LoweredFunc *lower_run(Arena *a, Schedule *s, int nargs, Tensor **args, const LowerOptions *opt,
                       Diag *d);


/* The GPU-only passes (tir.ThreadSync, tir.SplitHostDevice: what lower_run adds with
 * opt->gpu, those opt does not disable) on a copy of f, which was lowered without them
 * (tvm.lower's IRModule built for cuda), in a; f does not change. NULL with d set when one
 * fails. opt->dump sees each pass as in lower_run. */
LoweredFunc *lower_gpu_passes(Arena *a, const LoweredFunc *f, const LowerOptions *opt,
                              Diag *d);

/* The passes lower_run runs, in order, by name ("tir.StorageFlatten", ...), for --dump-after
 * to check a name against and --help to list; NULL past the end. */
const char *lower_pass_name(int i);
/* Whether pass i runs only when lowering for VTA (vta.build_config's passes). */
bool lower_pass_is_vta(int i);

#endif
