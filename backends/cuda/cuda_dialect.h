/* cuda_dialect.h: the parts of the cuda dialect (codegen_cuda.c) that are more than a line:
 * vector code (cuda_vector.c) and the math functions (cuda_math.c). Internal to
 * backends/cuda. */
#ifndef TES_BACKENDS_CUDA_CUDA_DIALECT_H
#define TES_BACKENDS_CUDA_CUDA_DIALECT_H

#include "backends/c/c_printer.h"
#include "ir/arena.h"
#include "ir/arith/arith.h"
#include "ir/func.h"
#include "ir/wmma.h"

/* ---- vectors (cuda_vector.c) ----
 * CUDA C has no arithmetic on its vector types, so a vector statement is printed lane by lane
 * with constant lanes: a dense load or store whose address is provably aligned moves as whole
 * float4 (half2, int4, ...) values, one or more; everything else reads and writes element by
 * element. */

/* A vector value held in a variable: chunks of a CUDA vector type (float4 x_v0, x_v1, read as
 * x_v0.y), or, for element types without one, an array (bool x_v[4], read as x_v[1]). */
typedef struct CudaLanes {
  const Expr *load; /* the hoisted load it holds, or NULL */
  const Var *var;   /* the vector let it holds, or NULL */
  int width;        /* lanes a chunk; 0: an array */
  int nchunks;
  Var **names;      /* one a chunk (the array's one) */
} CudaLanes;

/* A variable of a store's block (`{ float4 A_v = ...; }`), named again by the next block. */
typedef struct CudaTemp {
  const char *name;
  Var *var;
  bool taken; /* by the block printed */
} CudaTemp;

typedef struct CudaVec {
  Arena arena; /* the analyzer's and the names' */
  Analyzer *an;
  const LoweredFunc *f;
  const Var **aligned; /* allocations printed __align__(16) */
  int naligned;
  CudaLanes *vals; /* the vector lets in scope, then the loads of the statement printed */
  int nvals;
  CudaTemp *temps;
  int ntemps;
  bool in_block; /* printing a store's block: its variables are temps */
} CudaVec;

void cuda_vec_init(CudaVec *v, const LoweredFunc *f);
void cuda_vec_free(CudaVec *v);
/* A scalar integer let: what it says about its variable's divisibility, for alignment. */
void cuda_vec_note_let(CudaVec *v, const Stmt *s);
/* "__align__(16) " when the allocation's body moves vectors in and out of it, else "". */
const char *cuda_vec_align(CudaVec *v, const Stmt *alloc);
/* A store or a let of a vector value, printed; false for anything else. */
bool cuda_vec_stmt(CPrinter *p, CudaVec *v, const Stmt *s);
/* A vector load or let variable held in a variable, at lane p->lane_at. */
bool cuda_vec_expr(CPrinter *p, CudaVec *v, const Expr *e, bool lane);

/* A scalar let inside an expression. */
bool cuda_let_expr(CPrinter *p, const Expr *e, bool lane);

/* ---- math (cuda_math.c) ---- */

/* The intrinsics CUDA spells its own way (expf, __expf under fast_math, hexp, rsqrtf,
 * sigmoid, isnan, popcount) and float16's division, modulo and floor, which CUDA's half only
 * has through float; false for what C's printing says right. */
bool cuda_math(CPrinter *p, const Expr *e, bool lane, bool fast_math);
/* Takes the names of CUDA's functions, types and keywords, so that a variable of the same
 * name prints with a suffix (a tensor named isnan as isnan_1). */
void cuda_reserve_names(CPrinter *p, Arena *a);
/* Whether f computes with float16 (the kernels then include cuda_fp16.h). */
bool cuda_uses_half(const LoweredFunc *f);
/* body with its integer floordiv / floormod as truncating / and % where the dividend is
 * provably non-negative and the divisor positive (cuda_trunc_div.c); new nodes in a. */
Stmt *cuda_trunc_div(Stmt *body, Arena *a);

/* ---- TensorCores (cuda_wmma.c) ---- */

/* A fragment array of the kernel: its buffer, scope, shape and (matrix_a, matrix_b) layout. */
typedef struct CudaFrag {
  const Var *var;
  WmmaScope scope;
  int64_t m, n, k;
  const char *layout;
} CudaFrag;

typedef struct CudaWmma {
  CudaFrag *frags;
  int nfrags;
} CudaWmma;

/* Reads a kernel's fragments (their allocations and tir.InferFragment's attributes) into w;
 * false with d set for what CUDA cannot declare or reach. */
bool cuda_wmma_scan(CudaWmma *w, const Stmt *body, Diag *d);
void cuda_wmma_free(CudaWmma *w);
/* A fragment allocation (or its attributes), printed; false for any other statement. */
bool cuda_wmma_stmt(CPrinter *p, const CudaWmma *w, const Stmt *s);
/* The four TensorCore intrinsics and tvm_access_ptr, printed; false for any other call. */
bool cuda_wmma_call(CPrinter *p, const CudaWmma *w, const Expr *e);
/* Whether a kernel of f uses TensorCores (the source then includes mma.h). */
bool cuda_wmma_used(const LoweredFunc *f);

#endif
