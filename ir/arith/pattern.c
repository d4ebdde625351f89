/* pattern.c: the pattern language of the rewrite rules (arith_impl.h describes it). TVM
 * writes a rule as C++ expression templates and Halide as overloaded operators on wildcards;
 * C has neither, so a rule here is a pair of strings, parsed once into small trees that are
 * matched against an expression and instantiated with what the match bound. The strings are
 * part of the program, so a malformed one is an internal error. */
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith_impl.h"
#include "ir/support.h"

typedef enum {
  PN_VAR,    /* x y z w b1 b2 s1 s2: any expression */
  PN_CONST,  /* c1 c2 c3: an integer constant */
  PN_NUM,    /* 0, 1, 2, ...: that integer constant */
  PN_BOOL,   /* true, false */
  PN_BINARY, /* ADD..OR */
  PN_NOT,
  PN_SELECT,
  PN_RAMP,
  PN_BCAST
} PatKind;

struct Pat {
  PatKind kind;
  int slot;         /* PN_VAR, PN_CONST */
  int64_t num;      /* PN_NUM, PN_BOOL */
  ExprKind op;      /* PN_BINARY */
  Pat *a, *b, *c;   /* operands */
  Pat *alt;         /* the next alternative ("a; b") */
};

/* ---- parsing ---- */

typedef struct Parser {
  const char *text, *p;
} Parser;

static noreturn void bad(Parser *ps, const char *what) {
  tes_internal_error(__FILE__, __LINE__, "rule pattern \"%s\": %s at offset %d", ps->text, what,
                     (int)(ps->p - ps->text));
}

static void skip_space(Parser *ps) {
  while (*ps->p == ' ') ps->p++;
}

/* Consumes tok if it comes next (and, for "<" and the like, is not the start of "<="). */
static bool accept(Parser *ps, const char *tok) {
  skip_space(ps);
  size_t n = strlen(tok);
  if (strncmp(ps->p, tok, n) != 0) return false;
  if ((tok[0] == '<' || tok[0] == '>' || tok[0] == '!') && n == 1 && ps->p[1] == '=') return false;
  ps->p += n;
  return true;
}

static void expect(Parser *ps, const char *tok) {
  if (!accept(ps, tok)) bad(ps, tok);
}

static Pat *node(PatKind k, Pat *a, Pat *b) {
  Pat *p = xcalloc(1, sizeof *p);
  p->kind = k;
  p->a = a;
  p->b = b;
  return p;
}

static Pat *binary(ExprKind op, Pat *a, Pat *b) {
  Pat *p = node(PN_BINARY, a, b);
  p->op = op;
  return p;
}

static Pat *parse_or(Parser *ps);

static Pat *parse_number(Parser *ps) {
  Pat *p = node(PN_NUM, NULL, NULL);
  while (*ps->p >= '0' && *ps->p <= '9') p->num = p->num * 10 + (*ps->p++ - '0');
  return p;
}

/* x y z w b1 b2 s1 s2 c1 c2 c3 true false */
static Pat *parse_name(Parser *ps, const char *name, size_t n) {
  static const char *const vars[PAT_NVARS] = {"x", "y", "z", "w", "b1", "b2", "s1", "s2"};
  static const char *const consts[PAT_NCONSTS] = {"c1", "c2", "c3"};
  for (int i = 0; i < PAT_NVARS; i++)
    if (strlen(vars[i]) == n && !strncmp(name, vars[i], n)) {
      Pat *p = node(PN_VAR, NULL, NULL);
      p->slot = i;
      return p;
    }
  for (int i = 0; i < PAT_NCONSTS; i++)
    if (n == 2 && !strncmp(name, consts[i], n)) {
      Pat *p = node(PN_CONST, NULL, NULL);
      p->slot = i;
      return p;
    }
  if ((n == 4 && !strncmp(name, "true", 4)) || (n == 5 && !strncmp(name, "false", 5))) {
    Pat *p = node(PN_BOOL, NULL, NULL);
    p->num = n == 4;
    return p;
  }
  bad(ps, "unknown name");
}

/* floordiv(a, b) and the other calls; ramp and broadcast end in the word `lanes`. */
static Pat *parse_call(Parser *ps, const char *name, size_t n) {
  static const struct { const char *name; ExprKind op; } calls[] = {
    {"floordiv", EXPR_FLOORDIV}, {"floormod", EXPR_FLOORMOD}, {"min", EXPR_MIN},
    {"max", EXPR_MAX}, {"truncdiv", EXPR_DIV}, {"truncmod", EXPR_MOD},
  };
  Pat *a = parse_or(ps), *b = NULL, *p;
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
    if (strlen(calls[i].name) == n && !strncmp(name, calls[i].name, n)) {
      expect(ps, ",");
      p = binary(calls[i].op, a, parse_or(ps));
      expect(ps, ")");
      return p;
    }
  if (n == 6 && !strncmp(name, "select", 6)) {
    expect(ps, ",");
    b = parse_or(ps);
    expect(ps, ",");
    p = node(PN_SELECT, a, b);
    p->c = parse_or(ps);
  } else if (n == 4 && !strncmp(name, "ramp", 4)) {
    expect(ps, ",");
    p = node(PN_RAMP, a, parse_or(ps));
    expect(ps, ",");
    expect(ps, "lanes");
  } else if (n == 9 && !strncmp(name, "broadcast", 9)) {
    p = node(PN_BCAST, a, NULL);
    expect(ps, ",");
    expect(ps, "lanes");
  } else {
    bad(ps, "unknown function");
  }
  expect(ps, ")");
  return p;
}

static Pat *parse_primary(Parser *ps) {
  skip_space(ps);
  if (accept(ps, "(")) {
    Pat *p = parse_or(ps);
    expect(ps, ")");
    return p;
  }
  if (*ps->p >= '0' && *ps->p <= '9') return parse_number(ps);
  const char *name = ps->p;
  while ((*ps->p >= 'a' && *ps->p <= 'z') || (*ps->p >= '0' && *ps->p <= '9')) ps->p++;
  size_t n = (size_t)(ps->p - name);
  if (n == 0) bad(ps, "expected an operand");
  if (accept(ps, "(")) return parse_call(ps, name, n);
  return parse_name(ps, name, n);
}

static Pat *parse_unary(Parser *ps) {
  if (accept(ps, "!")) return node(PN_NOT, parse_unary(ps), NULL);
  return parse_primary(ps);
}

static Pat *parse_product(Parser *ps) {
  Pat *p = parse_unary(ps);
  for (;;) {
    if (accept(ps, "*")) p = binary(EXPR_MUL, p, parse_unary(ps));
    else if (accept(ps, "/")) p = binary(EXPR_DIV, p, parse_unary(ps));
    else if (accept(ps, "%")) p = binary(EXPR_MOD, p, parse_unary(ps));
    else return p;
  }
}

static Pat *parse_sum(Parser *ps) {
  Pat *p = parse_product(ps);
  for (;;) {
    if (accept(ps, "+")) p = binary(EXPR_ADD, p, parse_product(ps));
    else if (accept(ps, "-")) p = binary(EXPR_SUB, p, parse_product(ps));
    else return p;
  }
}

static Pat *parse_compare(Parser *ps) {
  static const struct { const char *tok; ExprKind op; } ops[] = {
    {"<=", EXPR_LE}, {">=", EXPR_GE}, {"==", EXPR_EQ},
    {"!=", EXPR_NE}, {"<", EXPR_LT},  {">", EXPR_GT},
  };
  Pat *p = parse_sum(ps);
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (accept(ps, ops[i].tok)) return binary(ops[i].op, p, parse_sum(ps));
  return p;
}

static Pat *parse_and(Parser *ps) {
  Pat *p = parse_compare(ps);
  while (accept(ps, "&&")) p = binary(EXPR_AND, p, parse_compare(ps));
  return p;
}

static Pat *parse_or(Parser *ps) {
  Pat *p = parse_and(ps);
  while (accept(ps, "||")) p = binary(EXPR_OR, p, parse_and(ps));
  return p;
}

Pat *arith_pat_compile(const char *text) {
  Parser ps = {text, text};
  Pat *first = parse_or(&ps), *last = first;
  while (accept(&ps, ";")) last = last->alt = parse_or(&ps);
  skip_space(&ps);
  if (*ps.p) bad(&ps, "trailing text");
  return first;
}

void arith_pat_free(Pat *p) {
  while (p) {
    Pat *next = p->alt;
    if (p->a) arith_pat_free(p->a);
    if (p->b) arith_pat_free(p->b);
    if (p->c) arith_pat_free(p->c);
    free(p);
    p = next;
  }
}

/* ---- matching ---- */

static bool match(const Pat *p, Expr *e, PMatch *m) {
  switch (p->kind) {
  case PN_VAR:
    if (m->var[p->slot]) return ir_expr_equal(m->var[p->slot], e);
    m->var[p->slot] = e;
    return true;
  case PN_CONST:
    if (e->kind != EXPR_INT || dt_is_bool(e->dtype)) return false;
    if (m->cnode[p->slot]) return m->c[p->slot] == e->u.ival;
    m->cnode[p->slot] = e;
    m->c[p->slot] = e->u.ival;
    return true;
  case PN_NUM: return e->kind == EXPR_INT && !dt_is_bool(e->dtype) && e->u.ival == p->num;
  case PN_BOOL: return e->kind == EXPR_INT && dt_is_bool(e->dtype) && e->u.ival == p->num;
  case PN_BINARY:
    return e->kind == p->op && match(p->a, e->u.bin.a, m) && match(p->b, e->u.bin.b, m);
  case PN_NOT: return e->kind == EXPR_NOT && match(p->a, e->u.unary.a, m);
  case PN_SELECT:
    return e->kind == EXPR_SELECT && match(p->a, e->u.select.cond, m) &&
           match(p->b, e->u.select.t, m) && match(p->c, e->u.select.f, m);
  case PN_RAMP:
    if (e->kind != EXPR_RAMP || (m->lanes && m->lanes != e->u.ramp.lanes)) return false;
    m->lanes = e->u.ramp.lanes;
    return match(p->a, e->u.ramp.base, m) && match(p->b, e->u.ramp.stride, m);
  case PN_BCAST:
    if (e->kind != EXPR_BROADCAST || (m->lanes && m->lanes != e->u.bcast.lanes)) return false;
    m->lanes = e->u.bcast.lanes;
    return match(p->a, e->u.bcast.value, m);
  }
  TES_UNREACHABLE();
}

/* Whether an expression of kind k can match p, looking at p's node alone. */
static bool kind_fits(const Pat *p, ExprKind k) {
  switch (p->kind) {
  case PN_VAR: return true;
  case PN_CONST:
  case PN_NUM:
  case PN_BOOL: return k == EXPR_INT;
  case PN_BINARY: return k == p->op;
  case PN_NOT: return k == EXPR_NOT;
  case PN_SELECT: return k == EXPR_SELECT;
  case PN_RAMP: return k == EXPR_RAMP;
  case PN_BCAST: return k == EXPR_BROADCAST;
  }
  TES_UNREACHABLE();
}

/* Whether a binary pattern's operands can match operands of kinds a and b (any other
 * pattern: yes). */
static bool operands_fit(const Pat *p, ExprKind a, ExprKind b) {
  return p->kind != PN_BINARY || (kind_fits(p->a, a) && kind_fits(p->b, b));
}

static bool is_binary(const Expr *e) {
  switch (e->kind) {
  IR_CASE_BINARY:
    return true;
  default:
    return false;
  }
}

/* A quick no for most rules that do not match (lowering tries thousands a build): the kinds
 * of e and, for a binary pattern, of its operands. */
static bool may_match(const Pat *p, const Expr *e) {
  return kind_fits(p, e->kind) &&
         (!is_binary(e) || operands_fit(p, e->u.bin.a->kind, e->u.bin.b->kind));
}

bool arith_pat_match(const Pat *p, Expr *e, PMatch *m, RuleCond cond, Simp *s) {
  for (; p; p = p->alt) {
    if (!may_match(p, e)) continue;
    memset(m, 0, sizeof *m);
    if (match(p, e, m) && (!cond || cond(s, m))) return true;
  }
  return false;
}

/* ---- building ---- */

/* A subtree of numbers only, which takes its dtype from its surroundings. */
static bool untyped(const Pat *p) {
  return p->kind == PN_NUM || (p->kind == PN_BINARY && untyped(p->a) && untyped(p->b));
}

static Expr *build(Arena *a, const Pat *p, const PMatch *m, DType hint);

/* x op y, where a number takes the dtype of the other operand. */
static Expr *build_binary(Arena *a, const Pat *p, const PMatch *m, DType hint) {
  bool cmp = p->op >= EXPR_EQ && p->op <= EXPR_GE;
  DType h = cmp ? DT_I32 : hint;
  Expr *x, *y;
  if (untyped(p->a) && !untyped(p->b)) {
    y = build(a, p->b, m, h);
    x = build(a, p->a, m, y->dtype);
  } else {
    x = build(a, p->a, m, h);
    y = build(a, p->b, m, x->dtype);
  }
  return arith_binary(a, p->op, x, y);
}

static Expr *build_select(Arena *a, const Pat *p, const PMatch *m, DType hint) {
  Expr *c = build(a, p->a, m, dt_with_lanes(DT_BOOL1, hint.lanes));
  Expr *t, *f;
  if (untyped(p->b)) {
    f = build(a, p->c, m, hint);
    t = build(a, p->b, m, f->dtype);
  } else {
    t = build(a, p->b, m, hint);
    f = build(a, p->c, m, t->dtype);
  }
  return arith_select(a, c, t, f);
}

static Expr *build(Arena *a, const Pat *p, const PMatch *m, DType hint) {
  switch (p->kind) {
  case PN_VAR:
    TES_ASSERT(m->var[p->slot], "rule result uses an unbound pattern variable");
    return m->var[p->slot];
  case PN_CONST:
    TES_ASSERT(m->cnode[p->slot], "rule result uses an unbound constant");
    return m->cnode[p->slot];
  case PN_NUM: return arith_const(a, hint, p->num);
  case PN_BOOL: return arith_const(a, dt_with_lanes(DT_BOOL1, hint.lanes), p->num);
  case PN_BINARY: return build_binary(a, p, m, hint);
  case PN_NOT: return arith_not(a, build(a, p->a, m, hint));
  case PN_SELECT: return build_select(a, p, m, hint);
  case PN_RAMP: {
    Expr *base = build(a, p->a, m, dt_element(hint));
    return ir_ramp(a, base, build(a, p->b, m, base->dtype), m->lanes);
  }
  case PN_BCAST: return ir_broadcast(a, build(a, p->a, m, dt_element(hint)), m->lanes);
  }
  TES_UNREACHABLE();
}

Expr *arith_pat_build(Arena *a, const Pat *p, const PMatch *m, DType hint) {
  return build(a, p, m, hint);
}

/* ---- rule sets ---- */

/* The patterns are compiled the first time a set is used and kept for the process: they are
 * constants of the program, like the strings they come from. */
static void compile(RuleSet *rs) {
  rs->from = xmalloc((size_t)rs->n * sizeof *rs->from);
  rs->to = xmalloc((size_t)rs->n * sizeof *rs->to);
  for (int i = 0; i < rs->n; i++) {
    rs->from[i] = arith_pat_compile(rs->defs[i].from);
    rs->to[i] = arith_pat_compile(rs->defs[i].to);
  }
}

/* The rules of rs that may match a binary node with operands of kinds a and b (one of their
 * alternatives may), in order, ending in -1. */
static const int *candidates(RuleSet *rs, ExprKind a, ExprKind b) {
  if (!rs->by_operands)
    rs->by_operands = xcalloc((size_t)EXPR_KIND_COUNT * EXPR_KIND_COUNT, sizeof(int *));
  int **slot = &rs->by_operands[(size_t)a * EXPR_KIND_COUNT + b];
  if (*slot) return *slot;
  int *list = xmalloc((size_t)(rs->n + 1) * sizeof *list), n = 0;
  for (int i = 0; i < rs->n; i++) {
    const Pat *p = rs->from[i];
    while (p && !operands_fit(p, a, b)) p = p->alt;
    if (p) list[n++] = i;
  }
  list[n] = -1;
  return *slot = list;
}

Expr *arith_rules_apply(Simp *s, RuleSet *rs, Expr *e) {
  if (!rs->from) compile(rs);
  PMatch m;
  const int *cand = is_binary(e) ? candidates(rs, e->u.bin.a->kind, e->u.bin.b->kind) : NULL;
  for (int k = 0; cand ? cand[k] >= 0 : k < rs->n; k++) {
    int i = cand ? cand[k] : k;
    if (!arith_pat_match(rs->from[i], e, &m, rs->defs[i].cond, s)) continue;
    Expr *r = arith_pat_build(s->an->arena, rs->to[i], &m, e->dtype);
    if (rs->defs[i].again) r = arith_simp_recurse(s, r);
    return ir_expr_equal(r, e) ? e : r; /* a rule that only rebuilt e changed nothing */
  }
  return NULL;
}
