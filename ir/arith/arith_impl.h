/* arith_impl.h: what the files of ir/arith/ share and nothing outside uses: the Analyzer's
 * state, the simplifier's walk (rewrite.c), the rule pattern language (pattern.c), the rule
 * sets split by node kind (rewrite_*.c) and the canonical forms (canonical.c). */
#ifndef TES_IR_ARITH_IMPL_H
#define TES_IR_ARITH_IMPL_H

#include "ir/arith/arith.h"
#include "ir/ptrmap.h"

/* Case labels for every kind that is not a binary operator (ADD..OR), so that a switch over
 * the binary kinds still names every kind and -Wswitch flags it when a kind is added. */
#define ARITH_CASES_NOT_BINARY                                                                  \
  case EXPR_INT: case EXPR_FLOAT: case EXPR_STR: case EXPR_VAR: case EXPR_CAST: case EXPR_NOT:  \
  case EXPR_SELECT: case EXPR_RAMP: case EXPR_BROADCAST: case EXPR_LET: case EXPR_CALL:         \
  case EXPR_LOAD: case EXPR_PRODUCER_LOAD: case EXPR_REDUCE: case EXPR_KIND_COUNT

/* ---- const_fold.c ---- */
bool arith_is_int(const Expr *e, int64_t *v);    /* a scalar INT (bool constants too) */
/* An integer constant, or a broadcast of one (a vector condition every lane of which is
 * known): its value in *v. */
bool arith_is_uniform_int(const Expr *e, int64_t *v);
int64_t arith_floordiv_i64(int64_t x, int64_t y); /* y != 0 */
int64_t arith_floormod_i64(int64_t x, int64_t y);

/* Whether d divides n; INT64_MIN % -1 would trap, and -1 divides everything. */
static inline bool arith_divides(int64_t d, int64_t n) { return d != 0 && (d == -1 || n % d == 0); }

/* The dtypes TVM calls index types (int32, int64 scalars): the rewrite rules that reorder
 * arithmetic and the canonical forms are for them only; other dtypes just fold. */
static inline bool arith_is_index(DType t) {
  return t.code == DT_INT && t.lanes == 1 && (t.bits == 32 || t.bits == 64);
}

/* ---- the Analyzer (analyzer.c) ---- */

/* What is known of one variable. An entry with nothing known is the same as no entry. */
typedef struct VarInfo {
  const Var *var;
  bool has_bound, has_mod;
  ConstBound bound;
  ModularSet mod;
  Expr *value; /* the simplifier replaces the variable by this (a let or an extent-1 range) */
} VarInfo;

/* A bound a constraint put on an expression that is not a variable (x*32 + y < 100). */
typedef struct ExprBound {
  const Expr *e;
  ConstBound b;
} ExprBound;

/* A fact the rewriter folds: wherever e occurs, it is `value`. */
typedef struct Fact {
  Expr *e;
  bool value;
} Fact;

typedef struct ConstraintFrame {
  int undo_mark, fact_mark, ebound_mark;
} ConstraintFrame;

struct Analyzer {
  Arena *arena;    /* results */
  Arena scratch;   /* canonical forms during one top-level simplification */
  int scratch_users;
  PtrMap index;    /* Var * -> 1 + the index of its entry in vars */
  VarInfo *vars;   /* one entry per variable ever known, kept in place */
  int nvars, capvars;
  VarInfo *undo;   /* old entries, restored by arith_pop_constraint */
  int nundo, capundo;
  ConstraintFrame *frames;   /* one per pushed constraint */
  int nframes, capframes;
  Fact *facts;     /* the pushed constraints' conjuncts, and their negations as false */
  int nfacts, capfacts;
  ExprBound *ebounds;
  int nebounds, capebounds;
  int recursion;   /* depth of rewrite results being simplified again */
};

/* The entry of v, or NULL. */
const VarInfo *arith_lookup(const Analyzer *an, const Var *v);
/* Replaces v's entry; inside a constraint the old one is logged for arith_pop_constraint. */
void arith_update(Analyzer *an, const VarInfo *info);
/* arith_push_constraint of a c already simplified: the walk's own pushes (the branches of a
 * select) skip simplifying it again, which would cost time exponential in nesting. With
 * `canonical`, c's canonical form is a fact too. */
void arith_push_simplified(Analyzer *an, Expr *c, bool canonical);
/* Adds a bound on a non-variable expression until the current constraint is popped. */
void arith_push_expr_bound(Analyzer *an, const Expr *e, ConstBound b);
/* The facts a constraint adds to the bounds (const_bound.c) and modular sets (modular.c). */
void arith_bound_constrain(Analyzer *an, const Expr *cond);
void arith_modular_constrain(Analyzer *an, const Expr *cond);

ConstBound arith_bound_everything(DType t);
ConstBound arith_bound_of_range(Analyzer *an, Range r); /* [min, min + extent - 1] */
ConstBound arith_bound_intersect(ConstBound a, ConstBound b);
ModularSet arith_modular_intersect(ModularSet a, ModularSet b);

/* ---- the simplifier's walk (rewrite.c) ---- */

/* One simplification in progress: the rewriter alone, or the canonical simplifier, which
 * uses the rewriter's rules for everything but integer arithmetic (as TVM's
 * CanonicalSimplifier::Impl derives from RewriteSimplifier::Impl). */
typedef struct Simp {
  IrMutator m; /* its hook simplifies each child */
  Analyzer *an;
  bool canonical;
} Simp;

/* The comparison of x and y that the bounds prove: TVM's CompareResult bits. */
typedef enum {
  CMP_GT = 1, CMP_EQ = 2, CMP_GE = 3, CMP_LT = 4, CMP_NE = 5, CMP_LE = 6, CMP_UNKNOWN = 7
} CmpResult;

void arith_simp_init(Simp *s, Analyzer *an, bool canonical);
/* e simplified in s's mode. */
Expr *arith_simp_visit(Simp *s, Expr *e);
/* The rewriter's visit of e, whatever the mode. */
Expr *arith_simp_node(Simp *s, Expr *e);
/* A rule's result simplified again, at most MAX_RECURSION deep. */
Expr *arith_simp_recurse(Simp *s, Expr *e);
/* How x compares with y (or v): x - y simplified, then its bounds and modular set. */
CmpResult arith_simp_compare(Simp *s, Expr *x, Expr *y);
CmpResult arith_simp_compare_const(Simp *s, Expr *x, int64_t v);
/* True or False when e, or its negation, is a pushed fact; else NULL. */
Expr *arith_simp_fact(Simp *s, Expr *e);
bool arith_simp_prove_ge(Simp *s, Expr *e, int64_t v);    /* by e's constant bounds */
bool arith_simp_prove_equal(Simp *s, Expr *e, int64_t v); /* e simplifies to the constant v */
bool arith_is_pure(const Expr *e);                        /* no call with side effects in e */

/* ---- rule patterns (pattern.c) ----
 * A rule is written as TVM and Halide write theirs: "min(x, y + c1) + c2" -> "min(x + c2, y)".
 * In a pattern, x y z w b1 b2 s1 s2 match any expression (the same one wherever they recur),
 * c1 c2 c3 match integer constants, a number matches an integer constant of that value, and
 * lanes matches a vector's lane count. Operators: + - * / % (truncating) < <= > >= == != && ||
 * !, floordiv floormod min max select ramp broadcast; true and false are bool constants.
 * "a; b" matches either a or b. A result is built through the folding constructors, so c1 + c2
 * is a constant, and its numbers take the dtype of what they are combined with. */
typedef struct Pat Pat;
enum { PAT_NVARS = 8, PAT_NCONSTS = 3 };
typedef struct PMatch {
  Expr *var[PAT_NVARS];
  Expr *cnode[PAT_NCONSTS];
  int64_t c[PAT_NCONSTS]; /* c[0] is c1 */
  int lanes;
} PMatch;
enum { PV_X, PV_Y, PV_Z, PV_W, PV_B1, PV_B2, PV_S1, PV_S2 };

/* A rule's side condition on what its pattern bound. */
typedef bool (*RuleCond)(Simp *s, const PMatch *m);

/* malloc'd; rule sets compile theirs once and keep them */
Pat *arith_pat_compile(const char *text);
void arith_pat_free(Pat *p);
/* Whether e matches one of p's alternatives for which cond (unless NULL) holds. */
bool arith_pat_match(const Pat *p, Expr *e, PMatch *m, RuleCond cond, Simp *s);
/* The instance of p; hint is the dtype of a result that is a bare number. */
Expr *arith_pat_build(Arena *a, const Pat *p, const PMatch *m, DType hint);

/* A rule set: rules tried in order on a node whose children are simplified. */
typedef struct RuleDef {
  const char *from, *to;
  RuleCond cond;  /* NULL: always */
  bool again;     /* simplify the result again (TVM_TRY_RECURSIVE_REWRITE) */
} RuleDef;
typedef struct RuleSet {
  const RuleDef *defs;
  int n;
  Pat **from, **to; /* compiled on first use */
  /* for a binary node whose operands are of kinds a and b: the rules that may match it, in
   * order, ending in -1 (pattern.c; each list made on first use) */
  int **by_operands;
} RuleSet;
#define RULES(name, ...)                                                                        \
  static const RuleDef name##_defs[] = {__VA_ARGS__};                                          \
  static RuleSet name = {name##_defs, (int)(sizeof name##_defs / sizeof name##_defs[0]), NULL,   \
                         NULL, NULL}

/* Rule table entries: a plain rule, one with a side condition, and the same two with the
 * result simplified again. */
#define R(from, to) {from, to, NULL, false}
#define R_IF(from, to, cond) {from, to, cond, false}
#define R_AGAIN(from, to) {from, to, NULL, true}
#define R_AGAIN_IF(from, to, cond) {from, to, cond, true}

/* The result of the first rule of rs that matches e, or NULL. */
Expr *arith_rules_apply(Simp *s, RuleSet *rs, Expr *e);

/* ---- the rules, one function per node kind (rewrite_*.c); e's children are simplified ---- */
Expr *arith_rw_add(Simp *s, Expr *e);
Expr *arith_rw_sub(Simp *s, Expr *e);
Expr *arith_rw_mul(Simp *s, Expr *e);
Expr *arith_rw_div(Simp *s, Expr *e);
Expr *arith_rw_mod(Simp *s, Expr *e);
Expr *arith_rw_floordiv(Simp *s, Expr *e);
Expr *arith_rw_floormod(Simp *s, Expr *e);
Expr *arith_rw_min(Simp *s, Expr *e);
Expr *arith_rw_max(Simp *s, Expr *e);
Expr *arith_rw_eq(Simp *s, Expr *e);
Expr *arith_rw_ne(Simp *s, Expr *e);
Expr *arith_rw_lt(Simp *s, Expr *e);
Expr *arith_rw_le(Simp *s, Expr *e);
Expr *arith_rw_and(Simp *s, Expr *e);
Expr *arith_rw_or(Simp *s, Expr *e);
Expr *arith_rw_not(Simp *s, Expr *e);
Expr *arith_rw_select(Simp *s, Expr *e);
Expr *arith_rw_call(Simp *s, Expr *e);
/* The rules alone, on a node that need not be visited (TVM's ApplyRewriteRules). */
Expr *arith_rw_apply_lt(Simp *s, Expr *e);
Expr *arith_rw_apply_eq(Simp *s, Expr *e);
Expr *arith_rw_apply_not(Simp *s, Expr *e);

/* ---- canonical.c ---- */
/* e simplified into canonical form; integer arithmetic goes through sums of scaled terms. */
Expr *arith_canon_visit(Simp *s, Expr *e);

#endif
