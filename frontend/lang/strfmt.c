/* strfmt.c: turning values into text: repr and str, the format-spec mini-language (format(),
 * f-strings, str.format), printf-style `%` formatting, and str.format's field parser. All of
 * it follows CPython 3.11, messages included. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/state.h"
#include "frontend/lang/value_impl.h"

/* ---- repr ---- */

void val_str_repr(StrBuf *b, const char *s, int64_t len) {
  bool has_sq = memchr(s, '\'', (size_t)len), has_dq = memchr(s, '"', (size_t)len);
  char q = has_sq && !has_dq ? '"' : '\'';
  sb_putc(b, q);
  for (int64_t i = 0; i < len;) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) {
      int64_t start = i;
      int cp = val_utf8_decode(s, len, &i);
      if (cp <= 0xA0 || cp == 0xAD)
        sb_printf(b, "\\x%02x", cp); /* not printable */
      else if (cp == 0x2028 || cp == 0x2029)
        sb_printf(b, "\\u%04x", cp);
      else
        sb_putn(b, s + start, (size_t)(i - start));
      continue;
    }
    i++;
    if (c == (unsigned char)q || c == '\\')
      sb_putc(b, '\\'), sb_putc(b, (char)c);
    else if (c == '\n')
      sb_puts(b, "\\n");
    else if (c == '\r')
      sb_puts(b, "\\r");
    else if (c == '\t')
      sb_puts(b, "\\t");
    else if (c < 0x20 || c == 0x7F)
      sb_printf(b, "\\x%02x", c);
    else
      sb_putc(b, (char)c);
  }
  sb_putc(b, q);
}

/* Decimal digits of a double: value = 0.d[0]d[1]... * 10^(exp+1), i.e. d[0] is at 10^exp. */
enum { FMT_MAX_PREC = 1000 };
typedef struct Digits {
  char d[FMT_MAX_PREC + 40];
  int nd, exp;
} Digits;

static void parse_digits(Digits *g, const char *buf) {
  const char *p = buf + (*buf == '-');
  g->nd = 0;
  for (; *p && *p != 'e'; p++)
    if (*p != '.') g->d[g->nd++] = *p;
  g->exp = atoi(p + 1);
}

static void digits_prec(Digits *g, double x, int nsig) {
  char buf[FMT_MAX_PREC + 40];
  snprintf(buf, sizeof buf, "%.*e", nsig - 1, x);
  parse_digits(g, buf);
}

/* The fewest significant digits that read back as exactly x (repr's rule). */
static void digits_shortest(Digits *g, double x) {
  char buf[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, x);
    if (strtod(buf, NULL) == x) break;
  }
  parse_digits(g, buf);
}

/* Lays out digits in fixed or scientific notation. strip: drop trailing zeros; alt: keep the
 * point even with nothing after it; dot0: a fixed number shows at least one decimal ("1.0"). */
static void render_digits(StrBuf *b, const Digits *g, bool sci, bool strip, bool alt, bool dot0) {
  int nd = g->nd, e = g->exp;
  if (strip)
    while (nd > 1 && g->d[nd - 1] == '0') nd--;
  if (sci) {
    sb_putc(b, g->d[0]);
    if (nd > 1 || alt) sb_putc(b, '.');
    sb_putn(b, g->d + 1, (size_t)(nd - 1));
    sb_printf(b, "e%c%02d", e < 0 ? '-' : '+', abs(e));
  } else if (e >= 0) {
    for (int i = 0; i <= e; i++) sb_putc(b, i < nd ? g->d[i] : '0');
    if (nd > e + 1)
      sb_putc(b, '.'), sb_putn(b, g->d + e + 1, (size_t)(nd - e - 1));
    else if (dot0)
      sb_puts(b, ".0");
    else if (alt)
      sb_putc(b, '.');
  } else {
    sb_puts(b, "0.");
    for (int i = 0; i < -e - 1; i++) sb_putc(b, '0');
    sb_putn(b, g->d, (size_t)nd);
  }
}

void val_float_repr(StrBuf *b, double f) {
  if (isnan(f)) return sb_puts(b, "nan");
  if (isinf(f)) return sb_puts(b, f < 0 ? "-inf" : "inf");
  Digits g;
  digits_shortest(&g, fabs(f));
  if (signbit(f)) sb_putc(b, '-');
  render_digits(b, &g, g.exp < -4 || g.exp >= 16, false, false, true);
}

/* Containers being printed (TesState.busy), innermost last: meeting one again prints [...] as
 * Python does. */
static bool busy_enter(Value *v) {
  TesState *G = tes_state();
  for (int i = 0; i < G->busy.n; i++)
    if (G->busy.v[i] == v) return false;
  if (G->busy.n == G->busy.cap) {
    G->busy.cap = G->busy.cap ? 2 * G->busy.cap : 64;
    G->busy.v = xrealloc(G->busy.v, (size_t)G->busy.cap * sizeof *G->busy.v);
  }
  G->busy.v[G->busy.n++] = v;
  return true;
}

/* Opens a container's repr: 1 go on, 0 already printed (done), -1 error. */
static int repr_open(Interp *I, StrBuf *b, Value *v, const char *cycle) {
  if (val_enter(I, " while getting the repr of an object") < 0) {
    if (I) return -1;
    sb_puts(b, "...");
    return 0;
  }
  if (!busy_enter(v)) {
    val_leave();
    sb_puts(b, cycle);
    return 0;
  }
  return 1;
}

static int repr_close(int r) {
  tes_G->busy.n--;
  val_leave();
  return r;
}

static int repr_seq(Interp *I, StrBuf *b, Value *v, const char *open, const char *close) {
  int r = repr_open(I, b, v, v->kind == VAL_LIST ? "[...]" : "(...)");
  if (r <= 0) return r;
  sb_puts(b, open);
  for (int64_t i = 0; i < VAL_SEQ_N(v) && !b->failed; i++) {
    if (i) sb_puts(b, ", ");
    if (val_repr_into(I, b, VAL_SEQ_ITEM(v, i)) < 0) return repr_close(-1);
  }
  if (v->kind == VAL_TUPLE && VAL_SEQ_N(v) == 1) sb_putc(b, ',');
  sb_puts(b, close);
  return repr_close(0);
}

static int repr_dict(Interp *I, StrBuf *b, Value *v) {
  int r = repr_open(I, b, v, "{...}");
  if (r <= 0) return r;
  sb_putc(b, '{');
  Value *k, *x;
  for (int64_t pos = 0, i = 0; !b->failed && dict_next(v, &pos, &k, &x); i++) {
    if (i) sb_puts(b, ", ");
    if (val_repr_into(I, b, k) < 0) return repr_close(-1);
    sb_puts(b, ": ");
    if (val_repr_into(I, b, x) < 0) return repr_close(-1);
  }
  sb_putc(b, '}');
  return repr_close(0);
}

static int repr_exc(Interp *I, StrBuf *b, Value *v) {
  Exc *e = v->u.exc;
  sb_puts(b, e->type->name);
  if (!e->args || VAL_SEQ_N(e->args) != 1) {
    if (!e->args) return sb_puts(b, "()"), 0;
    return val_repr_into(I, b, e->args);
  }
  sb_putc(b, '(');
  if (val_repr_into(I, b, VAL_SEQ_ITEM(e->args, 0)) < 0) return -1;
  sb_putc(b, ')');
  return 0;
}

static int repr_obj(Interp *I, StrBuf *b, Value *v) {
  const ObjClass *cls = v->u.obj.cls;
  Value *r = cls->repr ? cls->repr(I, v) : NULL;
  if (!r) {
    if (I && interp_error_pending(I)) return -1;
    sb_printf(b, "<%s object>", cls->type.name);
    return 0;
  }
  if (r->kind == VAL_STR) sb_putn(b, r->u.str.s, (size_t)r->u.str.len);
  val_decref(r);
  return 0;
}

static int repr_slice(Interp *I, StrBuf *b, Value *v) {
  sb_puts(b, "slice(");
  if (val_repr_into(I, b, v->u.slice.start) < 0) return -1;
  sb_puts(b, ", ");
  if (val_repr_into(I, b, v->u.slice.stop) < 0) return -1;
  sb_puts(b, ", ");
  if (val_repr_into(I, b, v->u.slice.step) < 0) return -1;
  sb_putc(b, ')');
  return 0;
}

int val_repr_into(Interp *I, StrBuf *b, Value *v) {
  switch ((ValKind)v->kind) {
  case VAL_NONE:
    sb_puts(b, "None");
    return 0;
  case VAL_BOOL:
    sb_puts(b, v->u.i ? "True" : "False");
    return 0;
  case VAL_INT:
    sb_printf(b, "%lld", (long long)v->u.i);
    return 0;
  case VAL_FLOAT:
    val_float_repr(b, v->u.f);
    return 0;
  case VAL_STR:
    val_str_repr(b, v->u.str.s, v->u.str.len);
    return 0;
  case VAL_TUPLE:
    return repr_seq(I, b, v, "(", ")");
  case VAL_LIST:
    return repr_seq(I, b, v, "[", "]");
  case VAL_DICT:
    return repr_dict(I, b, v);
  case VAL_RANGE:
    sb_printf(b, "range(%lld, %lld", (long long)v->u.range.start, (long long)v->u.range.stop);
    if (v->u.range.step != 1) sb_printf(b, ", %lld", (long long)v->u.range.step);
    sb_putc(b, ')');
    return 0;
  case VAL_SLICE:
    return repr_slice(I, b, v);
  case VAL_FUNC:
    sb_printf(b, "<function %s>", SYM_STR(v->u.func->def->name));
    return 0;
  case VAL_BUILTIN:
    if (v->u.bi.self)
      sb_printf(b, "<built-in method %s of %s object>", v->u.bi.def->name,
                val_type_name(v->u.bi.self));
    else
      sb_printf(b, "<built-in function %s>", v->u.bi.def->name);
    return 0;
  case VAL_MODULE:
    sb_printf(b, "<module '%s'>", SYM_STR(v->u.mod->name));
    return 0;
  case VAL_TYPE:
    sb_printf(b, "<class '%s'>", v->u.type->name);
    return 0;
  case VAL_EXC:
    return repr_exc(I, b, v);
  case VAL_ENV:
    sb_puts(b, "<frame>");
    return 0;
  case VAL_OBJ:
    return repr_obj(I, b, v);
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* The text a script sizes (the repr of a long list) is built in a fallible buffer: running
 * out of memory is a MemoryError, and containers stop walking once a write was lost. Without
 * an interpreter to raise in, the buffer ends the process as others do. */
Value *val_repr(Interp *I, Value *v) {
  StrBuf b = {.fallible = I != NULL};
  if (val_repr_into(I, &b, v) < 0) {
    sb_free(&b);
    return NULL;
  }
  return val_str_sb_fallible(I, &b);
}

Value *val_to_str(Interp *I, Value *v) {
  if (v->kind == VAL_STR) return val_incref(v);
  if (v->kind == VAL_EXC) return v->u.exc->msg ? val_incref(v->u.exc->msg) : val_str("", 0);
  if (v->kind == VAL_OBJ && v->u.obj.cls->str) return v->u.obj.cls->str(I, v);
  return val_repr(I, v);
}

/* ascii(): the repr with every non-ASCII code point escaped. */
static Value *ascii_repr(Interp *I, Value *v) {
  Value *r = val_repr(I, v);
  if (!r || r->ascii) return r;
  StrBuf b = {.fallible = true};
  for (int64_t i = 0; i < r->u.str.len;) {
    int cp = val_utf8_decode(r->u.str.s, r->u.str.len, &i);
    if (cp < 0x80)
      sb_putc(&b, (char)cp);
    else if (cp < 0x100)
      sb_printf(&b, "\\x%02x", cp);
    else if (cp < 0x10000)
      sb_printf(&b, "\\u%04x", cp);
    else
      sb_printf(&b, "\\U%08x", cp);
  }
  val_decref(r);
  return val_str_sb_fallible(I, &b);
}

/* ---- the format-spec mini-language ---- */

typedef struct Spec {
  uint32_t fill;
  bool has_fill, alt, zero;
  char align;          /* 0: the type's default */
  char sign;           /* 0, '+', '-', ' ' */
  char group;          /* 0, ',', '_' */
  char type;           /* 0 when absent */
  int64_t width, prec; /* -1 when absent */
} Spec;

static bool is_align(char c) { return c == '<' || c == '>' || c == '=' || c == '^'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Reads digits at s[*i]; -1 with ValueError when there are too many to be sensible. */
static int read_count(Interp *I, const char *s, size_t n, size_t *i, int64_t *out) {
  int64_t v = 0;
  for (; *i < n && is_digit(s[*i]); (*i)++) {
    v = v * 10 + (s[*i] - '0');
    if (v > 10000000) {
      interp_raise(I, EXC_ValueError, "Too many decimal digits in format string");
      return -1;
    }
  }
  *out = v;
  return 0;
}

static int parse_spec(Interp *I, const char *s, size_t n, Spec *sp, Value *v) {
  *sp = (Spec){.fill = ' ', .width = -1, .prec = -1};
  size_t i = 0;
  int64_t after_fill = 0;
  if (n > 0) {
    int cp = val_utf8_decode(s, (int64_t)n, &after_fill);
    if ((size_t)after_fill < n && is_align(s[after_fill]))
      sp->fill = (uint32_t)cp, sp->has_fill = true, sp->align = s[after_fill],
      i = (size_t)after_fill + 1;
    else if (is_align(s[0]))
      sp->align = s[0], i = 1;
  }
  if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp->sign = s[i++];
  if (i < n && s[i] == '#') sp->alt = true, i++;
  if (i < n && s[i] == '0' && !sp->has_fill) sp->zero = true, i++;
  if (i < n && is_digit(s[i]) && read_count(I, s, n, &i, &sp->width) < 0) return -1;
  if (i < n && (s[i] == ',' || s[i] == '_')) sp->group = s[i++];
  if (i < n && s[i] == '.') {
    i++;
    if (i >= n || !is_digit(s[i])) {
      interp_raise(I, EXC_ValueError, "Format specifier missing precision");
      return -1;
    }
    if (read_count(I, s, n, &i, &sp->prec) < 0) return -1;
  }
  if (n - i > 1) {
    interp_raise(I, EXC_ValueError, "Invalid format specifier '%.*s' for object of type '%s'",
                 (int)n, s, val_type_name(v));
    return -1;
  }
  if (i < n) sp->type = s[i];
  if (sp->zero) sp->fill = '0';
  /* CPython checks the separator against the type while parsing, before the object's type */
  char t = sp->type ? sp->type : v->kind == VAL_STR ? 's' : val_is_int(v) ? 'd' : 0;
  if (sp->group && t && !strchr("defgEGF%", t) && !(sp->group == '_' && strchr("boxX", t))) {
    if (t >= 0x20 && t < 0x7F)
      interp_raise(I, EXC_ValueError, "Cannot specify '%c' with '%c'.", sp->group, t);
    else
      interp_raise(I, EXC_ValueError, "Cannot specify '%c' with '\\x%x'.", sp->group,
                   (unsigned char)t);
    return -1;
  }
  return 0;
}

static void put_fill(StrBuf *b, uint32_t fill, int64_t n) {
  for (int64_t i = 0; i < n; i++) val_utf8_put(b, fill);
}

/* Pads text (ncp code points) to the width. `split` bytes at the front (sign, 0x) stay
 * before the padding when aligning with '='. -1 with MemoryError when a width given by `*`
 * asks for more than there is. */
static int pad_out(Interp *I, StrBuf *out, const Spec *sp, char align, const char *text,
                   size_t len, int64_t ncp, size_t split) {
  int64_t pad = sp->width > ncp ? sp->width - ncp : 0;
  int64_t fill_bytes = sp->fill < 0x80 ? 1 : sp->fill < 0x800 ? 2 : sp->fill < 0x10000 ? 3 : 4;
  if (pad > INT64_MAX / 8) return val_mem_error(I, (double)fill_bytes * (double)pad), -1;
  if (val_sb_reserve(I, out, fill_bytes * pad + (int64_t)len) < 0) return -1;
  switch (align) {
  case '<':
    sb_putn(out, text, len), put_fill(out, sp->fill, pad);
    break;
  case '^':
    put_fill(out, sp->fill, pad / 2), sb_putn(out, text, len);
    put_fill(out, sp->fill, pad - pad / 2);
    break;
  case '=':
    sb_putn(out, text, split), put_fill(out, sp->fill, pad);
    sb_putn(out, text + split, len - split);
    break;
  default:
    put_fill(out, sp->fill, pad), sb_putn(out, text, len);
    break;
  }
  return 0;
}

static Value *unknown_code(Interp *I, char type, Value *v) {
  if (type >= 0x20 && type < 0x7F)
    return interp_raise(I, EXC_ValueError, "Unknown format code '%c' for object of type '%s'", type,
                        val_type_name(v));
  return interp_raise(I, EXC_ValueError, "Unknown format code '\\x%x' for object of type '%s'",
                      (unsigned char)type, val_type_name(v));
}

static Value *format_str(Interp *I, Value *v, const Spec *sp) {
  if (sp->type && sp->type != 's') return unknown_code(I, sp->type, v);
  if (sp->sign == ' ')
    return interp_raise(I, EXC_ValueError, "Space not allowed in string format specifier");
  if (sp->sign)
    return interp_raise(I, EXC_ValueError, "Sign not allowed in string format specifier");
  if (sp->alt)
    return interp_raise(I, EXC_ValueError,
                        "Alternate form (#) not allowed in string format specifier");
  if (sp->align == '=')
    return interp_raise(I, EXC_ValueError, "'=' alignment not allowed in string format specifier");
  int64_t ncp = val_str_cplen(v), nbytes = v->u.str.len;
  if (sp->prec >= 0 && sp->prec < ncp) ncp = sp->prec, nbytes = val_str_offset(v, ncp);
  StrBuf out = STRBUF_INIT;
  if (pad_out(I, &out, sp, sp->align ? sp->align : '<', v->u.str.s, (size_t)nbytes, ncp, 0) < 0)
    return sb_free(&out), NULL;
  return val_str_sb(&out);
}

/* Inserts `sep` every `every` digits of the integer part digits[0..n), zero-extending it first
 * to reach min_len characters (zero padding that is grouped too: '00,001,234'). */
static void put_grouped(StrBuf *b, const char *digits, int64_t n, char sep, int every,
                        int64_t min_len) {
  int64_t total = n;
  while (sep && total + (total - 1) / every < min_len) total++;
  if (!sep && total < min_len) total = min_len;
  for (int64_t i = 0; i < total; i++) {
    int64_t k = total - i; /* digits left, this one included */
    sb_putc(b, i < total - n ? '0' : digits[i - (total - n)]);
    if (sep && k > 1 && (k - 1) % every == 0) sb_putc(b, sep);
  }
}

/* Sign, prefix, grouped integer digits and the rest, padded. body: the unsigned text. */
static Value *finish_number(Interp *I, const Spec *sp, bool neg, const char *prefix, const char *body,
                            int every) {
  StrBuf head = STRBUF_INIT, text = STRBUF_INIT, out = STRBUF_INIT;
  if (neg)
    sb_putc(&head, '-');
  else if (sp->sign == '+' || sp->sign == ' ')
    sb_putc(&head, sp->sign);
  sb_puts(&head, prefix);
  int64_t nint = 0;
  while (is_digit(body[nint]) || (every == 4 && strchr("abcdefABCDEF", body[nint]) && body[nint]))
    nint++;
  int64_t rest = (int64_t)strlen(body) - nint;
  char align = sp->align ? sp->align : '>';
  int64_t min_len = 0;
  if (align == '=' && sp->fill == '0' && sp->group && nint > 0)
    min_len = sp->width - (int64_t)head.len - rest;
  int r = min_len > 0 ? val_sb_reserve(I, &text, 2 * min_len) : 0;
  if (r == 0) {
    sb_putn(&text, sb_cstr(&head), head.len);
    put_grouped(&text, body, nint, sp->group, every, min_len);
    sb_puts(&text, body + nint);
    r = pad_out(I, &out, sp, align, sb_cstr(&text), text.len, (int64_t)text.len, head.len);
  }
  sb_free(&head);
  sb_free(&text);
  if (r < 0) return sb_free(&out), NULL;
  return val_str_sb(&out);
}

/* The unsigned text of |x| for a float presentation type (0: none). */
static void float_body(StrBuf *b, double x, char type, int64_t prec, bool alt) {
  bool upper = type == 'E' || type == 'F' || type == 'G';
  char lower = upper ? (char)(type + 32) : type;
  if (!isfinite(x)) {
    sb_puts(b, isnan(x) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
    if (type == '%') sb_putc(b, '%');
    return;
  }
  Digits g;
  int p = prec < 0 ? 6 : (int)prec;
  switch (lower) {
  case 'e':
    sb_printf(b, alt ? "%#.*e" : "%.*e", p, x);
    break;
  case 'f':
    sb_printf(b, alt ? "%#.*f" : "%.*f", p, x);
    break;
  case '%':
    sb_printf(b, alt ? "%#.*f%%" : "%.*f%%", p, x * 100);
    break;
  case 'g':
  case 'n':
    digits_prec(&g, x, p ? p : 1);
    render_digits(b, &g, g.exp < -4 || g.exp >= (p ? p : 1), !alt, alt, false);
    break;
  default: /* none: repr, or 'g' that keeps a decimal and goes scientific one digit sooner */
    if (prec < 0) {
      digits_shortest(&g, x);
      render_digits(b, &g, g.exp < -4 || g.exp >= 16, false, alt, true);
    } else {
      digits_prec(&g, x, p ? p : 1);
      render_digits(b, &g, g.exp < -4 || g.exp >= (p ? p : 1) - 1, !alt, alt, true);
    }
  }
  if (upper)
    for (size_t i = 0; i < b->len; i++)
      if (b->s[i] == 'e') b->s[i] = 'E';
}

static Value *format_float(Interp *I, Value *v, double x, const Spec *sp) {
  if (!strchr("eEfFgGn%", sp->type)) return unknown_code(I, sp->type, v); /* type 0 passes */
  if (sp->prec > FMT_MAX_PREC) return interp_raise(I, EXC_ValueError, "precision too big");
  StrBuf body = STRBUF_INIT;
  float_body(&body, fabs(x), sp->type, sp->prec, sp->alt);
  Value *r = finish_number(I, sp, signbit(x) && !isnan(x), "", sb_cstr(&body), 3);
  sb_free(&body);
  return r;
}

static void put_radix(StrBuf *b, uint64_t mag, int base, bool upper) {
  char buf[72];
  int n = 0;
  const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  do buf[n++] = dig[mag % (uint64_t)base], mag /= (uint64_t)base;
  while (mag);
  while (n > 0) sb_putc(b, buf[--n]);
}

static Value *format_char(Interp *I, int64_t i, const Spec *sp) {
  if (sp->sign)
    return interp_raise(I, EXC_ValueError, "Sign not allowed with integer format specifier 'c'");
  if (sp->alt)
    return interp_raise(I, EXC_ValueError,
                        "Alternate form (#) not allowed with integer format specifier 'c'");
  if (i < 0 || i > 0x10FFFF)
    return interp_raise(I, EXC_OverflowError, "%%c arg not in range(0x110000)");
  StrBuf b = STRBUF_INIT, out = STRBUF_INIT;
  val_utf8_put(&b, (uint32_t)i);
  int r = pad_out(I, &out, sp, sp->align ? sp->align : '>', sb_cstr(&b), b.len, 1, 0);
  sb_free(&b);
  if (r < 0) return sb_free(&out), NULL;
  return val_str_sb(&out);
}

/* The digits of an int for d, b, o, x, X, n, at least min_digits of them (`%.3d`). */
static Value *int_core(Interp *I, const Spec *sp, int64_t i, int64_t min_digits) {
  uint64_t mag = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
  int base = sp->type == 'b'                      ? 2
             : sp->type == 'o'                    ? 8
             : sp->type == 'x' || sp->type == 'X' ? 16
                                                  : 10;
  const char *prefix = "";
  if (sp->alt && base != 10)
    prefix = base == 2 ? "0b" : base == 8 ? "0o" : sp->type == 'X' ? "0X" : "0x";
  StrBuf d = STRBUF_INIT, body = STRBUF_INIT;
  put_radix(&d, mag, base, sp->type == 'X');
  if (min_digits > 0 && val_sb_reserve(I, &body, min_digits) < 0) /* `%.*d` */
    return sb_free(&d), NULL;
  for (int64_t k = (int64_t)d.len; k < min_digits; k++) sb_putc(&body, '0');
  sb_putn(&body, sb_cstr(&d), d.len);
  Value *r = finish_number(I, sp, i < 0, prefix, sb_cstr(&body), base == 10 ? 3 : 4);
  sb_free(&d);
  sb_free(&body);
  return r;
}

static Value *format_int(Interp *I, Value *v, const Spec *sp) {
  char t = sp->type;
  if (t && strchr("eEfFgG%", t)) return format_float(I, v, (double)v->u.i, sp);
  if (t && !strchr("bcdoxXn", t)) return unknown_code(I, t, v);
  if (sp->prec >= 0)
    return interp_raise(I, EXC_ValueError, "Precision not allowed in integer format specifier");
  if (t == 'c') return format_char(I, v->u.i, sp);
  return int_core(I, sp, v->u.i, 0);
}

Value *val_format(Interp *I, Value *v, const char *spec, size_t speclen) {
  if (speclen == 0) return val_to_str(I, v);
  if (v->kind == VAL_OBJ) { /* numpy's scalars and 0-d arrays format as their Python number */
    Value *n = val_number_of(I, v, NUM_SCALAR);
    if (n) {
      Value *r = val_format(I, n, spec, speclen);
      val_decref(n);
      return r;
    }
    if (interp_error_pending(I)) return NULL;
  }
  Spec sp;
  bool number = val_is_number(v);
  if (v->kind != VAL_STR && !number)
    return interp_raise(I, EXC_TypeError, "unsupported format string passed to %s.__format__",
                        val_type_name(v));
  if (parse_spec(I, spec, speclen, &sp, v) < 0) return NULL;
  if (sp.zero && !sp.align && number) sp.align = '=';
  if (v->kind == VAL_STR) return format_str(I, v, &sp);
  if (v->kind == VAL_FLOAT) {
    if (sp.type && !strchr("eEfFgGn%", sp.type)) return unknown_code(I, sp.type, v);
    return format_float(I, v, v->u.f, &sp);
  }
  return format_int(I, v, &sp);
}

/* ---- printf-style: fmt % args ---- */

typedef struct PctState {
  Interp *I;
  Value **args;
  int64_t nargs, next;
  Value *dict; /* the mapping for %(name)s, or NULL */
  const char *fmt;
  size_t len, pos;
} PctState;

static Value *pct_next_arg(PctState *st) {
  if (st->next >= st->nargs)
    return interp_raise(st->I, EXC_TypeError, "not enough arguments for format string");
  return st->args[st->next++];
}

static Value *pct_key_arg(PctState *st) {
  size_t start = ++st->pos;
  int depth = 1;
  for (; st->pos < st->len && depth; st->pos++)
    depth += (st->fmt[st->pos] == '(') - (st->fmt[st->pos] == ')');
  if (depth) return interp_raise(st->I, EXC_ValueError, "incomplete format key");
  if (!st->dict) return interp_raise(st->I, EXC_TypeError, "format requires a mapping");
  Value *key = val_str(st->fmt + start, st->pos - 1 - start);
  Value *v = dict_get(st->I, st->dict, key);
  if (!v && !interp_error_pending(st->I)) val_key_error(st->I, key);
  val_decref(key);
  return v;
}

/* Width or precision: digits, or '*' taking an int argument. */
static int pct_count(PctState *st, int64_t *out) {
  if (st->pos < st->len && st->fmt[st->pos] == '*') {
    st->pos++;
    Value *a = pct_next_arg(st);
    if (!a) return -1;
    if (!val_is_int(a)) {
      interp_raise(st->I, EXC_TypeError, "* wants int");
      return -1;
    }
    *out = a->u.i;
    return 0;
  }
  return read_count(st->I, st->fmt, st->len, &st->pos, out);
}

static Value *pct_text(Interp *I, char type, Value *a) {
  if (type == 's') return val_to_str(I, a);
  if (type == 'r') return val_repr(I, a);
  return ascii_repr(I, a);
}

static Value *pct_int_arg(Interp *I, char type, Value *a, int64_t *out) {
  if (val_is_int(a)) return *out = a->u.i, a;
  if (a->kind == VAL_OBJ) { /* numpy's scalars: %d takes __int__, %x and %o __index__ */
    Value *n = val_number_of(I, a, strchr("diu", type) ? NUM_REAL : NUM_INDEX);
    if (n) {
      Value *r = pct_int_arg(I, type, n, out);
      val_decref(n);
      return r ? a : NULL;
    }
    if (interp_error_pending(I)) return NULL;
  }
  if (a->kind == VAL_FLOAT && strchr("diu", type)) {
    if (isnan(a->u.f))
      return interp_raise(I, EXC_ValueError, "cannot convert float NaN to integer");
    if (isinf(a->u.f))
      return interp_raise(I, EXC_OverflowError, "cannot convert float infinity to integer");
    if (!(fabs(a->u.f) < 9223372036854775808.0))
      return interp_raise(I, EXC_OverflowError, "integer overflow");
    return *out = (int64_t)a->u.f, a;
  }
  if (strchr("diu", type))
    return interp_raise(I, EXC_TypeError, "%%%c format: a real number is required, not %s", type,
                        val_type_name(a));
  return interp_raise(I, EXC_TypeError, "%%%c format: an integer is required, not %s", type,
                      val_type_name(a));
}

static Value *pct_char(Interp *I, Value *a) {
  if (val_is_int(a)) {
    if (a->u.i < 0 || a->u.i > 0x10FFFF)
      return interp_raise(I, EXC_OverflowError, "%%c arg not in range(0x110000)");
    StrBuf b = STRBUF_INIT;
    val_utf8_put(&b, (uint32_t)a->u.i);
    return val_str_sb(&b);
  }
  if (a->kind == VAL_STR && val_str_cplen(a) == 1) return val_incref(a);
  return interp_raise(I, EXC_TypeError, "%%c requires int or char");
}

/* One conversion of the given type with its flags already in sp. */
static Value *pct_convert(Interp *I, Spec *sp, char type, Value *a) {
  int64_t i = 0;
  double x = 0;
  if (strchr("sra", type) || type == 'c') {
    Value *s = type == 'c' ? pct_char(I, a) : pct_text(I, type, a);
    if (!s) return NULL;
    int64_t ncp = val_str_cplen(s), nb = s->u.str.len;
    if (sp->prec >= 0 && sp->prec < ncp && type != 'c') ncp = sp->prec, nb = val_str_offset(s, ncp);
    StrBuf out = STRBUF_INIT;
    sp->fill = ' ';
    int r = pad_out(I, &out, sp, sp->align == '<' ? '<' : '>', s->u.str.s, (size_t)nb, ncp, 0);
    val_decref(s);
    if (r < 0) return sb_free(&out), NULL;
    return val_str_sb(&out);
  }
  if (strchr("diuxXo", type)) {
    if (!pct_int_arg(I, type, a, &i)) return NULL;
    sp->type = strchr("diu", type) ? 'd' : type;
    return int_core(I, sp, i, sp->prec);
  }
  if (val_as_float(I, a, &x) < 0) return NULL;
  sp->type = type;
  if (sp->prec < 0) sp->prec = 6;
  if (sp->prec > FMT_MAX_PREC) return interp_raise(I, EXC_ValueError, "precision too big");
  return format_float(I, a, x, sp);
}

/* Parses one conversion after its '%' and appends it. */
static int pct_one(PctState *st, StrBuf *out) {
  Interp *I = st->I;
  Spec sp = {.fill = ' ', .width = -1, .prec = -1};
  Value *arg = NULL;
  if (st->pos < st->len && st->fmt[st->pos] == '(' && !(arg = pct_key_arg(st))) return -1;
  for (; st->pos < st->len && strchr("-+ #0", st->fmt[st->pos]) && st->fmt[st->pos]; st->pos++) {
    char c = st->fmt[st->pos];
    if (c == '-')
      sp.align = '<';
    else if (c == '+')
      sp.sign = '+';
    else if (c == ' ')
      sp.sign = sp.sign == '+' ? '+' : ' ';
    else if (c == '#')
      sp.alt = true;
    else
      sp.zero = true;
  }
  if (pct_count(st, &sp.width) < 0) return -1;
  if (sp.width < 0) sp.align = '<', sp.width = -sp.width;
  if (st->pos < st->len && st->fmt[st->pos] == '.') {
    st->pos++;
    if (pct_count(st, &sp.prec) < 0) return -1;
  }
  while (st->pos < st->len && strchr("hlL", st->fmt[st->pos]) && st->fmt[st->pos]) st->pos++;
  if (st->pos >= st->len) return interp_raise(I, EXC_ValueError, "incomplete format"), -1;
  char type = st->fmt[st->pos++];
  if (type == '%') return sb_putc(out, '%'), 0;
  if (!strchr("sradiuxXoeEfFgGc", type) || !type) {
    interp_raise(I, EXC_ValueError, "unsupported format character '%c' (0x%x) at index %zu", type,
                 (unsigned char)type, st->pos - 1);
    return -1;
  }
  if (!arg && !(arg = pct_next_arg(st))) return -1;
  if (sp.zero && sp.align != '<') sp.fill = '0', sp.align = '=';
  Value *s = pct_convert(I, &sp, type, arg);
  if (!s) return -1;
  sb_putn(out, s->u.str.s, (size_t)s->u.str.len);
  val_decref(s);
  return 0;
}

Value *val_str_percent(Interp *I, Value *fmt, Value *args) {
  PctState st = {.I = I, .fmt = fmt->u.str.s, .len = (size_t)fmt->u.str.len};
  if (args->kind == VAL_TUPLE) {
    st.args = args->u.list->items;
    st.nargs = VAL_SEQ_N(args);
  } else {
    st.args = &args;
    st.nargs = 1;
    if (args->kind == VAL_DICT) st.dict = args;
  }
  StrBuf out = {.fallible = true};
  while (st.pos < st.len) {
    const char *pct = memchr(st.fmt + st.pos, '%', st.len - st.pos);
    size_t stop = pct ? (size_t)(pct - st.fmt) : st.len;
    sb_putn(&out, st.fmt + st.pos, stop - st.pos);
    st.pos = stop;
    if (!pct) break;
    st.pos++;
    if (pct_one(&st, &out) < 0) {
      sb_free(&out);
      return NULL;
    }
  }
  if (!st.dict && st.next < st.nargs) {
    sb_free(&out);
    return interp_raise(I, EXC_TypeError, "not all arguments converted during string formatting");
  }
  return val_str_sb_fallible(I, &out);
}

/* ---- str.format ---- */

typedef struct FmtState {
  Interp *I;
  Value *args, *kwargs;
  int auto_idx; /* next automatic field number; -1 once manual numbering is used */
  bool used_auto;
} FmtState;

static Value *fmt_error(Interp *I, const char *msg) {
  return interp_raise(I, EXC_ValueError, "%s", msg);
}

static Value *fmt_arg_by_index(FmtState *st, int64_t i) {
  if (i >= VAL_SEQ_N(st->args))
    return interp_raise(st->I, EXC_IndexError,
                        "Replacement index %lld out of range for positional args tuple",
                        (long long)i);
  return val_incref(VAL_SEQ_ITEM(st->args, i));
}

static bool all_digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!is_digit(s[i])) return false;
  return n > 0;
}

/* The first part of a field name: "", "0" or "name". */
static Value *fmt_first(FmtState *st, const char *s, size_t n) {
  if (n == 0) {
    if (st->auto_idx < 0)
      return fmt_error(
          st->I, "cannot switch from manual field specification to automatic field numbering");
    st->used_auto = true;
    return fmt_arg_by_index(st, st->auto_idx++);
  }
  if (all_digits(s, n)) {
    if (st->used_auto)
      return fmt_error(
          st->I, "cannot switch from automatic field numbering to manual field specification");
    st->auto_idx = -1;
    return fmt_arg_by_index(st, strtoll(s, NULL, 10));
  }
  Value *key = val_str(s, n);
  Value *v = st->kwargs ? dict_get(st->I, st->kwargs, key) : NULL;
  if (v)
    val_incref(v);
  else if (!interp_error_pending(st->I))
    val_key_error(st->I, key);
  val_decref(key);
  return v;
}

/* Applies one ".attr" or "[key]" accessor at s[*i]; takes obj, returns the new value. */
static Value *fmt_accessor(FmtState *st, Value *obj, const char *s, size_t n, size_t *i) {
  Value *r = NULL;
  char c = s[(*i)++];
  size_t start = *i;
  if (c == '.') {
    while (*i < n && s[*i] != '.' && s[*i] != '[') (*i)++;
    if (*i == start)
      r = fmt_error(st->I, "Empty attribute in format string");
    else
      r = val_getattr(st->I, obj, sym_intern(s + start, *i - start));
  } else if (c == '[') {
    while (*i < n && s[*i] != ']') (*i)++;
    if (*i >= n)
      r = fmt_error(st->I, "Missing ']' in format string");
    else if (*i == start)
      r = fmt_error(st->I, "Empty attribute in format string");
    else {
      Value *key = all_digits(s + start, *i - start) ? val_int(strtoll(s + start, NULL, 10))
                                                     : val_str(s + start, *i - start);
      r = val_getitem(st->I, obj, key);
      val_decref(key);
      (*i)++;
      if (r && *i < n && s[*i] != '.' && s[*i] != '[') {
        val_decref(r);
        r = fmt_error(st->I, "Only '.' or '[' may follow ']' in format field specifier");
      }
    }
  } else {
    r = fmt_error(st->I, "Only '.' or '[' may follow ']' in format field specifier");
  }
  val_decref(obj);
  return r;
}

static Value *fmt_field_value(FmtState *st, const char *s, size_t n) {
  size_t i = 0;
  while (i < n && s[i] != '.' && s[i] != '[') i++;
  Value *v = fmt_first(st, s, i);
  while (v && i < n) v = fmt_accessor(st, v, s, n, &i);
  return v;
}

static int fmt_render(FmtState *st, StrBuf *out, const char *s, size_t n, int depth);

/* One replacement field, the text between its braces. */
static int fmt_field(FmtState *st, StrBuf *out, const char *s, size_t n, int depth) {
  size_t i = 0;
  int brackets = 0;
  for (; i < n && (brackets || (s[i] != '!' && s[i] != ':')); i++)
    brackets += (s[i] == '[') - (s[i] == ']' && brackets);
  size_t name_len = i;
  char conv = 0;
  if (i < n && s[i] == '!') {
    if (i + 1 >= n)
      return fmt_error(st->I, "end of string while looking for conversion specifier"), -1;
    conv = s[i + 1];
    i += 2;
    if (i < n && s[i] != ':')
      return fmt_error(st->I, "expected ':' after conversion specifier"), -1;
  }
  const char *spec = i < n ? s + i + 1 : s + n;
  size_t spec_len = i < n ? n - i - 1 : 0;
  Value *v = fmt_field_value(st, s, name_len);
  if (!v) return -1;
  if (conv) {
    Value *c = conv == 'r'   ? val_repr(st->I, v)
               : conv == 's' ? val_to_str(st->I, v)
               : conv == 'a' ? ascii_repr(st->I, v)
                             : NULL;
    if (!c && !interp_error_pending(st->I))
      interp_raise(st->I, EXC_ValueError, "Unknown conversion specifier %c", conv);
    val_decref(v);
    if (!(v = c)) return -1;
  }
  StrBuf sb = STRBUF_INIT; /* the spec with its own {fields} expanded */
  int r = fmt_render(st, &sb, spec, spec_len, depth - 1);
  Value *f = r < 0 ? NULL : val_format(st->I, v, sb_cstr(&sb), sb.len);
  sb_free(&sb);
  val_decref(v);
  if (!f) return -1;
  sb_putn(out, f->u.str.s, (size_t)f->u.str.len);
  val_decref(f);
  return 0;
}

/* Offset of the '}' closing the field opened just before s[0], counting nested braces. */
static size_t fmt_field_end(const char *s, size_t n) {
  int depth = 1;
  for (size_t i = 0; i < n; i++) {
    depth += (s[i] == '{') - (s[i] == '}');
    if (depth == 0) return i;
  }
  return n;
}

static int fmt_render(FmtState *st, StrBuf *out, const char *s, size_t n, int depth) {
  if (depth < 0) return fmt_error(st->I, "Max string recursion exceeded"), -1;
  for (size_t i = 0; i < n;) {
    char c = s[i];
    if (c == '}') {
      if (i + 1 < n && s[i + 1] == '}') {
        sb_putc(out, '}'), i += 2;
        continue;
      }
      return fmt_error(st->I, "Single '}' encountered in format string"), -1;
    }
    if (c != '{') {
      sb_putc(out, c), i++;
      continue;
    }
    if (i + 1 < n && s[i + 1] == '{') {
      sb_putc(out, '{'), i += 2;
      continue;
    }
    if (i + 1 >= n) return fmt_error(st->I, "Single '{' encountered in format string"), -1;
    size_t end = i + 1 + fmt_field_end(s + i + 1, n - i - 1);
    if (end >= n) return fmt_error(st->I, "expected '}' before end of string"), -1;
    if (fmt_field(st, out, s + i + 1, end - i - 1, depth) < 0) return -1;
    i = end + 1;
  }
  return 0;
}

Value *val_str_format_call(Interp *I, Value *fmt, Value *args, Value *kwargs) {
  FmtState st = {.I = I, .args = args, .kwargs = kwargs};
  StrBuf out = {.fallible = true};
  if (fmt_render(&st, &out, fmt->u.str.s, (size_t)fmt->u.str.len, 2) < 0) {
    sb_free(&out);
    return NULL;
  }
  return val_str_sb_fallible(I, &out);
}
