/* codegen_pipeline.c: the optimisation pipeline (LLVM's new pass manager) run on a module.
 *
 * Levels 2 and 3 run tes's own pipeline instead of default<O3>: the loops lowering leaves are
 * already scheduled (tiled, ordered, unrolled and vectorized where the schedule says), so what
 * they need is clean-up, not search: about a third of default<O3>'s time goes to passes that
 * find nothing in them (repeated instcombine and simplifycfg, jump threading, loop idioms, the
 * coroutine and OpenMP passes). Kept, in O3's order: the inliner (a parallel loop's body into
 * its chunk function, and IR imported by pragma), SROA (local accumulators to registers), CSE
 * of the index arithmetic, LICM around a rotated loop, loops unswitched on invariant
 * conditions (a padding's likely guards), induction variables widened, small constant loops
 * fully unrolled at O3's threshold, GVN and dead stores, then the loop vectorizer for loops
 * the schedule left scalar, and the unroller after it. The bench
 * kernels (the .tes files of bench/kernels) compile to the same vector code as with
 * default<O3> (the same FMAs in their inner loops, as few branches) in about two thirds of the
 * time. Left out besides, because without each of them (and without all of them together)
 * every bench kernel compiles to the very same machine code: the first simplifycfg, the
 * vectorizer's preparations (float2int, a second rotation, loop-load-elim), the instcombine
 * after vector-combine, and O3's tail (a last LICM,
 * alignment-from-assumptions, loop-sink, instsimplify, simplifycfg): about a tenth of the
 * pipeline's time. vector-combine stays: it folds the shuffles around an odd-width vector
 * (the 15-lane tail of a partitioned loop, widened to one masked access of 16) so that the
 * arithmetic between them is 16 lanes too (codegen/llvm_masked_tail.tes).
 *
 * TES_LLVM_PASSES, when set, replaces the pipeline at levels 1 to 3 (a pipeline text as
 * `opt -passes` takes, e.g. "default<O3>"), to compare pipelines; it is part of the compile
 * cache's key. */
#include <stdlib.h>

#include "backends/llvm/codegen_llvm_impl.h"

#define IC "instcombine<max-iterations=1;no-verify-fixpoint>"
#define LICM "licm<allowspeculation>"
#define ROTATE "loop-rotate<header-duplication;no-prepare-for-lto>"

static const char tes_pipeline[] =
    "cgscc(inline),"
    "function("
    /* the generator's IR cleaned up */
    "sroa<modify-cfg>,early-cse<>," IC ","
    "loop-mssa(" LICM "," ROTATE "," LICM ",simple-loop-unswitch<nontrivial;trivial>),"
    "simplifycfg," IC ","
    /* loops simplified: wide induction variables, constant loops unrolled */
    "loop(indvars,loop-deletion),loop-unroll<O3;no-partial;no-runtime;no-upperbound>,"
    "sroa<modify-cfg>,gvn<>," IC ",dse,loop-mssa(" LICM "),simplifycfg,"
    /* vectorizing what the schedule left scalar, as default<O3> does */
    "loop-vectorize<no-interleave-forced-only;no-vectorize-forced-only>,infer-alignment," IC ","
    "simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-range-to-icmp;"
    "switch-to-lookup;no-keep-loops;hoist-common-insts;sink-common-insts;speculate-blocks;"
    "simplify-cond-branch;no-speculate-unpredictables>,"
    "vector-combine,loop-unroll<O3>,sroa<preserve-cfg>,infer-alignment," IC ",div-rem-pairs)";

const char *cg_pipeline(int opt_level) {
  static const char *const levels[] = {"default<O0>", "default<O1>", tes_pipeline, tes_pipeline};
  const char *env = getenv("TES_LLVM_PASSES");
  if (env && *env && opt_level > 0) return env;
  return levels[opt_level];
}
