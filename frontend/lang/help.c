/* help.c: what help(x) and the REPL's :help show for a value: a builtin's doc line, a
 * module's doc and members, a function's signature, a type's constructor, and an object's
 * properties and methods, read from the tables that define them. */
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/ast.h"
#include "frontend/lang/help.h"
#include "frontend/lang/modules.h"

void val_help_wrapped(StrBuf *b, const char *indent, Value *names) {
  size_t col = 0;
  for (int64_t i = 0; i < VAL_SEQ_N(names); i++) {
    Value *s = VAL_SEQ_ITEM(names, i);
    if (s->kind != VAL_STR) continue;
    size_t w = (size_t)s->u.str.len + 2;
    if (col > 0 && col + w > 78) {
      sb_putc(b, '\n');
      col = 0;
    }
    const char *lead = col == 0 ? indent : "  ";
    sb_printf(b, "%s%s", lead, s->u.str.s);
    col += strlen(lead) + (size_t)s->u.str.len;
  }
  if (col > 0) sb_putc(b, '\n');
}

static void help_prop(StrBuf *b, const Property *p, int width) {
  sb_printf(b, "  %-*s  %s\n", width, p->name, p->doc);
}

/* The properties (the class's, then the object's own), then the methods, of an object class
 * (any table may be NULL). */
static void class_tables(StrBuf *b, const Property *props, const Property *own,
                         const Builtin *methods) {
  const Property *tables[] = {props, own};
  int width = 0;
  for (size_t t = 0; t < 2; t++)
    for (const Property *p = tables[t]; p && p->name; p++)
      if ((int)strlen(p->name) > width) width = (int)strlen(p->name);
  if ((props && props->name) || (own && own->name)) sb_puts(b, "properties:\n");
  for (size_t t = 0; t < 2; t++)
    for (const Property *p = tables[t]; p && p->name; p++) help_prop(b, p, width);
  if (methods && methods->name) sb_puts(b, "methods:\n");
  for (const Builtin *m = methods; m && m->name; m++)
    sb_printf(b, "  %s\n", m->doc ? m->doc : m->name);
}

static void help_module(Interp *I, StrBuf *b, Value *m) {
  const char *name = m->u.mod->name ? m->u.mod->name->u.str.s : "?";
  char *doc = mod_doc(name);
  sb_printf(b, "module %s", name);
  if (doc) sb_printf(b, ": %s", doc);
  sb_putc(b, '\n');
  free(doc);
  if (m->u.mod->pending) sb_printf(b, "  (not supported yet: %s)\n", m->u.mod->pending);
  Value *names = val_dir(I, m);
  if (!names) {
    interp_error_clear(I);
    return;
  }
  sb_puts(b, "members:\n");
  val_help_wrapped(b, "  ", names);
  val_decref(names);
}

static void help_param(Interp *I, StrBuf *b, const Func *fn, int i) {
  const Param *p = &fn->def->params[i];
  const char *name = p->name ? SYM_STR(p->name) : "";
  switch (p->kind) {
  case PARAM_STAR:
    sb_printf(b, "*%s", name);
    return;
  case PARAM_STARSTAR:
    sb_printf(b, "**%s", name);
    return;
  case PARAM_PLAIN:
  case PARAM_KWONLY:
    sb_puts(b, name);
    break;
  }
  Value *d = fn->defaults ? fn->defaults[i] : NULL;
  Value *r = d ? val_repr(I, d) : NULL;
  if (d && !r) interp_error_clear(I);
  if (d) sb_printf(b, "=%s", r ? r->u.str.s : "...");
  val_xdecref(r);
}

static void help_func(Interp *I, StrBuf *b, Value *f) {
  const Func *fn = f->u.func;
  sb_printf(b, "def %s(", SYM_STR(fn->def->name));
  for (int i = 0; i < fn->def->nparams; i++) {
    if (i) sb_puts(b, ", ");
    help_param(I, b, fn, i);
  }
  sb_putc(b, ')');
  const char *where = fn->unit && fn->unit->src ? fn->unit->src->name : NULL;
  if (where) sb_printf(b, ": defined in %s", where);
  sb_putc(b, '\n');
}

/* obj: the object asked about, whose own properties are listed too; NULL for the type. */
static void help_type(StrBuf *b, const TypeObj *ty, Value *obj) {
  if (ty->ctor && ty->ctor->doc)
    sb_printf(b, "%s\n", ty->ctor->doc);
  else if (ty->base && ty->kind == VAL_EXC)
    sb_printf(b, "%s(%s): an exception class\n", ty->name, ty->base->name);
  else
    sb_printf(b, "type %s\n", ty->name);
  if (ty->kind == VAL_OBJ) { /* an object class's TypeObj is its ObjClass's first member */
    const ObjClass *cls = (const ObjClass *)ty;
    const Property *own = obj && cls->props_of ? cls->props_of(obj) : NULL;
    class_tables(b, cls->props, own, cls->methods);
  }
}

const ObjClass *val_help_class(Value *v) {
  if (v->kind == VAL_OBJ) return v->u.obj.cls;
  return v->kind == VAL_TYPE && v->u.type->kind == VAL_OBJ ? (const ObjClass *)v->u.type : NULL;
}

bool val_help(Interp *I, StrBuf *b, Value *v) {
  switch ((ValKind)v->kind) {
  case VAL_BUILTIN:
    if (!v->u.bi.def->doc) return false;
    sb_printf(b, "%s\n", v->u.bi.def->doc);
    return true;
  case VAL_MODULE:
    help_module(I, b, v);
    return true;
  case VAL_TYPE:
    help_type(b, v->u.type, NULL);
    return true;
  case VAL_FUNC:
    help_func(I, b, v);
    return true;
  case VAL_OBJ: /* an object: its class */
    help_type(b, &v->u.obj.cls->type, v);
    return true;
  case VAL_STR:
  case VAL_LIST:
  case VAL_TUPLE:
  case VAL_DICT:
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_RANGE:
  case VAL_SLICE:
  case VAL_EXC:
  case VAL_ENV:
    return false;
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}
