/* gc.c: the cycle collector. Reference counts free almost everything; what they cannot free is
 * a cycle (a list that contains itself, two closures that call each other through their
 * frames). Every container sits on one list; gc_collect finds the containers that only other
 * containers reach and breaks them up (CPython's algorithm, without generations).
 * An OBJ value that holds values (visit) drops them through its class's clear hook. Known
 * limit: a bound method (VAL_BUILTIN with self) is not a container, so a cycle through one is
 * kept alive. */
#include <stdlib.h>

#include "frontend/lang/state.h"
#include "frontend/lang/value_impl.h"

void gc_track(GcHead *h, Value *owner) {
  TesState *G = tes_state();
  h->owner = owner;
  h->gc_refs = 0;
  h->prev = G->tracked.prev;
  h->next = &G->tracked;
  G->tracked.prev->next = h;
  G->tracked.prev = h;
  G->n_tracked++;
}

void gc_untrack(GcHead *h) {
  if (!h->next) return;
  h->prev->next = h->next;
  h->next->prev = h->prev;
  h->next = h->prev = NULL;
  tes_G->n_tracked--;
}

int64_t gc_tracked_count(void) { return tes_state()->n_tracked; }

/* Calls fn on every value that v holds a reference to. */
static void visit(Value *v, void (*fn)(Value *child, void *arg), void *arg) {
  switch ((ValKind)v->kind) {
  case VAL_TUPLE:
  case VAL_LIST:
    for (int64_t i = 0; i < v->u.list->n; i++)
      if (v->u.list->items[i]) fn(v->u.list->items[i], arg); /* a fresh tuple has holes */
    return;
  case VAL_DICT:
    dict_visit_(v->u.dict, fn, arg);
    return;
  case VAL_FUNC: {
    Func *f = v->u.func;
    if (f->closure) fn(f->closure, arg);
    if (f->globals) fn(f->globals, arg);
    for (int i = 0; f->defaults && i < f->def->nparams; i++)
      if (f->defaults[i]) fn(f->defaults[i], arg);
    return;
  }
  case VAL_ENV:
    if (v->u.env->parent) fn(v->u.env->parent, arg);
    for (int i = 0; i < v->u.env->n; i++)
      if (v->u.env->slots[i]) fn(v->u.env->slots[i], arg);
    return;
  case VAL_MODULE:
    if (v->u.mod->name) fn(v->u.mod->name, arg);
    if (v->u.mod->dict) fn(v->u.mod->dict, arg);
    return;
  case VAL_EXC:
    if (v->u.exc->args) fn(v->u.exc->args, arg);
    if (v->u.exc->msg) fn(v->u.exc->msg, arg);
    for (int i = 0; i < v->u.exc->ntb; i++)
      if (v->u.exc->tb[i].func) fn(v->u.exc->tb[i].func, arg);
    return;
  case VAL_OBJ:
    if (v->u.obj.cls->visit) v->u.obj.cls->visit(v->u.obj.p, fn, arg);
    return;
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_STR:
  case VAL_RANGE:
  case VAL_SLICE:
  case VAL_BUILTIN:
  case VAL_TYPE:
    return; /* never tracked */
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static void drop_all(Value **vs, int64_t n) {
  for (int64_t i = 0; i < n; i++) val_xdecref(vs[i]);
}

/* Drops the references v holds to other containers. v stays a valid (emptied) value until
 * its last reference goes. */
static void clear(Value *v) {
  switch ((ValKind)v->kind) {
  case VAL_TUPLE:
  case VAL_LIST: {
    List *l = v->u.list;
    Value **items = l->items;
    int64_t n = l->n;
    l->items = NULL;
    l->n = l->cap = 0;
    drop_all(items, n);
    free(items);
    return;
  }
  case VAL_DICT:
    dict_clear(v);
    return;
  case VAL_FUNC: {
    Func *f = v->u.func;
    Value *held[2] = {f->closure, f->globals};
    f->closure = f->globals = NULL;
    drop_all(held, 2);
    for (int i = 0; f->defaults && i < f->def->nparams; i++) {
      Value *d = f->defaults[i];
      f->defaults[i] = NULL;
      val_xdecref(d);
    }
    return;
  }
  case VAL_ENV: {
    Env *e = v->u.env;
    Value *parent = e->parent;
    e->parent = NULL;
    val_xdecref(parent);
    for (int i = 0; i < e->n; i++) {
      Value *s = e->slots[i];
      e->slots[i] = NULL;
      val_xdecref(s);
    }
    return;
  }
  case VAL_MODULE: {
    Value *d = v->u.mod->dict;
    v->u.mod->dict = NULL;
    val_xdecref(d);
    return;
  }
  case VAL_EXC: {
    Value *args = v->u.exc->args;
    v->u.exc->args = NULL;
    val_xdecref(args);
    return;
  }
  case VAL_OBJ:
    if (v->u.obj.cls->clear) v->u.obj.cls->clear(v->u.obj.p);
    return;
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_STR:
  case VAL_RANGE:
  case VAL_SLICE:
  case VAL_BUILTIN:
  case VAL_TYPE:
    return;
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- the collection ---- */

#define REACHABLE INTPTR_MIN

typedef struct HeadStack {
  GcHead **v;
  int64_t n, cap;
} HeadStack;

static void push(HeadStack *s, GcHead *h) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 256;
    s->v = xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
  }
  s->v[s->n++] = h;
}

static GcHead *tracked_head(Value *v) {
  GcHead *h = val_gc_head(v);
  return h && h->next ? h : NULL;
}

static void subtract_ref(Value *child, void *arg) {
  GcHead *h = tracked_head(child);
  if (h) h->gc_refs--;
}

static void mark_child(Value *child, void *arg) {
  GcHead *h = tracked_head(child);
  if (h && h->gc_refs != REACHABLE) {
    h->gc_refs = REACHABLE;
    push(arg, h);
  }
}

/* Marks everything reachable from a container that something outside the containers holds. */
static void mark_reachable(GcHead *tracked) {
  HeadStack stack = {0};
  for (GcHead *h = tracked->next; h != tracked; h = h->next)
    if (h->gc_refs > 0) {
      h->gc_refs = REACHABLE;
      push(&stack, h);
    }
  while (stack.n > 0) visit(stack.v[--stack.n]->owner, mark_child, &stack);
  free(stack.v);
}

/* Clears the owners of the heads in dead, and frees dead's array; returns how many. */
static int64_t break_up(HeadStack *dead) {
  /* Hold every dead value first, so that clearing one cannot free another mid-clear. */
  int64_t n = dead->n;
  Value **owners = xmalloc((size_t)(n ? n : 1) * sizeof *owners);
  for (int64_t i = 0; i < n; i++) owners[i] = val_incref(dead->v[i]->owner);
  free(dead->v);
  for (int64_t i = 0; i < n; i++) clear(owners[i]);
  drop_all(owners, n);
  free(owners);
  return n;
}

int64_t gc_collect(void) {
  TesState *G = tes_state();
  GcHead *tracked = &G->tracked;
  for (GcHead *h = tracked->next; h != tracked; h = h->next) h->gc_refs = h->owner->refcnt;
  for (GcHead *h = tracked->next; h != tracked; h = h->next) visit(h->owner, subtract_ref, NULL);
  mark_reachable(tracked);
  HeadStack dead = {0};
  for (GcHead *h = tracked->next; h != tracked; h = h->next)
    if (h->gc_refs != REACHABLE) push(&dead, h);
  int64_t n = break_up(&dead);
  G->collect_at = G->n_tracked + (G->n_tracked > 1000 ? G->n_tracked : 1000);
  return n;
}

/* With no Interp left nothing is reachable: what the collector keeps (a cycle through a bound
 * method) goes too. A container that C code still holds stays, emptied and off the list. */
void gc_release_all(void) {
  GcHead *tracked = &tes_state()->tracked;
  HeadStack all = {0};
  for (GcHead *h = tracked->next; h != tracked; h = h->next) push(&all, h);
  break_up(&all);
  while (tracked->next != tracked) gc_untrack(tracked->next);
}

int64_t gc_maybe_collect(void) {
  return gc_collect_due() ? gc_collect() : 0;
}
