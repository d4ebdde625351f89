/* arith_test.h: what the tests of ir/arith/ share: the checks of tests/unit/check.h, a parser
 * that reads expressions in the printer's own syntax (so that a test reads
 * "floordiv(((i.outer*32) + i.inner), 32)" and compares against printed text), and a reference
 * evaluator with floor-division semantics for the randomized tests. Each test includes it
 * once; every helper is static, and unused ones are fine. */
#ifndef TES_TEST_ARITH_TEST_H
#define TES_TEST_ARITH_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/printer.h"
#include "tests/unit/check.h"

#define HELPER static __attribute__((unused))

/* ---- the test's world: one arena, one analyzer, variables by name ---- */

static Arena A;
static Analyzer *AN;
static struct {
  const char *name;
  Var *var;
} vars[512];
static int nvars;

HELPER void world_reset(void) {
  arith_free(AN);
  arena_free(&A);
  nvars = 0;
  AN = arith_new(&A);
}

HELPER Var *var_t(const char *name, DType t) {
  for (int i = 0; i < nvars; i++)
    if (!strcmp(vars[i].name, name)) return vars[i].var;
  if (nvars == 512) abort();
  Var *v = ir_var(&A, name, t);
  vars[nvars].name = v->name;
  vars[nvars++].var = v;
  return v;
}

HELPER Var *var(const char *name) { return var_t(name, DT_I32); }

/* v ranges over [lo, lo + extent). */
HELPER void bind(const char *name, int64_t lo, int64_t extent) {
  Var *v = var(name);
  arith_bind(AN, v, (Range){arith_const(&A, v->dtype, lo), arith_const(&A, v->dtype, extent)});
}

/* name lies in [lo, hi] from now on (TVM's analyzer.update(var, ConstIntBound, override)). */
HELPER void set_bound(const char *name, int64_t lo, int64_t hi) {
  Var *v = var(name);
  if (hi > lo)
    arith_bind(AN, v,
               (Range){arith_const(&A, v->dtype, lo), arith_const(&A, v->dtype, hi - lo + 1)});
  else
    arith_bind_bound(AN, v, (ConstBound){lo, hi});
}

/* ---- printing ---- */

static StrBuf sbuf[4];
static int sbuf_next;

/* The printed form of e; the four most recent stay valid. */
HELPER const char *pe(const Expr *e) {
  StrBuf *b = &sbuf[sbuf_next++ % 4];
  b->len = 0;
  if (b->s) b->s[0] = 0;
  ir_print_expr(b, e);
  return sb_cstr(b);
}

/* ---- parsing the printer's syntax ---- */

typedef struct Src {
  const char *text, *p;
} Src;

static Expr *parse_or(Src *s);

static void parse_fail(Src *s, const char *what) {
  fprintf(stderr, "test parser: %s at \"%s\" in \"%s\"\n", what, s->p, s->text);
  exit(2);
}

static void skip(Src *s) {
  while (*s->p == ' ') s->p++;
}

static int accept(Src *s, const char *tok) {
  skip(s);
  size_t n = strlen(tok);
  if (strncmp(s->p, tok, n)) return 0;
  if (strchr("<>!=", tok[0]) && n == 1 && s->p[1] == '=')
    return 0;
  s->p += n;
  return 1;
}

static void expect(Src *s, const char *tok) {
  if (!accept(s, tok)) parse_fail(s, tok);
}

/* An int32 literal next to an operand of another dtype takes that dtype, as in the front end. */
static Expr *retype(Expr *lit, DType t) {
  if (lit->kind == EXPR_INT && dt_eq(lit->dtype, DT_I32) && !dt_eq(t, DT_I32) && t.lanes == 1)
    return dt_is_float(t) ? ir_float(&A, t, (double)lit->u.ival) : ir_int(&A, t, lit->u.ival);
  return lit;
}

static Expr *bin(ExprKind k, Expr *a, Expr *b) {
  a = retype(a, b->dtype);
  b = retype(b, a->dtype);
  return ir_binary(&A, k, a, b);
}

static Expr *parse_number(Src *s, int neg) {
  char *end;
  double f = strtod(s->p, &end);
  long long v = strtoll(s->p, NULL, 10);
  int is_float = 0;
  for (const char *q = s->p; q < end; q++)
    if (*q == '.' || *q == 'e') is_float = 1;
  s->p = end;
  if (accept(s, "i64")) return ir_int(&A, DT_I64, neg ? -v : v);
  if (accept(s, "f64")) return ir_float(&A, DT_F64, neg ? -f : f);
  if (accept(s, "f32") || is_float) return ir_float(&A, DT_F32, neg ? -f : f);
  return ir_i32(&A, neg ? -v : v);
}

static Expr *call(const char *op, int n, Expr **args, DType t) {
  return ir_call(&A, t, op, CALL_PURE, n, args);
}

/* name(args...): the binary kinds printed as calls, select, likely, if_then_else, cast. */
static Expr *parse_call(Src *s, const char *name, size_t n) {
  static const struct { const char *name; ExprKind k; } calls[] = {
    {"floordiv", EXPR_FLOORDIV}, {"floormod", EXPR_FLOORMOD}, {"min", EXPR_MIN}, {"max", EXPR_MAX},
  };
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
    if (strlen(calls[i].name) == n && !strncmp(name, calls[i].name, n)) {
      Expr *a = parse_or(s);
      expect(s, ",");
      Expr *b = parse_or(s);
      expect(s, ")");
      return bin(calls[i].k, a, b);
    }
  if (n == 4 && !strncmp(name, "cast", 4)) {
    const char *t0 = s->p;
    while (*s->p != ',') s->p++;
    char tname[32];
    snprintf(tname, sizeof tname, "%.*s", (int)(s->p - t0), t0);
    DType t;
    if (!dt_parse(tname, &t)) parse_fail(s, "dtype");
    expect(s, ",");
    Expr *x = parse_or(s);
    expect(s, ")");
    return ir_cast(&A, t, x);
  }
  Expr *args[3];
  int k = 0;
  do args[k++] = parse_or(s);
  while (k < 3 && accept(s, ","));
  expect(s, ")");
  if (n == 6 && !strncmp(name, "select", 6) && k == 3) {
    args[1] = retype(args[1], args[2]->dtype);
    args[2] = retype(args[2], args[1]->dtype);
    return ir_select(&A, args[0], args[1], args[2]);
  }
  if (n == 6 && !strncmp(name, "likely", 6) && k == 1) return call("tir.likely", 1, args, DT_BOOL1);
  if (n == 12 && !strncmp(name, "if_then_else", 12) && k == 3) {
    args[1] = retype(args[1], args[2]->dtype);
    args[2] = retype(args[2], args[1]->dtype);
    return call("tir.if_then_else", 3, args, args[1]->dtype);
  }
  if (n == 9 && !strncmp(name, "broadcast", 9) && k == 2)
    return ir_broadcast(&A, args[0], (int)args[1]->u.ival);
  if (n == 4 && !strncmp(name, "ramp", 4) && k == 3) {
    args[1] = retype(args[1], args[0]->dtype);
    return ir_ramp(&A, args[0], args[1], (int)args[2]->u.ival);
  }
  parse_fail(s, "unknown call");
  return NULL;
}

static int name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

static Expr *parse_primary(Src *s) {
  skip(s);
  if (accept(s, "(")) {
    Expr *e = parse_or(s);
    expect(s, ")");
    return e;
  }
  if (accept(s, "!")) return ir_not(&A, parse_primary(s));
  if (*s->p == '-' && s->p[1] >= '0' && s->p[1] <= '9') {
    s->p++;
    return parse_number(s, 1);
  }
  if (*s->p >= '0' && *s->p <= '9') return parse_number(s, 0);
  const char *name = s->p;
  while (name_char(*s->p)) s->p++;
  size_t n = (size_t)(s->p - name);
  if (!n) parse_fail(s, "operand");
  if (accept(s, "(")) return parse_call(s, name, n);
  if (n == 4 && !strncmp(name, "True", 4)) return ir_int(&A, DT_BOOL1, 1);
  if (n == 5 && !strncmp(name, "False", 5)) return ir_int(&A, DT_BOOL1, 0);
  char buf[64];
  snprintf(buf, sizeof buf, "%.*s", (int)n, name);
  return ir_varref(&A, var(buf));
}

static Expr *parse_product(Src *s) {
  Expr *e = parse_primary(s);
  for (;;) {
    if (accept(s, "*")) e = bin(EXPR_MUL, e, parse_primary(s));
    else if (accept(s, "/")) e = bin(EXPR_DIV, e, parse_primary(s));
    else if (accept(s, "%")) e = bin(EXPR_MOD, e, parse_primary(s));
    else return e;
  }
}

static Expr *parse_sum(Src *s) {
  Expr *e = parse_product(s);
  for (;;) {
    if (accept(s, "+")) e = bin(EXPR_ADD, e, parse_product(s));
    else if (accept(s, "-")) e = bin(EXPR_SUB, e, parse_product(s));
    else return e;
  }
}

static Expr *parse_compare(Src *s) {
  static const struct { const char *tok; ExprKind k; } ops[] = {
    {"<=", EXPR_LE}, {">=", EXPR_GE}, {"==", EXPR_EQ},
    {"!=", EXPR_NE}, {"<", EXPR_LT},  {">", EXPR_GT},
  };
  Expr *e = parse_sum(s);
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (accept(s, ops[i].tok)) return bin(ops[i].k, e, parse_sum(s));
  return e;
}

static Expr *parse_and(Src *s) {
  Expr *e = parse_compare(s);
  while (accept(s, "&&")) e = bin(EXPR_AND, e, parse_compare(s));
  return e;
}

static Expr *parse_or(Src *s) {
  Expr *e = parse_and(s);
  while (accept(s, "||")) e = bin(EXPR_OR, e, parse_and(s));
  return e;
}

/* The expression text says; unknown names become int32 variables. */
HELPER Expr *P(const char *text) {
  Src s = {text, text};
  Expr *e = parse_or(&s);
  skip(&s);
  if (*s.p) parse_fail(&s, "trailing text");
  return e;
}

/* ---- checking a simplifier on text ---- */

typedef Expr *(*Simplifier)(Analyzer *, Expr *);

/* Whether f(in) prints as want; on a mismatch both are shown. */
HELPER int check_text(const char *file, int line, Simplifier f, const char *in, const char *want) {
  const char *got = pe(f(AN, P(in)));
  if (!strcmp(got, want)) {
    passed++;
    return 1;
  }
  failed++;
  printf("%s:%d: CHECK failed: %s\n    want %s\n    got  %s\n", file, line, in, want, got);
  return 0;
}

#define CHECK_SIMP(in, want) check_text(__FILE__, __LINE__, arith_simplify, in, want)
#define CHECK_REWRITE(in, want) check_text(__FILE__, __LINE__, arith_rewrite_simplify, in, want)
#define CHECK_CANON(in, want) check_text(__FILE__, __LINE__, arith_canonical_simplify, in, want)
/* in simplifies to the very node given (nothing changed). */
#define CHECK_SAME(in)                                                                             \
  do {                                                                                             \
    Expr *e_ = P(in);                                                                              \
    CHECK(arith_simplify(AN, e_) == e_);                                                           \
  } while (0)

/* ---- a reference evaluator ---- */

/* Values of the variables, by Var. */
typedef struct Env {
  const Var *var[16];
  int64_t val[16];
  int n;
} Env;

HELPER int64_t floordiv_ref(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

HELPER int64_t floormod_ref(int64_t a, int64_t b) { return a - floordiv_ref(a, b) * b; }

/* e's value in env, computed exactly in int64; *ok turns false on a division by zero, an
 * int64 overflow, or an intermediate outside int32 when the dtype is int32 (wrap would then
 * decide the result, and the simplifier assumes index arithmetic does not wrap). */
static int64_t eval(const Expr *e, Env *env, int *ok);

static int64_t eval_binary(const Expr *e, Env *env, int *ok) {
  int64_t a = eval(e->u.bin.a, env, ok), b = eval(e->u.bin.b, env, ok), r = 0;
  if (!*ok) return 0;
  int div = e->kind == EXPR_DIV || e->kind == EXPR_MOD || e->kind == EXPR_FLOORDIV ||
            e->kind == EXPR_FLOORMOD;
  if (div && b == 0) return *ok = 0, 0;
  switch (e->kind) {
  case EXPR_ADD: if (__builtin_add_overflow(a, b, &r)) *ok = 0; break;
  case EXPR_SUB: if (__builtin_sub_overflow(a, b, &r)) *ok = 0; break;
  case EXPR_MUL: if (__builtin_mul_overflow(a, b, &r)) *ok = 0; break;
  case EXPR_DIV: r = a / b; break;
  case EXPR_MOD: r = a % b; break;
  case EXPR_FLOORDIV: r = floordiv_ref(a, b); break;
  case EXPR_FLOORMOD: r = floormod_ref(a, b); break;
  case EXPR_MIN: r = a < b ? a : b; break;
  case EXPR_MAX: r = a > b ? a : b; break;
  case EXPR_EQ: r = a == b; break;
  case EXPR_NE: r = a != b; break;
  case EXPR_LT: r = a < b; break;
  case EXPR_LE: r = a <= b; break;
  case EXPR_GT: r = a > b; break;
  case EXPR_GE: r = a >= b; break;
  case EXPR_AND: r = a && b; break;
  case EXPR_OR: r = a || b; break;
  case EXPR_INT: case EXPR_FLOAT: case EXPR_STR: case EXPR_VAR: case EXPR_CAST: case EXPR_NOT:
  case EXPR_SELECT: case EXPR_RAMP: case EXPR_BROADCAST: case EXPR_LET: case EXPR_CALL:
  case EXPR_LOAD: case EXPR_PRODUCER_LOAD: case EXPR_REDUCE: case EXPR_KIND_COUNT:
    abort();
  }
  if (e->dtype.code == DT_INT && e->dtype.bits == 32 && (r < INT32_MIN || r > INT32_MAX)) *ok = 0;
  return r;
}

static int64_t eval(const Expr *e, Env *env, int *ok) {
  if (!*ok) return 0;
  switch (e->kind) {
  case EXPR_INT: return e->u.ival;
  case EXPR_VAR:
    for (int i = 0; i < env->n; i++)
      if (env->var[i] == e->u.var) return env->val[i];
    abort();
  case EXPR_CAST: return eval(e->u.unary.a, env, ok);
  case EXPR_NOT: return !eval(e->u.unary.a, env, ok);
  case EXPR_SELECT:
    return eval(e->u.select.cond, env, ok) ? eval(e->u.select.t, env, ok)
                                           : eval(e->u.select.f, env, ok);
  case EXPR_CALL:
    if (!strcmp(e->u.call.op, "tir.likely")) return eval(e->u.call.args[0], env, ok);
    if (!strcmp(e->u.call.op, "tir.if_then_else"))
      return eval(e->u.call.args[0], env, ok) ? eval(e->u.call.args[1], env, ok)
                                              : eval(e->u.call.args[2], env, ok);
    abort();
  case EXPR_ADD: case EXPR_SUB: case EXPR_MUL: case EXPR_DIV: case EXPR_MOD: case EXPR_FLOORDIV:
  case EXPR_FLOORMOD: case EXPR_MIN: case EXPR_MAX: case EXPR_EQ: case EXPR_NE: case EXPR_LT:
  case EXPR_LE: case EXPR_GT: case EXPR_GE: case EXPR_AND: case EXPR_OR:
    return eval_binary(e, env, ok);
  case EXPR_FLOAT: case EXPR_STR: case EXPR_RAMP: case EXPR_BROADCAST: case EXPR_LET:
  case EXPR_LOAD: case EXPR_PRODUCER_LOAD: case EXPR_REDUCE: case EXPR_KIND_COUNT:
    break; /* the random expressions are integer and boolean only */
  }
  abort();
}

/* ---- a small deterministic random number generator (xorshift64*) ---- */

static uint64_t rng_state = 88172645463325252ull;

HELPER uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}

/* Uniform in [lo, hi]. */
HELPER int64_t rnd_in(int64_t lo, int64_t hi) {
  return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

#endif
