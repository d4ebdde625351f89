/* methods.c: the methods of str, list, tuple and dict, as Builtin tables that val_getattr
 * binds to their receiver. Semantics and messages follow CPython 3.11; case mapping and
 * character classes are ASCII-only (other code points are left alone / not matched). A dict's
 * items(), keys() and values() return lists, not views. */
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/value_impl.h"

#define S(self) ((self)->u.str.s)
#define SLEN(self) ((self)->u.str.len)

/* ---- argument helpers ---- */

static bool want_str(Interp *I, Value *v, const char *fmt) {
  if (v->kind == VAL_STR) return true;
  interp_raise(I, EXC_TypeError, fmt, val_type_name(v));
  return false;
}

static bool given(Value *v) { return v && v->kind != VAL_NONE; }

/* An optional int argument (None or absent: dflt). */
static int opt_int(Interp *I, Value *v, int64_t dflt, int64_t *out) {
  *out = dflt;
  return given(v) ? val_as_int(I, v, out) : 0;
}

/* start/end code point arguments of find and friends, as byte offsets into self, clamped as a
 * slice is; false when start lies past the end (nothing can match, not even ""). */
static int str_range(Interp *I, Value *self, Value *vs, Value *ve, int64_t *lo, int64_t *hi) {
  int64_t n = val_str_cplen(self), s, e;
  if (opt_int(I, vs, 0, &s) < 0 || opt_int(I, ve, n, &e) < 0) return -1;
  if (s < 0) s = s + n < 0 ? 0 : s + n;
  if (e < 0) e = e + n < 0 ? 0 : e + n;
  if (e > n) e = n;
  if (s > n || s > e) return 0;
  *lo = val_str_offset(self, s);
  *hi = val_str_offset(self, e);
  return 1;
}

static bool is_space(unsigned char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}
static bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
static bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static bool is_alpha(unsigned char c) { return is_lower(c) || is_upper(c); }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static char to_upper(char c) { return is_lower((unsigned char)c) ? (char)(c - 32) : c; }
static char to_lower(char c) { return is_upper((unsigned char)c) ? (char)(c + 32) : c; }

/* ---- str: searching ---- */

static const char *find_bytes(const char *h, int64_t hn, const char *n, int64_t nn) {
  return memmem(h, (size_t)hn, n, (size_t)nn);
}

static const char *rfind_bytes(const char *h, int64_t hn, const char *n, int64_t nn) {
  for (int64_t i = hn - nn; i >= 0; i--)
    if (!memcmp(h + i, n, (size_t)nn)) return h + i;
  return NULL;
}

/* find/rfind/index/rindex: the code point index of sub, or -1. */
static int str_search(Interp *I, Value *self, Value **a, bool right, const char *name,
                      int64_t *out) {
  int64_t lo, hi;
  if (!want_str(I, a[0], "must be str, not %s")) return -1;
  int r = str_range(I, self, a[1], a[2], &lo, &hi);
  *out = -1;
  if (r <= 0) return r;
  const char *hit = (right ? rfind_bytes : find_bytes)(S(self) + lo, hi - lo, S(a[0]), SLEN(a[0]));
  if (hit) *out = val_str_cpindex(self, hit - S(self));
  return 0;
}

static Value *str_find(Interp *I, Value *self, Value **a) {
  int64_t i;
  return str_search(I, self, a, false, "find", &i) < 0 ? NULL : val_int(i);
}

static Value *str_rfind(Interp *I, Value *self, Value **a) {
  int64_t i;
  return str_search(I, self, a, true, "rfind", &i) < 0 ? NULL : val_int(i);
}

static Value *str_index(Interp *I, Value *self, Value **a) {
  int64_t i;
  if (str_search(I, self, a, false, "index", &i) < 0) return NULL;
  return i < 0 ? interp_raise(I, EXC_ValueError, "substring not found") : val_int(i);
}

static Value *str_count(Interp *I, Value *self, Value **a) {
  int64_t lo, hi, n = 0;
  if (!want_str(I, a[0], "must be str, not %s")) return NULL;
  int r = str_range(I, self, a[1], a[2], &lo, &hi);
  if (r <= 0) return r < 0 ? NULL : val_int(0);
  Value *sub = a[0];
  if (SLEN(sub) == 0) return val_int(val_str_cpindex(self, hi) - val_str_cpindex(self, lo) + 1);
  for (const char *p = S(self) + lo, *end = S(self) + hi;
       (p = find_bytes(p, end - p, S(sub), SLEN(sub))); p += SLEN(sub))
    n++;
  return val_int(n);
}

/* startswith/endswith: prefix a str or a tuple of strs. */
static Value *str_affix(Interp *I, Value *self, Value **a, bool end, const char *name) {
  Value *p = a[0];
  Value **cands = &p;
  int64_t nc = 1, lo, hi;
  if (p->kind == VAL_TUPLE) cands = p->u.list->items, nc = VAL_SEQ_N(p);
  for (int64_t i = 0; i < nc; i++)
    if (cands[i]->kind != VAL_STR)
      return interp_raise(I, EXC_TypeError, "%s first arg must be str or a tuple of str, not %s",
                          name, val_type_name(cands[i]));
  int r = str_range(I, self, a[1], a[2], &lo, &hi);
  if (r <= 0) return r < 0 ? NULL : val_bool(false);
  for (int64_t i = 0; i < nc; i++) {
    int64_t n = SLEN(cands[i]);
    if (n > hi - lo) continue;
    if (!memcmp(S(self) + (end ? hi - n : lo), S(cands[i]), (size_t)n)) return val_bool(true);
  }
  return val_bool(false);
}

static Value *str_startswith(Interp *I, Value *self, Value **a) {
  return str_affix(I, self, a, false, "startswith");
}
static Value *str_endswith(Interp *I, Value *self, Value **a) {
  return str_affix(I, self, a, true, "endswith");
}

/* ---- str: splitting and joining ---- */

static Value *str_join(Interp *I, Value *self, Value **a) {
  Value *items = val_to_list(I, a[0]);
  if (!items) return NULL;
  StrBuf b = STRBUF_INIT;
  double total = 0; /* the result's length, to ask for it once (a double cannot overflow) */
  for (int64_t i = 0; i < VAL_SEQ_N(items); i++) {
    Value *s = VAL_SEQ_ITEM(items, i);
    if (s->kind != VAL_STR) {
      interp_raise(I, EXC_TypeError, "sequence item %lld: expected str instance, %s found",
                   (long long)i, val_type_name(s));
      val_decref(items);
      return NULL;
    }
    total += (double)SLEN(s) + (i ? (double)SLEN(self) : 0);
  }
  if (total > (double)INT64_MAX / 2 || val_sb_reserve(I, &b, (int64_t)total) < 0) {
    if (!interp_error_pending(I)) val_mem_error(I, total);
    val_decref(items);
    return NULL;
  }
  for (int64_t i = 0; i < VAL_SEQ_N(items); i++) {
    Value *s = VAL_SEQ_ITEM(items, i);
    if (i) sb_putn(&b, S(self), (size_t)SLEN(self));
    sb_putn(&b, S(s), (size_t)SLEN(s));
  }
  val_decref(items);
  return val_str_sb(&b);
}

static int split_args(Interp *I, Value **a, int64_t *maxsplit) {
  if (given(a[0]) && !want_str(I, a[0], "must be str or None, not %s")) return -1;
  if (given(a[0]) && SLEN(a[0]) == 0) {
    interp_raise(I, EXC_ValueError, "empty separator");
    return -1;
  }
  if (opt_int(I, a[1], -1, maxsplit) < 0) return -1;
  if (*maxsplit < 0) *maxsplit = INT64_MAX;
  return 0;
}

static void put_piece(Value *list, const char *s, int64_t n) {
  val_list_append_take(list, val_str(s, (size_t)n));
}

static Value *split_white(Value *self, int64_t maxsplit, bool right) {
  Value *l = val_list_new(8);
  const char *s = S(self);
  int64_t n = SLEN(self), i = 0, j = n;
  if (!right) {
    while (true) {
      while (i < n && is_space((unsigned char)s[i])) i++;
      if (i >= n) break;
      int64_t k = i;
      if (maxsplit-- == 0) { /* the rest as it is, trailing whitespace included */
        put_piece(l, s + k, n - k);
        break;
      }
      while (k < n && !is_space((unsigned char)s[k])) k++;
      put_piece(l, s + i, k - i);
      i = k;
    }
    return l;
  }
  while (true) {
    while (j > 0 && is_space((unsigned char)s[j - 1])) j--;
    if (j <= 0) break;
    int64_t k = j;
    if (maxsplit-- == 0) {
      put_piece(l, s, k);
      break;
    }
    while (k > 0 && !is_space((unsigned char)s[k - 1])) k--;
    put_piece(l, s + k, j - k);
    j = k;
  }
  Value **it = l->u.list->items; /* collected right to left */
  for (int64_t x = 0, y = VAL_SEQ_N(l) - 1; x < y; x++, y--) {
    Value *t = it[x];
    it[x] = it[y], it[y] = t;
  }
  return l;
}

static Value *split_sep(Value *self, Value *sep, int64_t maxsplit, bool right) {
  Value *l = val_list_new(8);
  const char *s = S(self), *p = S(sep);
  int64_t n = SLEN(self), m = SLEN(sep), lo = 0, hi = n;
  const char *hit;
  if (!right) {
    while (maxsplit-- > 0 && (hit = find_bytes(s + lo, n - lo, p, m))) {
      put_piece(l, s + lo, hit - (s + lo));
      lo = hit - s + m;
    }
    put_piece(l, s + lo, n - lo);
    return l;
  }
  while (maxsplit-- > 0 && (hit = rfind_bytes(s, hi, p, m))) {
    put_piece(l, hit + m, s + hi - (hit + m));
    hi = hit - s;
  }
  put_piece(l, s, hi);
  Value **it = l->u.list->items;
  for (int64_t x = 0, y = VAL_SEQ_N(l) - 1; x < y; x++, y--) {
    Value *t = it[x];
    it[x] = it[y], it[y] = t;
  }
  return l;
}

static Value *str_split_dir(Interp *I, Value *self, Value **a, bool right) {
  int64_t maxsplit;
  if (split_args(I, a, &maxsplit) < 0) return NULL;
  return given(a[0]) ? split_sep(self, a[0], maxsplit, right) : split_white(self, maxsplit, right);
}

static Value *str_split(Interp *I, Value *self, Value **a) {
  return str_split_dir(I, self, a, false);
}
static Value *str_rsplit(Interp *I, Value *self, Value **a) {
  return str_split_dir(I, self, a, true);
}

static bool line_break_at(const char *s, int64_t n, int64_t i, int64_t *len) {
  unsigned char c = (unsigned char)s[i];
  *len = 1;
  if (c == '\r')
    *len = i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
  else if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0x85)
    *len = 2;
  else if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
           ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9))
    *len = 3;
  else
    return c == '\n' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e);
  return true;
}

static Value *str_splitlines(Interp *I, Value *self, Value **a) {
  int keep = a[0] ? val_truthy(I, a[0]) : 0;
  if (keep < 0) return NULL;
  Value *l = val_list_new(8);
  int64_t n = SLEN(self), start = 0, blen;
  for (int64_t i = 0; i < n; i++) {
    if (!line_break_at(S(self), n, i, &blen)) continue;
    put_piece(l, S(self) + start, i - start + (keep ? blen : 0));
    i += blen - 1;
    start = i + 1;
  }
  if (start < n) put_piece(l, S(self) + start, n - start);
  return l;
}

static Value *str_partition_dir(Interp *I, Value *self, Value *sep, bool right) {
  if (!want_str(I, sep, "must be str, not %s")) return NULL;
  if (SLEN(sep) == 0) return interp_raise(I, EXC_ValueError, "empty separator");
  const char *hit = (right ? rfind_bytes : find_bytes)(S(self), SLEN(self), S(sep), SLEN(sep));
  Value *parts[3];
  if (!hit) {
    Value *e = val_str("", 0);
    parts[0] = right ? e : self, parts[1] = e, parts[2] = right ? self : e;
    return val_tuple_of(3, parts[0], parts[1], parts[2]);
  }
  int64_t at = hit - S(self);
  parts[0] = val_str(S(self), (size_t)at);
  parts[2] = val_str(hit + SLEN(sep), (size_t)(SLEN(self) - at - SLEN(sep)));
  Value *t = val_tuple_of(3, parts[0], sep, parts[2]);
  val_decref(parts[0]);
  val_decref(parts[2]);
  return t;
}

static Value *str_partition(Interp *I, Value *self, Value **a) {
  return str_partition_dir(I, self, a[0], false);
}
static Value *str_rpartition(Interp *I, Value *self, Value **a) {
  return str_partition_dir(I, self, a[0], true);
}

/* ---- str: transforming ---- */

/* Is the code point at s[*i] in the strip set? (NULL set: whitespace.) Advances *i past it. */
static bool strip_member(Value *chars, const char *s, int64_t n, int64_t *i) {
  if (!chars) return is_space((unsigned char)s[(*i)++]);
  int64_t start = *i;
  val_utf8_decode(s, n, i);
  /* in valid UTF-8 a match of a whole code point can only start at a code point of chars */
  return find_bytes(S(chars), SLEN(chars), s + start, *i - start) != NULL;
}

static Value *str_strip_dir(Interp *I, Value *self, Value *chars, bool left, bool right) {
  if (given(chars) && chars->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "%s arg must be None or str",
                        left && right ? "strip"
                        : left        ? "lstrip"
                                      : "rstrip");
  Value *set = given(chars) ? chars : NULL;
  const char *s = S(self);
  int64_t n = SLEN(self), lo = 0, hi = n, i;
  while (left && lo < hi && (i = lo, strip_member(set, s, n, &i))) lo = i;
  while (right && hi > lo) {
    int64_t st = hi - 1;
    while (st > lo && val_utf8_cont((unsigned char)s[st])) st--;
    i = st;
    if (!strip_member(set, s, n, &i)) break;
    hi = st;
  }
  return val_str(s + lo, (size_t)(hi - lo));
}

static Value *str_strip(Interp *I, Value *self, Value **a) {
  return str_strip_dir(I, self, a[0], true, true);
}
static Value *str_lstrip(Interp *I, Value *self, Value **a) {
  return str_strip_dir(I, self, a[0], true, false);
}
static Value *str_rstrip(Interp *I, Value *self, Value **a) {
  return str_strip_dir(I, self, a[0], false, true);
}

static Value *str_replace(Interp *I, Value *self, Value **a) {
  if (!want_str(I, a[0], "replace() argument 1 must be str, not %s") ||
      !want_str(I, a[1], "replace() argument 2 must be str, not %s"))
    return NULL;
  int64_t count;
  if (opt_int(I, a[2], -1, &count) < 0) return NULL;
  if (count < 0) count = INT64_MAX;
  const char *s = S(self), *old = S(a[0]), *hit;
  int64_t n = SLEN(self), m = SLEN(a[0]), pos = 0, hits = 0;
  StrBuf b = STRBUF_INIT;
  if (m == 0)
    hits = count < val_str_cplen(self) + 1 ? count : val_str_cplen(self) + 1;
  for (int64_t p = 0; m && hits < count && (hit = find_bytes(s + p, n - p, old, m)); hits++)
    p = hit - s + m;
  /* ("a" * 10**5).replace("", "b" * 10**5) is 10**10 bytes: ask for it once */
  double total = (double)n + (double)hits * (double)(SLEN(a[1]) - m);
  if (total > (double)INT64_MAX / 2) return val_mem_error(I, total);
  if (val_sb_reserve(I, &b, (int64_t)total) < 0) return NULL;
  if (m == 0) { /* "" matches before every code point and at the end */
    for (int64_t i = 0; i <= n; count--) {
      if (count > 0) sb_putn(&b, S(a[1]), (size_t)SLEN(a[1]));
      if (i == n) break;
      int64_t j = i;
      val_utf8_decode(s, n, &j);
      sb_putn(&b, s + i, (size_t)(j - i));
      i = j;
    }
    return val_str_sb(&b);
  }
  for (; count > 0 && (hit = find_bytes(s + pos, n - pos, old, m)); count--) {
    sb_putn(&b, s + pos, (size_t)(hit - s - pos));
    sb_putn(&b, S(a[1]), (size_t)SLEN(a[1]));
    pos = hit - s + m;
  }
  sb_putn(&b, s + pos, (size_t)(n - pos));
  return val_str_sb(&b);
}

/* Rewrites ASCII letters: mode 'u' upper, 'l' lower, 't' title, 'c' capitalize. */
static Value *str_recase(Interp *I, Value *self, char mode) {
  char *s = val_alloc_text(I, SLEN(self));
  if (!s) return NULL;
  memcpy(s, S(self), (size_t)SLEN(self));
  bool prev_cased = false;
  for (int64_t i = 0; i < SLEN(self); i++) {
    char c = s[i];
    switch (mode) {
    case 'u':
      s[i] = to_upper(c);
      break;
    case 'l':
      s[i] = to_lower(c);
      break;
    case 't':
      s[i] = prev_cased ? to_lower(c) : to_upper(c);
      break;
    default:
      s[i] = i == 0 ? to_upper(c) : to_lower(c);
      break;
    }
    prev_cased = is_alpha((unsigned char)c);
  }
  return val_str_take(s, (size_t)SLEN(self));
}

static Value *str_upper(Interp *I, Value *self, Value **a) { return str_recase(I, self, 'u'); }
static Value *str_lower(Interp *I, Value *self, Value **a) { return str_recase(I, self, 'l'); }
static Value *str_title(Interp *I, Value *self, Value **a) { return str_recase(I, self, 't'); }
static Value *str_capitalize(Interp *I, Value *self, Value **a) {
  return str_recase(I, self, 'c');
}

/* isdigit and friends: true when non-empty and every byte passes (ASCII classes). */
static Value *str_all(Value *self, bool (*pred)(unsigned char)) {
  if (SLEN(self) == 0) return val_bool(false);
  for (int64_t i = 0; i < SLEN(self); i++)
    if (!pred((unsigned char)S(self)[i])) return val_bool(false);
  return val_bool(true);
}

static bool is_alnum(unsigned char c) { return is_alpha(c) || is_digit(c); }

static Value *str_isdigit(Interp *I, Value *self, Value **a) { return str_all(self, is_digit); }
static Value *str_isalpha(Interp *I, Value *self, Value **a) { return str_all(self, is_alpha); }
static Value *str_isalnum(Interp *I, Value *self, Value **a) { return str_all(self, is_alnum); }
static Value *str_isspace(Interp *I, Value *self, Value **a) { return str_all(self, is_space); }

/* isupper/islower: some cased letter, and none of the other case. */
static Value *str_hascase(Value *self, bool (*want)(unsigned char), bool (*other)(unsigned char)) {
  bool any = false;
  for (int64_t i = 0; i < SLEN(self); i++) {
    if (other((unsigned char)S(self)[i])) return val_bool(false);
    any |= want((unsigned char)S(self)[i]);
  }
  return val_bool(any);
}

static Value *str_isupper(Interp *I, Value *self, Value **a) {
  return str_hascase(self, is_upper, is_lower);
}
static Value *str_islower(Interp *I, Value *self, Value **a) {
  return str_hascase(self, is_lower, is_upper);
}

/* ljust/rjust/center: 'l', 'r' or 'c'. */
static Value *str_justify(Interp *I, Value *self, Value **a, char how) {
  int64_t width, n = val_str_cplen(self);
  if (val_as_int(I, a[0], &width) < 0) return NULL;
  Value *fill = a[1];
  if (fill && (fill->kind != VAL_STR || val_str_cplen(fill) != 1)) {
    if (fill->kind != VAL_STR)
      return interp_raise(I, EXC_TypeError,
                          "The fill character must be a unicode character, not %s",
                          val_type_name(fill));
    return interp_raise(I, EXC_TypeError, "The fill character must be exactly one character long");
  }
  if (width <= n) return val_incref(self);
  int64_t marg = width - n, left = how == 'r'   ? marg
                                   : how == 'l' ? 0
                                                : marg / 2 + (marg & width & 1);
  StrBuf b = STRBUF_INIT;
  const char *f = fill ? S(fill) : " ";
  size_t fl = fill ? (size_t)SLEN(fill) : 1;
  if (marg > INT64_MAX / 4 - SLEN(self)) return val_mem_error(I, (double)marg * (double)fl);
  if (val_sb_reserve(I, &b, marg * (int64_t)fl + SLEN(self)) < 0) return NULL;
  for (int64_t i = 0; i < left; i++) sb_putn(&b, f, fl);
  sb_putn(&b, S(self), (size_t)SLEN(self));
  for (int64_t i = left; i < marg; i++) sb_putn(&b, f, fl);
  return val_str_sb(&b);
}

static Value *str_ljust(Interp *I, Value *self, Value **a) { return str_justify(I, self, a, 'l'); }
static Value *str_rjust(Interp *I, Value *self, Value **a) { return str_justify(I, self, a, 'r'); }
static Value *str_center(Interp *I, Value *self, Value **a) { return str_justify(I, self, a, 'c'); }

static Value *str_zfill(Interp *I, Value *self, Value **a) {
  int64_t width, n = val_str_cplen(self);
  if (val_as_int(I, a[0], &width) < 0) return NULL;
  if (width <= n) return val_incref(self);
  StrBuf b = STRBUF_INIT;
  if (val_sb_reserve(I, &b, width - n + SLEN(self)) < 0) return NULL;
  int64_t sign = SLEN(self) > 0 && (S(self)[0] == '+' || S(self)[0] == '-');
  sb_putn(&b, S(self), (size_t)sign);
  for (int64_t i = n; i < width; i++) sb_putc(&b, '0');
  sb_putn(&b, S(self) + sign, (size_t)(SLEN(self) - sign));
  return val_str_sb(&b);
}

static Value *str_format(Interp *I, Value *self, Value **a) {
  return val_str_format_call(I, self, a[0], a[1]);
}

#define STR_RANGE_PARAMS PARAMS("sub", "start", "end")
const Builtin val_str_methods[] = {
    {"capitalize", str_capitalize, 0, NOPARAMS,
     "capitalize() -> str: first letter upper case, the rest lower case"},
    {"center", str_center, 1, PARAMS("width", "fillchar"),
     "center(width, fillchar=' ') -> str: centered in a field of width"},
    {"count", str_count, 1, STR_RANGE_PARAMS,
     "count(sub, start=None, end=None) -> int: non-overlapping occurrences of sub"},
    {"endswith", str_endswith, 1, PARAMS("suffix", "start", "end"),
     "endswith(suffix, start=None, end=None) -> bool: ends with suffix (a str or tuple of str)"},
    {"find", str_find, 1, STR_RANGE_PARAMS,
     "find(sub, start=None, end=None) -> int: lowest index of sub, or -1"},
    {"format", str_format, 0, PARAMS("*args", "**kwargs"),
     "format(*args, **kwargs) -> str: replaces {} fields with the arguments, formatted"},
    {"index", str_index, 1, STR_RANGE_PARAMS,
     "index(sub, start=None, end=None) -> int: like find, but ValueError if absent"},
    {"isalnum", str_isalnum, 0, NOPARAMS, "isalnum() -> bool: non-empty and all letters or digits"},
    {"isalpha", str_isalpha, 0, NOPARAMS, "isalpha() -> bool: non-empty and all letters"},
    {"isdigit", str_isdigit, 0, NOPARAMS, "isdigit() -> bool: non-empty and all digits"},
    {"islower", str_islower, 0, NOPARAMS, "islower() -> bool: has cased letters, all lower case"},
    {"isspace", str_isspace, 0, NOPARAMS, "isspace() -> bool: non-empty and all whitespace"},
    {"isupper", str_isupper, 0, NOPARAMS, "isupper() -> bool: has cased letters, all upper case"},
    {"join", str_join, 1, PARAMS("iterable"),
     "join(iterable) -> str: the strs of iterable with this str between them"},
    {"ljust", str_ljust, 1, PARAMS("width", "fillchar"),
     "ljust(width, fillchar=' ') -> str: left-justified in a field of width"},
    {"lower", str_lower, 0, NOPARAMS, "lower() -> str: letters in lower case"},
    {"lstrip", str_lstrip, 0, PARAMS("chars"),
     "lstrip(chars=None) -> str: leading whitespace (or chars) removed"},
    {"partition", str_partition, 1, PARAMS("sep"),
     "partition(sep) -> tuple: (before, sep, after) at the first sep"},
    {"replace", str_replace, 2, PARAMS("old", "new", "count"),
     "replace(old, new, count=-1) -> str: occurrences of old replaced by new"},
    {"rfind", str_rfind, 1, STR_RANGE_PARAMS,
     "rfind(sub, start=None, end=None) -> int: highest index of sub, or -1"},
    {"rjust", str_rjust, 1, PARAMS("width", "fillchar"),
     "rjust(width, fillchar=' ') -> str: right-justified in a field of width"},
    {"rpartition", str_rpartition, 1, PARAMS("sep"),
     "rpartition(sep) -> tuple: (before, sep, after) at the last sep"},
    {"rsplit", str_rsplit, 0, PARAMS("sep", "maxsplit"),
     "rsplit(sep=None, maxsplit=-1) -> list: split from the right"},
    {"rstrip", str_rstrip, 0, PARAMS("chars"),
     "rstrip(chars=None) -> str: trailing whitespace (or chars) removed"},
    {"split", str_split, 0, PARAMS("sep", "maxsplit"),
     "split(sep=None, maxsplit=-1) -> list: the words, split at sep or whitespace"},
    {"splitlines", str_splitlines, 0, PARAMS("keepends"),
     "splitlines(keepends=False) -> list: the lines"},
    {"startswith", str_startswith, 1, PARAMS("prefix", "start", "end"),
     "startswith(prefix, start=None, end=None) -> bool: starts with prefix (a str or tuple of "
     "str)"},
    {"strip", str_strip, 0, PARAMS("chars"),
     "strip(chars=None) -> str: leading and trailing whitespace (or chars) removed"},
    {"title", str_title, 0, NOPARAMS, "title() -> str: each word capitalized"},
    {"upper", str_upper, 0, NOPARAMS, "upper() -> str: letters in upper case"},
    {"zfill", str_zfill, 1, PARAMS("width"),
     "zfill(width) -> str: padded with zeros on the left, after any sign"},
    {0},
};

/* ---- sorting ---- */

typedef struct SortCtx {
  Interp *I;
  Value **keys;
  bool reverse, failed;
} SortCtx;

/* Does item x go strictly before item y? Reversed, the comparison flips, which keeps equal
 * items in their original order as Python's reverse=True does. */
static bool goes_before(SortCtx *c, int64_t x, int64_t y) {
  if (c->failed) return false;
  int r =
      c->reverse ? val_less(c->I, c->keys[y], c->keys[x]) : val_less(c->I, c->keys[x], c->keys[y]);
  if (r < 0) c->failed = true;
  return r == 1;
}

/* Bottom-up merge sort of a permutation: stable, O(n log n) comparisons. */
static void merge_sort(SortCtx *c, int64_t *idx, int64_t n) {
  int64_t *tmp = val_alloc(c->I, n, sizeof *tmp);
  if (!tmp) {
    c->failed = true;
    return;
  }
  for (int64_t w = 1; w < n && !c->failed; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = goes_before(c, idx[j], idx[i]) ? idx[j++] : idx[i++];
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
  }
  free(tmp);
}

static Value **sort_keys(Interp *I, Value **items, int64_t n, Value *key) {
  Value **keys = val_alloc(I, n, sizeof *keys);
  for (int64_t i = 0; keys && i < n; i++) {
    keys[i] = interp_callv(I, key, 1, &items[i]);
    if (!keys[i]) {
      for (int64_t j = 0; j < i; j++) val_decref(keys[j]);
      free(keys);
      return NULL;
    }
  }
  return keys;
}

/* Sorts items[0..n) in place, or leaves them as they were on error. */
static int sort_items(Interp *I, Value **items, int64_t n, Value *key, bool reverse) {
  if (n == 0) return 0; /* nothing to sort (and val_alloc of nothing is NULL) */
  bool keyed = key && key->kind != VAL_NONE;
  Value **keys = keyed ? sort_keys(I, items, n, key) : items;
  if (!keys) return -1;
  SortCtx c = {I, keys, reverse, false};
  int64_t *idx = val_alloc(I, n, sizeof *idx);
  for (int64_t i = 0; idx && i < n; i++) idx[i] = i;
  if (idx) merge_sort(&c, idx, n);
  Value **sorted = idx && !c.failed ? val_alloc(I, n, sizeof *sorted) : NULL;
  if (sorted) {
    for (int64_t i = 0; i < n; i++) sorted[i] = items[idx[i]];
    memcpy(items, sorted, (size_t)n * sizeof *items);
    free(sorted);
  }
  c.failed = !sorted;
  free(idx);
  if (keyed) {
    for (int64_t i = 0; i < n; i++) val_decref(keys[i]);
    free(keys);
  }
  return c.failed ? -1 : 0;
}

/* The list looks empty while key functions and comparisons run (as in CPython), so code they
 * call cannot see or break a half-sorted array. */
int val_list_sort(Interp *I, Value *list, Value *key, bool reverse) {
  List *l = list->u.list;
  Value **items = l->items;
  int64_t n = l->n, cap = l->cap;
  l->items = NULL;
  l->n = l->cap = 0;
  int r = sort_items(I, items, n, key, reverse);
  Value **added = l->items;
  int64_t nadded = l->n;
  l->items = items, l->n = n, l->cap = cap;
  if (nadded || added) {
    for (int64_t i = 0; i < nadded; i++) val_decref(added[i]);
    free(added);
    if (r == 0) interp_raise(I, EXC_ValueError, "list modified during sort");
    return -1;
  }
  return r;
}

/* ---- list ---- */

static Value *list_append(Interp *I, Value *self, Value **a) {
  if (val_list_push_take(I, self, val_incref(a[0])) < 0) return NULL;
  return val_none();
}

static Value *list_extend(Interp *I, Value *self, Value **a) {
  Value *items = val_to_list(I, a[0]); /* a copy: l.extend(l) doubles l */
  if (!items) return NULL;
  if (val_list_reserve(I, self, VAL_SEQ_N(items)) < 0) return val_decref(items), NULL;
  for (int64_t i = 0; i < VAL_SEQ_N(items); i++) val_list_append(self, VAL_SEQ_ITEM(items, i));
  val_decref(items);
  return val_none();
}

static Value *list_pop(Interp *I, Value *self, Value **a) {
  int64_t i, n = VAL_SEQ_N(self);
  if (opt_int(I, a[0], -1, &i) < 0) return NULL;
  if (n == 0) return interp_raise(I, EXC_IndexError, "pop from empty list");
  if (i < 0) i += n;
  if (i < 0 || i >= n) return interp_raise(I, EXC_IndexError, "pop index out of range");
  List *l = self->u.list;
  Value *v = l->items[i];
  memmove(l->items + i, l->items + i + 1, (size_t)(n - i - 1) * sizeof *l->items);
  l->n--;
  return v;
}

static Value *list_insert(Interp *I, Value *self, Value **a) {
  int64_t i, n = VAL_SEQ_N(self);
  if (val_as_int(I, a[0], &i) < 0) return NULL;
  if (i < 0) i = i + n < 0 ? 0 : i + n;
  if (i > n) i = n;
  if (val_list_push_take(I, self, val_incref(a[1])) < 0) return NULL;
  List *l = self->u.list;
  memmove(l->items + i + 1, l->items + i, (size_t)(n - i) * sizeof *l->items);
  l->items[i] = a[1];
  return val_none();
}

/* The first index in [start, stop) holding x, -1 if none, -2 on error. */
static int64_t seq_find(Interp *I, Value *seq, Value *x, Value *vs, Value *ve) {
  int64_t n = VAL_SEQ_N(seq), s, e;
  if (opt_int(I, vs, 0, &s) < 0 || opt_int(I, ve, n, &e) < 0) return -2;
  if (s < 0) s = s + n < 0 ? 0 : s + n;
  if (e < 0) e = e + n < 0 ? 0 : e + n;
  for (int64_t i = s; i < e && i < VAL_SEQ_N(seq); i++) {
    int r = val_eq(I, VAL_SEQ_ITEM(seq, i), x);
    if (r) return r < 0 ? -2 : i;
  }
  return -1;
}

static Value *list_index(Interp *I, Value *self, Value **a) {
  int64_t i = seq_find(I, self, a[0], a[1], a[2]);
  if (i >= 0) return val_int(i);
  if (i == -2) return NULL;
  Value *r = val_repr(I, a[0]);
  if (r) interp_raise(I, EXC_ValueError, "%s is not in list", S(r));
  val_xdecref(r);
  return NULL;
}

static Value *seq_count(Interp *I, Value *self, Value **a) {
  int64_t n = 0;
  for (int64_t i = 0; i < VAL_SEQ_N(self); i++) {
    int r = val_eq(I, VAL_SEQ_ITEM(self, i), a[0]);
    if (r < 0) return NULL;
    n += r;
  }
  return val_int(n);
}

static Value *list_remove(Interp *I, Value *self, Value **a) {
  int64_t i = seq_find(I, self, a[0], NULL, NULL);
  if (i == -2) return NULL;
  if (i < 0) return interp_raise(I, EXC_ValueError, "list.remove(x): x not in list");
  List *l = self->u.list;
  Value *v = l->items[i];
  memmove(l->items + i, l->items + i + 1, (size_t)(l->n - i - 1) * sizeof *l->items);
  l->n--;
  val_decref(v);
  return val_none();
}

static Value *list_sort(Interp *I, Value *self, Value **a) {
  int rev = a[1] ? val_truthy(I, a[1]) : 0;
  if (rev < 0 || val_list_sort(I, self, a[0], rev) < 0) return NULL;
  return val_none();
}

static Value *list_reverse(Interp *I, Value *self, Value **a) {
  Value **it = self->u.list->items;
  for (int64_t x = 0, y = VAL_SEQ_N(self) - 1; x < y; x++, y--) {
    Value *t = it[x];
    it[x] = it[y], it[y] = t;
  }
  return val_none();
}

static Value *list_copy(Interp *I, Value *self, Value **a) { return val_to_list(I, self); }

static Value *list_clear(Interp *I, Value *self, Value **a) {
  List *l = self->u.list;
  Value **items = l->items;
  int64_t n = l->n;
  l->items = NULL;
  l->n = l->cap = 0;
  for (int64_t i = 0; i < n; i++) val_decref(items[i]);
  free(items);
  return val_none();
}

const Builtin val_list_methods[] = {
    {"append", list_append, 1, PARAMS("object"), "append(object) -> None: adds object at the end"},
    {"clear", list_clear, 0, NOPARAMS, "clear() -> None: removes every item"},
    {"copy", list_copy, 0, NOPARAMS, "copy() -> list: a shallow copy"},
    {"count", seq_count, 1, PARAMS("value"), "count(value) -> int: how many items equal value"},
    {"extend", list_extend, 1, PARAMS("iterable"),
     "extend(iterable) -> None: appends every item of iterable"},
    {"index", list_index, 1, PARAMS("value", "start", "stop"),
     "index(value, start=0, stop=len) -> int: first index of value; ValueError if absent"},
    {"insert", list_insert, 2, PARAMS("index", "object"),
     "insert(index, object) -> None: inserts object before index"},
    {"pop", list_pop, 0, PARAMS("index"),
     "pop(index=-1) -> object: removes and returns the item at index"},
    {"remove", list_remove, 1, PARAMS("value"),
     "remove(value) -> None: removes the first item equal to value"},
    {"reverse", list_reverse, 0, NOPARAMS, "reverse() -> None: reverses the list in place"},
    {"sort", list_sort, 0, PARAMS("key", "reverse"),
     "sort(key=None, reverse=False) -> None: stable sort in place"},
    {0},
};

/* ---- tuple ---- */

static Value *tuple_index(Interp *I, Value *self, Value **a) {
  int64_t i = seq_find(I, self, a[0], a[1], a[2]);
  if (i >= 0) return val_int(i);
  return i == -2 ? NULL : interp_raise(I, EXC_ValueError, "tuple.index(x): x not in tuple");
}

const Builtin val_tuple_methods[] = {
    {"count", seq_count, 1, PARAMS("value"), "count(value) -> int: how many items equal value"},
    {"index", tuple_index, 1, PARAMS("value", "start", "stop"),
     "index(value, start=0, stop=len) -> int: first index of value; ValueError if absent"},
    {0},
};

/* ---- dict ---- */

static Value *dict_items_m(Interp *I, Value *self, Value **a) {
  Value *l = val_list_alloc(I, dict_len(self)), *k, *v;
  if (!l) return NULL;
  for (int64_t pos = 0; dict_next(self, &pos, &k, &v);)
    val_list_append_take(l, val_tuple_of(2, k, v));
  return l;
}

static Value *dict_keys_m(Interp *I, Value *self, Value **a) { return dict_keys(self); }

static Value *dict_values_m(Interp *I, Value *self, Value **a) {
  Value *l = val_list_alloc(I, dict_len(self)), *k, *v;
  if (!l) return NULL;
  for (int64_t pos = 0; dict_next(self, &pos, &k, &v);) val_list_append(l, v);
  return l;
}

static Value *dict_get_m(Interp *I, Value *self, Value **a) {
  Value *v = dict_get(I, self, a[0]);
  if (v) return val_incref(v);
  if (interp_error_pending(I)) return NULL;
  return val_incref(a[1] ? a[1] : val_none());
}

static Value *dict_pop_m(Interp *I, Value *self, Value **a) {
  Value *v = dict_get(I, self, a[0]);
  if (!v) {
    if (interp_error_pending(I)) return NULL;
    return a[1] ? val_incref(a[1]) : val_key_error(I, a[0]);
  }
  val_incref(v);
  if (dict_del(I, self, a[0]) < 0) {
    val_decref(v);
    return NULL;
  }
  return v;
}

static Value *dict_setdefault_m(Interp *I, Value *self, Value **a) {
  Value *v = dict_get(I, self, a[0]);
  if (v) return val_incref(v);
  if (interp_error_pending(I)) return NULL;
  Value *d = a[1] ? a[1] : val_none();
  return dict_set(I, self, a[0], d) < 0 ? NULL : val_incref(d);
}

/* update from an iterable of pairs */
static int update_pairs(Interp *I, Value *self, Value *src) {
  Value *items = val_to_list(I, src);
  if (!items) return -1;
  int r = 0;
  for (int64_t i = 0; r == 0 && i < VAL_SEQ_N(items); i++) {
    Value *p = VAL_SEQ_ITEM(items, i);
    if (p->kind != VAL_LIST && p->kind != VAL_TUPLE) {
      interp_raise(I, EXC_TypeError,
                   "cannot convert dictionary update sequence element #%lld to a sequence",
                   (long long)i);
      r = -1;
    } else if (VAL_SEQ_N(p) != 2) {
      interp_raise(I, EXC_ValueError,
                   "dictionary update sequence element #%lld has length %lld; 2 is required",
                   (long long)i, (long long)VAL_SEQ_N(p));
      r = -1;
    } else {
      r = dict_set(I, self, VAL_SEQ_ITEM(p, 0), VAL_SEQ_ITEM(p, 1));
    }
  }
  val_decref(items);
  return r;
}

static int update_dict(Interp *I, Value *self, Value *src) {
  Value *k, *v;
  if (src == self) return 0;
  for (int64_t pos = 0; dict_next(src, &pos, &k, &v);)
    if (dict_set(I, self, k, v) < 0) return -1;
  return 0;
}

static Value *dict_update_m(Interp *I, Value *self, Value **a) {
  if (a[0] &&
      (a[0]->kind == VAL_DICT ? update_dict(I, self, a[0]) : update_pairs(I, self, a[0])) < 0)
    return NULL;
  if (a[1] && update_dict(I, self, a[1]) < 0) return NULL;
  return val_none();
}

static Value *dict_copy_m(Interp *I, Value *self, Value **a) { return dict_copy(self); }

static Value *dict_clear_m(Interp *I, Value *self, Value **a) {
  dict_clear(self);
  return val_none();
}

const Builtin val_dict_methods[] = {
    {"clear", dict_clear_m, 0, NOPARAMS, "clear() -> None: removes every item"},
    {"copy", dict_copy_m, 0, NOPARAMS, "copy() -> dict: a shallow copy"},
    {"get", dict_get_m, 1, PARAMS("key", "default"),
     "get(key, default=None) -> object: the value for key, or default"},
    {"items", dict_items_m, 0, NOPARAMS,
     "items() -> list: (key, value) tuples in insertion order (a list, not a view)"},
    {"keys", dict_keys_m, 0, NOPARAMS,
     "keys() -> list: the keys in insertion order (a list, not a view)"},
    {"pop", dict_pop_m, 1, PARAMS("key", "default"),
     "pop(key, default) -> object: removes key and returns its value; KeyError if absent and no "
     "default"},
    {"setdefault", dict_setdefault_m, 1, PARAMS("key", "default"),
     "setdefault(key, default=None) -> object: the value for key, inserting default if absent"},
    {"update", dict_update_m, 0, PARAMS("other", "**kwargs"),
     "update(other=None, **kwargs) -> None: sets the items of a dict or of (key, value) pairs"},
    {"values", dict_values_m, 0, NOPARAMS,
     "values() -> list: the values in insertion order (a list, not a view)"},
    {0},
};
