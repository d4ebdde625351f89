/* ast.c: sources, units and AST nodes; ast_dump prints a tree as s-expressions for tests and
 * `tes --dump-ast`. */
#include "frontend/lang/ast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/value.h"
#include "ir/support.h"

const char *const ast_kind_names[AST_KIND_COUNT] = {
#define AST_NAME_STR(k) #k,
    AST_KINDS(AST_NAME_STR)
#undef AST_NAME_STR
};

const char *const binop_symbols[BIN_OP_COUNT] = {
    [BIN_ADD] = "+",       [BIN_SUB] = "-",     [BIN_MUL] = "*",  [BIN_DIV] = "/",
    [BIN_FLOORDIV] = "//", [BIN_MOD] = "%",     [BIN_POW] = "**", [BIN_MATMUL] = "@",
    [BIN_LSHIFT] = "<<",   [BIN_RSHIFT] = ">>", [BIN_AND] = "&",  [BIN_OR] = "|",
    [BIN_XOR] = "^",
};

static const char *const cmpop_symbols[] = {
    [CMP_LT] = "<",  [CMP_LE] = "<=",        [CMP_GT] = ">",  [CMP_GE] = ">=",
    [CMP_EQ] = "==", [CMP_NE] = "!=",        [CMP_IN] = "in", [CMP_NOTIN] = "not in",
    [CMP_IS] = "is", [CMP_ISNOT] = "is not",
};

static const char *const unop_symbols[] = {
    [UN_NEG] = "-",
    [UN_POS] = "+",
    [UN_INVERT] = "~",
    [UN_NOT] = "not",
};

/* ---- sources ---- */

Source *src_new(const char *name, const char *text, size_t len) {
  Source *s = xmalloc(sizeof *s);
  s->refcnt = 1;
  s->name = xstrdup(name);
  s->text = xstrndup(text, len);
  s->len = len;
  s->library = false;
  return s;
}

void src_incref(Source *s) { s->refcnt++; }

void src_decref(Source *s) {
  if (!s || --s->refcnt > 0) return;
  free(s->name);
  free(s->text);
  free(s);
}

/* Lines end at '\n'; a "\r\n" ending loses its '\r' too, so carets line up. The line after a
 * final newline exists and is empty: errors at the end of input point there. */
const char *src_line(const Source *s, int line, int *len) {
  if (line < 1) return NULL;
  const char *p = s->text, *end = s->text + s->len;
  for (int i = 1; i < line; i++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    p = nl + 1;
  }
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  const char *e = nl ? nl : end;
  if (e > p && e[-1] == '\r') e--;
  *len = (int)(e - p);
  return p;
}

/* ---- units and nodes ---- */

Unit *unit_new(Source *src) {
  Unit *u = xcalloc(1, sizeof *u);
  u->refcnt = 1;
  arena_init(&u->arena);
  src_incref(src);
  u->src = src;
  u->root = ast_node(&u->arena, AST_MODULE, (SrcLoc){src, 1, 1});
  return u;
}

void unit_incref(Unit *u) { u->refcnt++; }

void unit_decref(Unit *u) {
  if (!u || --u->refcnt > 0) return;
  val_xdecref(u->consts);
  arena_free(&u->arena);
  src_decref(u->src);
  free(u);
}

Node *ast_node(Arena *a, AstKind kind, SrcLoc loc) {
  Node *n = arena_alloc(a, sizeof *n);
  n->kind = kind;
  n->loc = loc;
  return n;
}

/* A NodeList has no capacity field: lists built only by pushes from empty have room for
 * max(4, n rounded up to a power of two) items, so the array grows when n hits one. */
void ast_list_push(Arena *a, NodeList *l, Node *n) {
  int k = l->n;
  if (k == 0)
    l->items = arena_alloc(a, 4 * sizeof(Node *));
  else if (k >= 4 && !(k & (k - 1)))
    l->items =
        arena_realloc(a, l->items, (size_t)k * sizeof(Node *), (size_t)k * 2 * sizeof(Node *));
  l->items[l->n++] = n;
}

/* ---- dump ---- */

static void dump_expr(FILE *f, const Node *n);
static void dump_stmt(FILE *f, const Node *n, int indent);

static void dump_str(FILE *f, const char *s, size_t len) {
  fputc('"', f);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", f);
    else if (c == '\t')
      fputs("\\t", f);
    else if (c == '\r')
      fputs("\\r", f);
    else if (c < 0x20 || c == 0x7F)
      fprintf(f, "\\x%02x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* Python's repr: the shortest digits that read back as the same double, positional for
 * exponents -4..15, scientific beyond. */
static void dump_float(FILE *f, double v) {
  if (!isfinite(v)) {
    fputs(isnan(v) ? "nan" : v < 0 ? "-inf" : "inf", f);
    return;
  }
  char buf[400];
  int prec = 1;
  for (; prec < 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (strtod(buf, NULL) == v) break;
  }
  snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
  int exp = atoi(strchr(buf, 'e') + 1);
  if (exp < -4 || exp >= 16) {
    fputs(buf, f); /* "1.5e-07", "1e+16" as Python prints them */
    return;
  }
  snprintf(buf, sizeof buf, "%.*f", prec - 1 - exp > 0 ? prec - 1 - exp : 0, v);
  fprintf(f, strchr(buf, '.') ? "%s" : "%s.0", buf);
}

static void dump_opt(FILE *f, const Node *n) {
  if (n)
    dump_expr(f, n);
  else
    fputc('_', f);
}

static void dump_items(FILE *f, const NodeList *l) {
  for (int i = 0; i < l->n; i++) {
    fputc(' ', f);
    dump_expr(f, l->items[i]);
  }
}

static void dump_params(FILE *f, const FuncDef *d) {
  fputs("(PARAMS", f);
  for (int i = 0; i < d->nparams; i++) {
    const Param *p = &d->params[i];
    const char *mark = p->kind == PARAM_STAR ? "*" : p->kind == PARAM_STARSTAR ? "**" : "";
    fprintf(f, " %s%s", mark, p->name ? SYM_STR(p->name) : "");
    if (p->dflt) {
      fputc('=', f);
      dump_expr(f, p->dflt);
    }
  }
  fputc(')', f);
}

static void dump_fmtval(FILE *f, const Node *n) {
  fputs("(FMTVAL ", f);
  dump_expr(f, n->u.fmt.expr);
  if (n->u.fmt.conv) fprintf(f, " !%c", n->u.fmt.conv);
  if (n->u.fmt.spec) {
    fputc(' ', f);
    dump_expr(f, n->u.fmt.spec);
  }
  fputc(')', f);
}

static void dump_compare(FILE *f, const Node *n) {
  fputs("(COMPARE ", f);
  dump_expr(f, n->u.cmp.first);
  for (int i = 0; i < n->u.cmp.n; i++) {
    fprintf(f, " %s ", cmpop_symbols[n->u.cmp.ops[i]]);
    dump_expr(f, n->u.cmp.rest[i]);
  }
  fputc(')', f);
}

static void dump_dict(FILE *f, const Node *n) {
  fputs("(DICT", f);
  for (int i = 0; i < n->u.dict.keys.n; i++) {
    fputc(' ', f);
    dump_expr(f, n->u.dict.keys.items[i]);
    fputc(' ', f);
    dump_expr(f, n->u.dict.values.items[i]);
  }
  fputc(')', f);
}

static void dump_comp(FILE *f, const Node *n) {
  fprintf(f, "(%s ", ast_kind_names[n->kind]);
  if (n->u.comp.key) {
    dump_expr(f, n->u.comp.key);
    fputc(' ', f);
  }
  dump_expr(f, n->u.comp.elt);
  dump_items(f, &n->u.comp.gens);
  fputc(')', f);
}

/* An expression on one line: (KIND operands...). */
static void dump_expr(FILE *f, const Node *n) {
  const char *kind = ast_kind_names[n->kind];
  switch (n->kind) {
  case AST_INT:
    fprintf(f, "(INT %lld)", (long long)n->u.ival);
    return;
  case AST_FLOAT:
    fputs("(FLOAT ", f), dump_float(f, n->u.fval), fputc(')', f);
    return;
  case AST_STR:
    fputs("(STR ", f), dump_str(f, n->u.str.s, n->u.str.len), fputc(')', f);
    return;
  case AST_FSTR:
  case AST_TUPLE:
  case AST_LIST:
    fprintf(f, "(%s", kind), dump_items(f, &n->u.list), fputc(')', f);
    return;
  case AST_FMTVAL:
    dump_fmtval(f, n);
    return;
  case AST_TRUE:
  case AST_FALSE:
  case AST_NONE:
  case AST_ELLIPSIS:
    fprintf(f, "(%s)", kind);
    return;
  case AST_NAME:
    fprintf(f, "(NAME %s)", SYM_STR(n->u.name.id));
    return;
  case AST_ATTR:
    fputs("(ATTR ", f), dump_expr(f, n->u.attr.obj), fprintf(f, " %s)", SYM_STR(n->u.attr.name));
    return;
  case AST_SUBSCRIPT:
    fputs("(SUBSCRIPT ", f), dump_expr(f, n->u.sub.obj), fputc(' ', f);
    dump_expr(f, n->u.sub.index), fputc(')', f);
    return;
  case AST_SLICE:
    fputs("(SLICE ", f), dump_opt(f, n->u.slice.lo), fputc(' ', f), dump_opt(f, n->u.slice.hi);
    fputc(' ', f), dump_opt(f, n->u.slice.step), fputc(')', f);
    return;
  case AST_CALL:
    fputs("(CALL ", f), dump_expr(f, n->u.call.fn), dump_items(f, &n->u.call.args), fputc(')', f);
    return;
  case AST_KEYWORD:
    fprintf(f, "(KEYWORD %s ", n->u.kw.name ? SYM_STR(n->u.kw.name) : "**");
    dump_expr(f, n->u.kw.value), fputc(')', f);
    return;
  case AST_STARRED:
    fputs("(STARRED ", f), dump_expr(f, n->u.unary.a), fputc(')', f);
    return;
  case AST_BINOP:
    fprintf(f, "(BINOP %s ", binop_symbols[n->u.bin.op]), dump_expr(f, n->u.bin.a);
    fputc(' ', f), dump_expr(f, n->u.bin.b), fputc(')', f);
    return;
  case AST_UNARY:
    fprintf(f, "(UNARY %s ", unop_symbols[n->u.unary.op]), dump_expr(f, n->u.unary.a),
        fputc(')', f);
    return;
  case AST_AND:
  case AST_OR:
    fprintf(f, "(%s ", kind), dump_expr(f, n->u.bin.a), fputc(' ', f), dump_expr(f, n->u.bin.b);
    fputc(')', f);
    return;
  case AST_COMPARE:
    dump_compare(f, n);
    return;
  case AST_IFEXP:
    fputs("(IFEXP ", f), dump_expr(f, n->u.ifexp.cond), fputc(' ', f),
        dump_expr(f, n->u.ifexp.then);
    fputc(' ', f), dump_expr(f, n->u.ifexp.orelse), fputc(')', f);
    return;
  case AST_LAMBDA:
    fputs("(LAMBDA ", f), dump_params(f, n->u.def), fputc(' ', f);
    dump_expr(f, n->u.def->lambda_body), fputc(')', f);
    return;
  case AST_DICT:
    dump_dict(f, n);
    return;
  case AST_LISTCOMP:
  case AST_DICTCOMP:
    dump_comp(f, n);
    return;
  case AST_COMPFOR:
    fputs("(COMPFOR ", f), dump_expr(f, n->u.compfor.target), fputc(' ', f);
    dump_expr(f, n->u.compfor.iter), dump_items(f, &n->u.compfor.ifs), fputc(')', f);
    return;
  case AST_EXPRSTMT:
  case AST_ASSIGN:
  case AST_AUGASSIGN:
  case AST_IF:
  case AST_FOR:
  case AST_WHILE:
  case AST_BREAK:
  case AST_CONTINUE:
  case AST_PASS:
  case AST_DEF:
  case AST_RETURN:
  case AST_IMPORT:
  case AST_FROMIMPORT:
  case AST_WITH:
  case AST_ASSERT:
  case AST_TRY:
  case AST_EXCEPT:
  case AST_RAISE:
  case AST_GLOBAL:
  case AST_DEL:
  case AST_MODULE:
    dump_stmt(f, n, 0);
    return;
  case AST_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static void dump_block(FILE *f, const NodeList *l, int indent) {
  for (int i = 0; i < l->n; i++) {
    fputc('\n', f);
    dump_stmt(f, l->items[i], indent);
  }
}

/* A secondary block, `(else ...)` or `(finally ...)`, when it has statements. */
static void dump_labeled(FILE *f, const char *label, const NodeList *l, int indent) {
  if (l->n == 0) return;
  fprintf(f, "\n%*s(%s", indent, "", label);
  dump_block(f, l, indent + 2);
  fputc(')', f);
}

static void dump_imports(FILE *f, const Node *n) {
  if (n->kind == AST_FROMIMPORT) fprintf(f, " %s", n->u.imp.n ? n->u.imp.items[0].module : "");
  for (int i = 0; i < n->u.imp.n; i++) {
    const ImportItem *it = &n->u.imp.items[i];
    const char *what = n->kind == AST_IMPORT ? it->module : SYM_STR(it->name);
    if (it->asname)
      fprintf(f, " (%s as %s)", what, SYM_STR(it->asname));
    else
      fprintf(f, " %s", what);
  }
}

/* The part of a statement on its own line, after "(KIND". */
static void dump_stmt_head(FILE *f, const Node *n) {
  switch (n->kind) {
  case AST_EXPRSTMT:
  case AST_RETURN:
  case AST_RAISE:
    if (n->u.unary.a) fputc(' ', f), dump_expr(f, n->u.unary.a);
    return;
  case AST_ASSIGN:
    dump_items(f, &n->u.assign.targets), fputc(' ', f), dump_expr(f, n->u.assign.value);
    return;
  case AST_AUGASSIGN:
    fprintf(f, " %s= ", binop_symbols[n->u.aug.op]), dump_expr(f, n->u.aug.target);
    fputc(' ', f), dump_expr(f, n->u.aug.value);
    return;
  case AST_IF:
    fputc(' ', f), dump_expr(f, n->u.ifs.cond);
    return;
  case AST_FOR:
    fputc(' ', f), dump_expr(f, n->u.loop.target), fputc(' ', f), dump_expr(f, n->u.loop.iter);
    return;
  case AST_WHILE:
    fputc(' ', f), dump_expr(f, n->u.loop.iter);
    return;
  case AST_DEF:
    fprintf(f, " %s ", SYM_STR(n->u.def->name)), dump_params(f, n->u.def);
    return;
  case AST_IMPORT:
  case AST_FROMIMPORT:
    dump_imports(f, n);
    return;
  case AST_WITH:
    fputc(' ', f), dump_expr(f, n->u.with.ctx);
    if (n->u.with.target) fputs(" as ", f), dump_expr(f, n->u.with.target);
    return;
  case AST_ASSERT:
    fputc(' ', f), dump_expr(f, n->u.bin.a);
    if (n->u.bin.b) fputc(' ', f), dump_expr(f, n->u.bin.b);
    return;
  case AST_EXCEPT:
    if (n->u.except.type) fputc(' ', f), dump_expr(f, n->u.except.type);
    if (n->u.except.name) fprintf(f, " as %s", SYM_STR(n->u.except.name));
    return;
  case AST_GLOBAL:
    for (int i = 0; i < n->u.names.n; i++) fprintf(f, " %s", SYM_STR(n->u.names.names[i]));
    return;
  case AST_DEL:
    dump_items(f, &n->u.list);
    return;
  case AST_BREAK:
  case AST_CONTINUE:
  case AST_PASS:
  case AST_TRY:
  case AST_MODULE:
    return;
  case AST_INT:
  case AST_FLOAT:
  case AST_STR:
  case AST_FSTR:
  case AST_FMTVAL:
  case AST_TRUE:
  case AST_FALSE:
  case AST_NONE:
  case AST_ELLIPSIS:
  case AST_NAME:
  case AST_ATTR:
  case AST_SUBSCRIPT:
  case AST_SLICE:
  case AST_CALL:
  case AST_KEYWORD:
  case AST_STARRED:
  case AST_BINOP:
  case AST_UNARY:
  case AST_AND:
  case AST_OR:
  case AST_COMPARE:
  case AST_IFEXP:
  case AST_LAMBDA:
  case AST_TUPLE:
  case AST_LIST:
  case AST_DICT:
  case AST_LISTCOMP:
  case AST_DICTCOMP:
  case AST_COMPFOR:
  case AST_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* The blocks of a statement, one statement per line, indented under it. */
static void dump_stmt_blocks(FILE *f, const Node *n, int indent) {
  switch (n->kind) {
  case AST_IF:
    dump_block(f, &n->u.ifs.body, indent);
    dump_labeled(f, "else", &n->u.ifs.orelse, indent);
    return;
  case AST_FOR:
  case AST_WHILE:
    dump_block(f, &n->u.loop.body, indent);
    dump_labeled(f, "else", &n->u.loop.orelse, indent);
    return;
  case AST_DEF:
    dump_block(f, &n->u.def->body, indent);
    return;
  case AST_WITH:
    dump_block(f, &n->u.with.body, indent);
    return;
  case AST_EXCEPT:
    dump_block(f, &n->u.except.body, indent);
    return;
  case AST_MODULE:
    dump_block(f, &n->u.list, indent);
    return;
  case AST_TRY:
    dump_block(f, &n->u.try_.body, indent);
    dump_block(f, &n->u.try_.handlers, indent);
    dump_labeled(f, "else", &n->u.try_.orelse, indent);
    dump_labeled(f, "finally", &n->u.try_.finalbody, indent);
    return;
  case AST_EXPRSTMT:
  case AST_ASSIGN:
  case AST_AUGASSIGN:
  case AST_BREAK:
  case AST_CONTINUE:
  case AST_PASS:
  case AST_RETURN:
  case AST_IMPORT:
  case AST_FROMIMPORT:
  case AST_ASSERT:
  case AST_RAISE:
  case AST_GLOBAL:
  case AST_DEL:
    return; /* no blocks */
  case AST_INT:
  case AST_FLOAT:
  case AST_STR:
  case AST_FSTR:
  case AST_FMTVAL:
  case AST_TRUE:
  case AST_FALSE:
  case AST_NONE:
  case AST_ELLIPSIS:
  case AST_NAME:
  case AST_ATTR:
  case AST_SUBSCRIPT:
  case AST_SLICE:
  case AST_CALL:
  case AST_KEYWORD:
  case AST_STARRED:
  case AST_BINOP:
  case AST_UNARY:
  case AST_AND:
  case AST_OR:
  case AST_COMPARE:
  case AST_IFEXP:
  case AST_LAMBDA:
  case AST_TUPLE:
  case AST_LIST:
  case AST_DICT:
  case AST_LISTCOMP:
  case AST_DICTCOMP:
  case AST_COMPFOR:
  case AST_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static void dump_stmt(FILE *f, const Node *n, int indent) {
  fprintf(f, "%*s(%s", indent, "", ast_kind_names[n->kind]);
  dump_stmt_head(f, n);
  dump_stmt_blocks(f, n, indent + 2);
  fputc(')', f);
}

void ast_dump(const Node *n, void *file) {
  FILE *f = file;
  if (n->kind >= AST_EXPRSTMT)
    dump_stmt(f, n, 0);
  else
    dump_expr(f, n);
  fputc('\n', f);
}
