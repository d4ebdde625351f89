/* builtins.c: the builtin functions (print, len, sorted, round, ...) and the type objects of
 * the plain values (int, str, list, ...), whose constructors live here too. Python 3 semantics
 * and messages throughout; ints are 64-bit, so what Python would grow is an OverflowError. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/help.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/modules.h"
#include "frontend/lang/modules_impl.h"
#include "ir/strbuf.h"

/* ---- helpers shared with the modules (modules_impl.h) ---- */

void bi_set_member_take(Value *module, const char *name, Value *v) {
  dict_set_sym(module->u.mod->dict, sym_cstr(name), v);
  val_decref(v);
}

int bi_check_interrupt(Interp *I) {
  if (!tes_interrupted) return 0;
  tes_interrupted = 0;
  interp_raise(I, EXC_KeyboardInterrupt, "interrupted");
  return -1;
}

int bi_for_each(Interp *I, Value *iterable, BiEachFn fn, void *ctx) {
  ValIter it;
  if (val_iter_init(I, &it, iterable) < 0) return -1;
  int r = 0;
  Value *x;
  while (r == 0 && (x = val_iter_next(I, &it))) {
    r = bi_check_interrupt(I);
    if (r == 0) r = fn(I, x, ctx);
    val_decref(x);
  }
  val_iter_done(&it);
  return r < 0 ? -1 : 0;
}

/* val_as_int and val_as_float, so that builtins take what they take (numpy's scalars too) */
int bi_arg_index(Interp *I, Value *v, int64_t *out) { return val_as_int(I, v, out); }

int bi_arg_real(Interp *I, Value *v, double *out) { return val_as_float(I, v, out); }

Value *bi_int_from_double(Interp *I, double d) {
  if (isnan(d)) return interp_raise(I, EXC_ValueError, "cannot convert float NaN to integer");
  if (isinf(d))
    return interp_raise(I, EXC_OverflowError, "cannot convert float infinity to integer");
  /* 2^63 is exact as a double; every double below it and >= -2^63 fits */
  if (d >= 9223372036854775808.0 || d < -9223372036854775808.0)
    return interp_raise(I, EXC_OverflowError, "int too large: %.17g does not fit in 64 bits", d);
  return val_int((int64_t)d);
}

/* A missing optional argument and an explicit None mean the same for most parameters. */
static bool is_absent(Value *v) { return !v || v->kind == VAL_NONE; }

static Value *tuple_of_list(Interp *I, Value *list) {
  int64_t n = VAL_SEQ_N(list);
  Value *t = val_tuple_alloc(I, n);
  for (int64_t i = 0; t && i < n; i++) val_seq_set_take(t, i, val_incref(VAL_SEQ_ITEM(list, i)));
  return t;
}

/* `a op b` as a C truth value: 0/1, -1 on error. */
static int compare_true(Interp *I, CmpOp op, Value *a, Value *b) {
  Value *r = val_compare(I, op, a, b);
  if (!r) return -1;
  int t = val_truthy(I, r);
  val_decref(r);
  return t;
}

static Value *call1(Interp *I, Value *fn, Value *x) { return interp_callv(I, fn, 1, &x); }

/* ---- output and plain queries ---- */

/* print's sep and end: None or a str, checked before anything is written, as Python does. */
static int check_sep(Interp *I, Value *v, const char *what) {
  if (is_absent(v) || v->kind == VAL_STR) return 0;
  interp_raise(I, EXC_TypeError, "%s must be None or a string, not %s", what, val_type_name(v));
  return -1;
}

static void put_sep(StrBuf *b, Value *v, const char *dflt) {
  if (is_absent(v)) sb_puts(b, dflt);
  else sb_putn(b, v->u.str.s, (size_t)v->u.str.len);
}

static Value *bi_print(Interp *I, Value *self, Value **a) {
  int flush = a[4] ? val_truthy(I, a[4]) : 0;
  if (flush < 0 || check_sep(I, a[1], "sep") < 0 || check_sep(I, a[2], "end") < 0) return NULL;
  /* one write per call, so a failing str() prints nothing; fallible: print([0] * 10**8) */
  StrBuf line = {.fallible = true};
  for (int64_t i = 0; i < VAL_SEQ_N(a[0]); i++) {
    if (i > 0) put_sep(&line, a[1], " ");
    Value *s = val_to_str(I, VAL_SEQ_ITEM(a[0], i));
    if (!s) return sb_free(&line), NULL;
    sb_putn(&line, s->u.str.s, (size_t)s->u.str.len);
    val_decref(s);
  }
  put_sep(&line, a[2], "\n");
  if (line.failed) {
    val_mem_error(I, (double)line.failed);
    return sb_free(&line), NULL;
  }
  /* file=: None, sys.stdout or sys.stderr (TES has no classes, so no other object can write) */
  FILE *out = is_absent(a[3]) ? interp_stdout(I) : sys_stream_file(I, a[3]);
  if (!out) {
    sb_free(&line);
    return interp_raise(I, EXC_TypeError,
                        "print() file must be sys.stdout, sys.stderr or None, not %s",
                        val_type_name(a[3]));
  }
  if (line.len) fwrite(line.s, 1, line.len, out);
  if (flush || out == stderr) fflush(out);
  sb_free(&line);
  return val_none();
}

static Value *bi_len(Interp *I, Value *self, Value **a) {
  int64_t n = val_len(I, a[0]);
  return n < 0 ? NULL : val_int(n);
}

static Value *bi_repr(Interp *I, Value *self, Value **a) { return val_repr(I, a[0]); }

static Value *bi_format(Interp *I, Value *self, Value **a) {
  if (!a[1]) return val_format(I, a[0], "", 0);
  if (a[1]->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "format() argument 2 must be str, not %s",
                        val_type_name(a[1]));
  return val_format(I, a[0], a[1]->u.str.s, (size_t)a[1]->u.str.len);
}

static Value *bi_hash(Interp *I, Value *self, Value **a) {
  uint64_t h;
  if (val_hash(I, a[0], &h) < 0) return NULL;
  return val_int((int64_t)h);
}

static Value *bi_id(Interp *I, Value *self, Value **a) {
  return val_int((int64_t)(intptr_t)a[0]);
}


static Value *bi_callable(Interp *I, Value *self, Value **a) {
  return val_bool(val_is_callable(a[0]));
}

/* ---- functions over iterables ---- */

typedef struct EnumCtx {
  Value *out;
  int64_t next;
} EnumCtx;

static int enum_one(Interp *I, Value *item, void *ctx) {
  EnumCtx *c = ctx;
  Value *i = val_int(c->next++);
  int r = val_list_push_take(I, c->out, val_tuple_of(2, i, item));
  val_decref(i);
  return r;
}

static Value *bi_enumerate(Interp *I, Value *self, Value **a) {
  EnumCtx c = {NULL, 0};
  if (a[1] && bi_arg_index(I, a[1], &c.next) < 0) return NULL;
  c.out = val_list_new(0);
  if (bi_for_each(I, a[0], enum_one, &c) < 0) return val_decref(c.out), NULL;
  return c.out;
}

/* Each item of a tuple of iterables as a list; *shortest gets the smallest length. */
static Value **lists_of(Interp *I, Value *iterables, int64_t *shortest) {
  int64_t n = VAL_SEQ_N(iterables);
  Value **lists = xcalloc((size_t)n + 1, sizeof *lists);
  *shortest = n ? INT64_MAX : 0;
  for (int64_t i = 0; i < n; i++) {
    lists[i] = val_to_list(I, VAL_SEQ_ITEM(iterables, i));
    if (!lists[i]) {
      for (int64_t j = 0; j < i; j++) val_decref(lists[j]);
      free(lists);
      return NULL;
    }
    if (VAL_SEQ_N(lists[i]) < *shortest) *shortest = VAL_SEQ_N(lists[i]);
  }
  return lists;
}

static void lists_free(Value **lists, int64_t n) {
  for (int64_t i = 0; i < n; i++) val_decref(lists[i]);
  free(lists);
}

static Value *bi_zip(Interp *I, Value *self, Value **a) {
  int64_t n = VAL_SEQ_N(a[0]), len;
  Value **lists = lists_of(I, a[0], &len);
  if (!lists) return NULL;
  Value *out = val_list_alloc(I, len);
  for (int64_t i = 0; out && i < len; i++) {
    Value *t = val_tuple_new(n);
    for (int64_t j = 0; j < n; j++) val_seq_set_take(t, j, val_incref(VAL_SEQ_ITEM(lists[j], i)));
    val_list_append_take(out, t);
  }
  lists_free(lists, n);
  return out;
}

static Value *bi_map(Interp *I, Value *self, Value **a) {
  int64_t n = VAL_SEQ_N(a[1]), len;
  if (n == 0) return interp_raise(I, EXC_TypeError, "map() must have at least two arguments.");
  Value **lists = lists_of(I, a[1], &len);
  if (!lists) return NULL;
  Value *out = val_list_alloc(I, len), **args = xcalloc((size_t)n, sizeof *args);
  for (int64_t i = 0; i < len && out; i++) {
    for (int64_t j = 0; j < n; j++) args[j] = VAL_SEQ_ITEM(lists[j], i);
    Value *r = interp_callv(I, a[0], (int)n, args);
    if (!r) {
      val_decref(out);
      out = NULL;
    } else {
      val_list_append_take(out, r);
    }
  }
  free(args);
  lists_free(lists, n);
  return out;
}

typedef struct FilterCtx {
  Value *fn, *out;
} FilterCtx;

static int filter_one(Interp *I, Value *item, void *ctx) {
  FilterCtx *c = ctx;
  Value *r = is_absent(c->fn) ? val_incref(item) : call1(I, c->fn, item);
  int t = r ? val_truthy(I, r) : -1;
  val_xdecref(r);
  if (t > 0) return val_list_push_take(I, c->out, val_incref(item));
  return t < 0 ? -1 : 0;
}

static Value *bi_filter(Interp *I, Value *self, Value **a) {
  FilterCtx c = {a[0], val_list_new(0)};
  if (bi_for_each(I, a[1], filter_one, &c) < 0) return val_decref(c.out), NULL;
  return c.out;
}

static Value *bi_reversed(Interp *I, Value *self, Value **a) {
  ValKind k = (ValKind)a[0]->kind;
  if (k != VAL_LIST && k != VAL_TUPLE && k != VAL_STR && k != VAL_RANGE && k != VAL_DICT)
    return interp_raise(I, EXC_TypeError, "'%s' object is not reversible", val_type_name(a[0]));
  Value *l = val_to_list(I, a[0]);
  if (!l) return NULL;
  Value **v = l->u.list->items;
  for (int64_t i = 0, j = VAL_SEQ_N(l) - 1; i < j; i++, j--) {
    Value *t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
  return l;
}

static Value *bi_sorted(Interp *I, Value *self, Value **a) {
  int rev = a[2] ? val_truthy(I, a[2]) : 0;
  if (rev < 0) return NULL;
  Value *l = val_to_list(I, a[0]);
  if (l && val_list_sort(I, l, a[1], rev) < 0) {
    val_decref(l);
    return NULL;
  }
  return l;
}

typedef struct MinMax {
  CmpOp op;      /* CMP_LT for min, CMP_GT for max: replace only on a strict win */
  Value *keyfn;  /* NULL or None: the item itself */
  Value *best, *bestkey;
} MinMax;

static int minmax_one(Interp *I, Value *item, void *ctx) {
  MinMax *m = ctx;
  Value *k = is_absent(m->keyfn) ? val_incref(item) : call1(I, m->keyfn, item);
  if (!k) return -1;
  int better = m->best ? compare_true(I, m->op, k, m->bestkey) : 1;
  if (better > 0) {
    val_xdecref(m->best);
    val_xdecref(m->bestkey);
    m->best = val_incref(item);
    m->bestkey = val_incref(k);
  }
  val_decref(k);
  return better < 0 ? -1 : 0;
}

/* min/max(iterable, *, key=None, default=...) and min/max(a, b, *args, key=None) */
static Value *minmax(Interp *I, Value **a, CmpOp op, const char *name) {
  int64_t n = VAL_SEQ_N(a[0]);
  if (n == 0)
    return interp_raise(I, EXC_TypeError, "%s expected at least 1 argument, got 0", name);
  if (n > 1 && a[2])
    return interp_raise(I, EXC_TypeError,
                        "Cannot specify a default for %s() with multiple positional arguments",
                        name);
  MinMax m = {op, a[1], NULL, NULL};
  if (bi_for_each(I, n == 1 ? VAL_SEQ_ITEM(a[0], 0) : a[0], minmax_one, &m) < 0) {
    val_xdecref(m.best);
    val_xdecref(m.bestkey);
    return NULL;
  }
  val_xdecref(m.bestkey);
  if (m.best) return m.best;
  if (a[2]) return val_incref(a[2]);
  return interp_raise(I, EXC_ValueError, "%s() arg is an empty sequence", name);
}

static Value *bi_min(Interp *I, Value *self, Value **a) { return minmax(I, a, CMP_LT, "min"); }
static Value *bi_max(Interp *I, Value *self, Value **a) { return minmax(I, a, CMP_GT, "max"); }

static int sum_one(Interp *I, Value *item, void *ctx) {
  Value **acc = ctx;
  Value *r = val_binop(I, BIN_ADD, *acc, item);
  if (!r) return -1;
  val_decref(*acc);
  *acc = r;
  return 0;
}

static Value *bi_sum(Interp *I, Value *self, Value **a) {
  if (a[1] && a[1]->kind == VAL_STR)
    return interp_raise(I, EXC_TypeError, "sum() can't sum strings [use ''.join(seq) instead]");
  Value *acc = a[1] ? val_incref(a[1]) : val_int(0);
  if (bi_for_each(I, a[0], sum_one, &acc) < 0) return val_decref(acc), NULL;
  return acc;
}

/* any/all: stop at the first item whose truth is `stop_at`. */
static int truth_one(Interp *I, Value *item, void *ctx) {
  int *want = ctx, t = val_truthy(I, item);
  if (t < 0) return -1;
  if (t != *want) return 0;
  *want = -1; /* found */
  return 1;
}

static Value *any_all(Interp *I, Value *iterable, int stop_at) {
  int want = stop_at;
  if (bi_for_each(I, iterable, truth_one, &want) < 0) return NULL;
  return val_bool(want < 0 ? stop_at : !stop_at);
}

static Value *bi_any(Interp *I, Value *self, Value **a) { return any_all(I, a[0], 1); }
static Value *bi_all(Interp *I, Value *self, Value **a) { return any_all(I, a[0], 0); }

/* ---- numbers ---- */

static Value *overflow(Interp *I) {
  return interp_raise(I, EXC_OverflowError, "int too large: the result does not fit in 64 bits");
}

static Value *bi_abs(Interp *I, Value *self, Value **a) {
  Value *x = a[0];
  if (x->kind == VAL_FLOAT) return val_float(fabs(x->u.f));
  if (x->kind == VAL_OBJ) { /* Python's __abs__: abs(array) is elementwise */
    Value *m = val_getattr_opt(I, x, sym_cstr("__abs__"));
    if (m) {
      Value *r = interp_callv(I, m, 0, NULL);
      val_decref(m);
      return r;
    }
    if (interp_error_pending(I)) return NULL;
  }
  if (!val_is_int(x))
    return interp_raise(I, EXC_TypeError, "bad operand type for abs(): '%s'", val_type_name(x));
  if (x->u.i == INT64_MIN) return overflow(I);
  return val_int(x->u.i < 0 ? -x->u.i : x->u.i);
}

/* x rounded to n decimal places, half to even on x's exact binary value, like CPython's
 * dtoa-based round: round(2.675, 2) is 2.67 because 2.675 is really 2.67499999... */
static double round_decimal(double x, int n) {
  char buf[1500]; /* up to 309 integer digits and 1074 exact fraction digits */
  buf[0] = '0'; /* a leading 0 absorbs a carry out of the top digit */
  snprintf(buf + 1, sizeof buf - 1, "%.1074f", fabs(x));
  char *dot = strchr(buf, '.');
  int64_t point = dot - buf;
  memmove(dot, dot + 1, strlen(dot + 1) + 1);
  /* digits kept; n <= 323 < 1074 fraction digits, so some are always dropped */
  int64_t keep = point + n, len = (int64_t)strlen(buf);
  if (keep <= 0) return copysign(0.0, x);
  bool rest = strspn(buf + keep + 1, "0") < (size_t)(len - keep - 1);
  char d = buf[keep], last = buf[keep - 1];
  if (d > '5' || (d == '5' && (rest || (last - '0') % 2 == 1))) {
    int64_t i = keep - 1;
    for (; buf[i] == '9'; i--) buf[i] = '0';
    buf[i]++;
  }
  buf[keep] = 0;
  char num[1600];
  snprintf(num, sizeof num, "%se%d", buf, -n);
  return copysign(strtod(num, NULL), x);
}

static Value *round_float(Interp *I, double x, Value *nd) {
  if (is_absent(nd)) return bi_int_from_double(I, nearbyint(x)); /* ties to even */
  int64_t n;
  if (bi_arg_index(I, nd, &n) < 0) return NULL;
  /* CPython's NDIGITS_MAX and NDIGITS_MIN: past them the answer is x, or a signed zero */
  if (!isfinite(x) || x == 0.0 || n > 323) return val_float(x);
  if (n < -308) return val_float(0.0 * x);
  double r = round_decimal(x, (int)n);
  if (isinf(r)) return interp_raise(I, EXC_OverflowError, "rounded value too large to represent");
  return val_float(r);
}

static Value *round_int(Interp *I, int64_t x, Value *nd) {
  int64_t n;
  if (is_absent(nd)) return val_int(x);
  if (bi_arg_index(I, nd, &n) < 0) return NULL;
  if (n >= 0) return val_int(x);
  if (n < -19) return val_int(0); /* |x| < 2^63 < 10^19 / 2 */
  __int128 p = 1, q, r;
  for (int64_t i = 0; i < -n; i++) p *= 10;
  q = x / p, r = x % p;
  if (r < 0) r += p, q -= 1; /* floor division */
  if (2 * r > p || (2 * r == p && (q & 1))) q += 1;
  __int128 res = q * p;
  if (res > INT64_MAX || res < INT64_MIN) return overflow(I);
  return val_int((int64_t)res);
}

static Value *bi_round(Interp *I, Value *self, Value **a) {
  if (a[0]->kind == VAL_FLOAT) return round_float(I, a[0]->u.f, a[1]);
  if (val_is_int(a[0])) return round_int(I, a[0]->u.i, a[1]);
  Value *n = a[0]->kind == VAL_OBJ ? val_number_of(I, a[0], NUM_SCALAR) : NULL; /* np.float32 */
  if (n) {
    Value *r = bi_round(I, self, (Value *[]){n, a[1]});
    val_decref(n);
    return r;
  }
  if (interp_error_pending(I)) return NULL;
  return interp_raise(I, EXC_TypeError, "type %s doesn't define __round__ method",
                      val_type_name(a[0]));
}

static Value *bi_divmod(Interp *I, Value *self, Value **a) {
  Value *q = val_binop(I, BIN_FLOORDIV, a[0], a[1]);
  Value *r = q ? val_binop(I, BIN_MOD, a[0], a[1]) : NULL;
  Value *t = r ? val_tuple_of(2, q, r) : NULL;
  val_xdecref(q);
  val_xdecref(r);
  return t;
}

/* b's inverse modulo m (m > 0), or -1 if there is none. */
static __int128 mod_inverse(__int128 b, __int128 m) {
  __int128 r0 = m, r1 = b, t0 = 0, t1 = 1;
  while (r1 != 0) {
    __int128 q = r0 / r1, r = r0 - q * r1, t = t0 - q * t1;
    r0 = r1, r1 = r, t0 = t1, t1 = t;
  }
  if (r0 != 1) return -1;
  return t0 < 0 ? t0 + m : t0;
}

static Value *pow_mod(Interp *I, Value *vb, Value *ve, Value *vm) {
  if (!val_is_int(vb) || !val_is_int(ve) || !val_is_int(vm))
    return interp_raise(I, EXC_TypeError,
                        "pow() 3rd argument not allowed unless all arguments are integers");
  int64_t mod = vm->u.i, e = ve->u.i;
  if (mod == 0) return interp_raise(I, EXC_ValueError, "pow() 3rd argument cannot be 0");
  __int128 m = mod < 0 ? -(__int128)mod : mod, b = ((vb->u.i % m) + m) % m, r = 1 % m;
  if (e < 0 && (b = mod_inverse(b, m)) < 0)
    return interp_raise(I, EXC_ValueError, "base is not invertible for the given modulus");
  for (uint64_t ue = e < 0 ? -(uint64_t)e : (uint64_t)e; ue; ue >>= 1) {
    if (ue & 1) r = r * b % m;
    b = b * b % m;
  }
  if (mod < 0 && r != 0) r -= m; /* Python: the result takes the modulus's sign */
  return val_int((int64_t)r);
}

static Value *bi_pow(Interp *I, Value *self, Value **a) {
  if (is_absent(a[2])) return val_binop(I, BIN_POW, a[0], a[1]);
  return pow_mod(I, a[0], a[1], a[2]);
}

static Value *int_to_base(Interp *I, Value *v, unsigned base, const char *prefix) {
  int64_t i;
  if (bi_arg_index(I, v, &i) < 0) return NULL;
  uint64_t u = i < 0 ? -(uint64_t)i : (uint64_t)i;
  char buf[80], *p = buf + sizeof buf;
  *--p = 0;
  do *--p = "0123456789abcdef"[u % base];
  while (u /= base);
  p -= strlen(prefix);
  memcpy(p, prefix, strlen(prefix));
  if (i < 0) *--p = '-';
  return val_cstr(p);
}

static Value *bi_hex(Interp *I, Value *self, Value **a) { return int_to_base(I, a[0], 16, "0x"); }
static Value *bi_oct(Interp *I, Value *self, Value **a) { return int_to_base(I, a[0], 8, "0o"); }
static Value *bi_bin(Interp *I, Value *self, Value **a) { return int_to_base(I, a[0], 2, "0b"); }

static Value *bi_chr(Interp *I, Value *self, Value **a) {
  int64_t c;
  if (bi_arg_index(I, a[0], &c) < 0) return NULL;
  if (c < 0 || c > 0x10FFFF) return interp_raise(I, EXC_ValueError, "chr() arg not in range(0x110000)");
  char s[4];
  int n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  static const unsigned char lead[5] = {0, 0, 0xC0, 0xE0, 0xF0};
  for (int i = n - 1; i > 0; i--, c >>= 6) s[i] = (char)(0x80 | (c & 0x3F));
  s[0] = (char)(lead[n] | c);
  return val_str(s, (size_t)n);
}

/* Decodes one UTF-8 sequence; returns its byte count (1 for a stray byte, taken as is). */
static int utf8_decode(const unsigned char *s, int64_t n, uint32_t *cp) {
  int len = s[0] < 0x80 ? 1 : s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 1;
  if (len > n) len = 1;
  *cp = len == 1 ? s[0] : s[0] & (0x7F >> len);
  for (int i = 1; i < len; i++) *cp = (*cp << 6) | (s[i] & 0x3F);
  return len;
}

static Value *bi_ord(Interp *I, Value *self, Value **a) {
  Value *s = a[0];
  if (s->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "ord() expected string of length 1, but %s found",
                        val_type_name(s));
  uint32_t cp = 0;
  int used = s->u.str.len ? utf8_decode((const unsigned char *)s->u.str.s, s->u.str.len, &cp) : 0;
  if (used == 0 || used != s->u.str.len) {
    int64_t n = val_len(I, s);
    return n < 0 ? NULL
                 : interp_raise(I, EXC_TypeError,
                                "ord() expected a character, but string of length %lld found",
                                (long long)n);
  }
  return val_int(cp);
}

/* ---- names and types ---- */

/* `t` is one of val_types, a plain kind's type (whose instances are told by kind). */
static bool is_plain_type(const TypeObj *t) {
  return (unsigned)t->kind < VAL_KIND_COUNT && t == &val_types[t->kind];
}

static bool instance_of(Value *v, const TypeObj *t) {
  if (is_plain_type(t)) return v->kind == t->kind || (t->kind == VAL_INT && v->kind == VAL_BOOL);
  if (t->kind == VAL_EXC) return v->kind == VAL_EXC && exc_is(v->u.exc->type, t);
  for (const TypeObj *c = val_type_of(v); c; c = c->base) /* te.ComputeOp is a te.Operation */
    if (c == t) return true;
  return false;
}

static int isinstance_of(Interp *I, Value *v, Value *cls) {
  if (cls->kind == VAL_TYPE) return instance_of(v, cls->u.type);
  if (cls->kind == VAL_TUPLE) {
    for (int64_t i = 0; i < VAL_SEQ_N(cls); i++) {
      int r = isinstance_of(I, v, VAL_SEQ_ITEM(cls, i));
      if (r != 0) return r;
    }
    return 0;
  }
  interp_raise(I, EXC_TypeError,
               "isinstance() arg 2 must be a type, a tuple of types, or a union");
  return -1;
}

static Value *bi_isinstance(Interp *I, Value *self, Value **a) {
  int r = isinstance_of(I, a[0], a[1]);
  return r < 0 ? NULL : val_bool(r);
}

static Sym *attr_name(Interp *I, Value *name) {
  if (name->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "attribute name must be string, not '%s'",
                        val_type_name(name));
  return sym_intern(name->u.str.s, (size_t)name->u.str.len);
}

static Value *bi_getattr(Interp *I, Value *self, Value **a) {
  Sym *name = attr_name(I, a[1]);
  if (!name) return NULL;
  if (!a[2]) return val_getattr(I, a[0], name);
  Value *v = val_getattr_opt(I, a[0], name);
  if (v || interp_error_pending(I)) return v;
  return val_incref(a[2]);
}

static Value *bi_hasattr(Interp *I, Value *self, Value **a) {
  Sym *name = attr_name(I, a[1]);
  if (!name) return NULL;
  Value *v = val_getattr_opt(I, a[0], name);
  if (!v && interp_error_matches(I, EXC_AttributeError)) interp_error_clear(I);
  if (!v && interp_error_pending(I)) return NULL;
  val_xdecref(v);
  return val_bool(v != NULL);
}

static Value *bi_setattr(Interp *I, Value *self, Value **a) {
  Sym *name = attr_name(I, a[1]);
  if (!name || val_setattr(I, a[0], name, a[2]) < 0) return NULL;
  return val_none();
}

static Value *bi_dir(Interp *I, Value *self, Value **a) {
  if (a[0]) return val_dir(I, a[0]);
  Value *names = val_list_new(0), *k, *v;
  for (int64_t pos = 0; dict_next(interp_globals(I), &pos, &k, &v);) val_list_append(names, k);
  if (val_list_sort(I, names, NULL, false) < 0) return val_decref(names), NULL;
  return names;
}

/* Writes what :help shows for obj; tes has no interactive help, so obj is required. */
static Value *bi_help(Interp *I, Value *self, Value **a) {
  StrBuf b = STRBUF_INIT;
  if (!val_help(I, &b, a[0])) sb_printf(&b, "no help for '%s' object\n", val_type_name(a[0]));
  FILE *out = interp_stdout(I);
  fputs(sb_cstr(&b), out);
  sb_free(&b);
  return val_none();
}

static Value *bi_globals(Interp *I, Value *self, Value **a) {
  return val_incref(interp_globals(I));
}

/* ---- constructors of the plain types ---- */

static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static void strip(const char **s, const char **e) {
  while (*s < *e && is_space(**s)) (*s)++;
  while (*e > *s && is_space((*e)[-1])) (*e)--;
}

static int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

/* Skips a 0x/0o/0b prefix that fits *base (deciding *base when it is 0). */
static const char *int_prefix(const char *s, const char *e, int *base) {
  static const struct { char c; int base; } pre[] = {{'x', 16}, {'o', 8}, {'b', 2}};
  if (e - s < 2 || s[0] != '0') return s;
  for (int i = 0; i < 3; i++)
    if ((s[1] | 0x20) == pre[i].c && (*base == 0 || *base == pre[i].base)) {
      *base = pre[i].base;
      return s + 2;
    }
  return s;
}

typedef enum { PARSE_OK, PARSE_BAD, PARSE_OVERFLOW } ParseResult;

/* Python's int(str, base): spaces around, a sign, a prefix, '_' between digits. */
static ParseResult parse_int(const char *s, const char *e, int base, int64_t *out) {
  strip(&s, &e);
  bool neg = s < e && *s == '-';
  if (s < e && (*s == '-' || *s == '+')) s++;
  int given = base;
  const char *d = int_prefix(s, e, &base);
  bool after_prefix = d != s;
  if (base == 0) base = 10;
  if (given == 0 && !after_prefix && d < e && *d == '0') /* base 0: "010" is not allowed */
    for (const char *p = d; p < e; p++)
      if (*p != '0' && *p != '_') return PARSE_BAD;
  uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  bool over = false, prev_digit = after_prefix;
  if (d == e) return PARSE_BAD;
  for (const char *p = d; p < e; p++) {
    if (*p == '_') {
      if (!prev_digit || p + 1 == e || p[1] == '_') return PARSE_BAD;
      prev_digit = false;
      continue;
    }
    int dv = digit_value(*p);
    if (dv >= base) return PARSE_BAD;
    if (v > (limit - (uint64_t)dv) / (uint64_t)base) over = true;
    else v = v * (uint64_t)base + (uint64_t)dv;
    prev_digit = true;
  }
  if (over) return PARSE_OVERFLOW;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return PARSE_OK;
}

static Value *int_from_str(Interp *I, Value *str, int64_t base) {
  if (base != 0 && (base < 2 || base > 36))
    return interp_raise(I, EXC_ValueError, "int() base must be >= 2 and <= 36, or 0");
  int64_t v = 0;
  ParseResult r = parse_int(str->u.str.s, str->u.str.s + str->u.str.len, (int)base, &v);
  if (r == PARSE_OK) return val_int(v);
  Value *rep = val_repr(I, str);
  if (!rep) return NULL;
  if (r == PARSE_OVERFLOW)
    interp_raise(I, EXC_OverflowError, "int too large: %s does not fit in 64 bits", rep->u.str.s);
  else
    interp_raise(I, EXC_ValueError, "invalid literal for int() with base %lld: %s",
                 (long long)base, rep->u.str.s);
  val_decref(rep);
  return NULL;
}

static Value *ctor_int_fn(Interp *I, Value *self, Value **a) {
  Value *x = a[0];
  int64_t base = 10;
  if (!x) return a[1] ? interp_raise(I, EXC_TypeError, "int() missing string argument") : val_int(0);
  if (a[1]) {
    if (x->kind != VAL_STR)
      return interp_raise(I, EXC_TypeError, "int() can't convert non-string with explicit base");
    if (bi_arg_index(I, a[1], &base) < 0) return NULL;
  }
  if (x->kind == VAL_STR) return int_from_str(I, x, base);
  if (x->kind == VAL_FLOAT) return bi_int_from_double(I, trunc(x->u.f));
  if (val_is_int(x)) return val_int(x->u.i);
  Value *n = val_number_of(I, x, NUM_REAL); /* Python's __int__ */
  if (n) {
    Value *r = ctor_int_fn(I, self, (Value *[]){n, NULL});
    val_decref(n);
    return r;
  }
  if (interp_error_pending(I)) return NULL;
  return interp_raise(I, EXC_TypeError,
                      "int() argument must be a string, a bytes-like object or a real number, "
                      "not '%s'",
                      val_type_name(x));
}

/* "inf", "-Infinity", "nan" in any case, as float() takes them. */
static bool parse_special(const char *s, const char *e, double *out) {
  double sign = 1.0;
  if (s < e && (*s == '-' || *s == '+')) sign = *s++ == '-' ? -1.0 : 1.0;
  size_t n = (size_t)(e - s);
  if ((n == 3 || n == 8) && strncasecmp(s, "infinity", n) == 0) *out = sign * INFINITY;
  else if (n == 3 && strncasecmp(s, "nan", 3) == 0) *out = copysign(NAN, sign);
  else return false;
  return true;
}

/* Copies digits from *p to out, skipping a '_' that stands between two digits; returns how
 * many digits. */
static int copy_digits(const char **p, const char *e, StrBuf *out) {
  int n = 0;
  const char *s = *p;
  while (s < e) {
    if (*s >= '0' && *s <= '9') sb_putc(out, *s++), n++;
    else if (*s == '_' && n > 0 && s + 1 < e && s[1] >= '0' && s[1] <= '9') s++;
    else break;
  }
  *p = s;
  return n;
}

/* Python's float(str): a decimal literal (no hex floats, unlike strtod), '_' allowed. */
static bool parse_float(const char *s, const char *e, double *out) {
  strip(&s, &e);
  if (parse_special(s, e, out)) return true;
  StrBuf b = STRBUF_INIT;
  if (s < e && (*s == '-' || *s == '+')) sb_putc(&b, *s++);
  int digits = copy_digits(&s, e, &b);
  if (s < e && *s == '.') sb_putc(&b, *s++), digits += copy_digits(&s, e, &b);
  bool ok = digits > 0;
  if (ok && s < e && (*s | 0x20) == 'e') {
    sb_putc(&b, *s++);
    if (s < e && (*s == '-' || *s == '+')) sb_putc(&b, *s++);
    ok = copy_digits(&s, e, &b) > 0;
  }
  ok = ok && s == e;
  if (ok) *out = strtod(sb_cstr(&b), NULL);
  sb_free(&b);
  return ok;
}

static Value *ctor_float_fn(Interp *I, Value *self, Value **a) {
  Value *x = a[0];
  double d = 0.0;
  if (!x) return val_float(0.0);
  if (val_is_number(x) || (x->kind == VAL_OBJ && x->u.obj.cls->number)) /* __float__ */
    return val_as_float(I, x, &d) < 0 ? NULL : val_float(d);
  if (x->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError,
                        "float() argument must be a string or a real number, not '%s'",
                        val_type_name(x));
  if (memchr(x->u.str.s, 0, (size_t)x->u.str.len) == NULL &&
      parse_float(x->u.str.s, x->u.str.s + x->u.str.len, &d))
    return val_float(d);
  Value *rep = val_repr(I, x);
  if (rep) interp_raise(I, EXC_ValueError, "could not convert string to float: %s", rep->u.str.s);
  val_xdecref(rep);
  return NULL;
}

static Value *ctor_str_fn(Interp *I, Value *self, Value **a) {
  return a[0] ? val_to_str(I, a[0]) : val_str("", 0);
}

static Value *ctor_bool_fn(Interp *I, Value *self, Value **a) {
  int t = a[0] ? val_truthy(I, a[0]) : 0;
  return t < 0 ? NULL : val_bool(t);
}

static Value *ctor_list_fn(Interp *I, Value *self, Value **a) {
  return a[0] ? val_to_list(I, a[0]) : val_list_new(0);
}

static Value *ctor_tuple_fn(Interp *I, Value *self, Value **a) {
  if (!a[0]) return val_tuple_new(0);
  if (a[0]->kind == VAL_TUPLE) return val_incref(a[0]); /* immutable: share it, as Python */
  Value *l = val_to_list(I, a[0]);
  if (!l) return NULL;
  Value *t = tuple_of_list(I, l);
  val_decref(l);
  return t;
}

typedef struct PairCtx {
  Value *dict;
  int64_t index;
} PairCtx;

static int dict_pair(Interp *I, Value *item, void *ctx) {
  PairCtx *c = ctx;
  Value *pair = item->kind == VAL_TUPLE || item->kind == VAL_LIST ? val_incref(item)
                                                                   : val_to_list(I, item);
  if (!pair) {
    interp_error_clear(I);
    interp_raise(I, EXC_TypeError,
                 "cannot convert dictionary update sequence element #%lld to a sequence",
                 (long long)c->index);
    return -1;
  }
  int r = -1;
  if (VAL_SEQ_N(pair) != 2)
    interp_raise(I, EXC_ValueError,
                 "dictionary update sequence element #%lld has length %lld; 2 is required",
                 (long long)c->index, (long long)VAL_SEQ_N(pair));
  else
    r = dict_set(I, c->dict, VAL_SEQ_ITEM(pair, 0), VAL_SEQ_ITEM(pair, 1));
  val_decref(pair);
  c->index++;
  return r;
}

static int dict_update(Interp *I, Value *dict, Value *from) {
  if (from->kind != VAL_DICT) {
    PairCtx c = {dict, 0};
    return bi_for_each(I, from, dict_pair, &c);
  }
  Value *k, *v;
  for (int64_t pos = 0; dict_next(from, &pos, &k, &v);)
    if (dict_set(I, dict, k, v) < 0) return -1;
  return 0;
}

static Value *ctor_dict_fn(Interp *I, Value *self, Value **a) {
  Value *d = val_dict_new();
  if ((a[0] && dict_update(I, d, a[0]) < 0) || dict_update(I, d, a[1]) < 0)
    return val_decref(d), NULL;
  return d;
}

static Value *ctor_range_fn(Interp *I, Value *self, Value **a) {
  int64_t start = 0, stop, step = 1;
  if (!a[1]) {
    if (bi_arg_index(I, a[0], &stop) < 0) return NULL;
  } else if (bi_arg_index(I, a[0], &start) < 0 || bi_arg_index(I, a[1], &stop) < 0 ||
             (a[2] && bi_arg_index(I, a[2], &step) < 0)) {
    return NULL;
  }
  if (step == 0) return interp_raise(I, EXC_ValueError, "range() arg 3 must not be zero");
  return val_range(start, stop, step);
}

static Value *ctor_slice_fn(Interp *I, Value *self, Value **a) {
  if (!a[1]) return val_slice_new(NULL, a[0], NULL);
  return val_slice_new(a[0], a[1], a[2]);
}

static Value *ctor_type_fn(Interp *I, Value *self, Value **a) {
  return val_type(val_type_of(a[0]));
}

/* ---- tables ---- */

#define CTOR(kind, nreq, params, doc) \
  static const Builtin ctor_##kind = {#kind, ctor_##kind##_fn, nreq, params, doc};
CTOR(int, 0, PARAMS("x", "base"),
     "int(x=0, base=10) -> int: a number or string as an int (floats truncate toward zero)")
CTOR(float, 0, PARAMS("x"), "float(x=0.0) -> float: a number or string ('1e3', 'inf') as a float")
CTOR(str, 0, PARAMS("object"), "str(object='') -> str: the printable form of object")
CTOR(bool, 0, PARAMS("x"), "bool(x=False) -> bool: the truth value of x")
CTOR(list, 0, PARAMS("iterable"), "list(iterable=()) -> list: a new list of the items")
CTOR(tuple, 0, PARAMS("iterable"), "tuple(iterable=()) -> tuple: a tuple of the items")
CTOR(dict, 0, PARAMS("iterable_or_mapping", "**kw"),
     "dict(iterable_or_mapping=None, **kw) -> dict: a dict from a mapping, (key, value) pairs "
     "and keywords")
CTOR(range, 1, PARAMS("start", "stop", "step"),
     "range(start, stop=None, step=1) -> range: the ints from start (0 if only stop is given) "
     "up to stop, by step")
CTOR(slice, 1, PARAMS("start", "stop", "step"),
     "slice(start, stop=None, step=None) -> slice: the slice start:stop:step")
CTOR(type, 1, PARAMS("object"), "type(object) -> type: the type of object")
#undef CTOR

/* Which kinds have a constructor; naming every kind makes a new kind a compile error here. */
#define CTOR_NONE NULL
#define CTOR_BOOL (&ctor_bool)
#define CTOR_INT (&ctor_int)
#define CTOR_FLOAT (&ctor_float)
#define CTOR_STR (&ctor_str)
#define CTOR_TUPLE (&ctor_tuple)
#define CTOR_LIST (&ctor_list)
#define CTOR_DICT (&ctor_dict)
#define CTOR_RANGE (&ctor_range)
#define CTOR_SLICE (&ctor_slice)
#define CTOR_FUNC NULL
#define CTOR_BUILTIN NULL
#define CTOR_MODULE NULL
#define CTOR_TYPE (&ctor_type)
#define CTOR_EXC NULL /* unused: exception classes are exc_types[] */
#define CTOR_ENV NULL
#define CTOR_OBJ NULL /* unused: each ObjClass has its own type */

const TypeObj val_types[VAL_KIND_COUNT] = {
#define TYPE_ENTRY(k, name) [VAL_##k] = {name, NULL, VAL_##k, CTOR_##k},
    VAL_KINDS(TYPE_ENTRY)
#undef TYPE_ENTRY
};

#define FN(name, nreq, params, doc) {#name, bi_##name, nreq, params, doc}
const Builtin builtin_funcs[] = {
    FN(print, 0, PARAMS("*args", "sep", "end", "file", "flush"),
       "print(*args, sep=' ', end='\\n', file=None, flush=False) -> None: writes the str of each "
       "argument to standard output, or to file (sys.stdout or sys.stderr)"),
    FN(len, 1, PARAMS("obj"), "len(obj) -> int: number of items of a sequence, string or dict"),
    FN(repr, 1, PARAMS("obj"), "repr(obj) -> str: the printable form that reads back as obj"),
    FN(format, 1, PARAMS("value", "spec"),
       "format(value, spec='') -> str: value formatted by a spec such as '>8.3f'"),
    FN(hash, 1, PARAMS("obj"), "hash(obj) -> int: the hash of a hashable value"),
    FN(id, 1, PARAMS("obj"), "id(obj) -> int: an int that identifies obj while it lives"),
    FN(callable, 1, PARAMS("obj"), "callable(obj) -> bool: whether obj can be called"),
    FN(enumerate, 1, PARAMS("iterable", "start"),
       "enumerate(iterable, start=0) -> list: (index, item) tuples"),
    FN(zip, 0, PARAMS("*iterables"),
       "zip(*iterables) -> list: tuples of the i-th items, as long as the shortest iterable"),
    FN(map, 1, PARAMS("fn", "*iterables"),
       "map(fn, *iterables) -> list: fn applied to the items (one from each iterable)"),
    FN(filter, 2, PARAMS("fn", "iterable"),
       "filter(fn, iterable) -> list: the items for which fn (or, if None, the item) is true"),
    FN(reversed, 1, PARAMS("seq"), "reversed(seq) -> list: the items in reverse order"),
    FN(sorted, 1, PARAMS("iterable", "key", "reverse"),
       "sorted(iterable, key=None, reverse=False) -> list: the items in order (stable)"),
    FN(min, 0, PARAMS("*args", "key", "default"),
       "min(iterable or *args, key=None, default=...) -> the smallest item"),
    FN(max, 0, PARAMS("*args", "key", "default"),
       "max(iterable or *args, key=None, default=...) -> the largest item"),
    FN(sum, 1, PARAMS("iterable", "start"),
       "sum(iterable, start=0) -> the sum of start and the items"),
    FN(any, 1, PARAMS("iterable"), "any(iterable) -> bool: whether some item is true"),
    FN(all, 1, PARAMS("iterable"), "all(iterable) -> bool: whether every item is true"),
    FN(abs, 1, PARAMS("x"), "abs(x) -> the absolute value of a number"),
    FN(round, 1, PARAMS("number", "ndigits"),
       "round(number, ndigits=None) -> number rounded half to even: an int without ndigits"),
    FN(divmod, 2, PARAMS("a", "b"), "divmod(a, b) -> tuple: (a // b, a % b)"),
    FN(pow, 2, PARAMS("base", "exp", "mod"),
       "pow(base, exp, mod=None) -> base ** exp, or (base ** exp) % mod for ints"),
    FN(hex, 1, PARAMS("x"), "hex(x) -> str: an int in hexadecimal, '0x1f'"),
    FN(oct, 1, PARAMS("x"), "oct(x) -> str: an int in octal, '0o17'"),
    FN(bin, 1, PARAMS("x"), "bin(x) -> str: an int in binary, '0b101'"),
    FN(chr, 1, PARAMS("i"), "chr(i) -> str: the character with code point i"),
    FN(ord, 1, PARAMS("c"), "ord(c) -> int: the code point of a one-character string"),
    FN(isinstance, 2, PARAMS("obj", "class_or_tuple"),
       "isinstance(obj, class_or_tuple) -> bool: whether obj is an instance of the class (or "
       "of one of the tuple's)"),
    FN(getattr, 2, PARAMS("obj", "name", "default"),
       "getattr(obj, name, default) -> attribute name of obj, or default if it has none"),
    FN(hasattr, 2, PARAMS("obj", "name"),
       "hasattr(obj, name) -> bool: whether obj has the attribute"),
    FN(setattr, 3, PARAMS("obj", "name", "value"),
       "setattr(obj, name, value) -> None: sets attribute name of obj"),
    FN(dir, 0, PARAMS("obj"),
       "dir(obj) -> list: the sorted attribute names of obj (without obj: the global names)"),
    FN(help, 1, PARAMS("obj"),
       "help(obj) -> None: prints obj's doc: a function's signature, a module's members, an "
       "object's properties and methods"),
    FN(globals, 0, NOPARAMS, "globals() -> dict: the global names of the script"),
    {0},
};
#undef FN

static void install_take(Value *dict, const char *name, Value *v) {
  dict_set_sym(dict, sym_cstr(name), v);
  val_decref(v);
}

void builtins_install(Interp *I, Value *builtins) {
  for (const Builtin *b = builtin_funcs; b->name; b++)
    install_take(builtins, b->name, val_builtin(b, NULL));
  for (int k = 0; k < VAL_KIND_COUNT; k++)
    if (val_types[k].ctor) install_take(builtins, val_types[k].name, val_type(&val_types[k]));
  for (int e = 0; e < EXC_COUNT; e++)
    install_take(builtins, exc_types[e].name, val_type(&exc_types[e]));
  install_take(builtins, "Exception", val_type(&exc_types[EXC_Error]));
  install_take(builtins, "Ellipsis", val_ellipsis());
  /* SPEC §2: a script sees argv as well as sys.argv; the same list, filled by interp_set_argv */
  Value *argv = interp_argv(I);
  if (argv) dict_set_sym(builtins, sym_cstr("argv"), argv);
}
