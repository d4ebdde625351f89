/* expr.h: the loop IR: scalar expressions (Expr) and statements (Stmt), the variables, ranges
 * and buffers they refer to, and the one mutator and visitor that walk them.
 *
 * Nodes are immutable once built, and only the constructors below build them (they check
 * dtypes with TES_ASSERT: the front end promotes types before it builds). Nodes live in an
 * Arena: the session's arena for what scripts build (te.var, te.compute bodies), a lowering's
 * arena for what passes build; a pass shares unchanged subtrees, so lowered IR may point into
 * the session's arena but never the other way round. A Var is its pointer, not its name. */
#ifndef TES_IR_EXPR_H
#define TES_IR_EXPR_H

#include "ir/arena.h"
#include "ir/dtype.h"

typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Tensor Tensor; /* ir/tensor.h */

typedef struct Var {
  const char *name; /* "i", "i.outer", "n"; not unique: two Vars may print the same */
  DType dtype;
  uint32_t id;      /* creation order: a stable order for canonical forms */
} Var;

typedef struct Range {
  Expr *min, *extent;
} Range;

typedef enum {
  ITER_DATA_PAR,   /* a spatial axis of a compute */
  ITER_REDUCE,     /* te.reduce_axis */
  ITER_THREAD,     /* bound to blockIdx/threadIdx (te.thread_axis) */
  ITER_VTHREAD,    /* vthread / cthread */
  ITER_OPAQUE
} IterVarKind;

typedef struct IterVar {
  Var *var;
  Range dom;              /* dom.min NULL: not known yet (a thread_axis without a range) */
  IterVarKind kind;
  const char *thread_tag; /* "threadIdx.x", "vthread", or NULL */
} IterVar;

/* A commutative reduction: result[i] = combine(lhs, rhs), identity[i]; one entry per value
 * of a multi-value reduction (argmax has two). te.sum is {x + y, 0}. */
typedef struct CommReducer {
  const char *name;
  int n;
  Var **lhs, **rhs;
  Expr **result, **identity;
} CommReducer;

/* A flat, row-major buffer, as storage flattening leaves it and as buffer arguments are. */
typedef struct Buffer {
  const char *name;   /* "A", "B.shared" */
  Var *data;          /* the pointer variable (dtype handle) */
  DType dtype;        /* element type */
  int ndim;
  Expr **shape;
  Expr **strides;     /* NULL: compact row-major */
  Expr *elem_offset;  /* NULL: 0 */
  const char *scope;  /* "global", "shared", "local", "wmma.matrix_a", ... */
  int data_alignment;
  int offset_factor;
} Buffer;

/* Every expression kind; the comment gives the printed form (SPEC §8) and the payload. */
#define IR_EXPR_KINDS(X)                                                                   \
  X(INT)       /* 3, 3i64, 0i8, True (bool): u.ival (uint too, as its bits) */            \
  X(FLOAT)     /* 2f32, 0.5f64: u.fval */                                                 \
  X(STR)       /* "text" (call arguments): u.str */                                       \
  X(VAR)       /* i.outer: u.var */                                                       \
  X(CAST)      /* cast(int32, x): u.unary */                                              \
  X(ADD)       /* (a + b): u.bin; same dtype on both sides, as for every binary kind */   \
  X(SUB)       /* (a - b) */                                                              \
  X(MUL)       /* (a*b) */                                                                \
  X(DIV)       /* (a / b): true division on floats, truncating on ints */                 \
  X(MOD)       /* (a % b): truncating modulo */                                           \
  X(FLOORDIV)  /* floordiv(a, b) */                                                       \
  X(FLOORMOD)  /* floormod(a, b) */                                                       \
  X(MIN)       /* min(a, b) */                                                            \
  X(MAX)       /* max(a, b) */                                                            \
  X(EQ)        /* (a == b): result bool (with the operands' lanes), as for every compare */ \
  X(NE)        /* (a != b) */                                                             \
  X(LT)        /* (a < b) */                                                              \
  X(LE)        /* (a <= b) */                                                             \
  X(GT)        /* (a > b) */                                                              \
  X(GE)        /* (a >= b) */                                                             \
  X(AND)       /* (a && b): bool operands */                                              \
  X(OR)        /* (a || b) */                                                             \
  X(NOT)       /* !a: u.unary */                                                          \
  X(SELECT)    /* select(c, t, f): u.select; both branches evaluated */                   \
  X(RAMP)      /* ramp(base, stride, lanes): u.ramp */                                    \
  X(BROADCAST) /* broadcast(v, lanes): u.bcast */                                         \
  X(LET)       /* let x = v in body: u.let */                                             \
  X(CALL)      /* @tir.exp(x, dtype=float32), @tir.likely(c, dtype=bool): u.call */       \
  X(LOAD)      /* A[index] on a flat buffer: u.load */                                    \
  X(PRODUCER_LOAD) /* A[i, j] on a tensor, before storage flattening: u.pload */          \
  X(REDUCE)    /* reduce(...) inside a compute body: u.reduce */

typedef enum {
#define IR_EXPR_ENUM(k) EXPR_##k,
  IR_EXPR_KINDS(IR_EXPR_ENUM)
#undef IR_EXPR_ENUM
  EXPR_KIND_COUNT
} ExprKind;

extern const char *const ir_expr_kind_names[EXPR_KIND_COUNT];

/* The kinds with a u.bin payload as case labels, so switches that treat them alike stay
 * exhaustive without repeating the list: `IR_CASE_BINARY: return visit(e->u.bin...);` */
#define IR_CASE_BINARY                                                                        \
  case EXPR_ADD: case EXPR_SUB: case EXPR_MUL: case EXPR_DIV: case EXPR_MOD:                \
  case EXPR_FLOORDIV: case EXPR_FLOORMOD: case EXPR_MIN: case EXPR_MAX: case EXPR_EQ:       \
  case EXPR_NE: case EXPR_LT: case EXPR_LE: case EXPR_GT: case EXPR_GE: case EXPR_AND:      \
  case EXPR_OR

typedef enum {
  CALL_PURE,      /* an intrinsic without side effects: exp, likely, if_then_else */
  CALL_EFFECT,    /* an intrinsic with side effects: tvm_mma_sync, tvm_storage_sync */
  CALL_EXTERN     /* call_extern: a C function by name */
} CallKind;

/* The mutator, the visitor, the printer and the passes recurse once or more per level of an
 * expression (the simplifier needs ~0.6 KB a level, ~1.2 KB under ASan). IR_MAX_DEPTH is the
 * deepest expression the front end lets a script build; lowering refuses bodies deeper than
 * IR_MAX_LOWERED_DEPTH after loop-nest construction, which leaves room for the index
 * expressions that replace axes and for inlining a deep producer into a consumer. Passes at
 * that depth take ~2 MB of an 8 MB stack, ~4 MB under ASan (tests/unit/ir/test_verify.c
 * lowers such a body). */
#define IR_MAX_DEPTH 1500
#define IR_MAX_LOWERED_DEPTH (2 * IR_MAX_DEPTH)

struct Expr {
  ExprKind kind;
  DType dtype;
  uint32_t depth; /* 1 for a leaf, else 1 + the deepest child the visitor walks into */
  union {
    int64_t ival;
    double fval;
    const char *str;
    Var *var;
    struct { Expr *a; } unary;
    struct { Expr *a, *b; } bin;
    struct { Expr *cond, *t, *f; } select;
    struct { Expr *base, *stride; int lanes; } ramp;
    struct { Expr *value; int lanes; } bcast;
    struct { Var *var; Expr *value, *body; } let;
    struct { const char *op; CallKind ckind; int n; Expr **args; } call; /* op: "tir.exp" */
    struct { Buffer *buf; Expr *index, *predicate; } load; /* predicate NULL: all lanes */
    struct { Tensor *tensor; int n; Expr **indices; } pload;
    struct {
      CommReducer *combiner;
      int nsrc;
      Expr **source;   /* one per combiner value */
      int naxis;
      IterVar **axis;  /* the reduce axes */
      Expr *condition; /* `where=`, or NULL */
      int value_index; /* which of the combiner's values this expression is */
    } reduce;
  } u;
};

/* ---- statements ---- */

typedef enum {
  FOR_SERIAL, FOR_PARALLEL, FOR_VECTORIZED, FOR_UNROLLED, FOR_THREAD_BINDING
} ForKind;

#define IR_STMT_KINDS(X)                                                                    \
  X(FOR)      /* for (i: int32, min, extent) "parallel" { body }: u.for_ */               \
  X(IF)       /* if cond { then } else { orelse }: u.if_ (orelse may be NULL) */           \
  X(SEQ)      /* statements in order: u.seq */                                             \
  X(STORE)    /* A[index] = value on a flat buffer: u.store */                            \
  X(PROVIDE)  /* A[i, j] = value on a tensor, before storage flattening: u.provide */     \
  X(REALIZE)  /* realize A([0, m], [0, n]) { body }: the region a tensor needs: u.realize */ \
  X(ALLOCATE) /* allocate(A: Pointer(scope dtype), dtype, [extents]), storage_scope = s: u.alloc */ \
  X(ATTR)     /* attr [node] "key" = value; body: u.attr */                               \
  X(LET)      /* let x = value; body: u.let */                                            \
  X(ASSERT)   /* assert(cond, msg); body: u.assert_ */                                    \
  X(EVALUATE) /* an expression evaluated for its effect (a call): u.eval */

typedef enum {
#define IR_STMT_ENUM(k) STMT_##k,
  IR_STMT_KINDS(IR_STMT_ENUM)
#undef IR_STMT_ENUM
  STMT_KIND_COUNT
} StmtKind;

extern const char *const ir_stmt_kind_names[STMT_KIND_COUNT];

/* What an ATTR statement is about: printed as `attr [IterVar(...)]`, `attr [A]` ... */
typedef enum {
  ATTR_NODE_NONE,
  ATTR_NODE_EXPR,        /* attr [0] "extern_scope": an Expr */
  ATTR_NODE_ITERVAR,
  ATTR_NODE_VAR,
  ATTR_NODE_BUFFER,
  ATTR_NODE_TENSOR,
  ATTR_NODE_COMMREDUCER, /* attr [meta[tir.CommReducer][i]] "reduce_scope" */
  ATTR_NODE_BUFFER_BIND  /* attr [[buffer(B), A]] "buffer_bind_scope": a BufferBind */
} AttrNodeKind;

/* Tensorize's binding of a tensor intrinsic's buffer to a region of a tensor: the attr's
 * value is @tir.tvm_tuple(min0, extent0, min1, extent1, ...) in the tensor's indices, and
 * storage flattening makes the buffer a view of the tensor's storage there. */
typedef struct BufferBind {
  Buffer *buffer;
  Tensor *tensor;
} BufferBind;

struct Stmt {
  StmtKind kind;
  union {
    struct {
      Var *var;
      Expr *min, *extent;
      ForKind fkind;
      const char *thread_tag; /* FOR_THREAD_BINDING */
      Stmt *body;
    } for_;
    struct { Expr *cond; Stmt *then, *orelse; } if_;
    struct { int n; Stmt **items; } seq;
    struct { Buffer *buf; Expr *value, *index, *predicate; } store;
    struct { Tensor *tensor; Expr *value; int n; Expr **indices; } provide;
    struct { Tensor *tensor; int ndim; Range *bounds; Expr *condition; const char *scope; Stmt *body; } realize;
    struct {
      Var *buffer_var;
      DType dtype;
      int ndim;
      Expr **extents;
      const char *scope;
      Expr *condition; /* NULL: true */
      Stmt *body;
    } alloc;
    struct { AttrNodeKind nkind; void *node; const char *key; Expr *value; Stmt *body; } attr;
    struct { Var *var; Expr *value; Stmt *body; } let;
    struct { Expr *cond, *msg; Stmt *body; } assert_;
    struct { Expr *value; } eval;
  } u;
};

/* ---- constructors (ir/expr.c). Every string argument is copied into the arena. ---- */
Var *ir_var(Arena *a, const char *name, DType t);
IterVar *ir_itervar(Arena *a, Var *v, Range dom, IterVarKind kind, const char *thread_tag);

Expr *ir_int(Arena *a, DType t, int64_t v);      /* int, uint or bool of any width */
Expr *ir_i32(Arena *a, int64_t v);
Expr *ir_float(Arena *a, DType t, double v);
Expr *ir_str(Arena *a, const char *s);
Expr *ir_varref(Arena *a, Var *v);
Expr *ir_cast(Arena *a, DType t, Expr *x);
Expr *ir_binary(Arena *a, ExprKind k, Expr *x, Expr *y); /* ADD..OR; result dtype by kind */
Expr *ir_not(Arena *a, Expr *x);
Expr *ir_select(Arena *a, Expr *c, Expr *t, Expr *f);
Expr *ir_ramp(Arena *a, Expr *base, Expr *stride, int lanes);
Expr *ir_broadcast(Arena *a, Expr *v, int lanes);
Expr *ir_let(Arena *a, Var *v, Expr *value, Expr *body);
Expr *ir_call(Arena *a, DType t, const char *op, CallKind k, int n, Expr **args); /* args copied */
Expr *ir_load(Arena *a, Buffer *b, Expr *index, Expr *predicate);
Expr *ir_pload(Arena *a, Tensor *t, int n, Expr **indices);
Expr *ir_reduce(Arena *a, CommReducer *c, int nsrc, Expr **src, int naxis, IterVar **axis,
                Expr *cond, int value_index);

Stmt *ir_for(Arena *a, Var *v, Expr *min, Expr *extent, ForKind k, const char *tag, Stmt *body);
Stmt *ir_if(Arena *a, Expr *cond, Stmt *then, Stmt *orelse);
Stmt *ir_seq(Arena *a, int n, Stmt **items); /* flattens nested SEQs; one item: that item */
Stmt *ir_store(Arena *a, Buffer *b, Expr *value, Expr *index, Expr *predicate);
Stmt *ir_provide(Arena *a, Tensor *t, Expr *value, int n, Expr **indices);
Stmt *ir_realize(Arena *a, Tensor *t, int ndim, Range *bounds, Expr *cond, const char *scope,
                 Stmt *body);
Stmt *ir_allocate(Arena *a, Var *buf, DType t, int ndim, Expr **extents, const char *scope,
                  Expr *cond, Stmt *body);
Stmt *ir_attr(Arena *a, AttrNodeKind nk, void *node, const char *key, Expr *value, Stmt *body);
Stmt *ir_let_stmt(Arena *a, Var *v, Expr *value, Stmt *body);
Stmt *ir_assert(Arena *a, Expr *cond, Expr *msg, Stmt *body);
Stmt *ir_evaluate(Arena *a, Expr *value);

/* Constant tests: true and *out set when e is an INT (or a BROADCAST of one). */
bool ir_as_int(const Expr *e, int64_t *out);
bool ir_is_const_int(const Expr *e, int64_t v);

/* ---- walking (ir/mutator.c) ----
 * A pass embeds IrMutator as the first member of its context and sets the hooks it needs; a
 * NULL hook means "rebuild from the children". ir_mutate_children_* rebuild a node only when a
 * child changed and otherwise return the node itself, so "did anything change?" is a pointer
 * compare. The visitor is the read-only twin. */
typedef struct IrMutator IrMutator;
struct IrMutator {
  Arena *arena;
  Expr *(*expr)(IrMutator *m, Expr *e);
  Stmt *(*stmt)(IrMutator *m, Stmt *s);
};
Expr *ir_mutate_expr(IrMutator *m, Expr *e); /* m->expr or the children */
Stmt *ir_mutate_stmt(IrMutator *m, Stmt *s);
Expr *ir_mutate_children_expr(IrMutator *m, Expr *e);
Stmt *ir_mutate_children_stmt(IrMutator *m, Stmt *s);

typedef struct IrVisitor IrVisitor;
struct IrVisitor {
  void (*expr)(IrVisitor *v, const Expr *e); /* NULL: visit the children */
  void (*stmt)(IrVisitor *v, const Stmt *s);
};
void ir_visit_expr(IrVisitor *v, const Expr *e);
void ir_visit_stmt(IrVisitor *v, const Stmt *s);
void ir_visit_children_expr(IrVisitor *v, const Expr *e);
void ir_visit_children_stmt(IrVisitor *v, const Stmt *s);
/* Whether some node matches: ir_expr_any asks expr of every expression of e; ir_stmt_any asks
 * stmt of every statement of s and expr of every expression in them (a NULL predicate: that
 * kind is not asked). Parents are asked before their children, and the walk stops at the first
 * yes. ctx is handed to the predicates. A NULL e or s holds nothing; ir_expr_any needs expr. */
typedef bool (*IrExprPred)(const Expr *e, const void *ctx);
typedef bool (*IrStmtPred)(const Stmt *s, const void *ctx);
bool ir_expr_any(const Expr *e, IrExprPred expr, const void *ctx);
bool ir_stmt_any(const Stmt *s, IrExprPred expr, IrStmtPred stmt, const void *ctx);
/* Whether var occurs in e / s (NULL: no). */
bool ir_expr_uses_var(const Expr *e, const Var *var);
bool ir_stmt_uses_var(const Stmt *s, const Var *var);
/* Whether e reads a buffer or a tensor (a Load or ProducerLoad anywhere in it). */
bool ir_expr_reads_memory(const Expr *e);

/* Substitutes variables: map[i].from -> map[i].to everywhere in e/s (used by inlining,
 * splitting and bound inference). */
typedef struct VarMap {
  const Var *from;
  Expr *to;
} VarMap;
Expr *ir_substitute_expr(Arena *a, Expr *e, int n, const VarMap *map);
Stmt *ir_substitute_stmt(Arena *a, Stmt *s, int n, const VarMap *map);

/* Structural equality (same kinds, dtypes, constants, and the same Var pointers). */
bool ir_expr_equal(const Expr *a, const Expr *b);

#endif
