/* value_impl.h: what value.c, valops.c, dict.c, gc.c, strfmt.c and methods.c share; nothing
 * outside the value layer includes it. */
#ifndef TES_VALUE_IMPL_H
#define TES_VALUE_IMPL_H

#include "frontend/lang/interp.h"
#include "ir/strbuf.h"
#include "frontend/lang/value.h"

/* ---- dict.c: CPython 3.6 layout, a sparse index table over a dense entry array ---- */
typedef struct DictEntry {
  uint64_t hash;
  Value *key; /* NULL: deleted (the slot stays so that order survives deletion) */
  Value *value;
} DictEntry;

struct Dict {
  GcHead gc;
  int64_t n;      /* live entries */
  int64_t used;   /* entries[0..used) in use, deleted ones included */
  int64_t cap;    /* entries allocated */
  uint64_t mask;  /* index table size - 1 */
  int64_t *index; /* entry number, DICT_EMPTY or DICT_DUMMY */
  DictEntry *entries;
  uint64_t version; /* renewed from dict.c's counter by every change of layout: a lookup
                       restarts if val_eq ran code that changed the dict under it */
};

Dict *dict_alloc_(void);       /* empty, untracked: val_dict_new tracks it */
void dict_free_(Dict *d);      /* decrefs keys and values, frees the table */
void dict_clear(Value *dict);  /* empties it; never fails */
Value *dict_copy(Value *dict); /* shallow */
Value *dict_keys(Value *dict); /* list of keys (a snapshot) */
void dict_visit_(Dict *d, void (*fn)(Value *child, void *arg), void *arg);

/* ---- value.c: shared helpers ---- */
/* Recursion over user-shaped data (repr, ==, hash of nested containers) counts its depth;
 * past ~1000 it raises RecursionError "maximum recursion depth exceeded WHAT". */
int val_enter(Interp *I, const char *what); /* -1 with the error raised (no leave needed) */
void val_leave(void);
Value *val_key_error(Interp *I, Value *key); /* raises KeyError(key); returns NULL */
GcHead *val_gc_head(Value *v);               /* NULL: not a tracked container kind */
/* The start/stop/step/count of a slice applied to a sequence of length len (Python's
 * PySlice_AdjustIndices); -1 with TypeError/ValueError raised. */
int val_slice_indices(Interp *I, Value *slice, int64_t len, int64_t *start, int64_t *step,
                      int64_t *count);
int val_less(Interp *I, Value *a, Value *b);  /* a < b: 0/1, -1 error */
Value *val_list_of(Value **items, int64_t n); /* increfs the items */
Value *val_tuple_from(Value **items, int64_t n);
int val_sb_reserve(Interp *I, StrBuf *b, int64_t extra); /* memory.c; -1 with MemoryError */
uint64_t val_hash_bytes(const char *s, size_t n);                        /* never 0 */
Value *val_type_error_op(Interp *I, const char *op, Value *a, Value *b); /* NULL */

/* UTF-8: strings hold valid UTF-8; code point counts skip continuation bytes. */
static inline bool val_utf8_cont(unsigned char c) { return (c & 0xC0) == 0x80; }
int64_t val_str_cplen(Value *s);                   /* len() of a str */
int64_t val_str_offset(Value *s, int64_t cp);      /* byte offset of code point cp (<= len) */
int64_t val_str_cpindex(Value *s, int64_t offset); /* code points before byte offset */
int val_utf8_decode(const char *s, int64_t len, int64_t *pos); /* code point at *pos; advances */
void val_utf8_put(StrBuf *b, uint32_t cp);
Value *val_str_char(const char *s, int64_t nbytes); /* a one-character str, cached if ASCII */

/* ---- strfmt.c ---- */
int val_repr_into(Interp *I, StrBuf *b, Value *v); /* -1 error */
void val_float_repr(StrBuf *b, double f);
void val_str_repr(StrBuf *b, const char *s, int64_t len);
/* str.format: args a tuple, kwargs a dict or NULL. */
Value *val_str_format_call(Interp *I, Value *fmt, Value *args, Value *kwargs);

/* ---- methods.c: {0}-terminated method tables, bound by val_getattr ---- */
extern const Builtin val_str_methods[];
extern const Builtin val_list_methods[];
extern const Builtin val_tuple_methods[];
extern const Builtin val_dict_methods[];

#endif
