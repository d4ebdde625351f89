/* exec.c: statements. Each returns how control leaves it: normally, by break, continue,
 * return (the value in Frame.retval) or with an exception pending. */
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp_impl.h"
#include "frontend/lang/modules.h"
#include "frontend/lang/resolve.h"
#include "frontend/lang/state.h"

typedef enum { EX_NORMAL, EX_BREAK, EX_CONTINUE, EX_RETURN, EX_ERROR } ExecStatus;

static ExecStatus exec_block(Interp *I, Frame *F, NodeList *b);

/* The statement handlers exec_stmt dispatches to stay out of it, so that exec_stmt stays a jump
 * table with no frame of its own. */
#define EXEC_HELPER static __attribute__((noinline)) ExecStatus

static ExecStatus error_at(Interp *I, Frame *F, Node *n) {
  interp_locate(I, F, n->loc);
  return EX_ERROR;
}

/* ---- binding names ---- */

static Value **local_slot(Frame *F, Sym *name) {
  if (!F->env) return NULL;
  int slot = resolve_slot(F->def, name);
  return slot < 0 ? NULL : &F->env->u.env->slots[slot];
}

/* Binds a name that is not a NAME node (def, import, except-as): locals by layout, else the
 * globals. These are rare enough that a search of the layout costs nothing. */
static void store_sym(Frame *F, Sym *name, Value *v) {
  Value **slot = local_slot(F, name);
  if (!slot) {
    dict_set_sym(F->globals, name, v);
    return;
  }
  Value *old = *slot;
  *slot = val_incref(v);
  val_xdecref(old);
}

static void unbind_sym(Interp *I, Frame *F, Sym *name) {
  Value **slot = local_slot(F, name);
  if (slot) {
    val_xdecref(*slot);
    *slot = NULL;
  } else if (dict_get_sym(F->globals, name)) {
    dict_del(I, F->globals, name);
  }
}

/* The slot of a target that is a local name, the usual one; NULL for any other target. */
static inline Value **local_target(Frame *F, Node *t) {
  return t->kind == AST_NAME && t->u.name.scope == SCOPE_LOCAL
             ? &F->env->u.env->slots[t->u.name.slot]
             : NULL;
}

static int store_name(Frame *F, Node *n, Value *v) {
  if (n->u.name.scope == SCOPE_GLOBAL) {
    dict_set_sym(F->globals, n->u.name.id, v);
    return 0;
  }
  /* assignment makes a name local, never free */
  TES_ASSERT(n->u.name.scope == SCOPE_LOCAL, "store to a non-local name");
  Value **slot = &F->env->u.env->slots[n->u.name.slot];
  Value *old = *slot;
  *slot = val_incref(v);
  val_xdecref(old);
  return 0;
}

/* ---- assignment ---- */

static int unpack(Interp *I, Frame *F, Node *t, Value *v) {
  NodeList *ts = &t->u.list;
  Value *items = val_to_list(I, v);
  if (!items) {
    if (interp_error_matches(I, EXC_TypeError)) {
      interp_error_clear(I);
      interp_raise(I, EXC_TypeError, "cannot unpack non-iterable %s object", val_type_name(v));
    }
    return -1;
  }
  int star = -1;
  for (int i = 0; i < ts->n; i++)
    if (ts->items[i]->kind == AST_STARRED) star = i;
  int64_t n = VAL_SEQ_N(items), want = star < 0 ? ts->n : ts->n - 1;
  int r = 0;
  if (star < 0 && n > want) {
    r = -1, interp_raise(I, EXC_ValueError, "too many values to unpack (expected %lld)", (long long)want);
  } else if (n < want) {
    r = -1, interp_raise(I, EXC_ValueError, star < 0 ? "not enough values to unpack (expected %lld, got %lld)"
                                                     : "not enough values to unpack (expected at least %lld, got %lld)",
                         (long long)want, (long long)n);
  }
  int64_t k = 0;
  for (int i = 0; r == 0 && i < ts->n; i++) {
    if (i != star) {
      r = interp_assign(I, F, ts->items[i], VAL_SEQ_ITEM(items, k++));
      continue;
    }
    Value *rest = val_list_alloc(I, n - want);
    if (!rest) {
      r = -1;
      break;
    }
    for (int64_t j = 0; j < n - want; j++) val_list_append(rest, VAL_SEQ_ITEM(items, k++));
    r = interp_assign(I, F, ts->items[i]->u.unary.a, rest);
    val_decref(rest);
  }
  val_decref(items);
  return r;
}

int interp_assign(Interp *I, Frame *F, Node *t, Value *v) {
  int r;
  switch (t->kind) {
  case AST_NAME: return store_name(F, t, v);
  case AST_ATTR: {
    Value *o = interp_eval(I, F, t->u.attr.obj);
    if (!o) return -1;
    r = val_setattr(I, o, t->u.attr.name, v);
    val_decref(o);
    break;
  }
  case AST_SUBSCRIPT: {
    Value *o = interp_eval(I, F, t->u.sub.obj);
    if (!o) return -1;
    Value *k = interp_eval(I, F, t->u.sub.index);
    if (!k) return val_decref(o), -1;
    r = val_setitem(I, o, k, v);
    val_decref(o);
    val_decref(k);
    break;
  }
  case AST_TUPLE:
  case AST_LIST: r = unpack(I, F, t, v); break;
  default:
    r = -1;
    interp_raise(I, EXC_SyntaxError, "cannot assign to this expression");
    break;
  }
  if (r < 0) interp_locate(I, F, t->loc);
  return r;
}

/* `x += y`: lists grow in place, as in Python; everything else rebinds x to x + y. */
static Value *augmented(Interp *I, int op, Value *cur, Value *rhs) {
  if (cur->kind == VAL_LIST && op == BIN_ADD) {
    Value *items = val_to_list(I, rhs);
    if (!items) return NULL;
    if (val_list_reserve(I, cur, VAL_SEQ_N(items)) < 0) return val_decref(items), NULL;
    for (int64_t i = 0; i < VAL_SEQ_N(items); i++) val_list_append(cur, VAL_SEQ_ITEM(items, i));
    val_decref(items);
    return val_incref(cur);
  }
  return val_binop(I, op, cur, rhs);
}

EXEC_HELPER exec_augassign(Interp *I, Frame *F, Node *n) {
  Node *t = n->u.aug.target;
  Value *obj = NULL, *key = NULL, *cur = NULL, *rhs = NULL, *res = NULL;
  int r = -1;
  if (t->kind == AST_NAME) {
    cur = interp_eval(I, F, t);
  } else if ((obj = interp_eval(I, F, t->kind == AST_ATTR ? t->u.attr.obj : t->u.sub.obj))) {
    if (t->kind == AST_ATTR) cur = val_getattr(I, obj, t->u.attr.name);
    else if ((key = interp_eval(I, F, t->u.sub.index))) cur = val_getitem(I, obj, key);
  }
  if (cur && (rhs = interp_eval(I, F, n->u.aug.value)) && (res = augmented(I, n->u.aug.op, cur, rhs))) {
    if (t->kind == AST_NAME) r = store_name(F, t, res);
    else if (t->kind == AST_ATTR) r = val_setattr(I, obj, t->u.attr.name, res);
    else r = val_setitem(I, obj, key, res);
  }
  val_xdecref(obj), val_xdecref(key), val_xdecref(cur), val_xdecref(rhs), val_xdecref(res);
  return r < 0 ? error_at(I, F, n) : EX_NORMAL;
}

/* ---- definitions and imports ---- */

Value *interp_make_function(Interp *I, Frame *F, FuncDef *def) {
  Value *fn = val_func_new(def, F->unit, F->env, F->globals);
  for (int i = 0; i < def->nparams; i++) {
    if (!def->params[i].dflt) continue;
    Value *d = interp_eval(I, F, def->params[i].dflt);
    if (!d) return val_decref(fn), NULL;
    fn->u.func->defaults[i] = d;
  }
  return fn;
}

/* `import a.b` binds `a` to module a (loading a.b too); `import a.b as c` binds c to a.b. */
EXEC_HELPER exec_import(Interp *I, Frame *F, Node *n) {
  for (int i = 0; i < n->u.imp.n; i++) {
    ImportItem *it = &n->u.imp.items[i];
    Value *m = mod_import(I, I->modules, it->module);
    const char *dot = strchr(it->module, '.');
    Sym *name = it->asname;
    if (!name) {
      size_t toplen = dot ? (size_t)(dot - it->module) : strlen(it->module);
      name = sym_intern(it->module, toplen);
      if (m && dot) {
        val_decref(m);
        m = mod_import(I, I->modules, SYM_STR(name));
      }
    }
    if (!m) return interp_locate(I, F, it->loc), EX_ERROR;
    store_sym(F, name, m);
    val_decref(m);
  }
  return EX_NORMAL;
}

static Value *import_from(Interp *I, Value *m, const char *module, Sym *name) {
  size_t len = strlen(module) + 1 + (size_t)name->u.str.len + 1;
  char *sub = xmalloc(len);
  snprintf(sub, len, "%s.%s", module, SYM_STR(name));
  /* the member first, as Python: a package's function may share a submodule's name */
  Value *v = val_getattr_opt(I, m, name);
  if (!v && !interp_error_pending(I) && mod_known(sub)) v = mod_import(I, I->modules, sub);
  free(sub);
  if (!v && !interp_error_pending(I))
    interp_raise(I, EXC_ImportError, "cannot import name '%s' from '%s'", SYM_STR(name), module);
  return v;
}

EXEC_HELPER exec_fromimport(Interp *I, Frame *F, Node *n) {
  for (int i = 0; i < n->u.imp.n; i++) {
    ImportItem *it = &n->u.imp.items[i];
    Value *m = mod_import(I, I->modules, it->module);
    Value *v = m ? import_from(I, m, it->module, it->name) : NULL;
    val_xdecref(m);
    if (!v) return interp_locate(I, F, it->loc), EX_ERROR;
    store_sym(F, it->asname ? it->asname : it->name, v);
    val_decref(v);
  }
  return EX_NORMAL;
}

/* ---- loops ---- */

EXEC_HELPER exec_while(Interp *I, Frame *F, Node *n) {
  for (;;) {
    Value *c = interp_eval(I, F, n->u.loop.iter);
    if (!c) return EX_ERROR;
    int t = interp_truthy(I, c);
    val_decref(c);
    if (t < 0) return error_at(I, F, n->u.loop.iter);
    if (!t) break;
    ExecStatus st = exec_block(I, F, &n->u.loop.body);
    if (st == EX_BREAK) return EX_NORMAL;
    if (st != EX_NORMAL && st != EX_CONTINUE) return st;
    if (interp_tick(I) < 0) return error_at(I, F, n);
  }
  return exec_block(I, F, &n->u.loop.orelse);
}

EXEC_HELPER exec_for(Interp *I, Frame *F, Node *n) {
  Value *seq = interp_eval(I, F, n->u.loop.iter);
  if (!seq) return EX_ERROR;
  ValIter it;
  int r = val_iter_init(I, &it, seq);
  val_decref(seq);
  if (r < 0) return error_at(I, F, n->u.loop.iter);
  ExecStatus st = EX_NORMAL;
  Value *item, **slot = local_target(F, n->u.loop.target);
  while ((item = val_iter_next(I, &it))) {
    if (slot) {
      Value *old = *slot;
      *slot = item;
      val_xdecref(old);
    } else {
      r = interp_assign(I, F, n->u.loop.target, item);
      val_decref(item);
      if (r < 0) { st = EX_ERROR; break; }
    }
    st = exec_block(I, F, &n->u.loop.body);
    if (st == EX_CONTINUE) st = EX_NORMAL;
    if (st != EX_NORMAL) break;
    if (interp_tick(I) < 0) { st = error_at(I, F, n); break; }
  }
  if (!item && interp_error_pending(I)) st = error_at(I, F, n->u.loop.iter);
  val_iter_done(&it);
  if (st == EX_BREAK) return EX_NORMAL;
  if (st != EX_NORMAL || item) return st;
  return exec_block(I, F, &n->u.loop.orelse);
}

/* ---- exceptions ---- */

static bool uncatchable_by_bare(const TypeObj *t) {
  return exc_is(t, &exc_types[EXC_KeyboardInterrupt]) || exc_is(t, &exc_types[EXC_SystemExit]);
}

/* 1 if exception `exc` matches the class (or tuple of classes) `cls`, 0 if not, -1 on error. */
static int exc_matches(Interp *I, Value *exc, Value *cls) {
  if (cls->kind == VAL_TUPLE) {
    for (int64_t i = 0; i < VAL_SEQ_N(cls); i++) {
      int m = exc_matches(I, exc, VAL_SEQ_ITEM(cls, i));
      if (m) return m;
    }
    return 0;
  }
  if (cls->kind != VAL_TYPE || cls->u.type->kind != VAL_EXC) {
    interp_raise(I, EXC_TypeError, "catching classes that do not inherit from Error is not allowed");
    return -1;
  }
  return exc_is(exc->u.exc->type, cls->u.type);
}

/* The handler of a try statement that takes `exc`, or NULL (with an error pending if working
 * that out failed). */
static Node *find_handler(Interp *I, Frame *F, Node *n, Value *exc) {
  for (int i = 0; i < n->u.try_.handlers.n; i++) {
    Node *h = n->u.try_.handlers.items[i];
    if (!h->u.except.type) {
      if (!uncatchable_by_bare(exc->u.exc->type)) return h;
      continue;
    }
    Value *cls = interp_eval(I, F, h->u.except.type);
    if (!cls) return NULL;
    int m = exc_matches(I, exc, cls);
    val_decref(cls);
    if (m < 0) return interp_locate(I, F, h->u.except.type->loc), NULL;
    if (m) return h;
  }
  return NULL;
}

static ExecStatus run_handler(Interp *I, Frame *F, Node *h, Value *exc) {
  if (h->u.except.name) store_sym(F, h->u.except.name, exc);
  Value *outer = I->handling;
  I->handling = exc;
  ExecStatus st = exec_block(I, F, &h->u.except.body);
  I->handling = outer;
  if (h->u.except.name) unbind_sym(I, F, h->u.except.name);
  return st;
}

static ExecStatus exec_try_except(Interp *I, Frame *F, Node *n) {
  ExecStatus st = exec_block(I, F, &n->u.try_.body);
  if (st == EX_NORMAL) return exec_block(I, F, &n->u.try_.orelse);
  if (st != EX_ERROR || !n->u.try_.handlers.n) return st;
  Value *exc = interp_error_take(I);
  Node *h = find_handler(I, F, n, exc);
  if (h) st = run_handler(I, F, h, exc);
  else if (!interp_error_pending(I)) interp_raise_value(I, exc);
  val_decref(exc);
  return st;
}

EXEC_HELPER exec_try(Interp *I, Frame *F, Node *n) {
  ExecStatus st = exec_try_except(I, F, n);
  if (!n->u.try_.finalbody.n) return st;
  Value *pending = st == EX_ERROR ? interp_error_take(I) : NULL;
  ExecStatus fst = exec_block(I, F, &n->u.try_.finalbody);
  if (fst == EX_NORMAL) {
    if (pending) interp_raise_value(I, pending);
  } else {
    /* break/continue/return/raise in `finally` wins over how the try block ended */
    if (st == EX_RETURN && fst != EX_RETURN) val_xdecref(F->retval), F->retval = NULL;
    st = fst;
  }
  val_xdecref(pending);
  return st;
}

EXEC_HELPER exec_raise(Interp *I, Frame *F, Node *n) {
  if (!n->u.unary.a) {
    if (I->handling) return interp_raise_value(I, I->handling), EX_ERROR;
    interp_raise(I, EXC_RuntimeError, "no active exception to reraise");
    return error_at(I, F, n);
  }
  Value *e = interp_eval(I, F, n->u.unary.a);
  if (!e) return EX_ERROR;
  if (e->kind == VAL_TYPE && e->u.type->kind == VAL_EXC) {
    Value *inst = interp_callv(I, e, 0, NULL);
    val_decref(e);
    if (!(e = inst)) return error_at(I, F, n);
  }
  if (e->kind == VAL_EXC) interp_raise_value(I, e);
  else interp_raise(I, EXC_TypeError, "exceptions must derive from Error, not %s", val_type_name(e));
  val_decref(e);
  return error_at(I, F, n);
}

EXEC_HELPER exec_assert(Interp *I, Frame *F, Node *n) {
  Value *c = interp_eval(I, F, n->u.bin.a);
  if (!c) return EX_ERROR;
  int t = interp_truthy(I, c);
  val_decref(c);
  if (t < 0) return error_at(I, F, n);
  if (t) return EX_NORMAL;
  Value *msg = n->u.bin.b ? interp_eval(I, F, n->u.bin.b) : NULL;
  if (n->u.bin.b && !msg) return EX_ERROR;
  Value *args = msg ? val_tuple_of(1, msg) : val_tuple_new(0);
  Value *exc = val_exc_new(&exc_types[EXC_AssertionError], args);
  interp_raise_value(I, exc);
  val_decref(exc), val_decref(args), val_xdecref(msg);
  return error_at(I, F, n);
}

/* ---- with ---- */

static Value *call_method(Interp *I, Value *obj, const char *name, int n, Value **args) {
  Value *m = val_getattr_opt(I, obj, sym_cstr(name));
  if (!m) {
    if (!interp_error_pending(I))
      interp_raise(I, EXC_TypeError, "'%s' object does not support the context manager protocol",
                   val_type_name(obj));
    return NULL;
  }
  Value *r = interp_callv(I, m, n, args);
  val_decref(m);
  return r;
}

EXEC_HELPER exec_with(Interp *I, Frame *F, Node *n) {
  Value *ctx = interp_eval(I, F, n->u.with.ctx);
  if (!ctx) return EX_ERROR;
  Value *entered = call_method(I, ctx, "__enter__", 0, NULL);
  if (!entered) return val_decref(ctx), error_at(I, F, n);
  ExecStatus st = EX_NORMAL;
  if (n->u.with.target && interp_assign(I, F, n->u.with.target, entered) < 0) st = EX_ERROR;
  val_decref(entered);
  if (st == EX_NORMAL) st = exec_block(I, F, &n->u.with.body);
  Value *exc = st == EX_ERROR ? interp_error_take(I) : NULL;
  Value *args[3] = {val_none(), val_none(), val_none()};
  if (exc) args[0] = val_type(exc->u.exc->type), args[1] = exc;
  Value *r = call_method(I, ctx, "__exit__", 3, args);
  if (exc) val_decref(args[0]);
  int suppress = r ? interp_truthy(I, r) : -1;
  val_xdecref(r);
  val_decref(ctx);
  if (suppress < 0) st = error_at(I, F, n);
  else if (exc && !suppress) interp_raise_value(I, exc);
  else if (exc) st = EX_NORMAL;
  val_xdecref(exc);
  return st;
}

/* ---- del ---- */

static int del_target(Interp *I, Frame *F, Node *t) {
  switch (t->kind) {
  case AST_NAME: {
    Value **slot = t->u.name.scope == SCOPE_LOCAL ? &F->env->u.env->slots[t->u.name.slot] : NULL;
    if (slot && *slot) {
      val_decref(*slot);
      *slot = NULL;
      return 0;
    }
    if (!slot && dict_get_sym(F->globals, t->u.name.id)) return dict_del(I, F->globals, t->u.name.id);
    interp_raise(I, EXC_NameError, "name '%s' is not defined", SYM_STR(t->u.name.id));
    return -1;
  }
  case AST_SUBSCRIPT: {
    Value *o = interp_eval(I, F, t->u.sub.obj);
    Value *k = o ? interp_eval(I, F, t->u.sub.index) : NULL;
    int r = k ? val_delitem(I, o, k) : -1;
    val_xdecref(o), val_xdecref(k);
    return r;
  }
  case AST_TUPLE:
  case AST_LIST:
    for (int i = 0; i < t->u.list.n; i++)
      if (del_target(I, F, t->u.list.items[i]) < 0) return -1;
    return 0;
  default:
    interp_raise(I, EXC_SyntaxError, "cannot delete this expression");
    return -1;
  }
}

/* ---- statements ---- */

static ExecStatus exec_expr(Interp *I, Frame *F, Node *n) {
  Value *v = interp_eval(I, F, n->u.unary.a);
  if (!v) return EX_ERROR;
  if (F->echo && v != val_none()) {
    Value *r = val_repr(I, v);
    val_decref(v);
    if (!r) return error_at(I, F, n);
    fwrite(r->u.str.s, 1, (size_t)r->u.str.len, I->out);
    fputc('\n', I->out);
    v = r;
  }
  val_decref(v);
  return EX_NORMAL;
}

static ExecStatus exec_assign(Interp *I, Frame *F, Node *n) {
  Value *v = interp_eval(I, F, n->u.assign.value);
  if (!v) return EX_ERROR;
  Value **slot = n->u.assign.targets.n == 1 ? local_target(F, n->u.assign.targets.items[0]) : NULL;
  if (slot) { /* x = value: the slot takes our reference */
    Value *old = *slot;
    *slot = v;
    val_xdecref(old);
    return EX_NORMAL;
  }
  for (int i = 0; i < n->u.assign.targets.n; i++) {
    if (interp_assign(I, F, n->u.assign.targets.items[i], v) < 0) {
      val_decref(v);
      return EX_ERROR;
    }
  }
  val_decref(v);
  return EX_NORMAL;
}

static ExecStatus exec_if(Interp *I, Frame *F, Node *n) {
  Value *c = interp_eval(I, F, n->u.ifs.cond);
  if (!c) return EX_ERROR;
  int t = interp_truthy(I, c);
  val_decref(c);
  if (t < 0) return error_at(I, F, n->u.ifs.cond);
  return exec_block(I, F, t ? &n->u.ifs.body : &n->u.ifs.orelse);
}

static ExecStatus exec_return(Interp *I, Frame *F, Node *n) {
  Value *v = n->u.unary.a ? interp_eval(I, F, n->u.unary.a) : val_none();
  if (!v) return EX_ERROR;
  val_xdecref(F->retval);
  F->retval = v;
  return EX_RETURN;
}

EXEC_HELPER exec_def(Interp *I, Frame *F, Node *n) {
  Value *fn = interp_make_function(I, F, n->u.def);
  if (!fn) return EX_ERROR;
  store_sym(F, n->u.def->name, fn);
  val_decref(fn);
  return EX_NORMAL;
}

static ExecStatus exec_stmt(Interp *I, Frame *F, Node *n) {
  if (I->step_limit && interp_tick(I) < 0) return error_at(I, F, n);
  switch (n->kind) {
  case AST_EXPRSTMT: return exec_expr(I, F, n);
  case AST_ASSIGN: return exec_assign(I, F, n);
  case AST_AUGASSIGN: return exec_augassign(I, F, n);
  case AST_IF: return exec_if(I, F, n);
  case AST_FOR: return exec_for(I, F, n);
  case AST_WHILE: return exec_while(I, F, n);
  case AST_BREAK: return EX_BREAK;
  case AST_CONTINUE: return EX_CONTINUE;
  case AST_PASS:
  case AST_GLOBAL: return EX_NORMAL;
  case AST_DEF: return exec_def(I, F, n);
  case AST_RETURN: return exec_return(I, F, n);
  case AST_IMPORT: return exec_import(I, F, n);
  case AST_FROMIMPORT: return exec_fromimport(I, F, n);
  case AST_WITH: return exec_with(I, F, n);
  case AST_ASSERT: return exec_assert(I, F, n);
  case AST_TRY: return exec_try(I, F, n);
  case AST_RAISE: return exec_raise(I, F, n);
  case AST_DEL:
    for (int i = 0; i < n->u.list.n; i++)
      if (del_target(I, F, n->u.list.items[i]) < 0) return error_at(I, F, n->u.list.items[i]);
    return EX_NORMAL;
  case AST_MODULE: return exec_block(I, F, &n->u.list);
  /* expressions and clauses never stand as statements */
  case AST_INT: case AST_FLOAT: case AST_STR: case AST_FSTR: case AST_FMTVAL: case AST_TRUE:
  case AST_FALSE: case AST_NONE: case AST_ELLIPSIS: case AST_NAME: case AST_ATTR: case AST_SUBSCRIPT:
  case AST_SLICE: case AST_CALL: case AST_KEYWORD: case AST_STARRED: case AST_BINOP:
  case AST_UNARY: case AST_AND: case AST_OR: case AST_COMPARE: case AST_IFEXP:
  case AST_LAMBDA: case AST_TUPLE: case AST_LIST: case AST_DICT: case AST_LISTCOMP:
  case AST_DICTCOMP: case AST_COMPFOR: case AST_EXCEPT: case AST_KIND_COUNT: break;
  }
  TES_UNREACHABLE();
}

static ExecStatus exec_block(Interp *I, Frame *F, NodeList *b) {
  if (gc_collect_due()) gc_collect();
  for (int i = 0; i < b->n; i++) {
    ExecStatus st = exec_stmt(I, F, b->items[i]);
    if (st != EX_NORMAL) return st;
  }
  return EX_NORMAL;
}

/* ---- entry points ---- */

Value *interp_run_body(Interp *I, Func *fn, Value *env) {
  FuncDef *d = fn->def;
  Frame F = {.env = env, .def = d, .unit = fn->unit, .globals = fn->globals, .name = d->name};
  if (d->lambda_body) return interp_eval(I, &F, d->lambda_body);
  ExecStatus st = exec_block(I, &F, &d->body);
  if (st == EX_ERROR) {
    val_xdecref(F.retval);
    return NULL;
  }
  return F.retval ? F.retval : val_none();
}

int interp_exec_module(Interp *I, Unit *u, Value *globals, bool echo) {
  Frame F = {.unit = u, .globals = globals, .name = sym_cstr("<module>"), .echo = echo};
  ExecStatus st = exec_block(I, &F, &u->root->u.list);
  val_xdecref(F.retval);
  return st == EX_ERROR ? -1 : 0;
}
