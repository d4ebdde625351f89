/* modular.c: modular facts of integer expressions (TVM's modular_set.cc): every value of e is
 * coeff*k + base for some integer k. i*32 + 4 is {32k + 4}, so floormod(i*32 + 4, 32) is 4
 * and (i*32 + 4) % 8 != 0 is true; a loop variable bound to an extent-1 range, a let or a
 * constraint floormod(v, c) == d brings its own facts. An overflow loses the fact, never makes
 * a wrong one. */
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith_impl.h"
#include "ir/support.h"

static const ModularSet everything = {1, 0};

static int64_t gcd(int64_t a, int64_t b) {
  a = llabs(a), b = llabs(b);
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

/* {coeff*k + base} with coeff >= 0 and, unless coeff is 0, 0 <= base < coeff. */
static ModularSet make(int64_t coeff, int64_t base) {
  if (coeff == INT64_MIN) return everything;
  coeff = llabs(coeff);
  return (ModularSet){coeff, coeff ? arith_floormod_i64(base, coeff) : base};
}

/* {ax + y} | {bz + h} is in {gcd(a, b, y - h) k + y}. */
static ModularSet union2(ModularSet a, ModularSet b) {
  int64_t diff;
  if (__builtin_sub_overflow(a.base, b.base, &diff)) return everything;
  int64_t coeff = gcd(gcd(a.coeff, b.coeff), diff);
  return coeff ? make(coeff, a.base) : a;
}

static ModularSet add(ModularSet a, ModularSet b, bool sub) {
  int64_t base;
  if (sub ? __builtin_sub_overflow(a.base, b.base, &base)
          : __builtin_add_overflow(a.base, b.base, &base))
    return everything;
  return make(gcd(a.coeff, b.coeff), base);
}

/* (p x + n)(q y + m) = pq xy + pm x + qn y + nm */
static ModularSet mul(ModularSet a, ModularSet b) {
  int64_t pq, pm, qn, nm;
  if (__builtin_mul_overflow(a.coeff, b.coeff, &pq) ||
      __builtin_mul_overflow(a.coeff, b.base, &pm) ||
      __builtin_mul_overflow(a.base, b.coeff, &qn) || __builtin_mul_overflow(a.base, b.base, &nm))
    return everything;
  return make(gcd(pq, gcd(pm, qn)), nm);
}

static ModularSet mod_of(Analyzer *an, const Expr *e);

static bool const_divisor(const Expr *e, int64_t *v) { return arith_is_int(e->u.bin.b, v) && *v; }

/* (c k + b) / v when v divides c: (c/v) k + b/v, exactly when the division rounds down
 * (floordiv, or a truncating one of a non-negative dividend). */
static ModularSet div_const(Analyzer *an, const Expr *e, int64_t v, bool floor) {
  ModularSet a = mod_of(an, e->u.bin.a);
  if (a.coeff == 0)
    return make(0, floor ? arith_floordiv_i64(a.base, v) : v == -1 ? -a.base : a.base / v);
  if (a.coeff % v != 0) return everything;
  if (a.base == 0) return make(a.coeff / v, 0);
  if (v > 0 && (floor || arith_const_bound(an, e->u.bin.a).min >= 0))
    return make(a.coeff / v, a.base / v);
  return everything;
}

/* Both rounding modes keep the congruence modulo any divisor of v: x % v = x - v*q. When v
 * divides the coefficient, the remainder is the base's (for truncation, of a dividend >= 0). */
static ModularSet mod_const(Analyzer *an, const Expr *e, int64_t v, bool floor) {
  ModularSet a = mod_of(an, e->u.bin.a);
  if (a.coeff == 0)
    return make(0, floor ? arith_floormod_i64(a.base, v) : v == -1 ? 0 : a.base % v);
  if (v != -1 && a.coeff % v == 0 && (floor || arith_const_bound(an, e->u.bin.a).min >= 0))
    return make(0, arith_floormod_i64(a.base, floor ? v : llabs(v)));
  return make(gcd(a.coeff, v), a.base);
}

static ModularSet binary_mod(Analyzer *an, const Expr *e) {
  int64_t v;
  switch (e->kind) {
  case EXPR_ADD: return add(mod_of(an, e->u.bin.a), mod_of(an, e->u.bin.b), false);
  case EXPR_SUB: return add(mod_of(an, e->u.bin.a), mod_of(an, e->u.bin.b), true);
  case EXPR_MUL: return mul(mod_of(an, e->u.bin.a), mod_of(an, e->u.bin.b));
  case EXPR_DIV: return const_divisor(e, &v) ? div_const(an, e, v, false) : everything;
  case EXPR_FLOORDIV: return const_divisor(e, &v) ? div_const(an, e, v, true) : everything;
  case EXPR_MOD: return const_divisor(e, &v) ? mod_const(an, e, v, false) : everything;
  case EXPR_FLOORMOD: return const_divisor(e, &v) ? mod_const(an, e, v, true) : everything;
  case EXPR_MIN: case EXPR_MAX: return union2(mod_of(an, e->u.bin.a), mod_of(an, e->u.bin.b));
  case EXPR_EQ: case EXPR_NE: case EXPR_LT: case EXPR_LE: case EXPR_GT: case EXPR_GE:
  case EXPR_AND: case EXPR_OR:
    return everything;
  ARITH_CASES_NOT_BINARY: break;
  }
  TES_UNREACHABLE();
}

static ModularSet var_mod(Analyzer *an, const Expr *e) {
  const VarInfo *info = arith_lookup(an, e->u.var);
  return info && info->has_mod ? info->mod : everything;
}

/* Widening keeps every value; a narrowing cast may wrap, which keeps nothing we track. */
static ModularSet cast_mod(Analyzer *an, const Expr *e) {
  DType from = e->u.unary.a->dtype, to = e->dtype;
  if (!dt_is_int(from) || !dt_is_int(to) || to.bits < from.bits ||
      (to.bits == from.bits && to.code != from.code))
    return everything;
  return mod_of(an, e->u.unary.a);
}

static ModularSet let_mod(Analyzer *an, const Expr *e) {
  const VarInfo *found = arith_lookup(an, e->u.let.var);
  VarInfo old = found ? *found : (VarInfo){.var = e->u.let.var};
  VarInfo now = old;
  now.has_mod = true;
  now.mod = mod_of(an, e->u.let.value);
  arith_update(an, &now);
  ModularSet r = mod_of(an, e->u.let.body);
  arith_update(an, &old);
  return r;
}

static ModularSet call_mod(Analyzer *an, const Expr *e) {
  if (!strcmp(e->u.call.op, "tir.if_then_else") && e->u.call.n == 3)
    return union2(mod_of(an, e->u.call.args[1]), mod_of(an, e->u.call.args[2]));
  return everything;
}

static ModularSet mod_of(Analyzer *an, const Expr *e) {
  switch (e->kind) {
  case EXPR_INT:
    return e->dtype.code == DT_UINT && e->u.ival < 0 ? everything : make(0, e->u.ival);
  case EXPR_VAR: return var_mod(an, e);
  case EXPR_CAST: return cast_mod(an, e);
  IR_CASE_BINARY:
    return binary_mod(an, e);
  case EXPR_SELECT: return union2(mod_of(an, e->u.select.t), mod_of(an, e->u.select.f));
  case EXPR_BROADCAST: return mod_of(an, e->u.bcast.value);
  case EXPR_LET: return let_mod(an, e);
  case EXPR_CALL: return call_mod(an, e);
  case EXPR_FLOAT: case EXPR_STR: case EXPR_NOT: case EXPR_RAMP: case EXPR_LOAD:
  case EXPR_PRODUCER_LOAD: case EXPR_REDUCE:
    return everything;
  case EXPR_KIND_COUNT: break;
  }
  TES_UNREACHABLE();
}

ModularSet arith_modular_set(Analyzer *an, const Expr *e) {
  if (!dt_is_int(e->dtype) && !dt_is_bool(e->dtype)) return everything;
  return mod_of(an, e);
}

/* The inverse of a modulo m, for gcd(a, m) = 1 (extended Euclid: r_i = s_i*a mod m). */
static __int128 inverse(__int128 a, __int128 m) {
  __int128 r0 = m, r1 = ((a % m) + m) % m, s0 = 0, s1 = 1;
  while (r1) {
    __int128 q = r0 / r1, t = r0 - q * r1;
    r0 = r1, r1 = t;
    t = s0 - q * s1;
    s0 = s1, s1 = t;
  }
  return ((s0 % m) + m) % m;
}

/* The values in both sets (Chinese remainder theorem). Contradictory facts (x even and odd)
 * leave a: under them anything holds, and a is as good an answer as any. */
ModularSet arith_modular_intersect(ModularSet a, ModularSet b) {
  if (a.coeff == 0) return a;
  if (b.coeff == 0) return b;
  int64_t g = gcd(a.coeff, b.coeff);
  if ((b.base - a.base) % g != 0) return a;
  /* x = a.base + a.coeff*t where a.coeff*t = b.base - a.base (mod b.coeff) */
  __int128 m = b.coeff / g;
  __int128 t = (((b.base - a.base) / g % m + m) % m) * inverse(a.coeff / g, m) % m;
  __int128 lcm = (__int128)a.coeff * m;
  if (lcm > INT64_MAX) return a.coeff > b.coeff ? a : b;
  return make((int64_t)lcm, (int64_t)((a.base + a.coeff * t) % lcm));
}

/* floormod(v, c) == d (or v % c == d) and v == d, for a variable v. */
static void constrain_eq(Analyzer *an, const Expr *x, const Expr *y) {
  int64_t d, c;
  if (!arith_is_int(y, &d)) return;
  ModularSet fact;
  if (x->kind == EXPR_VAR) {
    fact = make(0, d);
  } else if ((x->kind == EXPR_FLOORMOD || x->kind == EXPR_MOD) && x->u.bin.a->kind == EXPR_VAR &&
             arith_is_int(x->u.bin.b, &c) && c != 0 && c != INT64_MIN) {
    fact = make(c, d);
    x = x->u.bin.a;
  } else {
    return;
  }
  const VarInfo *found = arith_lookup(an, x->u.var);
  VarInfo info = found ? *found : (VarInfo){.var = x->u.var};
  info.mod = arith_modular_intersect(info.has_mod ? info.mod : everything, fact);
  info.has_mod = true;
  arith_update(an, &info);
}

void arith_modular_constrain(Analyzer *an, const Expr *cond) {
  if (cond->kind == EXPR_AND) {
    arith_modular_constrain(an, cond->u.bin.a);
    arith_modular_constrain(an, cond->u.bin.b);
  } else if (cond->kind == EXPR_EQ && dt_is_int(cond->u.bin.a->dtype)) {
    constrain_eq(an, cond->u.bin.a, cond->u.bin.b);
    constrain_eq(an, cond->u.bin.b, cond->u.bin.a);
  }
}
