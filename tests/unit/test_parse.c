/* test_parse.c: the front end (grammar/lexer.re, grammar/parser.y, frontend/lang/ast.c). Parses
 * snippets and compares ast_dump output, node locations, and the message, location and
 * `incomplete` flag of syntax errors. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/parse.h"
#include "frontend/lang/value.h"
#include "tests/unit/check.h"

/* ---- helpers ---- */

typedef struct Parsed {
  Source *src;
  Unit *unit;
  ParseError err;
} Parsed;

static Parsed parse_n(const char *text, size_t len) {
  Parsed p;
  p.src = src_new("<test>", text, len);
  p.unit = parse_source(p.src, &p.err);
  return p;
}

static Parsed parse(const char *text) { return parse_n(text, strlen(text)); }

static void done(Parsed *p) {
  unit_decref(p->unit);
  src_decref(p->src);
}

/* The dump of a whole module, or "error L:C: MSG" (malloc'd). */
static char *dump_text(const char *text, size_t len, bool first_expr) {
  Parsed p = parse_n(text, len);
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  if (!p.unit) {
    fprintf(f, "error %d:%d: %s", p.err.loc.line, p.err.loc.col, p.err.msg);
  } else if (first_expr) {
    NodeList *stmts = &p.unit->root->u.list;
    if (stmts->n && stmts->items[0]->kind == AST_EXPRSTMT)
      ast_dump(stmts->items[0]->u.unary.a, f);
    else
      fputs("not an expression statement", f);
  } else {
    ast_dump(p.unit->root, f);
  }
  fclose(f);
  size_t n = strlen(buf);
  if (n && buf[n - 1] == '\n') buf[n - 1] = 0; /* expectations leave out the final newline */
  done(&p);
  return buf;
}

static bool same(const char *what, const char *got, const char *want, const char *file, int line) {
  if (!strcmp(got, want)) return true;
  fprintf(stderr, "%s:%d: %s\n  want: %s\n  got:  %s\n", file, line, what, want, got);
  return false;
}

static bool dump_is(const char *text, bool first_expr, const char *want, const char *file,
                    int line) {
  char *got = dump_text(text, strlen(text), first_expr);
  bool ok = same(text, got, want, file, line);
  free(got);
  return ok;
}

/* EXPR: the first statement is an expression with this dump; MOD: the whole module. */
#define EXPR(text, want) CHECK(dump_is(text, true, want, __FILE__, __LINE__))
#define MOD(text, want) CHECK(dump_is(text, false, want, __FILE__, __LINE__))

static bool error_is(const char *text, size_t len, int line, int col, const char *msg,
                     bool incomplete, const char *file, int at) {
  Parsed p = parse_n(text, len);
  bool ok = !p.unit && p.err.loc.line == line && p.err.loc.col == col && !strcmp(p.err.msg, msg) &&
            p.err.incomplete == incomplete && p.err.loc.src == p.src;
  if (!ok) {
    fprintf(stderr, "%s:%d: error for %s\n  want: %d:%d: %s%s\n", file, at, text, line, col, msg,
            incomplete ? " [incomplete]" : "");
    if (p.unit)
      fprintf(stderr, "  got:  no error\n");
    else
      fprintf(stderr, "  got:  %d:%d: %s%s\n", p.err.loc.line, p.err.loc.col, p.err.msg,
              p.err.incomplete ? " [incomplete]" : "");
  }
  done(&p);
  return ok;
}

static bool parses(const char *text) {
  Parsed p = parse(text);
  bool ok = p.unit != NULL;
  done(&p);
  return ok;
}

#define ERR(text, line, col, msg)                                                                  \
  CHECK(error_is(text, strlen(text), line, col, msg, false, __FILE__, __LINE__))
#define MORE(text, line, col, msg)                                                                 \
  CHECK(error_is(text, strlen(text), line, col, msg, true, __FILE__, __LINE__))

/* The first expression statement's expression, kept alive by *p. */
static Node *first_expr(Parsed *p, const char *text) {
  *p = parse(text);
  if (!p->unit || p->unit->root->u.list.n == 0) return NULL;
  Node *s = p->unit->root->u.list.items[0];
  return s->kind == AST_EXPRSTMT ? s->u.unary.a : s;
}

static bool at(const Node *n, int line, int col) {
  if (n && n->loc.line == line && n->loc.col == col) return true;
  if (n) fprintf(stderr, "  node %s at %d:%d\n", ast_kind_names[n->kind], n->loc.line, n->loc.col);
  return false;
}

static char *repeat(const char *s, int n, const char *prefix, const char *suffix) {
  size_t k = strlen(s), a = strlen(prefix), b = strlen(suffix);
  char *out = malloc(a + k * (size_t)n + b + 1);
  memcpy(out, prefix, a);
  for (int i = 0; i < n; i++) memcpy(out + a + k * (size_t)i, s, k);
  memcpy(out + a + k * (size_t)n, suffix, b + 1);
  return out;
}

/* ---- literals ---- */

static void test_parse_numbers(void) {
  EXPR("42", "(INT 42)");
  EXPR("0x2a", "(INT 42)");
  EXPR("0X_2A", "(INT 42)");
  EXPR("0o52", "(INT 42)");
  EXPR("0b101010", "(INT 42)");
  EXPR("1_000_000", "(INT 1000000)");
  EXPR("0", "(INT 0)");
  EXPR("00", "(INT 0)");
  EXPR("9223372036854775807", "(INT 9223372036854775807)");
  EXPR("-9223372036854775808", "(INT -9223372036854775808)");
  EXPR("0xffffffffffffffff - 1", "error 1:1: integer literal too large");
  EXPR("9223372036854775808", "error 1:1: integer literal too large");
  EXPR("-(9223372036854775808)", "(INT -9223372036854775808)");
  EXPR("1.5", "(FLOAT 1.5)");
  EXPR("1e-3", "(FLOAT 0.001)");
  EXPR("2.", "(FLOAT 2.0)");
  EXPR(".5", "(FLOAT 0.5)");
  EXPR("1_000.5", "(FLOAT 1000.5)");
  EXPR("1E5", "(FLOAT 100000.0)");
  EXPR("0.1", "(FLOAT 0.1)");
  EXPR("1e400", "(FLOAT inf)");
  EXPR("True, False, None", "(TUPLE (TRUE) (FALSE) (NONE))");
  EXPR("1if x else 2", "(IFEXP (NAME x) (INT 1) (INT 2))"); /* Python still accepts these */
  EXPR("[0x1for x in y]", "(LIST (OR (INT 31) (COMPARE (NAME x) in (NAME y))))"); /* 0x1f or */
}

static void test_parse_number_errors(void) {
  ERR("x = 0123", 1, 5,
      "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
      "integers");
  ERR("x = 1abc", 1, 5, "invalid decimal literal");
  ERR("x = 1_", 1, 5, "invalid decimal literal");
  ERR("x = 0x", 1, 5, "invalid hexadecimal literal");
  ERR("x = 0b2", 1, 5, "invalid binary literal");
  ERR("x = 0o8", 1, 5, "invalid octal literal");
  ERR("x = 1j", 1, 5, "complex literals are not supported");
  ERR("x = 99999999999999999999999", 1, 5, "integer literal too large");
  ERR("x = 1\ny = 9223372036854775808", 2, 5, "integer literal too large");
  ERR("x = 9223372036854775808 ** 1", 1, 5, "integer literal too large");
}

static void test_parse_strings(void) {
  EXPR("'a'", "(STR \"a\")");
  EXPR("\"b\"", "(STR \"b\")");
  EXPR("'''c\nd'''", "(STR \"c\\nd\")");
  EXPR("\"\"\"it's \"q\" \"\"\"", "(STR \"it's \\\"q\\\" \")");
  EXPR("''", "(STR \"\")");
  EXPR("'a' \"b\" '''c'''", "(STR \"abc\")");
  EXPR("'a'\\\n  'b'", "(STR \"ab\")");
  EXPR("('a'\n 'b')", "(STR \"ab\")");
  EXPR("'\\n\\t\\\\\\'\\\"\\r\\a\\b\\f\\v'", "(STR \"\\n\\t\\\\'\\\"\\r\\x07\\x08\\x0c\\x0b\")");
  EXPR("'\\x41\\u00e9\\U0001F600\\101'", "(STR \"A\xc3\xa9\xf0\x9f\x98\x80"
                                         "A\")");
  EXPR("'\\xff'", "(STR \"\xc3\xbf\")"); /* a code point, UTF-8 encoded, as Python's str */
  EXPR("'\\q\\d'", "(STR \"\\\\q\\\\d\")");
  EXPR("'a\\\nb'", "(STR \"ab\")");
  EXPR("r'\\n\\''", "(STR \"\\\\n\\\\'\")");
  EXPR("R'\\x'", "(STR \"\\\\x\")");
  EXPR("u'x'", "(STR \"x\")");
  EXPR("'h\xc3\xa9'", "(STR \"h\xc3\xa9\")");
  Parsed p;
  Node *n = first_expr(&p, "'a\\0b'");
  CHECK(n && n->kind == AST_STR && n->u.str.len == 3 && !memcmp(n->u.str.s, "a\0b", 4));
  done(&p);
  n = first_expr(&p, "'''x\r\ny'''\r\n");
  CHECK(n && n->kind == AST_STR && !strcmp(n->u.str.s, "x\ny"));
  done(&p);
}

static void test_parse_string_errors(void) {
  ERR("s = 'abc\nprint(s)", 1, 5, "unterminated string literal");
  ERR("s = \"abc", 1, 5, "unterminated string literal");
  MORE("s = '''abc\n\ndef", 1, 5, "unterminated triple-quoted string literal");
  MORE("s = 'abc\\\n", 1, 5, "unterminated string literal");
  ERR("s = b'abc'", 1, 5, "bytes literals are not supported");
  ERR("s = rb'abc'", 1, 5, "bytes literals are not supported");
  ERR("s = '\\x4'", 1, 5, "truncated \\xXX escape in string literal");
  ERR("s = '\\u12'", 1, 5, "truncated \\uXX escape in string literal");
  ERR("s = '\\U00110000'", 1, 5, "illegal unicode character in string literal");
  ERR("s = '\\N{DASH}'", 1, 5, "not supported yet: \\N{...} escapes");
}

static void test_parse_fstrings(void) {
  EXPR("f'x={x}'", "(FSTR (STR \"x=\") (FMTVAL (NAME x)))");
  EXPR("f'{x!r} {y!s}'", "(FSTR (FMTVAL (NAME x) !r) (STR \" \") (FMTVAL (NAME y) !s))");
  EXPR("f'{x:>4}'", "(FSTR (FMTVAL (NAME x) (STR \">4\")))");
  EXPR("f'{x:{w}.{p}f}'", "(FSTR (FMTVAL (NAME x) (FSTR (FMTVAL (NAME w)) (STR \".\") (FMTVAL "
                          "(NAME p)) (STR \"f\"))))");
  EXPR("f'{x!r:<{w}}'", "(FSTR (FMTVAL (NAME x) !r (FSTR (STR \"<\") (FMTVAL (NAME w)))))");
  EXPR("f'{{a}} }} {{'", "(FSTR (STR \"{a} } {\"))");
  EXPR("f'{x:>4}}}'", "(FSTR (FMTVAL (NAME x) (STR \">4\")) (STR \"}\"))");
  EXPR("f''", "(FSTR)");
  EXPR("f'abc'", "(FSTR (STR \"abc\"))");
  EXPR("'a' f'{b}' 'c' \"d\"", "(FSTR (STR \"a\") (FMTVAL (NAME b)) (STR \"cd\"))");
  EXPR("'' f'{b}' ''", "(FSTR (FMTVAL (NAME b)))");
  EXPR("f'{a + b * 2}'", "(FSTR (FMTVAL (BINOP + (NAME a) (BINOP * (NAME b) (INT 2)))))");
  EXPR("f'{a, b}'", "(FSTR (FMTVAL (TUPLE (NAME a) (NAME b))))");
  EXPR("f'{d[\"k\"]}'", "(FSTR (FMTVAL (SUBSCRIPT (NAME d) (STR \"k\"))))");
  EXPR("f\"{f'{x}'}\"", "(FSTR (FMTVAL (FSTR (FMTVAL (NAME x)))))");
  EXPR("f'{x != y}'", "(FSTR (FMTVAL (COMPARE (NAME x) != (NAME y))))");
  EXPR("f'{ {1: 2}[1] }'", "(FSTR (FMTVAL (SUBSCRIPT (DICT (INT 1) (INT 2)) (INT 1))))");
  EXPR("f'{(lambda: 1)()}'", "(FSTR (FMTVAL (CALL (LAMBDA (PARAMS) (INT 1)))))");
  EXPR("f'\\t{x}\\n'", "(FSTR (STR \"\\t\") (FMTVAL (NAME x)) (STR \"\\n\"))");
  EXPR("f'\\{6}'", "(FSTR (STR \"\\\\\") (FMTVAL (INT 6)))");
  EXPR("rf'\\d{x}'", "(FSTR (STR \"\\\\d\") (FMTVAL (NAME x)))");
  EXPR("Fr'{x}\\n'", "(FSTR (FMTVAL (NAME x)) (STR \"\\\\n\"))");
  EXPR("f'''{\nx\n}'''", "(FSTR (FMTVAL (NAME x)))");
}

static void test_parse_fstring_errors(void) {
  ERR("f'{}'", 1, 4, "f-string: empty expression not allowed");
  ERR("f'{x'", 1, 5, "f-string: expecting '}'");
  ERR("f'}'", 1, 3, "f-string: single '}' is not allowed");
  ERR("f'{x!z}'", 1, 6, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
  ERR("f'{x!a}'", 1, 6, "not supported yet: !a in f-strings");
  ERR("f'{x=}'", 1, 3, "not supported yet: '=' in f-string fields");
  ERR("f'{a:{b:{c}}}'", 1, 9, "f-string: expressions nested too deeply");
  ERR("f'{x #}'", 1, 6, "f-string: expression part cannot include '#'");
  ERR("f'{x\\n}'", 1, 5, "f-string: expression part cannot include a backslash");
  ERR("f'{)}'", 1, 4, "f-string: unmatched ')'");
  ERR("f'{(]}'", 1, 5, "f-string: closing parenthesis ']' does not match opening parenthesis '('");
  ERR("x = 1\ny = f'ab{1 +}'", 2, 13, "invalid syntax: unexpected end of input");
  ERR("f'{x y}'", 1, 6, "invalid syntax: unexpected 'y'");
  ERR("f'{*x}'", 1, 4, "can't use starred expression here");
}

/* ---- expressions ---- */

static void test_parse_precedence(void) {
  EXPR("a or b and not c", "(OR (NAME a) (AND (NAME b) (UNARY not (NAME c))))");
  EXPR("a and b or c", "(OR (AND (NAME a) (NAME b)) (NAME c))");
  EXPR("a or b or c", "(OR (OR (NAME a) (NAME b)) (NAME c))");
  EXPR("not a == b", "(UNARY not (COMPARE (NAME a) == (NAME b)))");
  EXPR("a < b | c", "(COMPARE (NAME a) < (BINOP | (NAME b) (NAME c)))");
  EXPR("a | b ^ c & d", "(BINOP | (NAME a) (BINOP ^ (NAME b) (BINOP & (NAME c) (NAME d))))");
  EXPR("a & b << c + d", "(BINOP & (NAME a) (BINOP << (NAME b) (BINOP + (NAME c) (NAME d))))");
  EXPR("a >> b - c * d", "(BINOP >> (NAME a) (BINOP - (NAME b) (BINOP * (NAME c) (NAME d))))");
  EXPR("a - b - c", "(BINOP - (BINOP - (NAME a) (NAME b)) (NAME c))");
  EXPR("a / b // c % d @ e",
       "(BINOP @ (BINOP % (BINOP // (BINOP / (NAME a) (NAME b)) (NAME c)) (NAME d)) (NAME e))");
  EXPR("-a * b", "(BINOP * (UNARY - (NAME a)) (NAME b))");
  EXPR("-2**2", "(UNARY - (BINOP ** (INT 2) (INT 2)))");
  EXPR("2**-1", "(BINOP ** (INT 2) (UNARY - (INT 1)))");
  EXPR("2**3**2", "(BINOP ** (INT 2) (BINOP ** (INT 3) (INT 2)))");
  EXPR("~x ** 2", "(UNARY ~ (BINOP ** (NAME x) (INT 2)))");
  EXPR("+-~x", "(UNARY + (UNARY - (UNARY ~ (NAME x))))");
  EXPR("-x.y[1]()", "(UNARY - (CALL (SUBSCRIPT (ATTR (NAME x) y) (INT 1))))");
  EXPR("a if b else c if d else e", "(IFEXP (NAME b) (NAME a) (IFEXP (NAME d) (NAME c) (NAME e)))");
  EXPR("a or b if c and d else e",
       "(IFEXP (AND (NAME c) (NAME d)) (OR (NAME a) (NAME b)) (NAME e))");
  EXPR("lambda: a if b else c", "(LAMBDA (PARAMS) (IFEXP (NAME b) (NAME a) (NAME c)))");
  EXPR("(a + b) * c", "(BINOP * (BINOP + (NAME a) (NAME b)) (NAME c))");
}

static void test_parse_compare(void) {
  EXPR("0 <= i < n", "(COMPARE (INT 0) <= (NAME i) < (NAME n))");
  EXPR("a == b != c > d >= e", "(COMPARE (NAME a) == (NAME b) != (NAME c) > (NAME d) >= (NAME e))");
  EXPR("a in b not in c is d is not e",
       "(COMPARE (NAME a) in (NAME b) not in (NAME c) is (NAME d) is not (NAME e))");
  EXPR("(a < b) < c", "(COMPARE (COMPARE (NAME a) < (NAME b)) < (NAME c))");
  EXPR("not a in b", "(UNARY not (COMPARE (NAME a) in (NAME b)))");
}

static void test_parse_primaries(void) {
  EXPR("f()", "(CALL (NAME f))");
  EXPR("f(a, b=1, *c, **d)",
       "(CALL (NAME f) (NAME a) (KEYWORD b (INT 1)) (STARRED (NAME c)) (KEYWORD ** (NAME d)))");
  EXPR("f(*a, b, *c, k=1, *d, **e, z=2)",
       "(CALL (NAME f) (STARRED (NAME a)) (NAME b) (STARRED (NAME c)) (KEYWORD k (INT 1)) "
       "(STARRED (NAME d)) (KEYWORD ** (NAME e)) (KEYWORD z (INT 2)))");
  EXPR("f(a,)", "(CALL (NAME f) (NAME a))");
  EXPR("f(x for x in y)", "(CALL (NAME f) (LISTCOMP (NAME x) (COMPFOR (NAME x) (NAME y))))");
  EXPR("a.b.c", "(ATTR (ATTR (NAME a) b) c)");
  EXPR("f(1)(2)[3].x", "(ATTR (SUBSCRIPT (CALL (CALL (NAME f) (INT 1)) (INT 2)) (INT 3)) x)");
  EXPR("A[i]", "(SUBSCRIPT (NAME A) (NAME i))");
  EXPR("A[i, j]", "(SUBSCRIPT (NAME A) (TUPLE (NAME i) (NAME j)))");
  EXPR("A[i,]", "(SUBSCRIPT (NAME A) (TUPLE (NAME i)))");
  EXPR("A[()]", "(SUBSCRIPT (NAME A) (TUPLE))");
  EXPR("A[i, 1:3, ::2]",
       "(SUBSCRIPT (NAME A) (TUPLE (NAME i) (SLICE (INT 1) (INT 3) _) (SLICE _ _ (INT 2))))");
  EXPR("a[:]", "(SUBSCRIPT (NAME a) (SLICE _ _ _))");
  EXPR("a[::]", "(SUBSCRIPT (NAME a) (SLICE _ _ _))");
  EXPR("a[1:]", "(SUBSCRIPT (NAME a) (SLICE (INT 1) _ _))");
  EXPR("a[:-1]", "(SUBSCRIPT (NAME a) (SLICE _ (UNARY - (INT 1)) _))");
  EXPR("a[x:y:z]", "(SUBSCRIPT (NAME a) (SLICE (NAME x) (NAME y) (NAME z)))");
  EXPR("a[::-1, 0]", "(SUBSCRIPT (NAME a) (TUPLE (SLICE _ _ (UNARY - (INT 1))) (INT 0)))");
  EXPR("a[..., 0]", "(SUBSCRIPT (NAME a) (TUPLE (ELLIPSIS) (INT 0)))");
  EXPR("...", "(ELLIPSIS)");
}

static void test_parse_displays(void) {
  EXPR("()", "(TUPLE)");
  EXPR("(a)", "(NAME a)");
  EXPR("(a,)", "(TUPLE (NAME a))");
  EXPR("a,", "(TUPLE (NAME a))");
  EXPR("a, b", "(TUPLE (NAME a) (NAME b))");
  EXPR("(a, b,)", "(TUPLE (NAME a) (NAME b))");
  EXPR("((a, b), c)", "(TUPLE (TUPLE (NAME a) (NAME b)) (NAME c))");
  EXPR("*a, b", "(TUPLE (STARRED (NAME a)) (NAME b))");
  EXPR("[]", "(LIST)");
  EXPR("[1, [2], *x,]", "(LIST (INT 1) (LIST (INT 2)) (STARRED (NAME x)))");
  EXPR("{}", "(DICT)");
  EXPR("{'a': 1, b: [2],}", "(DICT (STR \"a\") (INT 1) (NAME b) (LIST (INT 2)))");
  EXPR("[x*y for x in a if x > 0 for y in b if y if z]",
       "(LISTCOMP (BINOP * (NAME x) (NAME y)) (COMPFOR (NAME x) (NAME a) (COMPARE (NAME x) > (INT "
       "0))) "
       "(COMPFOR (NAME y) (NAME b) (NAME y) (NAME z)))");
  EXPR("[a for a, b in c]", "(LISTCOMP (NAME a) (COMPFOR (TUPLE (NAME a) (NAME b)) (NAME c)))");
  EXPR("[a if b else c for d in e]",
       "(LISTCOMP (IFEXP (NAME b) (NAME a) (NAME c)) (COMPFOR (NAME d) (NAME e)))");
  EXPR("{k: v for k, v in d.items() if v}", "(DICTCOMP (NAME k) (NAME v) (COMPFOR (TUPLE (NAME k) "
                                            "(NAME v)) (CALL (ATTR (NAME d) items)) (NAME v)))");
  EXPR("[[y for y in x] for x in z]",
       "(LISTCOMP (LISTCOMP (NAME y) (COMPFOR (NAME y) (NAME x))) (COMPFOR (NAME x) (NAME z)))");
}

static void test_parse_lambdas(void) {
  EXPR("lambda: 0", "(LAMBDA (PARAMS) (INT 0))");
  EXPR("lambda x, y=1, *a, k, m=2, **kw: x",
       "(LAMBDA (PARAMS x y=(INT 1) *a k m=(INT 2) **kw) (NAME x))");
  EXPR("lambda *i: i", "(LAMBDA (PARAMS *i) (NAME i))");
  EXPR("lambda *, k: k", "(LAMBDA (PARAMS * k) (NAME k))");
  EXPR("lambda x,: x", "(LAMBDA (PARAMS x) (NAME x))");
  EXPR("lambda x: lambda y: x + y",
       "(LAMBDA (PARAMS x) (LAMBDA (PARAMS y) (BINOP + (NAME x) (NAME y))))");
  Parsed p;
  Node *n = first_expr(&p, "lambda a, *b, c=1, **d: 0");
  CHECK(n && n->kind == AST_LAMBDA && n->u.def->nparams == 4 && n->u.def->body.n == 0);
  if (n && n->u.def->nparams == 4) {
    Param *ps = n->u.def->params;
    CHECK(ps[0].kind == PARAM_PLAIN && ps[1].kind == PARAM_STAR && ps[2].kind == PARAM_KWONLY &&
          ps[3].kind == PARAM_STARSTAR);
    CHECK(!strcmp(SYM_STR(n->u.def->name), "<lambda>") && ps[2].dflt && !ps[0].dflt);
    CHECK(ps[1].name == sym_cstr("b"));
  }
  done(&p);
}

/* ---- statements ---- */

static void test_parse_assignments(void) {
  MOD("x = 1", "(MODULE\n  (ASSIGN (NAME x) (INT 1)))");
  MOD("a = b = c", "(MODULE\n  (ASSIGN (NAME a) (NAME b) (NAME c)))");
  MOD("a, b = b, a", "(MODULE\n  (ASSIGN (TUPLE (NAME a) (NAME b)) (TUPLE (NAME b) (NAME a))))");
  MOD("(a, b), c = d", "(MODULE\n  (ASSIGN (TUPLE (TUPLE (NAME a) (NAME b)) (NAME c)) (NAME d)))");
  MOD("[a, [b]] = d", "(MODULE\n  (ASSIGN (LIST (NAME a) (LIST (NAME b))) (NAME d)))");
  MOD("a, = x", "(MODULE\n  (ASSIGN (TUPLE (NAME a)) (NAME x)))");
  MOD("a, *b = x", "(MODULE\n  (ASSIGN (TUPLE (NAME a) (STARRED (NAME b))) (NAME x)))");
  MOD("x.y = z[0] = 1",
      "(MODULE\n  (ASSIGN (ATTR (NAME x) y) (SUBSCRIPT (NAME z) (INT 0)) (INT 1)))");
  MOD("x = *a, b", "(MODULE\n  (ASSIGN (NAME x) (TUPLE (STARRED (NAME a)) (NAME b))))");
  MOD("x += 1\nx -= 1\nx *= 1\nx /= 1\nx //= 1\nx %= 1\nx **= 1\nx @= 1\nx <<= 1\nx >>= 1\nx &= "
      "1\nx |= 1\nx ^= 1",
      "(MODULE\n  (AUGASSIGN += (NAME x) (INT 1))\n  (AUGASSIGN -= (NAME x) (INT 1))\n"
      "  (AUGASSIGN *= (NAME x) (INT 1))\n  (AUGASSIGN /= (NAME x) (INT 1))\n"
      "  (AUGASSIGN //= (NAME x) (INT 1))\n  (AUGASSIGN %= (NAME x) (INT 1))\n"
      "  (AUGASSIGN **= (NAME x) (INT 1))\n  (AUGASSIGN @= (NAME x) (INT 1))\n"
      "  (AUGASSIGN <<= (NAME x) (INT 1))\n  (AUGASSIGN >>= (NAME x) (INT 1))\n"
      "  (AUGASSIGN &= (NAME x) (INT 1))\n  (AUGASSIGN |= (NAME x) (INT 1))\n"
      "  (AUGASSIGN ^= (NAME x) (INT 1)))");
  MOD("a.b += 1; c[0] -= 2,", "(MODULE\n  (AUGASSIGN += (ATTR (NAME a) b) (INT 1))\n"
                              "  (AUGASSIGN -= (SUBSCRIPT (NAME c) (INT 0)) (TUPLE (INT 2))))");
}

static void test_parse_target_errors(void) {
  ERR("def f():\n    return 1\nf() = 2", 3, 1, "cannot assign to function call");
  ERR("x + 1 = 2", 1, 3, "cannot assign to expression");
  ERR("1 = x", 1, 1, "cannot assign to literal");
  ERR("'a' = x", 1, 1, "cannot assign to literal");
  ERR("None = 1", 1, 1, "cannot assign to None");
  ERR("True = 1", 1, 1, "cannot assign to True");
  ERR("a < b = 1", 1, 3, "cannot assign to comparison");
  ERR("a, f() = 1, 2", 1, 4, "cannot assign to function call");
  ERR("x = f() = 2", 1, 5, "cannot assign to function call");
  ERR("(a if b else c) = 1", 1, 2, "cannot assign to conditional expression");
  ERR("lambda: 1 = 1", 1, 1, "cannot assign to lambda");
  ERR("[x for x in y] = 1", 1, 1, "cannot assign to list comprehension");
  ERR("{} = 1", 1, 1, "cannot assign to dict literal");
  ERR("del f()", 1, 5, "cannot delete function call");
  ERR("del 1", 1, 5, "cannot delete literal");
  ERR("f() += 1", 1, 1, "'function call' is an illegal expression for augmented assignment");
  ERR("a, b += 1", 1, 1, "'tuple' is an illegal expression for augmented assignment");
  ERR("[a] += 1", 1, 1, "'list' is an illegal expression for augmented assignment");
  ERR("for f() in x: pass", 1, 5, "cannot assign to function call");
  ERR("[1 for 2 in x]", 1, 8, "cannot assign to literal");
  ERR("with a as f(): pass", 1, 11, "cannot assign to function call");
  ERR("*a, *b = c", 1, 5, "multiple starred expressions in assignment");
  ERR("*a = b", 1, 1, "can't use starred expression here");
  ERR("x = *b", 1, 5, "can't use starred expression here");
  ERR("print((*a))", 1, 8, "can't use starred expression here");
}

static void test_parse_compound(void) {
  MOD("if a:\n  b\nelif c:\n  d\nelif e: f\nelse:\n  g",
      "(MODULE\n  (IF (NAME a)\n    (EXPRSTMT (NAME b))\n    (else\n      (IF (NAME c)\n"
      "        (EXPRSTMT (NAME d))\n        (else\n          (IF (NAME e)\n"
      "            (EXPRSTMT (NAME f))\n            (else\n              (EXPRSTMT (NAME "
      "g)))))))))");
  MOD("for i, x in enumerate(y):\n    continue\nelse:\n    pass",
      "(MODULE\n  (FOR (TUPLE (NAME i) (NAME x)) (CALL (NAME enumerate) (NAME y))\n    (CONTINUE)\n"
      "    (else\n      (PASS))))");
  MOD("for x in 1, 2: break", "(MODULE\n  (FOR (NAME x) (TUPLE (INT 1) (INT 2))\n    (BREAK)))");
  MOD("while x < 3:\n    x += 1\nelse:\n    pass",
      "(MODULE\n  (WHILE (COMPARE (NAME x) < (INT 3))\n    (AUGASSIGN += (NAME x) (INT 1))\n"
      "    (else\n      (PASS))))");
  MOD("def f(a, b=1, *args, k=2, **kw):\n    return a\ndef g(): return\ndef h(*, k): pass",
      "(MODULE\n  (DEF f (PARAMS a b=(INT 1) *args k=(INT 2) **kw)\n    (RETURN (NAME a)))\n"
      "  (DEF g (PARAMS)\n    (RETURN))\n  (DEF h (PARAMS * k)\n    (PASS)))");
  MOD("try:\n  x\nexcept (A, B) as e:\n  y\nexcept C:\n  z\nexcept:\n  raise\nelse:\n  "
      "w\nfinally:\n  v",
      "(MODULE\n  (TRY\n    (EXPRSTMT (NAME x))\n    (EXCEPT (TUPLE (NAME A) (NAME B)) as e\n"
      "      (EXPRSTMT (NAME y)))\n    (EXCEPT (NAME C)\n      (EXPRSTMT (NAME z)))\n"
      "    (EXCEPT\n      (RAISE))\n    (else\n      (EXPRSTMT (NAME w)))\n"
      "    (finally\n      (EXPRSTMT (NAME v)))))");
  MOD("try: x\nfinally: y",
      "(MODULE\n  (TRY\n    (EXPRSTMT (NAME x))\n    (finally\n      (EXPRSTMT (NAME y)))))");
  MOD("with a as b, c, d as (e, f): pass",
      "(MODULE\n  (WITH (NAME a) as (NAME b)\n    (WITH (NAME c)\n"
      "      (WITH (NAME d) as (TUPLE (NAME e) (NAME f))\n        (PASS)))))");
  MOD("with (a, b()):\n  pass",
      "(MODULE\n  (WITH (NAME a)\n    (WITH (CALL (NAME b))\n      (PASS))))");
  MOD("with (a, b) as c: pass",
      "(MODULE\n  (WITH (TUPLE (NAME a) (NAME b)) as (NAME c)\n    (PASS)))");
  MOD("with tvm.transform.PassContext(opt_level=3):\n    f = build()",
      "(MODULE\n  (WITH (CALL (ATTR (ATTR (NAME tvm) transform) PassContext) (KEYWORD opt_level "
      "(INT 3)))\n"
      "    (ASSIGN (NAME f) (CALL (NAME build)))))");
}

static void test_parse_simple_statements(void) {
  MOD("pass; x\n", "(MODULE\n  (PASS)\n  (EXPRSTMT (NAME x)))");
  MOD("a; b;", "(MODULE\n  (EXPRSTMT (NAME a))\n  (EXPRSTMT (NAME b)))");
  MOD("import a.b.c as d, e", "(MODULE\n  (IMPORT (a.b.c as d) e))");
  MOD("from a.b import c as d, e", "(MODULE\n  (FROMIMPORT a.b (c as d) e))");
  MOD("from tvm import (te,\n  topi,)", "(MODULE\n  (FROMIMPORT tvm te topi))");
  MOD("from __future__ import print_function",
      "(MODULE\n  (FROMIMPORT __future__ print_function))");
  MOD("global a, b", "(MODULE\n  (GLOBAL a b))");
  MOD("del a, b[0], c.d",
      "(MODULE\n  (DEL (NAME a) (SUBSCRIPT (NAME b) (INT 0)) (ATTR (NAME c) d)))");
  MOD("del (a, b)", "(MODULE\n  (DEL (TUPLE (NAME a) (NAME b))))");
  MOD("del a,", "(MODULE\n  (DEL (NAME a)))");
  MOD("assert x", "(MODULE\n  (ASSERT (NAME x)))");
  MOD("assert x, 'msg'", "(MODULE\n  (ASSERT (NAME x) (STR \"msg\")))");
  MOD("raise ValueError('x')", "(MODULE\n  (RAISE (CALL (NAME ValueError) (STR \"x\"))))");
  MOD("def f(): return 1, 2", "(MODULE\n  (DEF f (PARAMS)\n    (RETURN (TUPLE (INT 1) (INT 2)))))");
  Parsed p = parse("import a.b as c\nfrom d import e as f");
  CHECK(p.unit && p.unit->root->u.list.n == 2);
  if (p.unit && p.unit->root->u.list.n == 2) {
    ImportItem *i = &p.unit->root->u.list.items[0]->u.imp.items[0];
    CHECK(!strcmp(i->module, "a.b") && !i->name && i->asname == sym_cstr("c"));
    CHECK(i->loc.line == 1 && i->loc.col == 8);
    ImportItem *j = &p.unit->root->u.list.items[1]->u.imp.items[0];
    CHECK(!strcmp(j->module, "d") && j->name == sym_cstr("e") && j->asname == sym_cstr("f"));
    CHECK(j->loc.line == 2 && j->loc.col == 15);
  }
  done(&p);
}

/* ---- lines and indentation ---- */

static void test_parse_indentation(void) {
  MOD("", "(MODULE)");
  MOD("\n\n# only a comment\n   \n", "(MODULE)");
  MOD("x", "(MODULE\n  (EXPRSTMT (NAME x)))");
  MOD("#!/usr/bin/env tes\nx = 1\n", "(MODULE\n  (ASSIGN (NAME x) (INT 1)))");
  MOD("\xEF\xBB\xBFx = 1", "(MODULE\n  (ASSIGN (NAME x) (INT 1)))");
  MOD("if a:\n    if b:\n        c\n\n  # comment at another column\n    d\ne",
      "(MODULE\n  (IF (NAME a)\n    (IF (NAME b)\n      (EXPRSTMT (NAME c)))\n    (EXPRSTMT (NAME "
      "d)))\n"
      "  (EXPRSTMT (NAME e)))");
  MOD("if a:\n\tb\n\tif c:\n\t\td\n", "(MODULE\n  (IF (NAME a)\n    (EXPRSTMT (NAME b))\n    (IF "
                                      "(NAME c)\n      (EXPRSTMT (NAME d)))))");
  MOD("if a:\r\n  b\r\nc\r\n",
      "(MODULE\n  (IF (NAME a)\n    (EXPRSTMT (NAME b)))\n  (EXPRSTMT (NAME c)))");
  MOD("x = [1,\n2,\n     3]\ny = (\n  4)",
      "(MODULE\n  (ASSIGN (NAME x) (LIST (INT 1) (INT 2) (INT 3)))\n  (ASSIGN (NAME y) (INT 4)))");
  MOD("x = 1 + \\\n  2\nif x and \\\n   y:\n  pass",
      "(MODULE\n  (ASSIGN (NAME x) (BINOP + (INT 1) (INT 2)))\n  (IF (AND (NAME x) (NAME y))\n    "
      "(PASS)))");
  MOD("def f():\n    '''doc\n\nstring'''\n    return 1",
      "(MODULE\n  (DEF f (PARAMS)\n    (EXPRSTMT (STR \"doc\\n\\nstring\"))\n    (RETURN (INT "
      "1))))");
  MOD("if a:\n        b\nc",
      "(MODULE\n  (IF (NAME a)\n    (EXPRSTMT (NAME b)))\n  (EXPRSTMT (NAME c)))");
  MOD("if a:\n  if b:\n    if c:\n      d", "(MODULE\n  (IF (NAME a)\n    (IF (NAME b)\n      (IF "
                                            "(NAME c)\n        (EXPRSTMT (NAME d))))))");
  MOD("x = {'a': 1, # comment\n     'b': 2}",
      "(MODULE\n  (ASSIGN (NAME x) (DICT (STR \"a\") (INT 1) (STR \"b\") (INT 2))))");
}

static void test_parse_indentation_errors(void) {
  ERR("x = 1\n    y = 2", 2, 5, "unexpected indent");
  ERR("  x = 1", 1, 3, "unexpected indent");
  ERR("if True:\n        a = 1\n    b = 2\n", 3, 5,
      "unindent does not match any outer indentation level");
  ERR("if True:\n\tx = 1\n        y = 2\n", 3, 9,
      "inconsistent use of tabs and spaces in indentation");
  ERR("if True:\n        x = 1\n\ty = 2\n", 3, 2,
      "inconsistent use of tabs and spaces in indentation");
  ERR("if x:\ny", 2, 1, "expected an indented block after 'if' statement on line 1");
  ERR("if a: pass\nelif b:\nif c: pass", 3, 1,
      "expected an indented block after 'elif' statement on line 2");
  ERR("def f(x):\nreturn x", 2, 1,
      "expected an indented block after function definition on line 1");
  ERR("with a:\n\tpass\nwhile b:\nx", 4, 1,
      "expected an indented block after 'while' statement on line 3");
  ERR("for x in y:\n# c\n\nz = 1\n", 4, 1,
      "expected an indented block after 'for' statement on line 1");
  ERR("try:\n  x\nexcept E:\n  y\nfinally:\nz", 6, 1,
      "expected an indented block after 'finally' statement on line 5");
}

/* ---- the encoding: Python's UTF-8 codec, checked before lexing, anywhere in the source ---- */

static void test_parse_utf8(void) {
  const char *codec = "(unicode error) 'utf-8' codec can't decode byte";
  char want[160];
#define UTF8_ERR(text, line, col, tail)                                                            \
  do {                                                                                             \
    snprintf(want, sizeof want, "%s %s", codec, tail);                                             \
    ERR(text, line, col, want);                                                                    \
  } while (0)
  UTF8_ERR("# caf\xe9\n", 1, 6, "0xe9 in position 5: invalid continuation byte");
  UTF8_ERR("x = 1  # \xe2\x82", 1, 10, "0xe2 in position 9: unexpected end of data");
  UTF8_ERR("x = 1\ns = 'a\x80'", 2, 7, "0x80 in position 12: invalid start byte");
  UTF8_ERR("s = '\xc0\xaf'", 1, 6, "0xc0 in position 5: invalid start byte");     /* overlong */
  UTF8_ERR("s = '\xe0\x80\x80'", 1, 6, "0xe0 in position 5: invalid continuation byte");
  UTF8_ERR("s = '\xed\xa0\x80'", 1, 6, "0xed in position 5: invalid continuation byte"); /* surrogate */
  UTF8_ERR("s = '\xf4\x90\x80\x80'", 1, 6, "0xf4 in position 5: invalid continuation byte");
  UTF8_ERR("s = '\xf5'", 1, 6, "0xf5 in position 5: invalid start byte");
  UTF8_ERR("s = '\xe2\x82'", 1, 6, "0xe2 in position 5: invalid continuation byte");
#undef UTF8_ERR
  /* every well-formed length, the largest code point, and escapes that only look like bytes */
  CHECK(parses("s = '\xc2\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf'"));
  CHECK(parses("s = '\\xff\\u00e9'"));
}

/* ---- syntax errors and the incomplete flag ---- */

static void test_parse_errors(void) {
  ERR("x = 1 $ 2", 1, 7, "invalid character '$'");
  ERR("x = 1 ? 2", 1, 7, "invalid character '?'");
  ERR("x = \xe2\x80\x9chi\xe2\x80\x9d", 1, 5, "invalid character '\xe2\x80\x9c' (U+201C)");
  ERR("x = \xff", 1, 5,
      "(unicode error) 'utf-8' codec can't decode byte 0xff in position 4: invalid start byte");
  ERR("print(1 2)", 1, 9, "invalid syntax: unexpected '2'");
  ERR("x = 1 +", 1, 8, "invalid syntax: unexpected end of line");
  ERR("x = (1 +)", 1, 9, "invalid syntax: unexpected ')'");
  ERR("if x > 1\n    print(x)", 1, 9, "expected ':'");
  ERR("while x print(x)", 1, 9, "expected ':'");
  ERR("def f x", 1, 7, "invalid syntax: unexpected 'x', expected '('");
  ERR("x = else", 1, 5, "invalid syntax: unexpected 'else'");
  ERR("foo)", 1, 4, "unmatched ')'");
  ERR("foo(]", 1, 5, "closing parenthesis ']' does not match opening parenthesis '('");
  ERR("foo(\n]", 2, 1, "closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  ERR("try:\n  x\ny = 1", 3, 1, "expected 'except' or 'finally' block");
  ERR("try:\n  x\nexcept:\n  y\nexcept E:\n  z", 3, 1, "default 'except:' must be last");
  ERR("x = 1\nreturn 5", 2, 1, "'return' outside function");
  ERR("x = 1\nif x:\n    break", 3, 5, "'break' outside loop");
  ERR("continue", 1, 1, "'continue' not properly in loop");
  ERR("for x in y:\n  pass\nelse:\n  break", 4, 3, "'break' outside loop");
  ERR("def f():\n  for x in y:\n    def g():\n      break", 4, 7, "'break' outside loop");
  ERR("class Point:\n    pass", 1, 1, "'class' is not supported in TES");
  ERR("def f():\n    yield 1", 2, 5, "'yield' is not supported in TES");
  ERR("nonlocal x", 1, 1, "'nonlocal' is not supported in TES");
  ERR("async def f(): pass", 1, 1, "'async' is not supported in TES");
  ERR("await x", 1, 1, "'await' is not supported in TES");
  ERR("import *", 1, 8, "'import *' is not supported");
  ERR("@dec\nx = 1", 2, 1, "invalid syntax: unexpected 'x'");
  ERR("raise E from e", 1, 9, "not supported yet: 'raise ... from'");
  ERR("from a import *", 1, 15, "'import *' is not supported");
  ERR("from . import x", 1, 6, "relative imports are not supported");
  ERR("from .. import x", 1, 6, "relative imports are not supported");
  ERR("x = {1, 2}", 1, 5, "not supported yet: set displays");
  ERR("x = {i for i in y}", 1, 5, "not supported yet: set comprehensions");
  ERR("x = (i for i in y)", 1, 5,
      "not supported yet: generator expressions (use a list comprehension)");
  ERR("def f(a=1, b): pass", 1, 12, "non-default argument follows default argument");
  ERR("def f(a, b, a): pass", 1, 13, "duplicate argument 'a' in function definition");
  ERR("lambda a, *a: 0", 1, 11, "duplicate argument 'a' in function definition");
  ERR("def f(*, **k): pass", 1, 7, "named arguments must follow bare *");
  ERR("def f(*): pass", 1, 7, "named arguments must follow bare *");
  ERR("def f(*a, *b): pass", 1, 11, "* argument may appear only once");
  ERR("def f(**a, b): pass", 1, 12, "arguments cannot follow var-keyword argument");
  ERR("f(a=1, 2)", 1, 8, "positional argument follows keyword argument");
  ERR("f(**a, 2)", 1, 8, "positional argument follows keyword argument unpacking");
  ERR("f(**a, *b)", 1, 8, "iterable argument unpacking follows keyword argument unpacking");
  ERR("f(a=1, b=2, a=3)", 1, 13, "keyword argument repeated: a");
  ERR("f(x+1=2)", 1, 3, "expression cannot contain assignment, perhaps you meant \"==\"?");
  ERR("f(x for x in y, 1)", 1, 15, "invalid syntax: unexpected ','");
  ERR("x = \\ y", 1, 5, "unexpected character after line continuation character");
  CHECK(error_is("x = 1\0", 6, 1, 6, "source code cannot contain null bytes", false, __FILE__,
                 __LINE__));
}

/* At the end of the input an error points just past the last token, as Python's does, so the
 * caret lands on a line that has text. */
static void test_parse_incomplete(void) {
  MORE("total = (x +\n         2", 1, 9, "'(' was never closed");
  MORE("x = [1,\n", 1, 5, "'[' was never closed");
  MORE("d = {'a': (1,\n", 1, 11, "'(' was never closed");
  MORE("if x:", 1, 6, "expected an indented block after 'if' statement on line 1");
  MORE("if x:\n", 1, 6, "expected an indented block after 'if' statement on line 1");
  MORE("if x:\n\n# c\n", 1, 6, "expected an indented block after 'if' statement on line 1");
  MORE("def f():\n  if y:\n", 2, 8, "expected an indented block after 'if' statement on line 2");
  MORE("if x:\n  pass\nelse:\n", 3, 6,
       "expected an indented block after 'else' statement on line 3");
  MORE("for i in range(3):", 1, 19, "expected an indented block after 'for' statement on line 1");
  MORE("s = '''abc\n", 1, 5, "unterminated triple-quoted string literal");
  MORE("s = f\"\"\"{x}\n", 1, 5, "unterminated triple-quoted string literal");
  MORE("x = 1 + \\", 1, 9, "unexpected end of input after '\\'");
  MORE("x = 1 + \\\n", 2, 1, "unexpected end of input after '\\'");
  /* a bracket left open explains a later syntax error, as in Python */
  ERR("foo(1 2", 1, 4, "'(' was never closed");
  ERR("x = (1 +\n2\nprint(x)\n", 1, 5, "'(' was never closed");
  ERR("if (x > 1\n    print(x)\n", 1, 4, "'(' was never closed");
  ERR("x = (1 2)\ny = [3\n", 1, 8, "invalid syntax: unexpected '2'");
  ERR("x = ([1 2]\ny = 3\n", 1, 5, "'(' was never closed");
  /* complete, or wrong whatever follows */
  MOD("def f():\n  return 1\n", "(MODULE\n  (DEF f (PARAMS)\n    (RETURN (INT 1))))");
  MOD("if x:\n  pass\n", "(MODULE\n  (IF (NAME x)\n    (PASS)))");
  ERR("x = 1 +\n", 1, 8, "invalid syntax: unexpected end of line");
  ERR("try:\n  x\n", 2, 4, "expected 'except' or 'finally' block");
  ERR("s = 'abc\n", 1, 5, "unterminated string literal");
}

/* ---- limits: errors, not crashes ---- */

static void test_parse_limits(void) {
  char *s = repeat("(", 200, "x = ", "1");
  char *t = repeat(")", 200, s, "");
  EXPR(t + 4, "(INT 1)");
  free(s), free(t);
  s = repeat("(", 201, "x = ", "1");
  ERR(s, 1, 205, "too many nested parentheses");
  free(s);
  s = repeat("-", 20000, "x = ", "1");
  Parsed p = parse(s);
  CHECK(!p.unit && !strcmp(p.err.msg, "too many nested expressions")); /* bison's stack */
  done(&p);
  free(s);
  s = repeat("+a", 3000, "x = a", "");
  p = parse(s);
  CHECK(!p.unit && !strcmp(p.err.msg, "too many nested expressions or blocks"));
  done(&p);
  free(s);
  s = repeat(".a", 800, "x = a", "");
  p = parse(s);
  CHECK(p.unit != NULL);
  done(&p);
  free(s);
  s = repeat("1,", 100000, "x = [", "]");
  p = parse(s);
  CHECK(p.unit && p.unit->root->u.list.items[0]->u.assign.value->u.list.n == 100000);
  done(&p);
  free(s);
  /* 100 levels of indentation are fine, 101 are not */
  char buf[20000];
  for (int levels = 100; levels <= 101; levels++) {
    char *o = buf;
    for (int i = 0; i < levels; i++) o += sprintf(o, "%*sif x:\n", i, "");
    sprintf(o, "%*spass\n", levels, "");
    p = parse(buf);
    if (levels == 100)
      CHECK(p.unit != NULL);
    else
      CHECK(!p.unit && !strcmp(p.err.msg, "too many levels of indentation") &&
            p.err.loc.line == 102);
    done(&p);
  }
}

/* ---- locations ---- */

static void test_parse_locations(void) {
  Parsed p;
  Node *n = first_expr(&p, "a + b * c");
  CHECK(at(n, 1, 3) && at(n->u.bin.b, 1, 7) && at(n->u.bin.a, 1, 1));
  done(&p);
  n = first_expr(&p, "x < y <= z");
  CHECK(at(n, 1, 3) && at(n->u.cmp.rest[1], 1, 10));
  done(&p);
  n = first_expr(&p, "obj.attr.name");
  CHECK(at(n, 1, 10) && at(n->u.attr.obj, 1, 5));
  done(&p);
  n = first_expr(&p, "A[i][j]");
  CHECK(at(n, 1, 5) && at(n->u.sub.obj, 1, 2));
  done(&p);
  n = first_expr(&p, "te.compute(1, f, name='B')");
  CHECK(at(n, 1, 1) && at(n->u.call.args.items[2], 1, 18));
  done(&p);
  n = first_expr(&p, "(f)(x)");
  CHECK(at(n, 1, 1));
  done(&p);
  n = first_expr(&p, "  (1, 2)"); /* an indented first line is an error */
  CHECK(n == NULL);
  done(&p);
  n = first_expr(&p, "x = (1, 2)");
  CHECK(n && n->kind == AST_ASSIGN && at(n, 1, 1) && at(n->u.assign.value, 1, 5));
  done(&p);
  n = first_expr(&p, "1, 2");
  CHECK(at(n, 1, 1) && at(n->u.list.items[1], 1, 4));
  done(&p);
  n = first_expr(&p, "-x");
  CHECK(at(n, 1, 1) && at(n->u.unary.a, 1, 2));
  done(&p);
  n = first_expr(&p, "a and b");
  CHECK(at(n, 1, 1));
  done(&p);
  n = first_expr(&p, "  \\\nr'x' 'y'");
  CHECK(n == NULL); /* indentation error again: the continuation does not start a line */
  done(&p);
  n = first_expr(&p, "[r'x' 'y', lambda: 0, *z, x[1:2], a[:3]]");
  NodeList *l = n ? &n->u.list : NULL;
  CHECK(at(n, 1, 1) && at(l->items[0], 1, 2) && at(l->items[1], 1, 12) && at(l->items[2], 1, 23));
  CHECK(at(l->items[3]->u.sub.index, 1, 29) && at(l->items[4]->u.sub.index, 1, 37));
  done(&p);
  n = first_expr(&p, "x = 1\ny = f'ab{ cd }{e!r:{w}}'");
  n = p.unit ? p.unit->root->u.list.items[1]->u.assign.value : NULL;
  CHECK(at(n, 2, 5) && at(n->u.list.items[0], 2, 7) && at(n->u.list.items[1], 2, 9));
  CHECK(at(n->u.list.items[1]->u.fmt.expr, 2, 11) && at(n->u.list.items[2]->u.fmt.expr, 2, 16));
  CHECK(at(n->u.list.items[2], 2, 15) && at(n->u.list.items[2]->u.fmt.spec, 2, 20));
  CHECK(at(n->u.list.items[2]->u.fmt.spec->u.list.items[0]->u.fmt.expr, 2, 21));
  done(&p);
  n = first_expr(&p, "f'''\n  {x +\n  yy}'''");
  CHECK(at(n, 1, 1) && at(n->u.list.items[1], 2, 3) && at(n->u.list.items[1]->u.fmt.expr, 2, 6));
  CHECK(at(n->u.list.items[1]->u.fmt.expr->u.bin.b, 3, 3));
  done(&p);
  n = first_expr(&p, "if a:\n  pass\nelif b:\n  pass\nelse:\n  x");
  CHECK(at(n, 1, 1) && at(n->u.ifs.orelse.items[0], 3, 1) &&
        at(n->u.ifs.orelse.items[0]->u.ifs.orelse.items[0], 6, 3));
  done(&p);
  n = first_expr(&p, "def f(a, *b, c=1):\n    return a");
  CHECK(at(n, 1, 1) && at(n->u.def->body.items[0], 2, 5));
  CHECK(n->u.def->params[1].loc.col == 10 && n->u.def->params[2].loc.col == 14);
  done(&p);
  n = first_expr(&p, "with a as b, c: pass");
  CHECK(at(n, 1, 1) && at(n->u.with.body.items[0], 1, 14));
  done(&p);
  n = first_expr(&p, "try:\n  x\nexcept E as e:\n  y");
  CHECK(at(n, 1, 1) && at(n->u.try_.handlers.items[0], 3, 1));
  done(&p);
  n = first_expr(&p, "[x for x in y if x]");
  CHECK(at(n, 1, 1) && at(n->u.comp.gens.items[0], 1, 4));
  done(&p);
  n = first_expr(&p, "x = \"\xc3\xa9\" + y");
  CHECK(at(n->u.assign.value, 1, 10)); /* byte columns */
  done(&p);
  n = first_expr(&p, "\tx");
  CHECK(n == NULL);
  done(&p);
  n = first_expr(&p, "x\r\ny + z");
  CHECK(p.unit && at(p.unit->root->u.list.items[1]->u.unary.a, 2, 3));
  done(&p);
}

/* ---- sources and the dump ---- */

static void test_parse_sources(void) {
  Source *s = src_new("f.tes", "a\nbc\r\n\nd", 8);
  int len = -1;
  const char *l = src_line(s, 1, &len);
  CHECK(l && len == 1 && l[0] == 'a');
  l = src_line(s, 2, &len);
  CHECK(l && len == 2 && !strncmp(l, "bc", 2));
  l = src_line(s, 3, &len);
  CHECK(l && len == 0);
  l = src_line(s, 4, &len);
  CHECK(l && len == 1 && l[0] == 'd');
  CHECK(src_line(s, 5, &len) == NULL && src_line(s, 0, &len) == NULL);
  CHECK(!strcmp(s->name, "f.tes") && s->len == 8);
  Unit *u = unit_new(s);
  CHECK(u->root->kind == AST_MODULE && u->root->u.list.n == 0 && s->refcnt == 2);
  unit_incref(u);
  unit_decref(u);
  unit_decref(u);
  CHECK(s->refcnt == 1);
  src_decref(s);
  s = src_new("g", "x\n", 2);
  CHECK(src_line(s, 2, &len) && len == 0);
  src_decref(s);
  CHECK(!strcmp(ast_kind_names[AST_INT], "INT") && !strcmp(ast_kind_names[AST_MODULE], "MODULE"));
  CHECK(!strcmp(binop_symbols[BIN_FLOORDIV], "//") && !strcmp(binop_symbols[BIN_MATMUL], "@"));
  /* a unit outlives the Source reference of its creator */
  Parsed p = parse("x = 1");
  src_decref(p.src);
  CHECK(p.unit && p.unit->src->refcnt == 1 && p.unit->root->loc.src == p.unit->src);
  unit_decref(p.unit);
}

static void test_parse_dump_statements(void) {
  MOD("def f(x):\n  if x:\n    return [y for y in x]\n  else:\n    pass\n  while 1:\n    "
      "break\nf(1)",
      "(MODULE\n  (DEF f (PARAMS x)\n    (IF (NAME x)\n      (RETURN (LISTCOMP (NAME y) (COMPFOR "
      "(NAME y) (NAME x))))\n"
      "      (else\n        (PASS)))\n    (WHILE (INT 1)\n      (BREAK)))\n"
      "  (EXPRSTMT (CALL (NAME f) (INT 1))))");
}

int main(void) {
  test_parse_numbers();
  test_parse_number_errors();
  test_parse_strings();
  test_parse_string_errors();
  test_parse_fstrings();
  test_parse_fstring_errors();
  test_parse_precedence();
  test_parse_compare();
  test_parse_primaries();
  test_parse_displays();
  test_parse_lambdas();
  test_parse_assignments();
  test_parse_target_errors();
  test_parse_compound();
  test_parse_simple_statements();
  test_parse_indentation();
  test_parse_indentation_errors();
  test_parse_utf8();
  test_parse_errors();
  test_parse_incomplete();
  test_parse_limits();
  test_parse_locations();
  test_parse_sources();
  test_parse_dump_statements();
  return finish();
}
