/* te_tag.c: te.tag_scope, TVM's TagScope: `with te.tag_scope("elemwise"):` or the decorator
 * `@te.tag_scope(tag="elemwise")` on a def gives every te.compute made inside (and given no
 * tag of its own) that tag. As in TVM, scopes do not nest. The process runs one script at a
 * time, so the scope entered is process state, as the entered Targets are (target.c). */
#include <stdlib.h>
#include <string.h>

#include "frontend/tvm/te_impl.h"

typedef struct TagScope {
  char *tag;
} TagScope;

typedef struct Tagged { /* a function decorated by a tag scope */
  Value *scope, *fn;
} Tagged;

static const TagScope *current;

static void scope_free(void *p) {
  TagScope *s = p;
  if (current == s) current = NULL;
  free(s->tag);
  free(s);
}

static int enter(Interp *I, const TagScope *s) {
  if (current) {
    interp_raise(I, EXC_ValueError, "nested op_tag is not allowed for now (tag '%s' inside '%s')",
                 s->tag, current->tag);
    return -1;
  }
  current = s;
  return 0;
}

static Value *scope_enter(Interp *I, Value *self, Value **a) {
  return enter(I, self->u.obj.p) < 0 ? NULL : val_incref(self);
}

static Value *scope_exit(Interp *I, Value *self, Value **a) {
  if (current == self->u.obj.p) current = NULL;
  return val_none();
}

static void tagged_free(void *p) {
  Tagged *t = p;
  val_decref(t->scope);
  val_decref(t->fn);
  free(t);
}

static Value *tagged_call(Interp *I, Value *self, CallArgs *args) {
  Tagged *t = self->u.obj.p;
  const TagScope *s = t->scope->u.obj.p;
  if (enter(I, s) < 0) return NULL;
  Value *r = interp_call(I, t->fn, args);
  current = NULL;
  return r;
}

static const ObjClass tagged_class = {
    .type = {"function", NULL, VAL_OBJ, NULL},
    .free = tagged_free,
    .call = tagged_call,
};

/* The decorator: the function, run inside the scope at every call. */
static Value *scope_call(Interp *I, Value *self, CallArgs *args) {
  if (args->n != 1 || args->nkw || !val_is_callable(args->v[0]))
    return interp_raise(I, EXC_TypeError, "tag_scope(...) decorates one function");
  Tagged *t = xmalloc(sizeof *t);
  t->scope = val_incref(self);
  t->fn = val_incref(args->v[0]);
  return val_obj_new(&tagged_class, t);
}

static Value *scope_tag(Interp *I, Value *self) {
  return val_cstr(((TagScope *)self->u.obj.p)->tag);
}

static const Property scope_props[] = {{"tag", scope_tag, "the tag it gives"}, {0}};

static const Builtin scope_methods[] = {
    {"__enter__", scope_enter, 0, NOPARAMS,
     "__enter__() -> TagScope: computes made from now on take the tag (`with` calls it)"},
    {"__exit__", scope_exit, 0, PARAMS("ptype", "value", "trace"),
     "__exit__(ptype, value, trace): leave the scope"},
    {0},
};

static const ObjClass scope_class = {
    .type = {"TagScope", NULL, VAL_OBJ, NULL},
    .free = scope_free,
    .call = scope_call,
    .methods = scope_methods,
    .props = scope_props,
};

Value *bi_te_tag_scope(Interp *I, Value *self, Value **a) {
  const char *tag = bi_te_str_arg(I, a[0], "tag_scope", "tag", NULL);
  if (!tag) return NULL;
  TagScope *s = xmalloc(sizeof *s);
  s->tag = xstrdup(tag);
  return val_obj_new(&scope_class, s);
}

const char *bi_te_scope_tag(Interp *I, const char *tag) {
  if (!current) return tag;
  if (tag[0]) {
    interp_raise(I, EXC_ValueError, "nested tag is not allowed for now (tag '%s' inside "
                                    "tag_scope '%s')", tag, current->tag);
    return NULL;
  }
  return current->tag;
}
