/* lexer.re: TES tokens (re2c). Python's tokenizer rules: an indentation stack makes INDENT and
 * DEDENT, NEWLINE ends logical lines only, brackets and `\` join physical lines. String
 * literals are decoded here, and f-strings are split into their literal and field parts (each
 * field's expression is parsed in place by parser.y's lex_parse_field). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"

enum { TAB_WIDTH = 8 };

/* ---- errors and positions ---- */

SrcLoc lex_loc(const ParseCtx *ctx, int line, int col) { return (SrcLoc){ctx->src, line, col}; }

bool lex_error(ParseCtx *ctx, int line, int col, bool incomplete, const char *fmt, ...) {
  if (ctx->failed) return false;
  ctx->failed = true;
  ctx->err->loc = lex_loc(ctx, line, col);
  ctx->err->incomplete = incomplete;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->err->msg, sizeof ctx->err->msg, fmt, ap);
  va_end(ap);
  return false;
}

bool lex_unreachable(ParseCtx *ctx, const char *file, int line) {
  return lex_error(ctx, 1, 1, false,
                   "internal error at %s:%d: unreachable (a bug in tes, not in your script)", file,
                   line);
}

static int col_at(const Lexer *lx, const char *p) { return (int)(p - lx->line_start) + lx->col0; }

/* p is just past a '\n'. */
static void newline_at(Lexer *lx, const char *p) {
  lx->line++;
  lx->line_start = p;
  lx->col0 = 1;
}

static int fail_at(Lexer *lx, const char *p, bool incomplete, const char *msg) {
  lex_error(lx->ctx, lx->line, col_at(lx, p), incomplete, "%s", msg);
  return LEX_ERROR;
}

void *lex_grow(Arena *a, void *items, int n, size_t size) {
  if (n == 0) return arena_alloc(a, 4 * size);
  if (n < 4 || (n & (n - 1))) return items;
  return arena_realloc(a, items, (size_t)n * size, (size_t)n * 2 * size);
}

void lex_init(Lexer *lx, ParseCtx *ctx, const char *text, LexMode mode, int line, int col) {
  memset(lx, 0, sizeof *lx);
  lx->ctx = ctx;
  lx->mode = mode;
  if (mode == LEX_FILE && !strncmp(text, "\xEF\xBB\xBF", 3)) text += 3; /* a UTF-8 BOM */
  lx->cur = lx->line_start = text;
  lx->line = line;
  lx->col0 = col;
  lx->at_bol = mode == LEX_FILE;
}

/* ---- the encoding ---- */

/* The length of the well-formed UTF-8 sequence at u[0..n), or 0 with *why set to what
 * Python's codec says of the first byte that breaks it (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
static int utf8_length(const unsigned char *u, size_t n, const char **why) {
  unsigned char c = u[0], lo = 0x80, hi = 0xBF;
  int len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
          : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (!len) return *why = "invalid start byte", 0;
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  for (int i = 1; i < len; i++) {
    if ((size_t)i >= n) return *why = "unexpected end of data", 0;
    if (u[i] < (i == 1 ? lo : 0x80) || u[i] > (i == 1 ? hi : 0xBF))
      return *why = "invalid continuation byte", 0;
  }
  return len;
}

bool lex_check_utf8(ParseCtx *ctx, const char *text, size_t len) {
  const unsigned char *u = (const unsigned char *)text;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < len;) {
    const char *why;
    int n = u[i] < 0x80 ? 1 : utf8_length(u + i, len - i, &why);
    if (n == 0)
      return lex_error(ctx, line, (int)(i - line_start) + 1, false,
                       "(unicode error) 'utf-8' codec can't decode byte 0x%02x in position %zu: %s",
                       u[i], i, why);
    if (u[i] == '\n') line++, line_start = i + 1;
    i += (size_t)n;
  }
  return true;
}

/* ---- tokens ---- */

static void set_loc(const Lexer *lx, TES_YYLTYPE *l, int line, int col) {
  l->first_line = line;
  l->first_column = col;
  l->last_line = lx->line;
  l->last_column = col_at(lx, lx->cur);
}

/* A token from s to lx->cur, at *l. */
static int emit_at(Lexer *lx, TES_YYLTYPE *l, const char *s, int tok) {
  if (!lx->line_has_tokens) {
    lx->head[0] = lx->head[1];
    lx->head[1] = (LexHead){tok, lx->line, s};
  }
  lx->end_line = l->last_line;
  lx->end_col = l->last_column;
  lx->tok = s;
  lx->tok_len = (size_t)(lx->cur - s);
  lx->line_has_tokens = true;
  return tok;
}

/* A token that began at s on the current line and ends at lx->cur. */
static int emit(Lexer *lx, TES_YYLTYPE *l, const char *s, int tok) {
  set_loc(lx, l, lx->line, col_at(lx, s));
  return emit_at(lx, l, s, tok);
}

/* clang-format off */
static const struct {
  const char *word;
  int tok;
} keywords[] = {
  {"False", TOK_FALSE}, {"None", TOK_NONE},     {"True", TOK_TRUE},       {"and", TOK_AND},
  {"as", TOK_AS},       {"assert", TOK_ASSERT}, {"break", TOK_BREAK},   {"continue", TOK_CONTINUE},
  {"def", TOK_DEF},     {"del", TOK_DEL},       {"elif", TOK_ELIF},       {"else", TOK_ELSE},
  {"except", TOK_EXCEPT}, {"finally", TOK_FINALLY}, {"for", TOK_FOR},     {"from", TOK_FROM},
  {"global", TOK_GLOBAL}, {"if", TOK_IF},       {"import", TOK_IMPORT},   {"in", TOK_IN},
  {"is", TOK_IS},       {"lambda", TOK_LAMBDA}, {"not", TOK_NOT},         {"or", TOK_OR},
  {"pass", TOK_PASS},   {"raise", TOK_RAISE},   {"return", TOK_RETURN},   {"try", TOK_TRY},
  {"while", TOK_WHILE}, {"with", TOK_WITH},
};
/* clang-format on */

/* Python keywords that TES leaves out: using one is an error, not a name. */
static const char *const unsupported_words[] = {"class", "yield", "nonlocal", "async", "await"};

static bool word_is(const char *s, size_t n, const char *w) {
  return strlen(w) == n && !memcmp(s, w, n);
}

/* Decodes one UTF-8 sequence at p (already matched as well-formed by re2c). */
static uint32_t utf8_decode(const unsigned char *p, int *len) {
  if (p[0] < 0xE0) return *len = 2, ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu);
  if (p[0] < 0xF0) return *len = 3, ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
  *len = 4;
  return ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
}

/* Non-ASCII letters may appear in names, as in Python; punctuation pasted from documents
 * (no-break spaces, curly quotes, dashes, math signs) may not, so it gets a clear error
 * rather than becoming part of a name. */
static bool is_name_codepoint(uint32_t c) {
  return !((c >= 0x80 && c <= 0xBF) || c == 0xD7 || c == 0xF7 || (c >= 0x2000 && c <= 0x206F) ||
           (c >= 0x2190 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F) || c == 0xFEFF ||
           (c >= 0xD800 && c <= 0xDFFF));
}

static int bad_char(Lexer *lx, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  if (u[0] < 0x80) {
    if (u[0] < 0x20 || u[0] == 0x7F)
      lex_error(lx->ctx, lx->line, col_at(lx, s), false, "invalid character '\\x%02x'", u[0]);
    else
      lex_error(lx->ctx, lx->line, col_at(lx, s), false, "invalid character '%c'", u[0]);
    return LEX_ERROR;
  }
  int n = u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : 2;
  bool ok = u[0] >= 0xC2 && u[0] <= 0xF4;
  for (int i = 1; ok && i < n; i++) ok = (u[i] & 0xC0) == 0x80; /* stops at the NUL sentinel */
  if (!ok) return fail_at(lx, s, false, "invalid utf-8 byte in source");
  uint32_t c = utf8_decode(u, &n);
  lex_error(lx->ctx, lx->line, col_at(lx, s), false, "invalid character '%.*s' (U+%04X)", n, s,
            (unsigned)c);
  return LEX_ERROR;
}

static int name_token(Lexer *lx, const char *s, TES_YYSTYPE *lval, TES_YYLTYPE *l) {
  size_t n = (size_t)(lx->cur - s);
  for (size_t i = 0; i < n;) {
    int len = 1;
    if ((unsigned char)s[i] >= 0x80 &&
        !is_name_codepoint(utf8_decode((const unsigned char *)s + i, &len)))
      return bad_char(lx, s + i);
    i += (size_t)len;
  }
  for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
    if (word_is(s, n, keywords[i].word)) return emit(lx, l, s, keywords[i].tok);
  for (size_t i = 0; i < sizeof unsupported_words / sizeof unsupported_words[0]; i++)
    if (word_is(s, n, unsupported_words[i])) {
      lex_error(lx->ctx, lx->line, col_at(lx, s), false, "'%s' is not supported in TES",
                unsupported_words[i]);
      return LEX_ERROR;
    }
  lval->sym = sym_intern(s, n);
  return emit(lx, l, s, TOK_NAME);
}

/* ---- numbers ---- */

static int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

static bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         (unsigned char)c >= 0x80;
}

/* Python still reads `1if x else 2` and `[0x1for x in y]`: a keyword may follow a number. */
static bool keyword_follows(const char *p) {
  static const char *const words[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    size_t n = strlen(words[i]);
    if (!strncmp(p, words[i], n) && !is_name_char(p[n])) return true;
  }
  return false;
}

/* After a number: a letter, digit or '_' glued to it makes it invalid, as in Python. */
static int check_number_end(Lexer *lx, const char *s, const char *what) {
  char c = *lx->cur;
  if (keyword_follows(lx->cur)) return 0;
  if (c == 'j' || c == 'J') return fail_at(lx, s, false, "complex literals are not supported");
  if (is_name_char(c)) {
    lex_error(lx->ctx, lx->line, col_at(lx, s), false, "invalid %s literal", what);
    return LEX_ERROR;
  }
  return 0;
}

static int int_token(Lexer *lx, const char *s, int base, TES_YYSTYPE *lval, TES_YYLTYPE *l) {
  static const char *const base_names[17] = {
      [2] = "binary", [8] = "octal", [10] = "decimal", [16] = "hexadecimal"};
  if (check_number_end(lx, s, base_names[base])) return LEX_ERROR;
  const char *p = s + (base == 10 ? 0 : 2);
  uint64_t v = 0;
  bool over = false;
  for (; p < lx->cur; p++) {
    if (*p == '_') continue;
    uint64_t d = (uint64_t)digit_value(*p);
    if (v > (UINT64_MAX - d) / (uint64_t)base) over = true;
    v = v * (uint64_t)base + d;
  }
  if (over || v > (uint64_t)INT64_MAX + 1)
    return fail_at(lx, s, false, "integer literal too large");
  int tok = emit(lx, l, s, TOK_INT);
  lval->node = ast_node(lx->ctx->arena, AST_INT, lex_loc(lx->ctx, l->first_line, l->first_column));
  if (v == (uint64_t)INT64_MAX + 1) {
    lval->node->u.ival = INT64_MIN;
    ast_list_push(lx->ctx->arena, &lx->ctx->bigints, lval->node);
  } else {
    lval->node->u.ival = (int64_t)v;
  }
  return tok;
}

static int float_token(Lexer *lx, const char *s, TES_YYSTYPE *lval, TES_YYLTYPE *l) {
  if (check_number_end(lx, s, "decimal")) return LEX_ERROR;
  char *buf = arena_alloc(lx->ctx->arena, (size_t)(lx->cur - s) + 1);
  size_t n = 0;
  for (const char *p = s; p < lx->cur; p++)
    if (*p != '_') buf[n++] = *p;
  buf[n] = 0;
  int tok = emit(lx, l, s, TOK_FLOAT);
  lval->node =
      ast_node(lx->ctx->arena, AST_FLOAT, lex_loc(lx->ctx, l->first_line, l->first_column));
  lval->node->u.fval = strtod(buf, NULL); /* out of range gives inf, as Python's float() */
  return tok;
}

/* ---- string literals ---- */

static void put_utf8(char **o, uint32_t c) {
  unsigned char *u = (unsigned char *)*o;
  if (c < 0x80) {
    *u++ = (unsigned char)c;
  } else if (c < 0x800) {
    *u++ = (unsigned char)(0xC0 | (c >> 6));
    *u++ = (unsigned char)(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    *u++ = (unsigned char)(0xE0 | (c >> 12));
    *u++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    *u++ = (unsigned char)(0x80 | (c & 0x3F));
  } else {
    *u++ = (unsigned char)(0xF0 | (c >> 18));
    *u++ = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    *u++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    *u++ = (unsigned char)(0x80 | (c & 0x3F));
  }
  *o = (char *)u;
}

static bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* \xhh \uhhhh \Uhhhhhhhh at s (just past the letter): a code point, or -1 if truncated. */
static int64_t hex_escape(const char *s, const char *e, int ndigits) {
  int64_t v = 0;
  for (int i = 0; i < ndigits; i++) {
    if (s + i >= e || !is_hex(s[i])) return -1;
    v = v * 16 + digit_value(s[i]);
  }
  return v;
}

/* One escape at p (just past the backslash); appends to *o and returns the bytes consumed, or
 * -1 after reporting an error at loc. */
static int escape(ParseCtx *ctx, const char *p, const char *e, char **o, SrcLoc loc) {
  static const char simple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
  for (int i = 0; simple[i]; i += 2)
    if (*p == simple[i]) return *(*o)++ = simple[i + 1], 1;
  if (*p == '\n') return 1;
  if (*p == '\r' && p + 1 < e && p[1] == '\n') return 2;
  if (*p >= '0' && *p <= '7') {
    int n = 0, v = 0;
    while (n < 3 && p + n < e && p[n] >= '0' && p[n] <= '7') v = v * 8 + (p[n++] - '0');
    put_utf8(o, (uint32_t)v);
    return n;
  }
  int nd = *p == 'x' ? 2 : *p == 'u' ? 4 : *p == 'U' ? 8 : 0;
  const char *bad = NULL;
  int64_t c = nd ? hex_escape(p + 1, e, nd) : 0;
  if (nd && c < 0) bad = "truncated \\%cXX escape in string literal";
  else if (c > 0x10FFFF) bad = "illegal unicode character in string literal";
  else if (*p == 'N') bad = "not supported yet: \\N{...} escapes";
  if (bad) {
    lex_error(ctx, loc.line, loc.col, false, bad, *p);
    return -1;
  }
  if (nd) {
    put_utf8(o, (uint32_t)c);
    return nd + 1;
  }
  *(*o)++ = '\\'; /* unknown escapes stay as they are, like Python */
  return 0;
}

/* Decodes s[0..n) into the arena. Decoding never lengthens the text, so n + 1 bytes do. */
static bool decode(ParseCtx *ctx, const char *s, size_t n, bool raw, SrcLoc loc, char **out,
                   size_t *outlen) {
  char *buf = arena_alloc(ctx->arena, n + 1), *o = buf;
  const char *e = s + n;
  for (const char *p = s; p < e;) {
    if (*p == '\r' && p + 1 < e && p[1] == '\n') { /* source newlines read as '\n' */
      p++;
      continue;
    }
    if (*p != '\\' || raw || p + 1 == e) {
      *o++ = *p++;
      continue;
    }
    int used = escape(ctx, p + 1, e, &o, loc);
    if (used < 0) return false;
    p += 1 + used;
  }
  *o = 0;
  *out = buf;
  *outlen = (size_t)(o - buf);
  return true;
}

/* The body of a string literal from q (its opening quote) on; lx->cur ends past the closing
 * quote. Tracks lines, since triple-quoted strings and `\` newlines span several. */
static int scan_string(Lexer *lx, const char *q, StrPiece *sp) {
  char quote = *q;
  bool triple = q[1] == quote && q[2] == quote;
  const char *p = q + (triple ? 3 : 1), *cont_end = NULL;
  sp->body = p;
  sp->body_line = lx->line;
  sp->body_col = col_at(lx, p);
  for (;;) {
    if (*p == 0) {
      /* More input could still close a triple-quoted string, or one that a `\` continued. */
      bool more = triple || cont_end == p;
      lex_error(lx->ctx, sp->loc.line, sp->loc.col, more,
                triple ? "unterminated triple-quoted string literal"
                       : "unterminated string literal");
      return LEX_ERROR;
    }
    if (*p == '\\' && p[1] != 0) {
      if (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n')) {
        p += p[1] == '\n' ? 2 : 3;
        newline_at(lx, p);
        cont_end = p;
      } else {
        p += 2;
      }
    } else if (*p == '\n') {
      if (!triple) {
        lex_error(lx->ctx, sp->loc.line, sp->loc.col, false, "unterminated string literal");
        return LEX_ERROR;
      }
      newline_at(lx, ++p);
    } else if (*p == quote && (!triple || (p[1] == quote && p[2] == quote))) {
      sp->len = (size_t)(p - sp->body);
      lx->cur = p + (triple ? 3 : 1);
      return 0;
    } else {
      p++;
    }
  }
}

static int string_token(Lexer *lx, const char *s, TES_YYSTYPE *lval, TES_YYLTYPE *l) {
  const char *q = lx->cur - 1; /* re2c matched the prefix and the opening quote */
  StrPiece *sp = arena_alloc(lx->ctx->arena, sizeof *sp);
  int line = lx->line, col = col_at(lx, s);
  sp->loc = lex_loc(lx->ctx, line, col);
  for (const char *p = s; p < q; p++) {
    char c = (char)(*p | 0x20);
    if (c == 'b') return fail_at(lx, s, false, "bytes literals are not supported");
    sp->raw |= c == 'r';
    sp->fmt |= c == 'f';
  }
  if (scan_string(lx, q, sp)) return LEX_ERROR;
  if (!sp->fmt && !decode(lx->ctx, sp->body, sp->len, sp->raw, sp->loc, &sp->dec, &sp->dec_len))
    return LEX_ERROR;
  set_loc(lx, l, line, col);
  lval->str = sp;
  return emit_at(lx, l, s, TOK_STRING);
}

/* ---- brackets ---- */

static int open_bracket(Lexer *lx, const char *s, TES_YYLTYPE *l) {
  if (lx->nparens == LEX_MAX_PARENS) return fail_at(lx, s, false, "too many nested parentheses");
  lx->parens[lx->nparens++] = (LexBracket){*s, lx->line, col_at(lx, s)};
  return emit(lx, l, s, (unsigned char)*s);
}

static int close_bracket(Lexer *lx, const char *s, TES_YYLTYPE *l) {
  if (lx->nparens == 0) {
    lex_error(lx->ctx, lx->line, col_at(lx, s), false, "unmatched '%c'", *s);
    return LEX_ERROR;
  }
  LexBracket *b = &lx->parens[lx->nparens - 1];
  char want = b->ch == '(' ? ')' : b->ch == '[' ? ']' : '}';
  if (*s != want) {
    if (b->line != lx->line)
      lex_error(lx->ctx, lx->line, col_at(lx, s), false,
                "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d", *s,
                b->ch, b->line);
    else
      lex_error(lx->ctx, lx->line, col_at(lx, s), false,
                "closing parenthesis '%c' does not match opening parenthesis '%c'", *s, b->ch);
    return LEX_ERROR;
  }
  lx->nparens--;
  return emit(lx, l, s, (unsigned char)*s);
}

/* ---- line structure ---- */

static void eol_loc(Lexer *lx, TES_YYLTYPE *l, const char *s) {
  set_loc(lx, l, lx->line, col_at(lx, s));
  lx->tok = s;
  lx->tok_len = 0;
}

/* The end of the text: close the last line and every open block, then END for good. */
static int end_of_input(Lexer *lx, const char *s, TES_YYLTYPE *l) {
  lx->cur = s;
  lx->at_eof = true;
  eol_loc(lx, l, s);
  if (lx->mode == LEX_EXPR) return TOK_YYEOF;
  if (lx->cont_end == s) return fail_at(lx, s, true, "unexpected end of input after '\\'");
  if (lx->nparens > 0) {
    LexBracket *b = &lx->parens[lx->nparens - 1];
    lex_error(lx->ctx, b->line, b->col, true, "'%c' was never closed", b->ch);
    return LEX_ERROR;
  }
  if (lx->line_has_tokens) {
    lx->line_has_tokens = false;
    return TOK_NEWLINE;
  }
  if (lx->nindent > 0) {
    lx->nindent--;
    return TOK_DEDENT;
  }
  return TOK_YYEOF;
}

/* A '\n' at s (p is past it). Inside brackets and in f-string fields it is only space. */
static int newline(Lexer *lx, const char *s, TES_YYLTYPE *l) {
  bool real = lx->mode == LEX_FILE && lx->nparens == 0 && lx->line_has_tokens;
  if (real) eol_loc(lx, l, s);
  newline_at(lx, lx->cur);
  if (lx->mode == LEX_FILE && lx->nparens == 0) lx->at_bol = true;
  if (!real) return -1;
  lx->line_has_tokens = false;
  return TOK_NEWLINE;
}

static int tab_error(Lexer *lx, const char *p) {
  return fail_at(lx, p, false, "inconsistent use of tabs and spaces in indentation");
}

/* At the start of a line at bracket depth 0: measures its indentation against the stack.
 * Returns INDENT, DEDENT (more may be pending), 0 for no change or a blank line, or an error. */
static int indentation(Lexer *lx, TES_YYLTYPE *l) {
  const char *p = lx->cur;
  int col = 0, alt = 0;
  for (;; p++) {
    if (*p == ' ')
      col++, alt++;
    else if (*p == '\t')
      col = (col / TAB_WIDTH + 1) * TAB_WIDTH, alt++;
    else if (*p == '\f')
      col = alt = 0;
    else
      break;
  }
  lx->cur = p;
  if (*p == '#' || *p == '\n' || (*p == '\r' && p[1] == '\n') || *p == 0)
    return 0; /* a blank line changes no block */
  lx->at_bol = false;
  int top = lx->indcol[lx->nindent], top_alt = lx->altcol[lx->nindent];
  eol_loc(lx, l, p);
  if (col == top) return alt != top_alt ? tab_error(lx, p) : 0;
  if (col > top) {
    if (alt <= top_alt) return tab_error(lx, p);
    if (lx->nindent == LEX_MAX_INDENT)
      return fail_at(lx, p, false, "too many levels of indentation");
    lx->nindent++;
    lx->indcol[lx->nindent] = col;
    lx->altcol[lx->nindent] = alt;
    return TOK_INDENT;
  }
  int n = 0;
  while (lx->nindent > 0 && col < lx->indcol[lx->nindent]) lx->nindent--, n++;
  if (col != lx->indcol[lx->nindent])
    return fail_at(lx, p, false, "unindent does not match any outer indentation level");
  if (alt != lx->altcol[lx->nindent]) return tab_error(lx, p);
  lx->pending_dedents = n - 1;
  lx->dedent_line = lx->line;
  lx->dedent_col = col_at(lx, p);
  return TOK_DEDENT;
}

#define CONT_MSG "unexpected character after line continuation character"
#define LEADING_ZEROS_MSG                                                                     \
  "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal " \
  "integers"

/* One step of the scanner: a token, or -1 after skipping space, a comment or a newline. */
static int scan(Lexer *lx, TES_YYSTYPE *lval, TES_YYLTYPE *l) {
  const char *s = lx->cur, *mar = NULL;
  (void)mar;
  /* clang-format off */
  /*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = "lx->cur";
    re2c:define:YYMARKER = "mar";
    re2c:yyfill:enable = 0;
    re2c:indent:top = 1;

    u8tail = [\x80-\xbf];
    u8 = [\xc2-\xdf] u8tail | [\xe0-\xef] u8tail u8tail | [\xf0-\xf4] u8tail u8tail u8tail;
    name = ([a-zA-Z_] | u8) ([a-zA-Z0-9_] | u8)*;
    digits = [0-9] ("_"? [0-9])*;
    decint = [1-9] ("_"? [0-9])* | "0" ("_"? "0")*;
    hexint = "0" [xX] ("_"? [0-9a-fA-F])+;
    octint = "0" [oO] ("_"? [0-7])+;
    binint = "0" [bB] ("_"? [01])+;
    exponent = [eE] [+-]? digits;
    pointfloat = digits? "." digits | digits ".";
    float = pointfloat exponent? | digits exponent;
    strprefix = [rRuUfFbB] | [rR][fFbB] | [fFbB][rR];

    "\x00"            { return end_of_input(lx, s, l); }
    [ \t\f\r]+        { return -1; }
    "#" [^\n\x00]*    { return -1; }
    "\n"              { return newline(lx, s, l); }
    "\\" "\r"? "\n"   { newline_at(lx, lx->cur); lx->cont_end = lx->cur; return -1; }
    "\\" "\x00"       {
      lx->cur--;
      return fail_at(lx, s, lx->mode == LEX_FILE, "unexpected end of input after '\\'");
    }
    "\\"              { return fail_at(lx, s, false, CONT_MSG); }

    name              { return name_token(lx, s, lval, l); }
    decint            { return int_token(lx, s, 10, lval, l); }
    "0" digits        { return fail_at(lx, s, false, LEADING_ZEROS_MSG); }
    hexint            { return int_token(lx, s, 16, lval, l); }
    octint            { return int_token(lx, s, 8, lval, l); }
    binint            { return int_token(lx, s, 2, lval, l); }
    "0" [xX]          { return fail_at(lx, s, false, "invalid hexadecimal literal"); }
    "0" [oO]          { return fail_at(lx, s, false, "invalid octal literal"); }
    "0" [bB]          { return fail_at(lx, s, false, "invalid binary literal"); }
    float             { return float_token(lx, s, lval, l); }
    strprefix? ['"]   { return string_token(lx, s, lval, l); }

    "(" | "[" | "{"   { return open_bracket(lx, s, l); }
    ")" | "]" | "}"   { return close_bracket(lx, s, l); }
    [-+*/%@&|^~<>=.,:;] { return emit(lx, l, s, (unsigned char)*s); }
    "**"              { return emit(lx, l, s, TOK_POW); }
    "//"              { return emit(lx, l, s, TOK_FLOORDIV); }
    "<<"              { return emit(lx, l, s, TOK_LSHIFT); }
    ">>"              { return emit(lx, l, s, TOK_RSHIFT); }
    "<="              { return emit(lx, l, s, TOK_LE); }
    ">="              { return emit(lx, l, s, TOK_GE); }
    "=="              { return emit(lx, l, s, TOK_EQ); }
    "!="              { return emit(lx, l, s, TOK_NE); }
    "->"              { return emit(lx, l, s, TOK_ARROW); }
    ":="              { return emit(lx, l, s, TOK_WALRUS); }
    "..."             { return emit(lx, l, s, TOK_ELLIPSIS); }
    "+="              { lval->op = BIN_ADD; return emit(lx, l, s, TOK_AUGASSIGN); }
    "-="              { lval->op = BIN_SUB; return emit(lx, l, s, TOK_AUGASSIGN); }
    "*="              { lval->op = BIN_MUL; return emit(lx, l, s, TOK_AUGASSIGN); }
    "/="              { lval->op = BIN_DIV; return emit(lx, l, s, TOK_AUGASSIGN); }
    "//="             { lval->op = BIN_FLOORDIV; return emit(lx, l, s, TOK_AUGASSIGN); }
    "%="              { lval->op = BIN_MOD; return emit(lx, l, s, TOK_AUGASSIGN); }
    "**="             { lval->op = BIN_POW; return emit(lx, l, s, TOK_AUGASSIGN); }
    "@="              { lval->op = BIN_MATMUL; return emit(lx, l, s, TOK_AUGASSIGN); }
    "<<="             { lval->op = BIN_LSHIFT; return emit(lx, l, s, TOK_AUGASSIGN); }
    ">>="             { lval->op = BIN_RSHIFT; return emit(lx, l, s, TOK_AUGASSIGN); }
    "&="              { lval->op = BIN_AND; return emit(lx, l, s, TOK_AUGASSIGN); }
    "|="              { lval->op = BIN_OR; return emit(lx, l, s, TOK_AUGASSIGN); }
    "^="              { lval->op = BIN_XOR; return emit(lx, l, s, TOK_AUGASSIGN); }
    *                 { return bad_char(lx, s); }
  */
  /* clang-format on */
}

static int next_token(Lexer *lx, TES_YYSTYPE *lval, TES_YYLTYPE *l) {
  if (!lx->started) {
    lx->started = true;
    eol_loc(lx, l, lx->cur);
    return lx->mode == LEX_FILE ? TOK_START_FILE : TOK_START_FIELD;
  }
  if (lx->pending_dedents > 0) {
    lx->pending_dedents--;
    set_loc(lx, l, lx->dedent_line, lx->dedent_col);
    return TOK_DEDENT;
  }
  for (;;) {
    if (lx->at_bol && !lx->at_eof) {
      int t = indentation(lx, l);
      if (t) return t;
    }
    int t = scan(lx, lval, l);
    if (t >= 0) return t;
  }
}

bool lex_unclosed_bracket(Lexer *lx, LexBracket *b) {
  if (lx->mode != LEX_FILE) return false;
  ParseCtx *ctx = lx->ctx;
  ParseError scratch, *err = ctx->err;
  bool failed = ctx->failed;
  ctx->err = &scratch;
  TES_YYSTYPE v;
  TES_YYLTYPE l;
  int t, open = lx->nparens; /* brackets open at the error that stay open */
  do {
    ctx->failed = false;
    t = next_token(lx, &v, &l);
    if (lx->nparens < open) open = lx->nparens;
  } while (t != TOK_YYEOF && t != LEX_ERROR);
  ctx->err = err;
  ctx->failed = failed;
  if (!lx->at_eof || open == 0) return false;
  *b = lx->parens[open - 1];
  return true;
}

int tes_yylex(TES_YYSTYPE *lval, TES_YYLTYPE *lloc, Lexer *lx) {
  if (lx->ctx->failed) return LEX_ERROR;
  return next_token(lx, lval, lloc);
}

/* ---- f-strings ---- */

/* A position in a piece's body, with its source line and column. */
typedef struct FPos {
  const char *p, *line_start;
  int line, col0;
} FPos;

static int fcol(const FPos *f) { return (int)(f->p - f->line_start) + f->col0; }

static void fadvance(FPos *f, const char *to) {
  for (; f->p < to; f->p++)
    if (*f->p == '\n') f->line++, f->line_start = f->p + 1, f->col0 = 1;
}

typedef struct FCtx {
  ParseCtx *ctx;
  const StrPiece *sp;
  const char *end; /* of the body */
  NodeList *parts;
} FCtx;

static bool ferror_at(FCtx *fx, const FPos *at, const char *msg) {
  return lex_error(fx->ctx, at->line, fcol(at), false, "f-string: %s", msg);
}

static void push_str(ParseCtx *ctx, NodeList *parts, char *s, size_t n, SrcLoc loc) {
  Node *str = ast_node(ctx->arena, AST_STR, loc);
  str->u.str.s = s;
  str->u.str.len = n;
  ast_list_push(ctx->arena, parts, str);
}

/* Literal text from f->p up to a lone '{' or '}' (or the end), undoubling "{{" and "}}"
 * outside format specs (in a spec, '}' always ends it, as in Python). */
static bool flit(FCtx *fx, FPos *f, NodeList *parts, bool in_spec) {
  char *raw = arena_alloc(fx->ctx->arena, (size_t)(fx->end - f->p) + 1), *o = raw;
  FPos start = *f;
  while (f->p < fx->end) {
    char c = *f->p;
    if (!in_spec && (c == '{' || c == '}') && f->p + 1 < fx->end && f->p[1] == c) {
      *o++ = c;
      fadvance(f, f->p + 2);
      continue;
    }
    if (c == '{' || c == '}') break;
    /* An escape is copied whole so that "\{" keeps its '{' for a field, as Python does. */
    bool esc = c == '\\' && !fx->sp->raw && f->p + 1 < fx->end && f->p[1] != '{' && f->p[1] != '}';
    size_t n = esc ? 2 : 1;
    for (size_t i = 0; i < n; i++) *o++ = f->p[i];
    fadvance(f, f->p + n);
  }
  if (o == raw) return true;
  char *dec;
  size_t len;
  SrcLoc loc = lex_loc(fx->ctx, start.line, fcol(&start));
  if (!decode(fx->ctx, raw, (size_t)(o - raw), fx->sp->raw, fx->sp->loc, &dec, &len)) return false;
  push_str(fx->ctx, parts, dec, len, loc);
  return true;
}

/* Skips a string literal inside a field's expression; f->p is at its quote. */
static bool fskip_quoted(FCtx *fx, FPos *f) {
  char q = *f->p;
  bool triple = f->p + 2 < fx->end && f->p[1] == q && f->p[2] == q;
  const char *p = f->p + (triple ? 3 : 1);
  for (; p < fx->end; p++) {
    if (*p == q && (!triple || (p + 2 < fx->end && p[1] == q && p[2] == q))) {
      fadvance(f, p + (triple ? 3 : 1));
      return true;
    }
  }
  return ferror_at(fx, f, "unterminated string");
}

/* Finds the end of a field's expression: the first '!', ':' or '}' outside brackets. */
static bool fexpr_end(FCtx *fx, FPos *f) {
  char stack[LEX_MAX_PARENS];
  int depth = 0;
  while (f->p < fx->end) {
    char c = *f->p;
    if (depth == 0 &&
        (c == '}' || c == ':' || (c == '!' && !(f->p + 1 < fx->end && f->p[1] == '='))))
      return true;
    if (c == '\\') return ferror_at(fx, f, "expression part cannot include a backslash");
    if (c == '#') return ferror_at(fx, f, "expression part cannot include '#'");
    if (c == '\'' || c == '"') {
      if (!fskip_quoted(fx, f)) return false;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (depth == LEX_MAX_PARENS) return ferror_at(fx, f, "too many nested parentheses");
      stack[depth++] = c;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) {
        lex_error(fx->ctx, f->line, fcol(f), false, "f-string: unmatched '%c'", c);
        return false;
      }
      char want = stack[depth - 1] == '(' ? ')' : stack[depth - 1] == '[' ? ']' : '}';
      if (c != want) {
        lex_error(fx->ctx, f->line, fcol(f), false,
                  "f-string: closing parenthesis '%c' does not match opening parenthesis '%c'", c,
                  stack[depth - 1]);
        return false;
      }
      depth--;
    }
    fadvance(f, f->p + 1);
  }
  return ferror_at(fx, f, "expecting '}'");
}

static bool fparts(FCtx *fx, FPos *f, NodeList *parts, bool in_spec, int depth);

/* `!r` / `!s` after a field's expression; f->p is past the expression. */
static bool fconversion(FCtx *fx, FPos *f, char *conv) {
  if (f->p >= fx->end || *f->p != '!') return true;
  fadvance(f, f->p + 1);
  char c = f->p < fx->end ? *f->p : 0;
  if (c == 'a')
    return lex_error(fx->ctx, f->line, fcol(f), false, "not supported yet: !a in f-strings");
  if (c != 'r' && c != 's')
    return ferror_at(fx, f, "invalid conversion character: expected 's', 'r', or 'a'");
  *conv = c;
  fadvance(f, f->p + 1);
  return true;
}

/* `:spec` after the expression and conversion: a STR, an FSTR if it holds fields, or NULL. */
static bool fspec(FCtx *fx, FPos *f, int depth, Node **spec) {
  if (f->p >= fx->end || *f->p != ':') return true;
  fadvance(f, f->p + 1);
  SrcLoc loc = lex_loc(fx->ctx, f->line, fcol(f));
  NodeList parts = {0};
  if (!fparts(fx, f, &parts, true, depth + 1)) return false;
  if (parts.n == 1 && parts.items[0]->kind == AST_STR) {
    *spec = parts.items[0];
  } else if (parts.n > 0) {
    *spec = ast_node(fx->ctx->arena, AST_FSTR, loc);
    (*spec)->u.list = parts;
  }
  return true;
}

static bool blank(const char *s, const char *e) {
  for (; s < e; s++)
    if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != '\f') return false;
  return true;
}

/* `x=` (Python 3.8's self-documenting field): a trailing '=' that is no comparison. */
static bool self_documenting(const char *s, const char *e) {
  while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n')) e--;
  return e > s && e[-1] == '=' && !(e - 1 > s && strchr("=!<>", e[-2]));
}

/* A replacement field; f->p is at its '{'. */
static bool ffield(FCtx *fx, FPos *f, NodeList *parts, int depth) {
  if (depth >= 2) return ferror_at(fx, f, "expressions nested too deeply");
  SrcLoc loc = lex_loc(fx->ctx, f->line, fcol(f));
  fadvance(f, f->p + 1);
  FPos ex = *f;
  if (!fexpr_end(fx, f)) return false;
  if (blank(ex.p, f->p)) return ferror_at(fx, f, "empty expression not allowed");
  if (self_documenting(ex.p, f->p))
    return lex_error(fx->ctx, loc.line, loc.col, false,
                     "not supported yet: '=' in f-string fields");
  Node *val = ast_node(fx->ctx->arena, AST_FMTVAL, loc);
  val->u.fmt.expr = lex_parse_field(fx->ctx, ex.p, (size_t)(f->p - ex.p), ex.line, fcol(&ex));
  if (!val->u.fmt.expr) return false;
  if (!fconversion(fx, f, &val->u.fmt.conv) || !fspec(fx, f, depth, &val->u.fmt.spec)) return false;
  if (f->p >= fx->end || *f->p != '}') return ferror_at(fx, f, "expecting '}'");
  fadvance(f, f->p + 1);
  ast_list_push(fx->ctx->arena, parts, val);
  return true;
}

/* Literal text and fields up to the end of the body, or, in a format spec, up to its '}'. */
static bool fparts(FCtx *fx, FPos *f, NodeList *parts, bool in_spec, int depth) {
  for (;;) {
    if (!flit(fx, f, parts, in_spec)) return false;
    if (f->p >= fx->end) return in_spec ? ferror_at(fx, f, "expecting '}'") : true;
    if (*f->p == '}') return in_spec ? true : ferror_at(fx, f, "single '}' is not allowed");
    if (!ffield(fx, f, parts, depth)) return false;
  }
}

static bool fstring_parts(ParseCtx *ctx, const StrPiece *sp, NodeList *parts) {
  FCtx fx = {ctx, sp, sp->body + sp->len, parts};
  FPos f = {sp->body, sp->body, sp->body_line, sp->body_col};
  return fparts(&fx, &f, parts, false, 0);
}

/* ---- joining adjacent literals ---- */

static Node *join_strs(ParseCtx *ctx, Node **items, int n) {
  size_t len = 0;
  for (int i = 0; i < n; i++) len += items[i]->u.str.len;
  char *s = arena_alloc(ctx->arena, len + 1), *o = s;
  for (int i = 0; i < n; i++) {
    memcpy(o, items[i]->u.str.s, items[i]->u.str.len);
    o += items[i]->u.str.len;
  }
  Node *str = ast_node(ctx->arena, AST_STR, items[0]->loc);
  str->u.str.s = s;
  str->u.str.len = len;
  return str;
}

/* Runs of adjacent STR parts become one STR. */
static NodeList merge_strs(ParseCtx *ctx, NodeList in) {
  NodeList out = {0};
  for (int i = 0; i < in.n;) {
    int j = i;
    while (j < in.n && in.items[j]->kind == AST_STR) j++;
    if (j == i) j = i + 1;
    ast_list_push(ctx->arena, &out, j - i > 1 ? join_strs(ctx, in.items + i, j - i) : in.items[i]);
    i = j;
  }
  return out;
}

Node *lex_string_node(ParseCtx *ctx, StrPiece *first) {
  NodeList parts = {0};
  bool fmt = false;
  for (StrPiece *sp = first; sp; sp = sp->next) {
    fmt |= sp->fmt;
    if (!sp->fmt)
      push_str(ctx, &parts, sp->dec, sp->dec_len, sp->loc);
    else if (!fstring_parts(ctx, sp, &parts))
      return NULL;
  }
  parts = merge_strs(ctx, parts);
  if (!fmt) return parts.items[0]; /* plain literals always join into one STR, maybe empty */
  Node *n = ast_node(ctx->arena, AST_FSTR, first->loc);
  for (int i = 0; i < parts.n; i++)
    if (parts.items[i]->kind != AST_STR || parts.items[i]->u.str.len > 0)
      ast_list_push(ctx->arena, &n->u.list, parts.items[i]);
  return n;
}
