/* value.c: value kinds and their lifetime (allocation, the constructors of value.h, freeing,
 * interned names, type objects, exception classes), then truth, hashing, equality, ordering and
 * arithmetic. Indexing, membership, iteration and attributes are in valops.c. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/state.h"
#include "frontend/lang/value_impl.h"

const char *const val_kind_names[VAL_KIND_COUNT] = {
#define VAL_NAME(k, name) name,
    VAL_KINDS(VAL_NAME)
#undef VAL_NAME
};

Value val_none_ = {.refcnt = VAL_IMMORTAL, .kind = VAL_NONE};
Value val_true_ = {.refcnt = VAL_IMMORTAL, .kind = VAL_BOOL, .u.i = 1};
Value val_false_ = {.refcnt = VAL_IMMORTAL, .kind = VAL_BOOL, .u.i = 0};

static Value *ellipsis_repr(Interp *I, Value *self) { return val_cstr("Ellipsis"); }
static const ObjClass ellipsis_class = {
    .type = {"ellipsis", NULL, VAL_OBJ, NULL},
    .repr = ellipsis_repr,
};
Value val_ellipsis_ = {.refcnt = VAL_IMMORTAL, .kind = VAL_OBJ, .u.obj = {&ellipsis_class, NULL}};

/* ---- allocation ---- */

/* Under AddressSanitizer every Value goes back to malloc, so a use after free is caught
 * instead of landing in a recycled cell. */
#if defined(__SANITIZE_ADDRESS__)
#define VAL_FREELIST 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VAL_FREELIST 0
#endif
#endif
#ifndef VAL_FREELIST
#define VAL_FREELIST 1
#endif

enum { FREELIST_MAX = 1 << 16 };

/* An OBJ whose class can be visited needs a GcHead that Value has no room for: it gets one
 * behind the Value, in the same allocation. */
typedef struct ObjBox {
  Value v;
  GcHead gc;
} ObjBox;

static Value *alloc_value(ValKind kind) {
  Value *v;
  TesState *G = tes_state();
  if (VAL_FREELIST && G->free_cells) {
    v = G->free_cells;
    G->free_cells = *(Value **)v;
    G->n_free_cells--;
  } else {
    v = xmalloc(sizeof(Value));
  }
  memset(v, 0, sizeof *v);
  v->refcnt = 1;
  v->kind = (uint8_t)kind;
  return v;
}

static void release_cell(Value *v) {
  TesState *G = tes_G; /* a value being freed was made, so there is a state */
  if (!VAL_FREELIST || G->n_free_cells >= FREELIST_MAX) {
    free(v);
    return;
  }
  *(Value **)v = G->free_cells;
  G->free_cells = v;
  G->n_free_cells++;
}

static bool obj_boxed(const Value *v) { return v->kind == VAL_OBJ && v->u.obj.cls->visit; }

GcHead *val_gc_head(Value *v) {
  switch ((ValKind)v->kind) {
  case VAL_TUPLE:
  case VAL_LIST:
    return &v->u.list->gc;
  case VAL_DICT:
    return &v->u.dict->gc;
  case VAL_FUNC:
    return &v->u.func->gc;
  case VAL_ENV:
    return &v->u.env->gc;
  case VAL_MODULE:
    return &v->u.mod->gc;
  case VAL_EXC:
    return &v->u.exc->gc;
  case VAL_OBJ:
    return obj_boxed(v) ? &((ObjBox *)v)->gc : NULL;
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_STR:
  case VAL_RANGE:
  case VAL_SLICE:
  case VAL_BUILTIN:
  case VAL_TYPE:
    return NULL;
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- freeing ---- */

static void free_list_payload(List *l) {
  gc_untrack(&l->gc);
  for (int64_t i = 0; i < l->n; i++) val_xdecref(l->items[i]);
  free(l->items);
  free(l);
}

static void free_func(Func *f) {
  gc_untrack(&f->gc);
  val_xdecref(f->closure);
  val_xdecref(f->globals);
  if (f->defaults)
    for (int i = 0; i < f->def->nparams; i++) val_xdecref(f->defaults[i]);
  free(f->defaults);
  if (f->unit) unit_decref(f->unit);
  free(f);
}

static void free_env(Env *e) {
  gc_untrack(&e->gc);
  val_xdecref(e->parent);
  for (int i = 0; i < e->n; i++) val_xdecref(e->slots[i]);
  TesState *G = tes_G;
  if (!VAL_FREELIST || e->n >= ENV_POOL_SLOTS || G->env_pool_n[e->n] >= ENV_POOL_MAX) {
    free(e);
    return;
  }
  e->parent = (Value *)G->env_pool[e->n]; /* the pool's link */
  G->env_pool[e->n] = e;
  G->env_pool_n[e->n]++;
}

static void free_exc(Exc *e) {
  gc_untrack(&e->gc);
  val_xdecref(e->args);
  val_xdecref(e->msg);
  /* e->loc holds no reference of its own: it is tb[0]'s (interp.c's convention) */
  for (int i = 0; i < e->ntb; i++) {
    if (e->tb[i].loc.src) src_decref(e->tb[i].loc.src);
    val_xdecref(e->tb[i].func);
  }
  free(e->tb);
  free(e);
}

static void free_module(Module *m) {
  gc_untrack(&m->gc);
  val_xdecref(m->name);
  val_xdecref(m->dict);
  free(m);
}

static void free_obj(Value *v) {
  const ObjClass *cls = v->u.obj.cls;
  if (cls->visit) gc_untrack(&((ObjBox *)v)->gc);
  if (cls->free) cls->free(v->u.obj.p);
}

/* Frees one value whose count reached zero; false if the cell must not be recycled. */
static bool free_one(Value *v) {
  switch ((ValKind)v->kind) {
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_TYPE:
    return false; /* immortal */
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_RANGE:
    return true;
  case VAL_STR:
    if (v->interned) return false;
    free(v->u.str.s);
    return true;
  case VAL_TUPLE:
  case VAL_LIST:
    free_list_payload(v->u.list);
    return true;
  case VAL_DICT:
    dict_free_(v->u.dict);
    return true;
  case VAL_SLICE:
    val_xdecref(v->u.slice.start);
    val_xdecref(v->u.slice.stop);
    val_xdecref(v->u.slice.step);
    return true;
  case VAL_FUNC:
    free_func(v->u.func);
    return true;
  case VAL_ENV:
    free_env(v->u.env);
    return true;
  case VAL_BUILTIN:
    val_xdecref(v->u.bi.self);
    return true;
  case VAL_MODULE:
    free_module(v->u.mod);
    return true;
  case VAL_EXC:
    free_exc(v->u.exc);
    return true;
  case VAL_OBJ:
    free_obj(v);
    if (obj_boxed(v)) {
      free(v);
      return false;
    }
    return true;
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* Freeing a long chain ([[[...]]] a million deep) must not recurse a million C frames: past a
 * small depth, values are queued and the outermost val_free_ drains the queue. */
enum { FREE_DEPTH_MAX = 64 };

static void free_now(TesState *G, Value *v) {
  G->free_depth++;
  if (free_one(v)) release_cell(v);
  G->free_depth--;
}

void val_free_(Value *v) {
  TesState *G = tes_G;
  if (v->kind == VAL_INT || v->kind == VAL_FLOAT || v->kind == VAL_RANGE) {
    release_cell(v); /* holds nothing: no depth to count, no queue to drain */
    return;
  }
  if (G->free_depth >= FREE_DEPTH_MAX) {
    if (G->free_queue_n == G->free_queue_cap) {
      G->free_queue_cap = G->free_queue_cap ? 2 * G->free_queue_cap : 256;
      G->free_queue = xrealloc(G->free_queue, (size_t)G->free_queue_cap * sizeof *G->free_queue);
    }
    G->free_queue[G->free_queue_n++] = v;
    return;
  }
  free_now(G, v);
  if (G->free_depth == 0)
    while (G->free_queue_n > 0) free_now(G, G->free_queue[--G->free_queue_n]);
}

/* ---- numbers ---- */

Value val_small_ints_[VAL_SMALL_INT_MAX - VAL_SMALL_INT_MIN + 1];

Value *val_int_make(int64_t i) {
  if (val_int_small(i)) {
    Value *v = &val_small_ints_[i - VAL_SMALL_INT_MIN];
    if (!v->refcnt) *v = (Value){.refcnt = VAL_IMMORTAL, .kind = VAL_INT, .u.i = i};
    return v;
  }
  Value *v = alloc_value(VAL_INT);
  v->u.i = i;
  return v;
}

Value *val_float(double f) {
  Value *v = alloc_value(VAL_FLOAT);
  v->u.f = f;
  return v;
}

/* ---- strings and interned names ---- */

static bool bytes_ascii(const char *s, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    if (w & 0x8080808080808080ull) return false;
  }
  for (; i < n; i++)
    if ((unsigned char)s[i] & 0x80) return false;
  return true;
}

Value *val_str_take(char *s, size_t len) {
  if (len <= 1 && (len == 0 || !((unsigned char)s[0] & 0x80))) {
    Value *v = sym_intern(s, len);
    free(s);
    return v;
  }
  Value *v = alloc_value(VAL_STR);
  v->u.str.s = s;
  v->u.str.len = (int64_t)len;
  v->ascii = bytes_ascii(s, len);
  return v;
}

Value *val_str(const char *s, size_t len) {
  if (len <= 1 && (len == 0 || !((unsigned char)s[0] & 0x80))) return sym_intern(s, len);
  return val_str_take(xstrndup(s, len), len);
}

Value *val_cstr(const char *s) { return val_str(s, strlen(s)); }

Value *val_str_sb(StrBuf *b) {
  size_t n;
  char *s = sb_take(b, &n);
  return val_str_take(s, n);
}

Value *val_str_char(const char *s, int64_t nbytes) { return val_str(s, (size_t)nbytes); }

/* A 64-bit multiply-mix hash (wyhash-like): fast on short names, well spread for dict keys. */
static uint64_t mix64(uint64_t a, uint64_t b) {
  unsigned __int128 r = (unsigned __int128)a * b;
  return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t val_hash_bytes(const char *s, size_t n) {
  const uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull;
  uint64_t h = mix64(n ^ k0, k1), w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, s + i, 8);
    h = mix64(h ^ w, k1 ^ 0x8ebc6af09c88c6e3ull);
  }
  w = 0;
  memcpy(&w, s + i, n - i);
  h = mix64(h ^ w ^ k0, k1);
  return h ? h : 1;
}

static void intern_grow(ValueTable *interned) {
  uint64_t size = interned->slots ? 2 * (interned->mask + 1) : 1024;
  Value **slots = xcalloc(size, sizeof *slots);
  for (uint64_t i = 0; interned->slots && i <= interned->mask; i++) {
    Value *s = interned->slots[i];
    if (!s) continue;
    uint64_t j = s->u.str.hash & (size - 1);
    while (slots[j]) j = (j + 1) & (size - 1);
    slots[j] = s;
  }
  free(interned->slots);
  interned->slots = slots;
  interned->mask = size - 1;
}

Sym *sym_intern(const char *s, size_t len) {
  ValueTable *interned = &tes_state()->interned;
  if (!interned->slots || 2 * (interned->n + 1) > (int64_t)interned->mask) intern_grow(interned);
  uint64_t h = val_hash_bytes(s, len), j = h & interned->mask;
  for (Value *e; (e = interned->slots[j]); j = (j + 1) & interned->mask)
    if (e->u.str.hash == h && e->u.str.len == (int64_t)len && !memcmp(e->u.str.s, s, len)) return e;
  Value *v = xcalloc(1, sizeof *v);
  *v =
      (Value){.refcnt = VAL_IMMORTAL, .kind = VAL_STR, .interned = 1, .ascii = bytes_ascii(s, len)};
  v->u.str.s = xstrndup(s, len);
  v->u.str.len = (int64_t)len;
  v->u.str.hash = h;
  interned->slots[j] = v;
  interned->n++;
  return v;
}

Sym *sym_cstr(const char *s) { return sym_intern(s, strlen(s)); }

/* ---- UTF-8 ---- */

int64_t val_str_cplen(Value *s) {
  if (s->ascii) return s->u.str.len;
  int64_t n = 0;
  for (int64_t i = 0; i < s->u.str.len; i++) n += !val_utf8_cont((unsigned char)s->u.str.s[i]);
  return n;
}

int64_t val_str_offset(Value *s, int64_t cp) {
  if (s->ascii) return cp;
  int64_t i = 0, len = s->u.str.len;
  for (; i < len; i++)
    if (!val_utf8_cont((unsigned char)s->u.str.s[i]) && cp-- == 0) return i;
  return len;
}

int64_t val_str_cpindex(Value *s, int64_t offset) {
  if (s->ascii) return offset;
  int64_t n = 0;
  for (int64_t i = 0; i < offset; i++) n += !val_utf8_cont((unsigned char)s->u.str.s[i]);
  return n;
}

int val_utf8_decode(const char *s, int64_t len, int64_t *pos) {
  const unsigned char *p = (const unsigned char *)s;
  int64_t i = *pos;
  uint32_t c = p[i++];
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (extra) c &= 0x3F >> extra;
  for (; extra > 0 && i < len && val_utf8_cont(p[i]); extra--) c = (c << 6) | (p[i++] & 0x3F);
  *pos = i;
  return (int)c;
}

void val_utf8_put(StrBuf *b, uint32_t cp) {
  char buf[4];
  int n;
  if (cp < 0x80)
    buf[0] = (char)cp, n = 1;
  else if (cp < 0x800)
    buf[0] = (char)(0xC0 | cp >> 6), buf[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
  else if (cp < 0x10000)
    buf[0] = (char)(0xE0 | cp >> 12), buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
    buf[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
  else
    buf[0] = (char)(0xF0 | cp >> 18), buf[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
    buf[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), buf[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
  sb_putn(b, buf, (size_t)n);
}

/* ---- containers ---- */

static Value *seq_new(ValKind kind, int64_t n, int64_t cap) {
  List *l = xcalloc(1, sizeof *l);
  l->n = n;
  l->cap = cap > n ? cap : n;
  l->items = l->cap ? xcalloc((size_t)l->cap, sizeof *l->items) : NULL;
  Value *v = alloc_value(kind);
  v->u.list = l;
  gc_track(&l->gc, v);
  return v;
}

Value *val_list_new(int64_t cap) { return seq_new(VAL_LIST, 0, cap); }
Value *val_tuple_new(int64_t n) { return seq_new(VAL_TUPLE, n, n); }

static Value *seq_from(ValKind kind, Value **items, int64_t n) {
  Value *v = seq_new(kind, n, n);
  for (int64_t i = 0; i < n; i++) v->u.list->items[i] = val_incref(items[i]);
  return v;
}

Value *val_list_of(Value **items, int64_t n) { return seq_from(VAL_LIST, items, n); }
Value *val_tuple_from(Value **items, int64_t n) { return seq_from(VAL_TUPLE, items, n); }

Value *val_tuple_of(int n, ...) {
  Value *t = val_tuple_new(n);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) t->u.list->items[i] = val_incref(va_arg(ap, Value *));
  va_end(ap);
  return t;
}

void val_seq_set_take(Value *seq, int64_t i, Value *item) {
  Value *old = seq->u.list->items[i];
  seq->u.list->items[i] = item;
  val_xdecref(old);
}

void val_list_append_take(Value *list, Value *item) {
  List *l = list->u.list;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4;
    l->items = xrealloc(l->items, (size_t)l->cap * sizeof *l->items);
  }
  l->items[l->n++] = item;
}

void val_list_append(Value *list, Value *item) { val_list_append_take(list, val_incref(item)); }

Value *val_dict_new(void) {
  Dict *d = dict_alloc_();
  Value *v = alloc_value(VAL_DICT);
  v->u.dict = d;
  gc_track(&d->gc, v);
  return v;
}

Value *val_range(int64_t start, int64_t stop, int64_t step) {
  Value *v = alloc_value(VAL_RANGE);
  v->u.range.start = start;
  v->u.range.stop = stop;
  v->u.range.step = step;
  return v;
}

Value *val_slice_new(Value *start, Value *stop, Value *step) {
  Value *v = alloc_value(VAL_SLICE);
  v->u.slice.start = val_incref(start ? start : VAL_NONE_P);
  v->u.slice.stop = val_incref(stop ? stop : VAL_NONE_P);
  v->u.slice.step = val_incref(step ? step : VAL_NONE_P);
  return v;
}

Value *val_func_new(FuncDef *def, Unit *unit, Value *closure, Value *globals) {
  Func *f = xcalloc(1, sizeof *f);
  f->def = def;
  f->unit = unit;
  if (unit) unit_incref(unit);
  f->closure = closure ? val_incref(closure) : NULL;
  val_env_capture(closure);
  f->globals = globals ? val_incref(globals) : NULL;
  f->defaults = def->nparams ? xcalloc((size_t)def->nparams, sizeof *f->defaults) : NULL;
  Value *v = alloc_value(VAL_FUNC);
  v->u.func = f;
  gc_track(&f->gc, v);
  return v;
}

Value *val_env_new(int n, Value *parent) {
  TesState *G = tes_state();
  Env *e;
  if (VAL_FREELIST && n < ENV_POOL_SLOTS && G->env_pool[n]) {
    e = G->env_pool[n];
    G->env_pool[n] = (Env *)e->parent;
    G->env_pool_n[n]--;
    memset(e, 0, sizeof *e + (size_t)n * sizeof *e->inline_);
  } else {
    e = xcalloc(1, sizeof *e + (size_t)n * sizeof *e->inline_);
  }
  e->parent = parent ? val_incref(parent) : NULL;
  e->n = n;
  e->slots = e->inline_;
  Value *v = alloc_value(VAL_ENV);
  v->u.env = e; /* untracked until captured (val_env_capture) */
  return v;
}

void val_env_capture(Value *env) {
  for (; env && !env->u.env->gc.next; env = env->u.env->parent) gc_track(&env->u.env->gc, env);
}

Value *val_builtin(const Builtin *def, Value *self) {
  Value *v = alloc_value(VAL_BUILTIN);
  v->u.bi.def = def;
  v->u.bi.self = self ? val_incref(self) : NULL;
  return v;
}

Value *val_module_new(const char *name) {
  Module *m = xcalloc(1, sizeof *m);
  m->name = val_cstr(name);
  m->dict = val_dict_new();
  Value *v = alloc_value(VAL_MODULE);
  v->u.mod = m;
  gc_track(&m->gc, v);
  return v;
}

Value *val_obj_new(const ObjClass *cls, void *p) {
  Value *v;
  if (cls->visit) {
    ObjBox *box = xcalloc(1, sizeof *box);
    v = &box->v;
    v->refcnt = 1;
    v->kind = VAL_OBJ;
  } else {
    v = alloc_value(VAL_OBJ);
  }
  v->u.obj.cls = cls;
  v->u.obj.p = p;
  if (cls->visit) gc_track(&((ObjBox *)v)->gc, v);
  return v;
}

void *val_obj_of(const Value *v, const ObjClass *cls) {
  return v && v->kind == VAL_OBJ && v->u.obj.cls == cls ? v->u.obj.p : NULL;
}

bool sym_is(const Sym *name, const char *s) { return strcmp(SYM_STR(name), s) == 0; }

const char *sym_text(const Sym *name) { return SYM_STR(name); }

/* ---- type objects: one immortal value per TypeObj, so `type(x) is int` holds ---- */

static uint64_t ptr_hash(const void *p) {
  return mix64((uint64_t)(uintptr_t)p, 0x9e3779b97f4a7c15ull);
}

static void types_grow(ValueTable *types) {
  uint64_t size = types->slots ? 2 * (types->mask + 1) : 64;
  Value **slots = xcalloc(size, sizeof *slots);
  for (uint64_t i = 0; types->slots && i <= types->mask; i++) {
    Value *t = types->slots[i];
    if (!t) continue;
    uint64_t j = ptr_hash(t->u.type) & (size - 1);
    while (slots[j]) j = (j + 1) & (size - 1);
    slots[j] = t;
  }
  free(types->slots);
  types->slots = slots;
  types->mask = size - 1;
}

Value *val_type(const TypeObj *t) {
  ValueTable *types = &tes_state()->types;
  if (!types->slots || 2 * (types->n + 1) > (int64_t)types->mask) types_grow(types);
  uint64_t j = ptr_hash(t) & types->mask;
  for (Value *e; (e = types->slots[j]); j = (j + 1) & types->mask)
    if (e->u.type == t) return e;
  Value *v = xcalloc(1, sizeof *v);
  *v = (Value){.refcnt = VAL_IMMORTAL, .kind = VAL_TYPE};
  v->u.type = t;
  types->slots[j] = v;
  types->n++;
  return v;
}

const TypeObj *val_type_of(Value *v) {
  if (v->kind == VAL_EXC) return v->u.exc->type;
  if (v->kind == VAL_OBJ) return &v->u.obj.cls->type;
  return &val_types[v->kind];
}

const char *val_type_name(Value *v) {
  if (v->kind == VAL_EXC) return v->u.exc->type->name;
  if (v->kind == VAL_OBJ) return v->u.obj.cls->type.name;
  return val_kind_names[v->kind];
}

/* ---- exceptions ---- */

bool exc_is(const TypeObj *t, const TypeObj *cls) {
  for (; t; t = t->base)
    if (t == cls) return true;
  return false;
}

static int exit_code_of(Value *args) {
  if (VAL_SEQ_N(args) == 0) return 0;
  Value *a = VAL_SEQ_ITEM(args, 0);
  if (a->kind == VAL_NONE) return 0;
  return a->kind == VAL_INT || a->kind == VAL_BOOL ? (int)a->u.i : 1;
}

/* str(e) is the str of a single argument (KeyError: its repr, so str(KeyError('a')) is "'a'"),
 * the repr of the tuple for several, "" for none. I may be NULL (val_exc_new). */
static Value *exc_build(Interp *I, const TypeObj *type, Value *args) {
  int64_t n = args ? VAL_SEQ_N(args) : 0;
  Value *msg;
  if (n == 0)
    msg = val_str("", 0);
  else if (n > 1)
    msg = val_repr(I, args);
  else if (exc_is(type, &exc_types[EXC_KeyError]))
    msg = val_repr(I, VAL_SEQ_ITEM(args, 0));
  else
    msg = val_to_str(I, VAL_SEQ_ITEM(args, 0));
  if (!msg) return NULL;
  Exc *e = xcalloc(1, sizeof *e);
  e->type = type;
  e->args = args ? val_incref(args) : val_tuple_new(0);
  e->msg = msg;
  e->code = exit_code_of(e->args);
  Value *v = alloc_value(VAL_EXC);
  v->u.exc = e;
  gc_track(&e->gc, v);
  return v;
}

Value *val_exc_new(const TypeObj *type, Value *args) { return exc_build(NULL, type, args); }

Value *val_exc_newf(ExcKind kind, const char *fmt, ...) {
  StrBuf b = STRBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&b, fmt, ap);
  va_end(ap);
  Value *msg = val_str_sb(&b);
  Value *args = val_tuple_of(1, msg);
  Exc *e = xcalloc(1, sizeof *e);
  e->type = &exc_types[kind];
  e->args = args;
  e->msg = msg;
  e->code = kind == EXC_SystemExit ? 1 : 0;
  Value *v = alloc_value(VAL_EXC);
  v->u.exc = e;
  gc_track(&e->gc, v);
  return v;
}

Value *val_key_error(Interp *I, Value *key) {
  Value *args = val_tuple_of(1, key);
  Value *e = exc_build(I, &exc_types[EXC_KeyError], args);
  val_decref(args);
  if (!e) return NULL;
  interp_raise_value(I, e);
  val_decref(e);
  return NULL;
}

/* One constructor per class: a Builtin has no closure to tell them apart. */
#define EXC_CTOR_FN(k, base)                                                                       \
  static Value *exc_ctor_##k(Interp *I, Value *self, Value **a) {                                  \
    return exc_build(I, &exc_types[EXC_##k], a[0]);                                                \
  }
EXC_KINDS(EXC_CTOR_FN)
#undef EXC_CTOR_FN

static const Builtin exc_ctors[EXC_COUNT] = {
#define EXC_CTOR_ROW(k, base)                                                                      \
  {#k, exc_ctor_##k, 0, PARAMS("*args"), #k "(*args) -> " #k ": a new exception instance"},
    EXC_KINDS(EXC_CTOR_ROW)
#undef EXC_CTOR_ROW
};

const TypeObj exc_types[EXC_COUNT] = {
#define EXC_TYPE_ROW(k, base)                                                                      \
  {#k, EXC_##k == EXC_##base ? NULL : &exc_types[EXC_##base], VAL_EXC, &exc_ctors[EXC_##k]},
    EXC_KINDS(EXC_TYPE_ROW)
#undef EXC_TYPE_ROW
};

/* ---- recursion guard over user-shaped data ---- */

enum { VAL_MAX_DEPTH = 1000 };

int val_enter(Interp *I, const char *what) {
  TesState *G = tes_state();
  if (G->val_depth >= VAL_MAX_DEPTH) {
    if (I) interp_raise(I, EXC_RecursionError, "maximum recursion depth exceeded%s", what);
    return -1;
  }
  G->val_depth++;
  return 0;
}

void val_leave(void) { tes_G->val_depth--; }

/* ---- truth, numbers ---- */

bool val_is_int(Value *v) { return v->kind == VAL_INT || v->kind == VAL_BOOL; }
bool val_is_number(Value *v) { return val_is_int(v) || v->kind == VAL_FLOAT; }

Value *val_number_of(Interp *I, Value *v, NumWant want) {
  if (val_is_number(v)) return val_incref(v);
  if (v->kind != VAL_OBJ || !v->u.obj.cls->number) return NULL;
  return v->u.obj.cls->number(I, v, want);
}

/* An object's number (val_number_of) when ok() takes it, else NULL. */
static Value *obj_number(Interp *I, Value *v, NumWant want, bool (*ok)(Value *)) {
  Value *n = v->kind == VAL_OBJ ? val_number_of(I, v, want) : NULL;
  if (n && !ok(n)) val_decref(n), n = NULL;
  return n;
}

int val_as_int(Interp *I, Value *v, int64_t *out) {
  if (val_is_int(v)) return *out = v->u.i, 0;
  Value *n = obj_number(I, v, NUM_INDEX, val_is_int);
  if (n) return *out = n->u.i, val_decref(n), 0;
  if (!interp_error_pending(I))
    interp_raise(I, EXC_TypeError, "'%s' object cannot be interpreted as an integer",
                 val_type_name(v));
  return -1;
}

int val_as_float(Interp *I, Value *v, double *out) {
  Value *n = val_is_number(v) ? val_incref(v) : obj_number(I, v, NUM_REAL, val_is_number);
  if (!n) {
    if (!interp_error_pending(I))
      interp_raise(I, EXC_TypeError, "must be real number, not %s", val_type_name(v));
    return -1;
  }
  *out = n->kind == VAL_FLOAT ? n->u.f : (double)n->u.i;
  val_decref(n);
  return 0;
}

int val_truthy(Interp *I, Value *v) {
  switch ((ValKind)v->kind) {
  case VAL_NONE:
    return 0;
  case VAL_BOOL:
  case VAL_INT:
    return v->u.i != 0;
  case VAL_FLOAT:
    return v->u.f != 0.0;
  case VAL_STR:
    return v->u.str.len != 0;
  case VAL_TUPLE:
  case VAL_LIST:
    return v->u.list->n != 0;
  case VAL_DICT:
    return v->u.dict->n != 0;
  case VAL_RANGE:
    return val_len(I, v) != 0;
  case VAL_OBJ:
    if (v->u.obj.cls->truthy) return v->u.obj.cls->truthy(I, v);
    if (v->u.obj.cls->len) {
      int64_t n = v->u.obj.cls->len(I, v);
      return n < 0 ? -1 : n != 0;
    }
    return 1;
  case VAL_SLICE:
  case VAL_FUNC:
  case VAL_BUILTIN:
  case VAL_MODULE:
  case VAL_TYPE:
  case VAL_EXC:
  case VAL_ENV:
    return 1;
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* Exact three-way comparison of an int with a float: -1, 0, 1, or 2 when f is NaN. Converting
 * the int to double would round above 2^53 and call unequal numbers equal. */
static int cmp_int_float(int64_t i, double f) {
  if (isnan(f)) return 2;
  if (f >= 9223372036854775808.0) return -1;
  if (f < -9223372036854775808.0) return 1;
  double fl = floor(f);
  int64_t fi = (int64_t)fl;
  if (i != fi) return i < fi ? -1 : 1;
  return f > fl ? -1 : 0;
}

static int cmp_numbers(Value *a, Value *b) {
  bool fa = a->kind == VAL_FLOAT, fb = b->kind == VAL_FLOAT;
  if (!fa && !fb) return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
  if (fa && fb) {
    if (isnan(a->u.f) || isnan(b->u.f)) return 2;
    return a->u.f < b->u.f ? -1 : a->u.f > b->u.f;
  }
  if (fb) return cmp_int_float(a->u.i, b->u.f);
  int c = cmp_int_float(b->u.i, a->u.f);
  return c == 2 ? 2 : -c;
}

/* ---- hashing ---- */

static uint64_t hash_int(int64_t i) { return (uint64_t)i; }

static uint64_t hash_float(double f) {
  if (f == floor(f) && f >= -9223372036854775808.0 && f < 9223372036854775808.0)
    return hash_int((int64_t)f);
  uint64_t bits;
  memcpy(&bits, &f, sizeof bits);
  return mix64(bits, 0x9e3779b97f4a7c15ull);
}

static uint64_t hash_combine(uint64_t acc, uint64_t h) {
  acc += h * 0xc2b2ae3d27d4eb4full;
  acc = (acc << 31) | (acc >> 33);
  return acc * 0x9e3779b185ebca87ull;
}

static int hash_tuple(Interp *I, Value *t, uint64_t *out) {
  if (val_enter(I, " while hashing") < 0) return -1;
  uint64_t acc = 0x27d4eb2f165667c5ull, h;
  for (int64_t i = 0; i < VAL_SEQ_N(t); i++) {
    if (val_hash(I, VAL_SEQ_ITEM(t, i), &h) < 0) {
      val_leave();
      return -1;
    }
    acc = hash_combine(acc, h);
  }
  val_leave();
  *out = hash_combine(acc, (uint64_t)VAL_SEQ_N(t));
  return 0;
}

/* Equal ranges (range(0) == range(3, 3)) must hash alike: hash what == compares. */
static uint64_t hash_range(Interp *I, Value *r) {
  int64_t n = val_len(I, r);
  uint64_t acc = hash_combine(0x165667b19e3779f9ull, (uint64_t)n);
  if (n > 0) acc = hash_combine(acc, (uint64_t)r->u.range.start);
  if (n > 1) acc = hash_combine(acc, (uint64_t)r->u.range.step);
  return acc;
}

int val_hash(Interp *I, Value *v, uint64_t *out) {
  switch ((ValKind)v->kind) {
  case VAL_BOOL:
  case VAL_INT:
    *out = hash_int(v->u.i);
    return 0;
  case VAL_FLOAT:
    *out = hash_float(v->u.f);
    return 0;
  case VAL_STR:
    if (!v->u.str.hash) v->u.str.hash = val_hash_bytes(v->u.str.s, (size_t)v->u.str.len);
    *out = v->u.str.hash;
    return 0;
  case VAL_TUPLE:
    return hash_tuple(I, v, out);
  case VAL_RANGE:
    *out = hash_range(I, v);
    return 0;
  case VAL_LIST:
  case VAL_DICT:
  case VAL_SLICE:
    interp_raise(I, EXC_TypeError, "unhashable type: '%s'", val_type_name(v));
    return -1;
  case VAL_BUILTIN: /* bound methods are equal when their receiver and method are */
    *out = ptr_hash(v->u.bi.def) ^ ptr_hash(v->u.bi.self);
    return 0;
  case VAL_TYPE:
    *out = ptr_hash(v->u.type);
    return 0;
  case VAL_OBJ:
    if (v->u.obj.cls->hash) return v->u.obj.cls->hash(I, v, out);
    *out = ptr_hash(v);
    return 0;
  case VAL_NONE:
  case VAL_FUNC:
  case VAL_MODULE:
  case VAL_EXC:
  case VAL_ENV:
    *out = ptr_hash(v);
    return 0;
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- equality ---- */

static int seq_eq(Interp *I, Value *a, Value *b) {
  if (VAL_SEQ_N(a) != VAL_SEQ_N(b)) return 0;
  if (val_enter(I, " in comparison") < 0) return -1;
  int r = 1;
  for (int64_t i = 0; r == 1 && i < VAL_SEQ_N(a) && i < VAL_SEQ_N(b); i++)
    r = val_eq(I, VAL_SEQ_ITEM(a, i), VAL_SEQ_ITEM(b, i));
  val_leave();
  return r;
}

static int dict_eq(Interp *I, Value *a, Value *b) {
  if (dict_len(a) != dict_len(b)) return 0;
  if (val_enter(I, " in comparison") < 0) return -1;
  int r = 1;
  Value *k, *va;
  for (int64_t pos = 0; r == 1 && dict_next(a, &pos, &k, &va);) {
    val_incref(k);
    val_incref(va);
    Value *vb = dict_get(I, b, k);
    if (!vb)
      r = interp_error_pending(I) ? -1 : 0;
    else
      r = val_eq(I, va, val_incref(vb)), val_decref(vb);
    val_decref(k);
    val_decref(va);
  }
  val_leave();
  return r;
}

static int range_eq(Interp *I, Value *a, Value *b) {
  int64_t n = val_len(I, a);
  if (n != val_len(I, b)) return 0;
  if (n == 0) return 1;
  if (a->u.range.start != b->u.range.start) return 0;
  return n == 1 || a->u.range.step == b->u.range.step;
}

static int slice_eq(Interp *I, Value *a, Value *b) {
  int r = val_eq(I, a->u.slice.start, b->u.slice.start);
  if (r == 1) r = val_eq(I, a->u.slice.stop, b->u.slice.stop);
  if (r == 1) r = val_eq(I, a->u.slice.step, b->u.slice.step);
  return r;
}

/* An OBJ's compare hook decides ==; NULL with nothing raised means "not handled". */
static Value *obj_compare(Interp *I, CmpOp op, Value *a, Value *b) {
  Value *r = NULL;
  if (a->kind == VAL_OBJ && a->u.obj.cls->compare) {
    r = a->u.obj.cls->compare(I, op, a, b, false);
    if (r || interp_error_pending(I)) return r;
  }
  if (b->kind == VAL_OBJ && b->u.obj.cls->compare) r = b->u.obj.cls->compare(I, op, a, b, true);
  return r;
}

static int obj_eq(Interp *I, Value *a, Value *b) {
  Value *r = obj_compare(I, CMP_EQ, a, b);
  if (!r) return interp_error_pending(I) ? -1 : 0;
  int t = val_truthy(I, r);
  val_decref(r);
  return t;
}

static int same_kind_eq(Interp *I, Value *a, Value *b) {
  switch ((ValKind)a->kind) {
  case VAL_STR:
    return a->u.str.len == b->u.str.len && !memcmp(a->u.str.s, b->u.str.s, (size_t)a->u.str.len);
  case VAL_TUPLE:
  case VAL_LIST:
    return seq_eq(I, a, b);
  case VAL_DICT:
    return dict_eq(I, a, b);
  case VAL_RANGE:
    return range_eq(I, a, b);
  case VAL_SLICE:
    return slice_eq(I, a, b);
  case VAL_BUILTIN:
    return a->u.bi.def == b->u.bi.def && a->u.bi.self == b->u.bi.self;
  case VAL_TYPE:
    return a->u.type == b->u.type;
  case VAL_OBJ:
    return obj_eq(I, a, b);
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT: /* numbers are handled above */
  case VAL_FUNC:
  case VAL_MODULE:
  case VAL_EXC:
  case VAL_ENV:
    return 0; /* identity, tested by the caller */
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* Containers' ==: identity first (so [nan] == [nan] as in Python), then by kind. */
int val_eq(Interp *I, Value *a, Value *b) {
  if (a == b) return 1;
  if (val_is_number(a) && val_is_number(b)) return cmp_numbers(a, b) == 0;
  if (a->kind == VAL_OBJ || b->kind == VAL_OBJ) return obj_eq(I, a, b);
  if (a->kind != b->kind) return 0;
  return same_kind_eq(I, a, b);
}

/* ---- ordering ---- */

static const char *const cmp_symbols[] = {
    "<", "<=", ">", ">=", "==", "!=", "in", "not in", "is", "is not"};

static bool cmp_holds(CmpOp op, int c) {
  switch (op) {
  case CMP_LT:
    return c == -1;
  case CMP_LE:
    return c == -1 || c == 0;
  case CMP_GT:
    return c == 1;
  case CMP_GE:
    return c == 1 || c == 0;
  case CMP_EQ:
    return c == 0;
  case CMP_NE:
    return c != 0;
  case CMP_IN:
  case CMP_NOTIN:
  case CMP_IS:
  case CMP_ISNOT:
    break;
  }
  TES_UNREACHABLE();
}

static int order(Interp *I, CmpOp op, Value *a, Value *b);

static int seq_order(Interp *I, CmpOp op, Value *a, Value *b) {
  if (val_enter(I, " in comparison") < 0) return -1;
  int64_t i = 0;
  int r = 1;
  for (; i < VAL_SEQ_N(a) && i < VAL_SEQ_N(b); i++) {
    r = val_eq(I, VAL_SEQ_ITEM(a, i), VAL_SEQ_ITEM(b, i));
    if (r != 1) break;
  }
  if (r == 0)
    r = order(I, op, VAL_SEQ_ITEM(a, i), VAL_SEQ_ITEM(b, i));
  else if (r == 1) {
    int64_t na = VAL_SEQ_N(a), nb = VAL_SEQ_N(b);
    r = cmp_holds(op, na < nb ? -1 : na > nb);
  }
  val_leave();
  return r;
}

static int str_cmp(Value *a, Value *b) {
  int64_t n = a->u.str.len < b->u.str.len ? a->u.str.len : b->u.str.len;
  int c = memcmp(a->u.str.s, b->u.str.s, (size_t)n);
  if (c) return c < 0 ? -1 : 1;
  return a->u.str.len < b->u.str.len ? -1 : a->u.str.len > b->u.str.len;
}

/* a OP b for < <= > >= (0/1, -1 error). */
static int order(Interp *I, CmpOp op, Value *a, Value *b) {
  if (val_is_number(a) && val_is_number(b)) return cmp_holds(op, cmp_numbers(a, b));
  if (a->kind == VAL_STR && b->kind == VAL_STR) return cmp_holds(op, str_cmp(a, b));
  if (a->kind == b->kind && (a->kind == VAL_LIST || a->kind == VAL_TUPLE))
    return seq_order(I, op, a, b);
  if (a->kind == VAL_OBJ || b->kind == VAL_OBJ) {
    Value *r = obj_compare(I, op, a, b);
    if (r) {
      int t = val_truthy(I, r);
      val_decref(r);
      return t;
    }
    if (interp_error_pending(I)) return -1;
  }
  interp_raise(I, EXC_TypeError, "'%s' not supported between instances of '%s' and '%s'",
               cmp_symbols[op], val_type_name(a), val_type_name(b));
  return -1;
}

int val_less(Interp *I, Value *a, Value *b) {
  if (a->kind == VAL_INT && b->kind == VAL_INT) return a->u.i < b->u.i;
  if (a->kind == VAL_FLOAT && b->kind == VAL_FLOAT) return a->u.f < b->u.f;
  if (a->kind == VAL_STR && b->kind == VAL_STR) return str_cmp(a, b) < 0;
  return order(I, CMP_LT, a, b);
}

static Value *bool_or_null(int r) { return r < 0 ? NULL : val_bool(r); }

Value *val_compare(Interp *I, CmpOp op, Value *a, Value *b) {
  if (op == CMP_IS) return val_bool(a == b);
  if (op == CMP_ISNOT) return val_bool(a != b);
  if (a->kind == VAL_OBJ || b->kind == VAL_OBJ) {
    Value *r = obj_compare(I, op, a, b);
    if (r || interp_error_pending(I)) return r;
  }
  switch (op) {
  case CMP_IN:
    return bool_or_null(val_contains(I, b, a));
  case CMP_NOTIN: {
    int r = val_contains(I, b, a);
    return r < 0 ? NULL : val_bool(!r);
  }
  case CMP_EQ:
  case CMP_NE: {
    /* numbers compare without val_eq's identity short-cut: x == x is False for NaN */
    int r = val_is_number(a) && val_is_number(b) ? cmp_numbers(a, b) == 0 : val_eq(I, a, b);
    return r < 0 ? NULL : val_bool(op == CMP_EQ ? r : !r);
  }
  case CMP_LT:
  case CMP_LE:
  case CMP_GT:
  case CMP_GE:
    return bool_or_null(order(I, op, a, b));
  case CMP_IS:
  case CMP_ISNOT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- arithmetic ---- */

static const char *binop_name(BinOp op) {
  return op == BIN_POW ? "** or pow()" : binop_symbols[op];
}

Value *val_type_error_op(Interp *I, const char *op, Value *a, Value *b) {
  return interp_raise(I, EXC_TypeError, "unsupported operand type(s) for %s: '%s' and '%s'", op,
                      val_type_name(a), val_type_name(b));
}

static Value *overflow(Interp *I) { return interp_raise(I, EXC_OverflowError, "integer overflow"); }

static Value *int_pow(Interp *I, int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 0)
      return interp_raise(I, EXC_ZeroDivisionError, "0.0 cannot be raised to a negative power");
    return val_float(pow((double)a, (double)b));
  }
  int64_t r = 1, base = a;
  while (b) {
    if ((b & 1) && __builtin_mul_overflow(r, base, &r)) return overflow(I);
    b >>= 1;
    if (b && __builtin_mul_overflow(base, base, &base)) return overflow(I);
  }
  return val_int(r);
}

static Value *int_shift(Interp *I, BinOp op, int64_t a, int64_t b) {
  if (b < 0) return interp_raise(I, EXC_ValueError, "negative shift count");
  if (op == BIN_RSHIFT) return val_int(b >= 64 ? (a < 0 ? -1 : 0) : a >> b);
  if (a == 0) return val_int(0);
  if (b >= 64) return overflow(I);
  int64_t r = (int64_t)((uint64_t)a << b);
  return (r >> b) == a ? val_int(r) : overflow(I);
}

static Value *int_divmod(Interp *I, BinOp op, int64_t a, int64_t b) {
  if (b == 0) return interp_raise(I, EXC_ZeroDivisionError, "integer division or modulo by zero");
  if (b == -1) return op == BIN_MOD ? val_int(0) : a == INT64_MIN ? overflow(I) : val_int(-a);
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) q--, r += b;
  return val_int(op == BIN_MOD ? r : q);
}

static Value *int_binop(Interp *I, BinOp op, Value *va, Value *vb) {
  int64_t a = va->u.i, b = vb->u.i, r;
  bool bools = va->kind == VAL_BOOL && vb->kind == VAL_BOOL; /* True & False is a bool */
  switch (op) {
  case BIN_ADD:
    return __builtin_add_overflow(a, b, &r) ? overflow(I) : val_int(r);
  case BIN_SUB:
    return __builtin_sub_overflow(a, b, &r) ? overflow(I) : val_int(r);
  case BIN_MUL:
    return __builtin_mul_overflow(a, b, &r) ? overflow(I) : val_int(r);
  case BIN_DIV:
    if (b == 0) return interp_raise(I, EXC_ZeroDivisionError, "division by zero");
    /* long double holds every int64 exactly, so only the final rounding is inexact */
    return val_float((double)((long double)a / (long double)b));
  case BIN_FLOORDIV:
  case BIN_MOD:
    return int_divmod(I, op, a, b);
  case BIN_POW:
    return int_pow(I, a, b);
  case BIN_LSHIFT:
  case BIN_RSHIFT:
    return int_shift(I, op, a, b);
  case BIN_AND:
    return bools ? val_bool(a & b) : val_int(a & b);
  case BIN_OR:
    return bools ? val_bool(a | b) : val_int(a | b);
  case BIN_XOR:
    return bools ? val_bool(a ^ b) : val_int(a ^ b);
  case BIN_MATMUL:
    return val_type_error_op(I, binop_name(op), va, vb);
  case BIN_OP_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* CPython's float_divmod: the floor quotient consistent with the modulo below. */
static double float_floordiv(double a, double b) {
  double mod = fmod(a, b), div = (a - mod) / b, fl;
  if (mod && ((b < 0) != (mod < 0))) div -= 1.0;
  if (!div) return copysign(0.0, a / b);
  fl = floor(div);
  return div - fl > 0.5 ? fl + 1.0 : fl;
}

static double float_mod(double a, double b) {
  double mod = fmod(a, b);
  if (mod) return (b < 0) != (mod < 0) ? mod + b : mod;
  return copysign(0.0, b);
}

static Value *float_pow(Interp *I, double a, double b) {
  if (a == 0.0 && b < 0.0 && isfinite(b))
    return interp_raise(I, EXC_ZeroDivisionError, "0.0 cannot be raised to a negative power");
  if (a < 0.0 && isfinite(a) && isfinite(b) && b != floor(b))
    return interp_raise(I, EXC_ValueError,
                        "not supported yet: complex numbers (a negative number raised to a "
                        "fractional power)");
  double r = pow(a, b);
  if (isinf(r) && isfinite(a) && isfinite(b))
    return interp_raise(I, EXC_OverflowError, "(34, 'Numerical result out of range')");
  return val_float(r);
}

static Value *float_binop(Interp *I, BinOp op, Value *va, Value *vb) {
  double a, b;
  val_as_float(I, va, &a);
  val_as_float(I, vb, &b);
  switch (op) {
  case BIN_ADD:
    return val_float(a + b);
  case BIN_SUB:
    return val_float(a - b);
  case BIN_MUL:
    return val_float(a * b);
  case BIN_DIV:
    if (b == 0) return interp_raise(I, EXC_ZeroDivisionError, "float division by zero");
    return val_float(a / b);
  case BIN_FLOORDIV:
    if (b == 0) return interp_raise(I, EXC_ZeroDivisionError, "float floor division by zero");
    return val_float(float_floordiv(a, b));
  case BIN_MOD:
    if (b == 0) return interp_raise(I, EXC_ZeroDivisionError, "float modulo");
    return val_float(float_mod(a, b));
  case BIN_POW:
    return float_pow(I, a, b);
  case BIN_MATMUL:
  case BIN_LSHIFT:
  case BIN_RSHIFT:
  case BIN_AND:
  case BIN_OR:
  case BIN_XOR:
    return val_type_error_op(I, binop_name(op), va, vb);
  case BIN_OP_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static Value *seq_repeat(Interp *I, Value *seq, int64_t times) {
  if (times < 0) times = 0;
  int64_t n = seq->kind == VAL_STR ? seq->u.str.len : VAL_SEQ_N(seq), total;
  if (__builtin_mul_overflow(n, times, &total))
    return val_mem_error(I, (double)n * (double)times * (seq->kind == VAL_STR ? 1 : 8));
  if (seq->kind == VAL_STR) {
    char *s = val_alloc_text(I, total);
    if (!s) return NULL;
    for (int64_t i = 0; i < times; i++) memcpy(s + i * n, seq->u.str.s, (size_t)n);
    return val_str_take(s, (size_t)total);
  }
  Value *r = seq->kind == VAL_LIST ? val_list_alloc(I, total) : val_tuple_alloc(I, total);
  if (!r) return NULL;
  r->u.list->n = total;
  for (int64_t i = 0; i < total; i++) r->u.list->items[i] = val_incref(VAL_SEQ_ITEM(seq, i % n));
  return r;
}

static Value *seq_concat(Interp *I, Value *a, Value *b) {
  if (a->kind != b->kind)
    return interp_raise(I, EXC_TypeError, "can only concatenate %s (not \"%s\") to %s",
                        val_type_name(a), val_type_name(b), val_type_name(a));
  if (a->kind == VAL_STR) {
    size_t na = (size_t)a->u.str.len, nb = (size_t)b->u.str.len;
    char *s = val_alloc_text(I, (int64_t)(na + nb));
    if (!s) return NULL;
    memcpy(s, a->u.str.s, na);
    memcpy(s + na, b->u.str.s, nb + 1);
    return val_str_take(s, na + nb);
  }
  int64_t na = VAL_SEQ_N(a), nb = VAL_SEQ_N(b);
  Value *r = a->kind == VAL_LIST ? val_list_alloc(I, na + nb) : val_tuple_alloc(I, na + nb);
  if (!r) return NULL;
  r->u.list->n = na + nb;
  for (int64_t i = 0; i < na; i++) r->u.list->items[i] = val_incref(VAL_SEQ_ITEM(a, i));
  for (int64_t i = 0; i < nb; i++) r->u.list->items[na + i] = val_incref(VAL_SEQ_ITEM(b, i));
  return r;
}

static bool is_seq(Value *v) {
  return v->kind == VAL_STR || v->kind == VAL_LIST || v->kind == VAL_TUPLE;
}

static Value *seq_binop(Interp *I, BinOp op, Value *a, Value *b) {
  if (op == BIN_ADD && is_seq(a) && !(b->kind == VAL_OBJ)) return seq_concat(I, a, b);
  if (op == BIN_MOD && a->kind == VAL_STR) return val_str_percent(I, a, b);
  if (op == BIN_MUL && (is_seq(a) || is_seq(b))) {
    Value *seq = is_seq(a) ? a : b, *n = seq == a ? b : a;
    if (val_is_int(n)) return seq_repeat(I, seq, n->u.i);
    if (!is_seq(n) || seq == a)
      return interp_raise(I, EXC_TypeError, "can't multiply sequence by non-int of type '%s'",
                          val_type_name(n));
  }
  return val_type_error_op(I, binop_name(op), a, b);
}

static Value *obj_binop(Interp *I, BinOp op, Value *a, Value *b) {
  Value *r = NULL;
  if (a->kind == VAL_OBJ && a->u.obj.cls->binop) {
    r = a->u.obj.cls->binop(I, op, a, b, false);
    if (r || interp_error_pending(I)) return r;
  }
  if (b->kind == VAL_OBJ && b->u.obj.cls->binop) r = b->u.obj.cls->binop(I, op, a, b, true);
  return r;
}

Value *val_binop(Interp *I, BinOp op, Value *a, Value *b) {
  if (a->kind == VAL_OBJ || b->kind == VAL_OBJ) {
    Value *r = obj_binop(I, op, a, b);
    if (r || interp_error_pending(I)) return r;
  }
  if (val_is_number(a) && val_is_number(b)) {
    if (a->kind == VAL_FLOAT || b->kind == VAL_FLOAT) return float_binop(I, op, a, b);
    return int_binop(I, op, a, b);
  }
  return seq_binop(I, op, a, b);
}

static const char *const unop_symbols[] = {"-", "+", "~", "not"};

Value *val_unop(Interp *I, UnOp op, Value *a) {
  if (op == UN_NOT) {
    int t = val_truthy(I, a);
    return t < 0 ? NULL : val_bool(!t);
  }
  if (a->kind == VAL_OBJ && a->u.obj.cls->unop) {
    Value *r = a->u.obj.cls->unop(I, op, a);
    if (r || interp_error_pending(I)) return r;
  }
  if (val_is_int(a)) {
    if (op == UN_NEG) return a->u.i == INT64_MIN ? overflow(I) : val_int(-a->u.i);
    if (op == UN_POS) return val_int(a->u.i);
    return val_int(~a->u.i);
  }
  if (a->kind == VAL_FLOAT && op != UN_INVERT)
    return op == UN_NEG ? val_float(-a->u.f) : val_incref(a);
  return interp_raise(I, EXC_TypeError, "bad operand type for unary %s: '%s'", unop_symbols[op],
                      val_type_name(a));
}
