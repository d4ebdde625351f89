/* resolve.c: static name resolution. Two walks per scope: `collect` finds the names a scope
 * binds (so a use before the assignment in a function is a local, as in Python), then
 * `visit` marks every NAME with its scope and slot and descends into nested scopes, which
 * see the enclosing function scopes as closures. Module-level names are globals. */
#include "frontend/lang/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/value.h"

enum { MAX_DEPTH = 400 };

typedef struct Scope {
  struct Scope *parent; /* enclosing function or comprehension scope; NULL at module level */
  FuncDef *def;         /* NULL for the module */
  Sym **names;          /* locals, in slot order */
  int n, cap;
  Sym **globals;        /* names declared `global` here */
  int nglobals, capglobals;
} Scope;

typedef struct Resolver {
  Unit *unit;
  ParseError *err;
  int depth;
  bool failed;
} Resolver;

static bool fail(Resolver *R, SrcLoc loc, const char *msg) {
  if (!R->failed) {
    R->failed = true;
    R->err->loc = loc;
    R->err->incomplete = false;
    snprintf(R->err->msg, sizeof R->err->msg, "%s", msg);
  }
  return false;
}

static int find(Sym **names, int n, const Sym *name) {
  for (int i = 0; i < n; i++)
    if (names[i] == name) return i;
  return -1;
}

static void push_name(Sym ***v, int *n, int *cap, Sym *name) {
  if (find(*v, *n, name) >= 0) return;
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 8;
    *v = xrealloc(*v, sizeof(Sym *) * (size_t)*cap);
  }
  (*v)[(*n)++] = name;
}

static void bind(Scope *S, Sym *name) {
  if (S->def && find(S->globals, S->nglobals, name) < 0) push_name(&S->names, &S->n, &S->cap, name);
}

/* ---- collect: the names a scope binds ---- */

static void collect_target(Scope *S, Node *t) {
  switch (t->kind) {
  case AST_NAME: bind(S, t->u.name.id); return;
  case AST_TUPLE:
  case AST_LIST:
    for (int i = 0; i < t->u.list.n; i++) collect_target(S, t->u.list.items[i]);
    return;
  case AST_STARRED: collect_target(S, t->u.unary.a); return;
  default: return; /* attribute and subscript targets bind no name */
  }
}

static void collect_block(Scope *S, NodeList *b);

static Sym *import_binding(const ImportItem *it, bool from) {
  if (it->asname) return it->asname;
  if (from) return it->name;
  const char *dot = strchr(it->module, '.');
  return sym_intern(it->module, dot ? (size_t)(dot - it->module) : strlen(it->module));
}

static void collect_stmt(Scope *S, Node *s) {
  switch (s->kind) {
  case AST_ASSIGN:
    for (int i = 0; i < s->u.assign.targets.n; i++) collect_target(S, s->u.assign.targets.items[i]);
    return;
  case AST_AUGASSIGN: collect_target(S, s->u.aug.target); return;
  case AST_FOR:
    collect_target(S, s->u.loop.target);
    collect_block(S, &s->u.loop.body);
    collect_block(S, &s->u.loop.orelse);
    return;
  case AST_WHILE:
    collect_block(S, &s->u.loop.body);
    collect_block(S, &s->u.loop.orelse);
    return;
  case AST_IF:
    collect_block(S, &s->u.ifs.body);
    collect_block(S, &s->u.ifs.orelse);
    return;
  case AST_DEF: bind(S, s->u.def->name); return;
  case AST_IMPORT:
  case AST_FROMIMPORT:
    for (int i = 0; i < s->u.imp.n; i++)
      bind(S, import_binding(&s->u.imp.items[i], s->kind == AST_FROMIMPORT));
    return;
  case AST_WITH:
    if (s->u.with.target) collect_target(S, s->u.with.target);
    collect_block(S, &s->u.with.body);
    return;
  case AST_TRY:
    collect_block(S, &s->u.try_.body);
    for (int i = 0; i < s->u.try_.handlers.n; i++) {
      Node *h = s->u.try_.handlers.items[i];
      if (h->u.except.name) bind(S, h->u.except.name);
      collect_block(S, &h->u.except.body);
    }
    collect_block(S, &s->u.try_.orelse);
    collect_block(S, &s->u.try_.finalbody);
    return;
  case AST_DEL:
    for (int i = 0; i < s->u.list.n; i++) collect_target(S, s->u.list.items[i]);
    return;
  case AST_GLOBAL:
    for (int i = 0; i < s->u.names.n; i++)
      push_name(&S->globals, &S->nglobals, &S->capglobals, s->u.names.names[i]);
    return;
  default: return; /* other statements bind nothing */
  }
}

static void collect_block(Scope *S, NodeList *b) {
  for (int i = 0; i < b->n; i++) collect_stmt(S, b->items[i]);
}

/* Globals first: `global x` anywhere in the body wins over an assignment to x. */
static void collect_globals(Scope *S, NodeList *b) {
  for (int i = 0; i < b->n; i++) {
    Node *s = b->items[i];
    switch (s->kind) {
    case AST_GLOBAL:
      for (int j = 0; j < s->u.names.n; j++)
        push_name(&S->globals, &S->nglobals, &S->capglobals, s->u.names.names[j]);
      break;
    case AST_IF: collect_globals(S, &s->u.ifs.body); collect_globals(S, &s->u.ifs.orelse); break;
    case AST_FOR:
    case AST_WHILE:
      collect_globals(S, &s->u.loop.body);
      collect_globals(S, &s->u.loop.orelse);
      break;
    case AST_WITH: collect_globals(S, &s->u.with.body); break;
    case AST_TRY:
      collect_globals(S, &s->u.try_.body);
      for (int j = 0; j < s->u.try_.handlers.n; j++)
        collect_globals(S, &s->u.try_.handlers.items[j]->u.except.body);
      collect_globals(S, &s->u.try_.orelse);
      collect_globals(S, &s->u.try_.finalbody);
      break;
    default: break;
    }
  }
}

static void finish_layout(Resolver *R, Scope *S) {
  FuncDef *d = S->def;
  d->nslots = S->n;
  d->plain_params = true;
  for (int i = 0; i < d->nparams; i++)
    if (d->params[i].kind != PARAM_PLAIN || !d->params[i].name) d->plain_params = false;
  d->slot_names = arena_alloc(&R->unit->arena, sizeof(Sym *) * (size_t)(S->n ? S->n : 1));
  if (S->n) memcpy(d->slot_names, S->names, sizeof(Sym *) * (size_t)S->n);
}

static void scope_free(Scope *S) {
  free(S->names);
  free(S->globals);
}

/* ---- visit: mark names, make literal values, descend ---- */

static bool visit(Resolver *R, Scope *S, Node *n);

static bool visit_list(Resolver *R, Scope *S, NodeList *l) {
  for (int i = 0; i < l->n; i++)
    if (!visit(R, S, l->items[i])) return false;
  return true;
}

static bool visit_opt(Resolver *R, Scope *S, Node *n) { return !n || visit(R, S, n); }

static void mark_name(Scope *S, Node *n) {
  Sym *id = n->u.name.id;
  n->u.name.scope = SCOPE_GLOBAL;
  int depth = 0;
  for (Scope *s = S; s && s->def; s = s->parent, depth++) {
    if (find(s->globals, s->nglobals, id) >= 0) return;
    int slot = find(s->names, s->n, id);
    if (slot >= 0) {
      n->u.name.scope = depth ? SCOPE_FREE : SCOPE_LOCAL;
      n->u.name.depth = depth;
      n->u.name.slot = slot;
      return;
    }
  }
}

static void make_const(Resolver *R, Node *n, Value *v) {
  Unit *u = R->unit;
  if (!u->consts) u->consts = val_list_new(16);
  val_list_append_take(u->consts, v);
  n->konst = v;
}

static bool visit_params(Resolver *R, Scope *S, FuncDef *d) {
  for (int i = 0; i < d->nparams; i++)
    if (!visit_opt(R, S, d->params[i].dflt)) return false;
  return true;
}

static bool visit_function(Resolver *R, Scope *S, FuncDef *d) {
  if (!visit_params(R, S, d)) return false;
  Scope inner = {.parent = S, .def = d};
  collect_globals(&inner, &d->body);
  for (int i = 0; i < d->nparams; i++) {
    Sym *p = d->params[i].name;
    if (!p) continue;
    if (find(inner.globals, inner.nglobals, p) >= 0) {
      char msg[200];
      snprintf(msg, sizeof msg, "name '%s' is parameter and global", SYM_STR(p));
      scope_free(&inner);
      return fail(R, d->params[i].loc, msg);
    }
    push_name(&inner.names, &inner.n, &inner.cap, p);
  }
  collect_block(&inner, &d->body);
  bool ok = d->lambda_body ? visit(R, &inner, d->lambda_body) : visit_list(R, &inner, &d->body);
  finish_layout(R, &inner);
  scope_free(&inner);
  return ok;
}

static bool visit_comp(Resolver *R, Scope *S, Node *n) {
  NodeList *g = &n->u.comp.gens;
  /* The first iterable is evaluated in the enclosing scope, as in Python. */
  if (!visit(R, S, g->items[0]->u.compfor.iter)) return false;
  FuncDef *d = arena_alloc(&R->unit->arena, sizeof(FuncDef));
  d->name = sym_cstr(n->kind == AST_LISTCOMP ? "<listcomp>" : "<dictcomp>");
  n->u.comp.scope = d;
  Scope inner = {.parent = S, .def = d};
  for (int i = 0; i < g->n; i++) collect_target(&inner, g->items[i]->u.compfor.target);
  bool ok = true;
  for (int i = 0; ok && i < g->n; i++) {
    Node *f = g->items[i];
    ok = visit(R, &inner, f->u.compfor.target) && (i == 0 || visit(R, &inner, f->u.compfor.iter)) &&
         visit_list(R, &inner, &f->u.compfor.ifs);
  }
  ok = ok && visit_opt(R, &inner, n->u.comp.key) && visit(R, &inner, n->u.comp.elt);
  finish_layout(R, &inner);
  scope_free(&inner);
  return ok;
}

/* `*x` is allowed only as a call argument, in a list/tuple display and as an assignment
 * target; the parent checks its children before visiting them. */
static bool check_no_star(Resolver *R, Node *n) {
  if (n && n->kind == AST_STARRED) return fail(R, n->loc, "can't use starred expression here");
  return true;
}

/* One switch over every kind: expressions and statements share the walk. */
static bool visit_node(Resolver *R, Scope *S, Node *n) {
  switch (n->kind) {
  case AST_INT: make_const(R, n, val_int(n->u.ival)); return true;
  case AST_FLOAT: make_const(R, n, val_float(n->u.fval)); return true;
  case AST_STR: make_const(R, n, val_str(n->u.str.s, n->u.str.len)); return true;
  case AST_FSTR: return visit_list(R, S, &n->u.list);
  case AST_FMTVAL: return visit(R, S, n->u.fmt.expr) && visit_opt(R, S, n->u.fmt.spec);
  case AST_TRUE:
  case AST_FALSE:
  case AST_NONE:
  case AST_ELLIPSIS: return true;
  case AST_NAME: mark_name(S, n); return true;
  case AST_ATTR: return visit(R, S, n->u.attr.obj);
  case AST_SUBSCRIPT: return visit(R, S, n->u.sub.obj) && visit(R, S, n->u.sub.index);
  case AST_SLICE:
    return visit_opt(R, S, n->u.slice.lo) && visit_opt(R, S, n->u.slice.hi) &&
           visit_opt(R, S, n->u.slice.step);
  case AST_CALL: return visit(R, S, n->u.call.fn) && visit_list(R, S, &n->u.call.args);
  case AST_KEYWORD: return check_no_star(R, n->u.kw.value) && visit(R, S, n->u.kw.value);
  case AST_STARRED: return visit(R, S, n->u.unary.a);
  case AST_BINOP:
  case AST_AND:
  case AST_OR:
    return check_no_star(R, n->u.bin.a) && check_no_star(R, n->u.bin.b) &&
           visit(R, S, n->u.bin.a) && visit(R, S, n->u.bin.b);
  case AST_UNARY: return check_no_star(R, n->u.unary.a) && visit(R, S, n->u.unary.a);
  case AST_COMPARE:
    if (!visit(R, S, n->u.cmp.first)) return false;
    for (int i = 0; i < n->u.cmp.n; i++)
      if (!visit(R, S, n->u.cmp.rest[i])) return false;
    return true;
  case AST_IFEXP:
    return visit(R, S, n->u.ifexp.cond) && visit(R, S, n->u.ifexp.then) &&
           visit(R, S, n->u.ifexp.orelse);
  case AST_LAMBDA: return visit_function(R, S, n->u.def);
  case AST_TUPLE:
  case AST_LIST: return visit_list(R, S, &n->u.list);
  case AST_DICT: return visit_list(R, S, &n->u.dict.keys) && visit_list(R, S, &n->u.dict.values);
  case AST_LISTCOMP:
  case AST_DICTCOMP: return visit_comp(R, S, n);
  case AST_COMPFOR: return fail(R, n->loc, "misplaced comprehension clause");
  case AST_EXPRSTMT: return check_no_star(R, n->u.unary.a) && visit(R, S, n->u.unary.a);
  case AST_ASSIGN:
    return check_no_star(R, n->u.assign.value) && visit_list(R, S, &n->u.assign.targets) &&
           visit(R, S, n->u.assign.value);
  case AST_AUGASSIGN: return visit(R, S, n->u.aug.target) && visit(R, S, n->u.aug.value);
  case AST_IF:
    return visit(R, S, n->u.ifs.cond) && visit_list(R, S, &n->u.ifs.body) &&
           visit_list(R, S, &n->u.ifs.orelse);
  case AST_FOR:
  case AST_WHILE:
    return visit_opt(R, S, n->u.loop.target) && visit(R, S, n->u.loop.iter) &&
           visit_list(R, S, &n->u.loop.body) && visit_list(R, S, &n->u.loop.orelse);
  case AST_BREAK:
  case AST_CONTINUE:
  case AST_PASS:
  case AST_GLOBAL:
  case AST_IMPORT:
  case AST_FROMIMPORT: return true;
  case AST_DEF: return visit_function(R, S, n->u.def);
  case AST_RETURN:
  case AST_RAISE: return visit_opt(R, S, n->u.unary.a);
  case AST_WITH:
    return visit(R, S, n->u.with.ctx) && visit_opt(R, S, n->u.with.target) &&
           visit_list(R, S, &n->u.with.body);
  case AST_ASSERT: return visit(R, S, n->u.bin.a) && visit_opt(R, S, n->u.bin.b);
  case AST_TRY:
    return visit_list(R, S, &n->u.try_.body) && visit_list(R, S, &n->u.try_.handlers) &&
           visit_list(R, S, &n->u.try_.orelse) && visit_list(R, S, &n->u.try_.finalbody);
  case AST_EXCEPT: return visit_opt(R, S, n->u.except.type) && visit_list(R, S, &n->u.except.body);
  case AST_DEL:
  case AST_MODULE: return visit_list(R, S, &n->u.list);
  case AST_KIND_COUNT: break;
  }
  TES_UNREACHABLE();
}

static bool visit(Resolver *R, Scope *S, Node *n) {
  if (R->depth >= MAX_DEPTH) return fail(R, n->loc, "too deeply nested code (more than 400 levels)");
  R->depth++;
  bool ok = visit_node(R, S, n);
  R->depth--;
  return ok;
}

int resolve_unit(Unit *u, ParseError *err) {
  Resolver R = {.unit = u, .err = err};
  Scope module = {0};
  bool ok = visit(&R, &module, u->root);
  scope_free(&module);
  return ok ? 0 : -1;
}

int resolve_slot(const FuncDef *def, const Sym *name) {
  return find(def->slot_names, def->nslots, name);
}
