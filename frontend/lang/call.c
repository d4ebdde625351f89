/* call.c: calling values, and matching a call's arguments to parameters with Python's rules
 * and error messages, for TES functions and for builtins' parameter tables. */
#include <string.h>

#include "frontend/lang/interp_impl.h"
#include "ir/strbuf.h"

enum { MAX_BUILTIN_PARAMS = 32 };

/* ---- TES functions ---- */

static const char *fname(const FuncDef *d) { return SYM_STR(d->name); }

static int too_many_positional(Interp *I, const FuncDef *d, int nplain, int ndflt, int given) {
  char takes[64];
  if (ndflt) snprintf(takes, sizeof takes, "from %d to %d positional arguments", nplain - ndflt, nplain);
  else snprintf(takes, sizeof takes, "%d positional argument%s", nplain, nplain == 1 ? "" : "s");
  interp_raise(I, EXC_TypeError, "%s() takes %s but %d %s given", fname(d), takes, given,
               given == 1 ? "was" : "were");
  return -1;
}

/* "missing 2 required positional arguments: 'a' and 'b'" */
static int missing(Interp *I, const FuncDef *d, Value **slots, bool kwonly) {
  StrBuf names = STRBUF_INIT;
  int count = 0, total = 0, slot = 0;
  for (int i = 0; i < d->nparams; i++) {
    const Param *p = &d->params[i];
    if (!p->name) continue;
    bool want = kwonly ? p->kind == PARAM_KWONLY : p->kind == PARAM_PLAIN;
    if (want && !slots[slot]) total++;
    slot++;
  }
  slot = 0;
  for (int i = 0; i < d->nparams; i++) {
    const Param *p = &d->params[i];
    if (!p->name) continue;
    bool want = kwonly ? p->kind == PARAM_KWONLY : p->kind == PARAM_PLAIN;
    if (want && !slots[slot]) {
      count++;
      if (count > 1) sb_puts(&names, total == 2 ? " and " : count == total ? ", and " : ", ");
      sb_printf(&names, "'%s'", SYM_STR(p->name));
    }
    slot++;
  }
  interp_raise(I, EXC_TypeError, "%s() missing %d required %s argument%s: %s", fname(d), total,
               kwonly ? "keyword-only" : "positional", total == 1 ? "" : "s", sb_cstr(&names));
  sb_free(&names);
  return -1;
}

/* Slot of the named parameter a keyword may set, or -1. */
static int keyword_slot(const FuncDef *d, Sym *name) {
  int slot = 0;
  for (int i = 0; i < d->nparams; i++) {
    const Param *p = &d->params[i];
    if (!p->name) continue;
    if (p->name == name && (p->kind == PARAM_PLAIN || p->kind == PARAM_KWONLY)) return slot;
    slot++;
  }
  return -1;
}

static int bind_keywords(Interp *I, const FuncDef *d, CallArgs *ca, Value **slots, Value *kwdict) {
  for (int k = 0; k < ca->nkw; k++) {
    int s = keyword_slot(d, ca->kwnames[k]);
    if (s >= 0 && slots[s]) {
      interp_raise(I, EXC_TypeError, "%s() got multiple values for argument '%s'", fname(d),
                   SYM_STR(ca->kwnames[k]));
      return -1;
    }
    if (s >= 0) {
      slots[s] = val_incref(ca->kwv[k]);
    } else if (kwdict) {
      if (dict_get_sym(kwdict, ca->kwnames[k])) {
        interp_raise(I, EXC_TypeError, "%s() got multiple values for keyword argument '%s'",
                     fname(d), SYM_STR(ca->kwnames[k]));
        return -1;
      }
      dict_set_sym(kwdict, ca->kwnames[k], ca->kwv[k]);
    } else {
      interp_raise(I, EXC_TypeError, "%s() got an unexpected keyword argument '%s'", fname(d),
                   SYM_STR(ca->kwnames[k]));
      return -1;
    }
  }
  return 0;
}

/* Fills a fresh frame's parameter slots from the call's arguments. */
static int bind_params(Interp *I, Func *fn, CallArgs *ca, Value **slots) {
  const FuncDef *d = fn->def;
  if (d->plain_params && ca->n == d->nparams && !ca->nkw) { /* f(a, b) of def f(x, y) */
    for (int i = 0; i < ca->n; i++) slots[i] = val_incref(ca->v[i]);
    return 0;
  }
  int nplain = 0, ndflt = 0, slot = 0, star = -1, dstar = -1;
  int plain_slot[d->nparams + 1];
  for (int i = 0; i < d->nparams; i++) {
    const Param *p = &d->params[i];
    if (!p->name) continue;
    if (p->kind == PARAM_PLAIN) plain_slot[nplain++] = slot, ndflt += p->dflt != NULL;
    if (p->kind == PARAM_STAR) star = slot;
    if (p->kind == PARAM_STARSTAR) dstar = slot;
    slot++;
  }
  if (ca->n > nplain && star < 0) return too_many_positional(I, d, nplain, ndflt, ca->n);
  for (int i = 0; i < ca->n && i < nplain; i++) slots[plain_slot[i]] = val_incref(ca->v[i]);
  if (star >= 0) {
    int extra = ca->n > nplain ? ca->n - nplain : 0;
    slots[star] = val_tuple_new(extra);
    for (int i = 0; i < extra; i++) val_seq_set_take(slots[star], i, val_incref(ca->v[nplain + i]));
  }
  if (dstar >= 0) slots[dstar] = val_dict_new();
  if (bind_keywords(I, d, ca, slots, dstar >= 0 ? slots[dstar] : NULL) < 0) return -1;
  slot = 0;
  bool lacking[2] = {false, false};
  for (int i = 0; i < d->nparams; i++) {
    const Param *p = &d->params[i];
    if (!p->name) continue;
    if (!slots[slot] && fn->defaults[i]) slots[slot] = val_incref(fn->defaults[i]);
    if (!slots[slot]) lacking[p->kind == PARAM_KWONLY] = true;
    slot++;
  }
  if (lacking[0]) return missing(I, d, slots, false);
  if (lacking[1]) return missing(I, d, slots, true);
  return 0;
}

static Value *call_tes(Interp *I, Value *fnv, CallArgs *ca) {
  Func *fn = fnv->u.func;
  if (I->depth >= MAX_CALL_DEPTH)
    return interp_raise(I, EXC_RecursionError, "maximum recursion depth exceeded");
  if (interp_tick(I) < 0) return NULL;
  Value *env = val_env_new(fn->def->nslots, fn->closure);
  Value *r = NULL;
  if (bind_params(I, fn, ca, env->u.env->slots) == 0) {
    I->depth++;
    r = interp_run_body(I, fn, env);
    I->depth--;
  }
  val_decref(env);
  return r;
}

/* ---- builtins ---- */

static bool is_star(const char *p) { return p[0] == '*' && p[1] != '*'; }
static bool is_dstar(const char *p) { return p[0] == '*' && p[1] == '*'; }

static int param_index(const Builtin *b, Sym *name) {
  for (int i = 0; b->params[i]; i++)
    if (!is_star(b->params[i]) && strcmp(b->params[i], SYM_STR(name)) == 0) return i;
  return -1;
}

int interp_bind_builtin(Interp *I, const Builtin *b, CallArgs *ca, Value **slots) {
  int np = 0, star = -1, dstar = -1;
  for (; b->params[np]; np++) {
    if (is_dstar(b->params[np])) dstar = np;
    else if (is_star(b->params[np]) && star < 0) star = np;
  }
  TES_ASSERT(np <= MAX_BUILTIN_PARAMS, "builtin %s has too many parameters", b->name);
  int npos = star >= 0 ? star : dstar >= 0 ? dstar : np;
  bool collect = star >= 0 && b->params[star][1] != 0; /* a bare "*" collects nothing */
  for (int i = 0; i < np; i++) slots[i] = NULL;
  if (ca->n > npos && !collect) {
    interp_raise(I, EXC_TypeError, "%s() takes at most %d argument%s (%d given)", b->name, npos,
                 npos == 1 ? "" : "s", ca->n);
    return -1;
  }
  for (int i = 0; i < ca->n && i < npos; i++) slots[i] = ca->v[i];
  if (collect) {
    int extra = ca->n > npos ? ca->n - npos : 0;
    slots[star] = val_tuple_new(extra);
    for (int i = 0; i < extra; i++) val_seq_set_take(slots[star], i, val_incref(ca->v[npos + i]));
  }
  if (dstar >= 0) slots[dstar] = val_dict_new();
  for (int k = 0; k < ca->nkw; k++) {
    int j = param_index(b, ca->kwnames[k]);
    if (j >= 0 && j != dstar && slots[j]) {
      interp_raise(I, EXC_TypeError, "%s() got multiple values for argument '%s'", b->name,
                   SYM_STR(ca->kwnames[k]));
      return -1;
    }
    if (j >= 0 && j != dstar) slots[j] = ca->kwv[k];
    else if (dstar >= 0) dict_set_sym(slots[dstar], ca->kwnames[k], ca->kwv[k]);
    else {
      interp_raise(I, EXC_TypeError, "%s() got an unexpected keyword argument '%s'", b->name,
                   SYM_STR(ca->kwnames[k]));
      return -1;
    }
  }
  for (int i = 0; i < b->nreq; i++) {
    if (!slots[i]) {
      interp_raise(I, EXC_TypeError, "%s() missing required argument '%s' (pos %d)", b->name,
                   b->params[i], i + 1);
      return -1;
    }
  }
  return 0;
}

static Value *call_builtin(Interp *I, const Builtin *b, Value *self, CallArgs *ca) {
  Value *slots[MAX_BUILTIN_PARAMS];
  Value *r = NULL;
  if (interp_bind_builtin(I, b, ca, slots) == 0) r = b->fn(I, self, slots);
  for (int i = 0; b->params[i]; i++) /* the binder made the *args tuple and **kw dict */
    if (b->params[i][0] == '*' && b->params[i][1]) val_xdecref(slots[i]);
  return r;
}

/* ---- dispatch ---- */

Value *interp_call(Interp *I, Value *fn, CallArgs *ca) {
  switch ((ValKind)fn->kind) {
  case VAL_FUNC: return call_tes(I, fn, ca);
  case VAL_BUILTIN: return call_builtin(I, fn->u.bi.def, fn->u.bi.self, ca);
  case VAL_TYPE:
    if (fn->u.type->ctor) return call_builtin(I, fn->u.type->ctor, fn, ca);
    break;
  case VAL_OBJ:
    if (fn->u.obj.cls->call) return fn->u.obj.cls->call(I, fn, ca);
    break;
  case VAL_NONE: case VAL_BOOL: case VAL_INT: case VAL_FLOAT: case VAL_STR: case VAL_TUPLE:
  case VAL_LIST: case VAL_DICT: case VAL_RANGE: case VAL_SLICE: case VAL_MODULE: case VAL_EXC:
  case VAL_ENV: case VAL_KIND_COUNT: break;
  }
  return interp_raise(I, EXC_TypeError, "'%s' object is not callable", val_type_name(fn));
}

Value *interp_callv(Interp *I, Value *fn, int n, Value **args) {
  CallArgs ca = {n, args, 0, NULL, NULL};
  return interp_call(I, fn, &ca);
}
