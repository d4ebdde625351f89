/* value.h: the interpreter's values. Every value is a reference-counted `Value *`; None, True,
 * False, interned names and small ints are immortal. Conventions (QuickJS-like):
 *   - parameters are borrowed; a returned `Value *` is a new reference;
 *   - a function whose name ends in `_take` takes over the reference it is given;
 *   - a fallible function gets the `Interp *`, and on failure raises a TES exception there and
 *     returns NULL (or -1 for int results). NULL with no exception pending means "absent" only
 *     where the comment says so.
 * Containers (list, tuple, dict, function, frame, module, exception) carry a GcHead so the
 * cycle collector in gc.c can find cycles that reference counts alone would leak. */
#ifndef TES_VALUE_H
#define TES_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/lang/ast.h"
#include "ir/support.h"

typedef struct Interp Interp;

/* Kind, then the type name scripts see (type(x).__name__ and error messages). */
#define VAL_KINDS(X)                                   \
  X(NONE, "NoneType") X(BOOL, "bool") X(INT, "int")    \
  X(FLOAT, "float") X(STR, "str") X(TUPLE, "tuple")    \
  X(LIST, "list") X(DICT, "dict") X(RANGE, "range")    \
  X(SLICE, "slice") X(FUNC, "function")                \
  X(BUILTIN, "builtin_function_or_method")             \
  X(MODULE, "module") X(TYPE, "type") X(EXC, "exception") \
  X(ENV, "frame") X(OBJ, "object")

typedef enum {
#define VAL_ENUM(k, name) VAL_##k,
  VAL_KINDS(VAL_ENUM)
#undef VAL_ENUM
  VAL_KIND_COUNT
} ValKind;

extern const char *const val_kind_names[VAL_KIND_COUNT];

typedef struct GcHead {
  struct GcHead *prev, *next;
  Value *owner;
  intptr_t gc_refs; /* scratch for gc_collect */
} GcHead;

typedef struct List { /* VAL_LIST and VAL_TUPLE */
  GcHead gc;
  int64_t n, cap;
  Value **items;
} List;

typedef struct Dict Dict; /* insertion-ordered hash table; see dict_* below */

typedef struct Env { /* VAL_ENV: one call's frame; closures keep it alive */
  GcHead gc;
  Value *parent; /* VAL_ENV of the frame this function was defined in, or NULL */
  int n;
  Value **slots; /* n slots, NULL while unbound: inline_ below, same allocation */
  Value *inline_[];
} Env;

typedef struct Func { /* VAL_FUNC: a def or lambda */
  GcHead gc;
  FuncDef *def;
  Unit *unit;       /* keeps def alive */
  Value *closure;   /* VAL_ENV of the defining frame, or NULL at module level */
  Value *globals;   /* VAL_DICT: the defining module's globals */
  Value **defaults; /* def->nparams entries, NULL where a parameter has no default */
} Func;

typedef struct Module {
  GcHead gc;
  Value *name;  /* str, dotted */
  Value *dict;  /* VAL_DICT of members */
  /* Issues not landed yet: getattr of a missing member raises
   * "not supported yet: NAME.MEMBER (PENDING)". NULL for complete modules. */
  const char *pending;
  /* A module written in TES (stdlib/SOURCE, e.g. "topi/tag.tes"): its members are defined by
   * running that file, on the first lookup of a member it does not have yet (stdlib.c). NULL
   * once loaded, and for builtin modules. */
  const char *source;
} Module;

/* Call arguments as written at the call site, all borrowed. */
typedef struct CallArgs {
  int n;          /* positional */
  Value **v;
  int nkw;        /* keywords */
  Sym **kwnames;
  Value **kwv;
} CallArgs;

/* A builtin function or method. The binder (interp_bind_builtin) matches a call's arguments to
 * `params` and hands the function one slot per entry of `params`, in order:
 *   "name"   a parameter, positional or keyword; slot NULL if not given (optional);
 *   "*name"  collects extra positional arguments: the slot is a tuple (maybe empty); the
 *            entries after it are keyword-only;
 *   "**name" (last) collects unknown keywords: the slot is a dict (maybe empty).
 * The first `nreq` entries are required. `self` is the receiver of a method, else NULL.
 * The slots are borrowed. Return a new reference, or NULL with an exception raised. */
typedef Value *(*BuiltinFn)(Interp *I, Value *self, Value **a);
typedef struct Builtin {
  const char *name;
  BuiltinFn fn;
  int nreq;
  const char *const *params; /* NULL-terminated */
  const char *doc;           /* "name(params) -> result: one line of what it does" */
} Builtin;
#define PARAMS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NOPARAMS ((const char *const[]){NULL})

/* A type object: what `int`, `str`, `ValueError` evaluate to. Calling it calls ctor. */
typedef struct TypeObj {
  const char *name;
  const struct TypeObj *base; /* exceptions and object types: the parent class; else NULL */
  ValKind kind;               /* kind of its instances (VAL_EXC for exception classes) */
  const Builtin *ctor;        /* NULL: not callable */
} TypeObj;

/* Exception classes, each with its parent. `Exception` is an alias of `Error`. InternalError is
 * a bug in tes that was caught (frontend/tvm/raise.h), not the script's mistake. KeyboardInterrupt
 * and SystemExit sit beside Error, so `except Error` and a bare `except` do not swallow them. */
#define EXC_KINDS(X)                                                              \
  X(BaseException, BaseException) X(Error, BaseException)                       \
  X(SyntaxError, Error) X(NameError, Error) X(TypeError, Error)                  \
  X(ValueError, Error) X(IndexError, Error) X(KeyError, Error)                   \
  X(ZeroDivisionError, Error) X(AssertionError, Error) X(ImportError, Error)     \
  X(AttributeError, Error) X(OverflowError, Error) X(ScheduleError, Error)       \
  X(LowerError, Error) X(BuildError, Error) X(RuntimeError, Error)               \
  X(RecursionError, RuntimeError) X(NotImplementedError, RuntimeError)           \
  X(InternalError, RuntimeError) X(StopIteration, Error) X(MemoryError, Error)   \
  X(KeyboardInterrupt, BaseException) X(SystemExit, BaseException)

typedef enum {
#define EXC_ENUM(k, base) EXC_##k,
  EXC_KINDS(EXC_ENUM)
#undef EXC_ENUM
  EXC_COUNT
} ExcKind;

extern const TypeObj exc_types[EXC_COUNT]; /* value.c; each ctor builds an instance */
/* The type of each plain kind: int, str, list, ... (builtins.c, which has their ctors). Index
 * by ValKind; VAL_EXC and VAL_OBJ entries are unused (their types come from the instance). */
extern const TypeObj val_types[VAL_KIND_COUNT];

typedef struct TraceEntry {
  SrcLoc loc;   /* holds a reference on loc.src */
  Value *func;  /* str: the function's name, "<module>" at top level */
  int depth;    /* the interpreter's call depth when recorded (interp.c's bookkeeping) */
} TraceEntry;

typedef struct Exc { /* VAL_EXC: an exception instance */
  GcHead gc;
  const TypeObj *type;
  Value *args;    /* tuple of the constructor's arguments */
  Value *msg;     /* str: what str(e) gives ("" when no arguments) */
  int code;       /* SystemExit: the exit status */
  /* Where it was raised and the frames it unwound through, innermost first: tb[0] is the raise
   * site (same as loc), each later entry the call site in the caller. */
  bool has_loc;
  SrcLoc loc;
  int ntb, captb;
  TraceEntry *tb;
} Exc;

typedef enum { LOGIC_AND, LOGIC_OR, LOGIC_NOT } LogicOp;

/* What a class's number hook is asked for (Python's protocols): NUM_INDEX an int, for
 * indices, slices and range() (__index__); NUM_REAL the number it converts to, for int(),
 * float(), math and %d/%f (__int__, __float__); NUM_SCALAR the same for format specs and
 * round() (__format__, __round__), where the hook raises nothing. */
typedef enum { NUM_INDEX, NUM_SCALAR, NUM_REAL } NumWant;

/* A read-only attribute of an object class (Tensor.shape, ndarray.T): found by name before
 * the class's getattr hook and listed by dir(), help() and completion. get returns a new
 * reference; NULL with nothing raised means this object has no such attribute (a Tensor
 * made without an operation has no op), NULL with an exception raised an error. */
typedef struct Property {
  const char *name;
  Value *(*get)(Interp *I, Value *self);
  const char *doc; /* one line: what the attribute gives */
} Property;

/* Domain objects of later issues (tensors, schedules, arrays) plug in through a class table
 * instead of new kinds: every hook may be NULL. */
typedef struct ObjClass {
  TypeObj type; /* type.kind == VAL_OBJ */
  void (*free)(void *p);
  void (*visit)(void *p, void (*fn)(Value *child, void *arg), void *arg); /* for gc.c */
  /* gc.c, on a cycle: drops the references visit shows, leaving p valid for free. A class
   * with visit needs it, or a cycle through its objects alone is never freed. */
  void (*clear)(void *p);
  Value *(*repr)(Interp *I, Value *self);                 /* -> str */
  Value *(*getattr)(Interp *I, Value *self, Sym *name);   /* NULL, nothing raised: no such attr */
  int (*setattr)(Interp *I, Value *self, Sym *name, Value *v);
  Value *(*call)(Interp *I, Value *self, CallArgs *args);
  Value *(*getitem)(Interp *I, Value *self, Value *key);
  int (*setitem)(Interp *I, Value *self, Value *key, Value *v);
  /* a OP b where self is a (right == false) or b (right == true). NULL with nothing raised:
   * not handled, try the other operand. */
  Value *(*binop)(Interp *I, BinOp op, Value *a, Value *b, bool right);
  Value *(*unop)(Interp *I, UnOp op, Value *self);
  Value *(*compare)(Interp *I, CmpOp op, Value *a, Value *b, bool right); /* same protocol */
  Value *(*to_list)(Interp *I, Value *self); /* iteration: a list of the items */
  int64_t (*len)(Interp *I, Value *self);    /* -1 with an exception raised */
  const Builtin *methods;                    /* {0}-terminated; bound to self on getattr */
  /* bool(self), `if`, `and`/`or`/`not`: 0/1, or -1 with an exception raised (a tensor
   * expression has no truth value). NULL: by len if there is a len hook, else true. */
  int (*truthy)(Interp *I, Value *self);
  /* `a and b`, `a or b`, `not a` when a is this class's object (b NULL for not): SPEC §3 has
   * them build logical nodes on tensor expressions. Both sides are evaluated, then. NULL with
   * nothing raised: not handled, use Python's meaning (truthiness and short-circuit). */
  Value *(*logic)(Interp *I, LogicOp op, Value *a, Value *b);
  /* str(self), print and f-strings when they differ from repr (numpy prints an array as
   * `[1. 2.]`, its repr is `array([1., 2.])`). NULL: the repr. */
  Value *(*str)(Interp *I, Value *self);
  /* The Python number the object stands for (numpy's scalars and 0-d arrays), read through
   * val_number_of. NULL with nothing raised: none (the caller raises its own TypeError); NULL
   * with an error raised: the object says why not ("only 0-dimensional arrays ..."). */
  Value *(*number)(Interp *I, Value *self, NumWant want);
  /* hash(self), equal for objects that compare equal. NULL: by identity. */
  int (*hash)(Interp *I, Value *self, uint64_t *out);
  /* {0}-terminated: the attributes with fixed names. getattr is then only for names no table
   * can list. */
  const Property *props;
  /* The object's own {0}-terminated table, where the fixed names depend on the object (one
   * PrimExpr class stands for all of TVM's expression nodes, each with its fields): read after
   * props and listed beside them. NULL: props only. */
  const Property *(*props_of)(Value *self);
} ObjClass;

struct Value {
  uint32_t refcnt; /* VAL_IMMORTAL: never freed */
  uint8_t kind;    /* ValKind */
  uint8_t interned;
  uint8_t ascii;   /* STR: every byte < 0x80, so indexing needs no UTF-8 decoding (set by the
                      str constructors of value.c) */
  union {
    int64_t i; /* INT; BOOL is 0 or 1 */
    double f;
    struct { char *s; int64_t len; uint64_t hash; } str; /* s NUL-terminated; hash 0: not yet */
    List *list;                                           /* TUPLE, LIST */
    Dict *dict;
    struct { int64_t start, stop, step; } range;
    struct { Value *start, *stop, *step; } slice;        /* each counted, None if absent */
    Func *func;
    Env *env;
    struct { const Builtin *def; Value *self; } bi;       /* self counted, NULL if unbound */
    Module *mod;
    const TypeObj *type;
    Exc *exc;
    struct { const ObjClass *cls; void *p; } obj;
  } u;
};

#define VAL_IMMORTAL 0x40000000u

/* ---- reference counts ---- */
static inline Value *val_incref(Value *v) {
  if (v->refcnt < VAL_IMMORTAL) v->refcnt++;
  return v;
}
void val_free_(Value *v);
static inline void val_decref(Value *v) {
  if (v && v->refcnt < VAL_IMMORTAL && --v->refcnt == 0) val_free_(v);
}
static inline void val_xdecref(Value *v) { val_decref(v); } /* v may be NULL */

/* ---- singletons and constructors (all return new references) ---- */
extern Value val_none_, val_true_, val_false_;
#define VAL_NONE_P (&val_none_)
static inline Value *val_none(void) { return &val_none_; }
static inline Value *val_bool(bool b) { return b ? &val_true_ : &val_false_; }
/* `...` (the builtin Ellipsis): one object of its class, "ellipsis"; numpy's indexing reads it. */
extern Value val_ellipsis_;
static inline Value *val_ellipsis(void) { return &val_ellipsis_; }
/* The ints val_int gives as immortal shared cells, as CPython's small ints; any other int
 * cell with one reference may be overwritten by its owner (eval.c reuses temporaries). */
enum { VAL_SMALL_INT_MIN = -5, VAL_SMALL_INT_MAX = 1024 };
static inline bool val_int_small(int64_t i) {
  return i >= VAL_SMALL_INT_MIN && i <= VAL_SMALL_INT_MAX;
}
extern Value val_small_ints_[VAL_SMALL_INT_MAX - VAL_SMALL_INT_MIN + 1]; /* value.c: each
                                                                           filled on first use */
Value *val_int_make(int64_t i); /* val_int's slow half */
static inline Value *val_int(int64_t i) {
  if (val_int_small(i) && val_small_ints_[i - VAL_SMALL_INT_MIN].refcnt)
    return &val_small_ints_[i - VAL_SMALL_INT_MIN];
  return val_int_make(i);
}
Value *val_float(double f);
Value *val_str(const char *s, size_t len);  /* copies */
Value *val_cstr(const char *s);             /* copies a C string */
Value *val_str_take(char *s, size_t len);   /* takes a malloc'd NUL-terminated buffer */
Value *val_list_new(int64_t cap);           /* empty */
Value *val_tuple_new(int64_t n);            /* n slots, to be filled with val_seq_set_take */
Value *val_tuple_of(int n, ...);            /* borrowed items */
Value *val_range(int64_t start, int64_t stop, int64_t step);
Value *val_slice_new(Value *start, Value *stop, Value *step); /* borrowed; NULL means None */
Value *val_dict_new(void);
Value *val_func_new(FuncDef *def, Unit *unit, Value *closure, Value *globals);
/* A frame's locals. It joins the cycle collector's list only when captured: a frame that
 * only the C stack holds (most calls) can be in no cycle, so it costs the collector nothing. */
Value *val_env_new(int n, Value *parent);
/* env is now held by a heap object (a closure): tracks it and its untracked parents. */
void val_env_capture(Value *env);
Value *val_builtin(const Builtin *def, Value *self); /* self borrowed, may be NULL */
Value *val_module_new(const char *name);
Value *val_type(const TypeObj *t);
Value *val_exc_new(const TypeObj *type, Value *args /* tuple, borrowed */);
Value *val_exc_newf(ExcKind kind, const char *fmt, ...) TES_PRINTF(2, 3);
Value *val_obj_new(const ObjClass *cls, void *p); /* takes p: cls->free runs on the last decref */
void *val_obj_of(const Value *v, const ObjClass *cls); /* v's pointer when v is a cls, else NULL */

/* ---- memory sized by a script (memory.c) ----
 * What a script sizes ([0] * n, "x".ljust(n), list(range(n)), np.zeros(shape)) is allocated
 * through these: where xmalloc would end the process they raise MemoryError ("cannot allocate
 * 74.5 GiB") and return NULL or -1, leaving the session as it was. A block larger than the
 * machine's memory is refused before it is asked for. */
void *val_alloc(Interp *I, int64_t n, size_t elem);            /* n * elem bytes, zeroed */
void *val_realloc(Interp *I, void *p, int64_t n, size_t elem); /* p stays valid on failure */
char *val_alloc_text(Interp *I, int64_t len);                  /* len + 1 bytes */
Value *val_list_alloc(Interp *I, int64_t cap);                 /* empty, room for cap items */
Value *val_tuple_alloc(Interp *I, int64_t n); /* n NULL slots, for val_seq_set_take */
int val_list_reserve(Interp *I, Value *list, int64_t extra);   /* room for extra more */
int val_list_push_take(Interp *I, Value *list, Value *item);   /* decrefs item on failure */
/* The text of a StrBuf set fallible (ir/strbuf.h) as a str, or NULL with MemoryError when a
 * write to it was lost; b is empty after. */
struct StrBuf;
Value *val_str_sb_fallible(Interp *I, struct StrBuf *b);
Value *val_str_sb(struct StrBuf *b); /* takes the buffer */
int val_mem_check(Interp *I, double bytes); /* -1 with MemoryError: more than the machine has */
Value *val_mem_error(Interp *I, double bytes); /* raises MemoryError; returns NULL */
double val_mem_physical(void);                 /* bytes of physical memory */
void val_mem_format(char buf[32], double bytes); /* "512 bytes", "74.5 GiB" */

/* ---- interned names (sym_intern and the rest: ast.h) ---- */
#define SYM_STR(sym) ((sym)->u.str.s) /* sym_text without the call */

/* ---- sequences (list and tuple) ---- */
#define VAL_SEQ_N(v) ((v)->u.list->n)
#define VAL_SEQ_ITEM(v, i) ((v)->u.list->items[i]) /* borrowed */
void val_seq_set_take(Value *seq, int64_t i, Value *item); /* fills a fresh tuple's slot */
void val_list_append(Value *list, Value *item);            /* increfs */
void val_list_append_take(Value *list, Value *item);

/* ---- dicts ---- */
Value *dict_get(Interp *I, Value *dict, Value *key);        /* borrowed; NULL: absent or error */
Value *dict_get_sym(Value *dict, Sym *name);                /* borrowed; NULL: absent; no error */
/* A global name's value: globals[name], else builtins[name] (borrowed; NULL: in neither).
 * c remembers where it was found and the versions of both dicts (dict.c draws every version
 * from one counter, so a version stands for one dict in one layout); while they hold, the
 * lookup is two compares. */
Value *dict_get_sym_cached(Value *globals, Value *builtins, Sym *name, SymCache *c);
int dict_set(Interp *I, Value *dict, Value *key, Value *v); /* increfs both; -1 on error */
void dict_set_sym(Value *dict, Sym *name, Value *v);        /* increfs; never fails */
int dict_del(Interp *I, Value *dict, Value *key);           /* -1: error (KeyError if absent) */
int64_t dict_len(Value *dict);
/* Iteration in insertion order: start with *pos = 0; borrowed key and value. */
bool dict_next(Value *dict, int64_t *pos, Value **key, Value **value);

/* ---- generic operations ---- */
const TypeObj *val_type_of(Value *v);
const char *val_type_name(Value *v);
Value *val_repr(Interp *I, Value *v); /* -> str */
Value *val_to_str(Interp *I, Value *v); /* str(v) -> str */
int val_truthy(Interp *I, Value *v);  /* 0/1, -1 error */
int val_eq(Interp *I, Value *a, Value *b); /* 0/1, -1 error */
int val_hash(Interp *I, Value *v, uint64_t *out); /* -1: unhashable (TypeError) */
Value *val_binop(Interp *I, BinOp op, Value *a, Value *b);
Value *val_unop(Interp *I, UnOp op, Value *a);         /* UN_NOT too */
Value *val_compare(Interp *I, CmpOp op, Value *a, Value *b); /* usually a bool */
int val_contains(Interp *I, Value *container, Value *item); /* `item in container` */
int64_t val_len(Interp *I, Value *v);                  /* -1 error */
Value *val_getitem(Interp *I, Value *obj, Value *key); /* key may be a slice */
int val_setitem(Interp *I, Value *obj, Value *key, Value *v);
int val_delitem(Interp *I, Value *obj, Value *key);
Value *val_getattr(Interp *I, Value *obj, Sym *name);  /* AttributeError if absent */
/* NULL, nothing raised: absent. A TES module (Module.source) loads on a miss, and a load that
 * fails is NULL with the error raised. */
Value *val_getattr_opt(Interp *I, Value *obj, Sym *name);
int val_setattr(Interp *I, Value *obj, Sym *name, Value *v);
Value *val_dir(Interp *I, Value *v); /* sorted list of attribute names, for completion */
/* attrs.c: the rows of a {0}-terminated table by interned name (pointer compares); NULL: none */
const Property *val_find_prop(const Property *props, Sym *name);
/* valops.c: object obj's property `name`, from its class's props or its own (props_of) */
const Property *val_obj_prop(Value *obj, Sym *name);
const Builtin *val_find_method(const Builtin *methods, Sym *name);
/* The str in names (a list) nearest to name, for a "did you mean"; NULL: none is near. */
const char *val_nearest_name(Value *names, const char *name);
Value *val_to_list(Interp *I, Value *iterable); /* a new list of the items */
/* int or bool (an object's NUM_INDEX number too); TypeError otherwise */
int val_as_int(Interp *I, Value *v, int64_t *out);
/* int, bool or float (an object's NUM_REAL number too); TypeError otherwise */
int val_as_float(Interp *I, Value *v, double *out);
bool val_is_int(Value *v);   /* int or bool */
bool val_is_number(Value *v); /* int, bool or float */
/* v itself when it is a number, or what its class's number hook gives (a new reference);
 * NULL when neither gives one, with an error raised only if the hook raised one. */
Value *val_number_of(Interp *I, Value *v, NumWant want);
bool val_is_callable(Value *v); /* functions, builtins, types, objects with a call hook */
/* format(v, spec) as for str.format and f-strings: "<16", ">8.3f", "x", "," ... */
Value *val_format(Interp *I, Value *v, const char *spec, size_t speclen);
/* "fmt % args" */
Value *val_str_percent(Interp *I, Value *fmt, Value *args);
/* list.sort and sorted(): stable, in place; key may be NULL or None; -1 on error (the list
 * keeps all its items). */
int val_list_sort(Interp *I, Value *list, Value *key, bool reverse);
/* Exception instance test against a class, following bases. */
bool exc_is(const TypeObj *t, const TypeObj *cls);

/* Iteration without building a list, for `for` loops over big ranges and lists. */
typedef struct ValIter {
  Value *seq;   /* counted: list, tuple, str, range, or a list made by val_to_list */
  int64_t i;
} ValIter;
int val_iter_init(Interp *I, ValIter *it, Value *iterable); /* -1 error (not iterable) */
Value *val_iter_next(Interp *I, ValIter *it); /* new ref; NULL at the end (nothing raised) */
void val_iter_done(ValIter *it);

/* ---- cycle collection (gc.c) ---- */
void gc_track(GcHead *h, Value *owner);
void gc_untrack(GcHead *h);
/* Frees unreachable cycles among tracked containers; returns how many were freed. */
int64_t gc_collect(void);
int64_t gc_tracked_count(void);
/* gc_collect when the tracked count has doubled since the last collection (at least 1000 new);
 * call it only at safe points (statement boundaries), where no container is half-built. */
int64_t gc_maybe_collect(void);

#endif
