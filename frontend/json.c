/* json.c: tes --serve's JSON reader and writer (json.h). */
#include "frontend/json.h"

#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at p (1..4), or 0 when p[0..n) does not start with one:
 * overlong forms, surrogates and code points past U+10FFFF are not UTF-8. */
static int utf8_seq(const unsigned char *p, size_t n) {
  unsigned c = p[0];
  if (c < 0x80) return 1;
  int len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (len == 0 || (size_t)len > n) return 0;
  for (int i = 1; i < len; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && p[1] < 0xA0) return 0; /* overlong */
  if (c == 0xED && p[1] >= 0xA0) return 0; /* a surrogate */
  if (c == 0xF0 && p[1] < 0x90) return 0; /* overlong */
  if (c == 0xF4 && p[1] >= 0x90) return 0; /* past U+10FFFF */
  return len;
}

static void put_utf8(StrBuf *b, unsigned cp) {
  if (cp < 0x80) {
    sb_putc(b, (char)cp);
  } else if (cp < 0x800) {
    sb_putc(b, (char)(0xC0 | cp >> 6));
    sb_putc(b, (char)(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    sb_putc(b, (char)(0xE0 | cp >> 12));
    sb_putc(b, (char)(0x80 | (cp >> 6 & 0x3F)));
    sb_putc(b, (char)(0x80 | (cp & 0x3F)));
  } else {
    sb_putc(b, (char)(0xF0 | cp >> 18));
    sb_putc(b, (char)(0x80 | (cp >> 12 & 0x3F)));
    sb_putc(b, (char)(0x80 | (cp >> 6 & 0x3F)));
    sb_putc(b, (char)(0x80 | (cp & 0x3F)));
  }
}

size_t json_utf8_count(const char *s, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; count++) {
    int k = utf8_seq((const unsigned char *)s + i, n - i);
    i += k ? (size_t)k : 1;
  }
  return count;
}

size_t json_utf8_offset(const char *s, size_t n, size_t cp) {
  size_t i = 0;
  for (; i < n && cp > 0; cp--) {
    int k = utf8_seq((const unsigned char *)s + i, n - i);
    i += k ? (size_t)k : 1;
  }
  return i;
}

/* ---- reading ---- */

typedef struct Reader {
  const unsigned char *p;
  size_t n, i;
  char *err;
  int depth;
} Reader;

static Json *fail(Reader *r, size_t at, const char *what) {
  if (!r->err) {
    StrBuf b = STRBUF_INIT;
    sb_printf(&b, "malformed JSON at byte %zu: %s", at, what);
    size_t len;
    r->err = sb_take(&b, &len);
  }
  return NULL;
}

static void skip_blanks(Reader *r) {
  while (r->i < r->n && strchr(" \t\r\n", r->p[r->i]) && r->p[r->i]) r->i++;
}

static Json *node(JsonKind kind) {
  Json *v = xcalloc(1, sizeof *v);
  v->kind = kind;
  return v;
}

static bool literal(Reader *r, const char *word) {
  size_t k = strlen(word);
  if (r->n - r->i < k || memcmp(r->p + r->i, word, k) != 0) return false;
  r->i += k;
  return true;
}

static int hex4(Reader *r, size_t at) {
  if (r->n - at < 4) return -1;
  int v = 0;
  for (size_t k = 0; k < 4; k++) {
    int c = r->p[at + k], d = c >= '0' && c <= '9' ? c - '0'
                            : c >= 'a' && c <= 'f' ? c - 'a' + 10
                            : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/* After "\u": the code point of the escape (a surrogate pair's when a low half follows a high
 * one; U+FFFD for a lone half); r->i past it. -1 on bad hex digits. */
static long unicode_escape(Reader *r) {
  int hi = hex4(r, r->i);
  if (hi < 0) return -1;
  r->i += 4;
  if (hi < 0xD800 || hi > 0xDFFF) return hi;
  if (hi >= 0xDC00) return 0xFFFD; /* a low half alone */
  if (r->n - r->i >= 6 && r->p[r->i] == '\\' && r->p[r->i + 1] == 'u') {
    int lo = hex4(r, r->i + 2);
    if (lo >= 0xDC00 && lo <= 0xDFFF) {
      r->i += 6;
      return 0x10000 + ((long)(hi - 0xD800) << 10) + (lo - 0xDC00);
    }
  }
  return 0xFFFD; /* a high half alone */
}

static bool string_body(Reader *r, StrBuf *b) {
  size_t start = r->i++;
  for (;;) {
    if (r->i >= r->n) return fail(r, start, "unterminated string"), false;
    unsigned c = r->p[r->i];
    if (c == '"') {
      r->i++;
      return true;
    }
    if (c < 0x20) return fail(r, r->i, "control character in a string"), false;
    if (c != '\\') {
      int k = utf8_seq(r->p + r->i, r->n - r->i);
      if (!k) return fail(r, r->i, "invalid UTF-8 in a string"), false;
      sb_putn(b, (const char *)r->p + r->i, (size_t)k);
      r->i += (size_t)k;
      continue;
    }
    size_t esc = r->i++;
    if (r->i >= r->n) return fail(r, start, "unterminated string"), false;
    char e = (char)r->p[r->i++];
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *hit = strchr(from, e);
    if (e && hit) {
      sb_putc(b, to[hit - from]);
    } else if (e == 'u') {
      long cp = unicode_escape(r);
      if (cp < 0) return fail(r, esc, "bad \\u escape (four hex digits expected)"), false;
      put_utf8(b, (unsigned)cp);
    } else {
      return fail(r, esc, "unknown escape in a string"), false;
    }
  }
}

static Json *string_value(Reader *r) {
  StrBuf b = STRBUF_INIT;
  if (!string_body(r, &b)) {
    sb_free(&b);
    return NULL;
  }
  Json *v = node(JSON_STRING);
  sb_putc(&b, 0); /* so that an empty string is a buffer too */
  v->text = sb_take(&b, &v->len);
  v->len--;
  return v;
}

static size_t digits(Reader *r) {
  size_t k = 0;
  while (r->i < r->n && r->p[r->i] >= '0' && r->p[r->i] <= '9') r->i++, k++;
  return k;
}

static Json *number_value(Reader *r) {
  size_t start = r->i;
  if (r->p[r->i] == '-') r->i++;
  size_t int_start = r->i;
  size_t nd = digits(r);
  if (nd == 0) return fail(r, start, "expected a value");
  if (nd > 1 && r->p[int_start] == '0') return fail(r, int_start, "leading zero in a number");
  if (r->i < r->n && r->p[r->i] == '.') {
    r->i++;
    if (!digits(r)) return fail(r, r->i, "expected digits after '.'");
  }
  if (r->i < r->n && (r->p[r->i] == 'e' || r->p[r->i] == 'E')) {
    r->i++;
    if (r->i < r->n && (r->p[r->i] == '+' || r->p[r->i] == '-')) r->i++;
    if (!digits(r)) return fail(r, r->i, "expected digits in the exponent");
  }
  Json *v = node(JSON_NUMBER);
  v->len = r->i - start;
  v->text = xstrndup((const char *)r->p + start, v->len);
  v->num = strtod(v->text, NULL);
  return v;
}

static Json *value(Reader *r);

static void push(Json *c, Json *key, Json *item) {
  c->items = xrealloc(c->items, (size_t)(c->n + 1) * sizeof *c->items);
  c->items[c->n] = item;
  if (c->kind == JSON_OBJECT) {
    c->keys = xrealloc(c->keys, (size_t)(c->n + 1) * sizeof *c->keys);
    c->keys[c->n] = key;
  }
  c->n++;
}

/* An array or an object, r->i at its opening bracket. */
static Json *container(Reader *r, JsonKind kind) {
  char close = kind == JSON_ARRAY ? ']' : '}';
  if (++r->depth > JSON_MAX_DEPTH) return fail(r, r->i, "nested too deeply");
  Json *c = node(kind);
  r->i++;
  skip_blanks(r);
  if (r->i < r->n && r->p[r->i] == (unsigned char)close) {
    r->i++;
    r->depth--;
    return c;
  }
  for (;;) {
    Json *key = NULL;
    skip_blanks(r);
    if (kind == JSON_OBJECT) {
      if (r->i >= r->n || r->p[r->i] != '"') break;
      key = string_value(r);
      skip_blanks(r);
      if (key && (r->i >= r->n || r->p[r->i] != ':')) {
        json_free(key);
        key = NULL;
        fail(r, r->i, "expected ':'");
      }
      if (!key) break;
      r->i++;
    }
    Json *item = value(r);
    if (!item) {
      json_free(key);
      break;
    }
    push(c, key, item);
    skip_blanks(r);
    if (r->i < r->n && r->p[r->i] == ',') {
      r->i++;
      continue;
    }
    if (r->i < r->n && r->p[r->i] == (unsigned char)close) {
      r->i++;
      r->depth--;
      return c;
    }
    break;
  }
  json_free(c);
  return fail(r, r->i, kind == JSON_ARRAY ? "expected ',' or ']'" : "expected '\"', ',' or '}'");
}

static Json *value(Reader *r) {
  skip_blanks(r);
  if (r->i >= r->n) return fail(r, r->i, "expected a value");
  unsigned char c = r->p[r->i];
  if (c == '{') return container(r, JSON_OBJECT);
  if (c == '[') return container(r, JSON_ARRAY);
  if (c == '"') return string_value(r);
  if (c == '-' || (c >= '0' && c <= '9')) return number_value(r);
  if (literal(r, "null")) return node(JSON_NULL);
  if (literal(r, "true") || literal(r, "false")) {
    Json *v = node(JSON_BOOL);
    v->b = r->p[r->i - 1] == 'e' && r->p[r->i - 2] == 'u';
    return v;
  }
  return fail(r, r->i, "expected a value");
}

Json *json_parse(const char *text, size_t len, char **err) {
  Reader r = {(const unsigned char *)text, len, 0, NULL, 0};
  Json *v = value(&r);
  if (v) {
    skip_blanks(&r);
    if (r.i < r.n) {
      json_free(v);
      v = fail(&r, r.i, "text after the value");
    }
  }
  *err = r.err;
  return v;
}

void json_free(Json *v) {
  if (!v) return;
  for (int i = 0; i < v->n; i++) {
    json_free(v->items[i]);
    if (v->keys) json_free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->text);
  free(v);
}

const Json *json_get(const Json *v, const char *key) {
  if (!v || v->kind != JSON_OBJECT) return NULL;
  size_t k = strlen(key);
  for (int i = v->n - 1; i >= 0; i--)
    if (v->keys[i]->len == k && memcmp(v->keys[i]->text, key, k) == 0) return v->items[i];
  return NULL;
}

/* ---- writing ---- */

void json_put_str(StrBuf *b, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  sb_putc(b, '"');
  for (size_t i = 0; i < n;) {
    unsigned c = p[i];
    const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                    : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
    if (esc) {
      sb_puts(b, esc);
      i++;
    } else if (c < 0x20 || c == 0x7F) {
      sb_printf(b, "\\u%04x", c);
      i++;
    } else {
      int k = utf8_seq(p + i, n - i);
      if (k)
        sb_putn(b, s + i, (size_t)k);
      else
        put_utf8(b, 0xFFFD);
      i += k ? (size_t)k : 1;
    }
  }
  sb_putc(b, '"');
}

void json_write(StrBuf *b, const Json *v) {
  switch (v->kind) {
  case JSON_NULL:
    sb_puts(b, "null");
    break;
  case JSON_BOOL:
    sb_puts(b, v->b ? "true" : "false");
    break;
  case JSON_NUMBER:
    sb_putn(b, v->text, v->len);
    break;
  case JSON_STRING:
    json_put_str(b, v->text, v->len);
    break;
  case JSON_ARRAY:
  case JSON_OBJECT:
    sb_putc(b, v->kind == JSON_ARRAY ? '[' : '{');
    for (int i = 0; i < v->n; i++) {
      if (i) sb_putc(b, ',');
      if (v->kind == JSON_OBJECT) {
        json_write(b, v->keys[i]);
        sb_putc(b, ':');
      }
      json_write(b, v->items[i]);
    }
    sb_putc(b, v->kind == JSON_ARRAY ? ']' : '}');
    break;
  }
}
