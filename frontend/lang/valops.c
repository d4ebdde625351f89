/* valops.c: the generic operations that look inside a value: len, indexing and slicing,
 * item assignment and deletion, membership, iteration, and attributes (methods bound to their
 * receiver, module members). OBJ values go to their class hooks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/modules.h"
#include "frontend/lang/value_impl.h"

/* ---- len ---- */

/* Number of items of a range, or -1 when it does not fit an int64. */
static int64_t range_len(Value *r) {
  __int128 start = r->u.range.start, stop = r->u.range.stop, step = r->u.range.step, n = 0;
  if (step > 0 && start < stop)
    n = (stop - start - 1) / step + 1;
  else if (step < 0 && start > stop)
    n = (start - stop - 1) / -step + 1;
  return n > INT64_MAX ? -1 : (int64_t)n;
}

int64_t val_len(Interp *I, Value *v) {
  int64_t n;
  switch ((ValKind)v->kind) {
  case VAL_STR:
    return val_str_cplen(v);
  case VAL_TUPLE:
  case VAL_LIST:
    return VAL_SEQ_N(v);
  case VAL_DICT:
    return dict_len(v);
  case VAL_RANGE:
    if ((n = range_len(v)) < 0)
      interp_raise(I, EXC_OverflowError, "Python int too large to convert to C ssize_t");
    return n;
  case VAL_OBJ:
    if (v->u.obj.cls->len) return v->u.obj.cls->len(I, v);
    break;
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_SLICE:
  case VAL_FUNC:
  case VAL_BUILTIN:
  case VAL_MODULE:
  case VAL_TYPE:
  case VAL_EXC:
  case VAL_ENV:
    break;
  case VAL_KIND_COUNT:
    TES_UNREACHABLE();
  }
  interp_raise(I, EXC_TypeError, "object of type '%s' has no len()", val_type_name(v));
  return -1;
}

/* ---- slices ---- */

static int slice_part(Interp *I, Value *v, int64_t *out) {
  if (v->kind == VAL_NONE) return 0;
  Value *n = val_number_of(I, v, NUM_INDEX); /* an int, or an object's __index__ */
  if (!n || !val_is_int(n)) {
    val_xdecref(n);
    if (!interp_error_pending(I))
      interp_raise(I, EXC_TypeError,
                   "slice indices must be integers or None or have an __index__ method");
    return -1;
  }
  *out = n->u.i;
  val_decref(n);
  return 1;
}

static int64_t clamp_index(int64_t i, int64_t len, int64_t step) {
  if (i < 0) {
    i += len;
    if (i < 0) i = step < 0 ? -1 : 0;
  } else if (i >= len) {
    i = step < 0 ? len - 1 : len;
  }
  return i;
}

int val_slice_indices(Interp *I, Value *slice, int64_t len, int64_t *start, int64_t *step,
                      int64_t *count) {
  int64_t st = 1, lo, hi;
  int has_lo, has_hi, has_step = slice_part(I, slice->u.slice.step, &st);
  if (has_step < 0) return -1;
  if (st == 0) {
    interp_raise(I, EXC_ValueError, "slice step cannot be zero");
    return -1;
  }
  if (st < -INT64_MAX) st = -INT64_MAX; /* so that -step cannot overflow */
  if ((has_lo = slice_part(I, slice->u.slice.start, &lo)) < 0) return -1;
  if ((has_hi = slice_part(I, slice->u.slice.stop, &hi)) < 0) return -1;
  lo = has_lo ? clamp_index(lo, len, st) : st < 0 ? len - 1 : 0;
  hi = has_hi ? clamp_index(hi, len, st) : st < 0 ? -1 : len;
  if (st < 0)
    *count = hi < lo ? (lo - hi - 1) / -st + 1 : 0;
  else
    *count = lo < hi ? (hi - lo - 1) / st + 1 : 0;
  *start = lo;
  *step = st;
  return 0;
}

static Value *str_slice(Interp *I, Value *s, int64_t start, int64_t step, int64_t count) {
  if (step == 1) {
    int64_t a = val_str_offset(s, start), b = val_str_offset(s, start + count);
    return val_str(s->u.str.s + a, (size_t)(b - a));
  }
  StrBuf b = {.fallible = true};
  if (s->ascii) {
    for (int64_t i = 0; i < count; i++) sb_putc(&b, s->u.str.s[start + i * step]);
    return val_str_sb_fallible(I, &b);
  }
  /* byte offset of every code point, then pick */
  int64_t n = val_str_cplen(s), *off = val_alloc(I, n + 1, sizeof *off), k = 0;
  if (!off) return sb_free(&b), NULL;
  for (int64_t i = 0; i < s->u.str.len; i++)
    if (!val_utf8_cont((unsigned char)s->u.str.s[i])) off[k++] = i;
  off[n] = s->u.str.len;
  for (int64_t i = 0; i < count; i++) {
    int64_t c = start + i * step;
    sb_putn(&b, s->u.str.s + off[c], (size_t)(off[c + 1] - off[c]));
  }
  free(off);
  return val_str_sb_fallible(I, &b);
}

static Value *seq_slice(Interp *I, Value *seq, int64_t start, int64_t step, int64_t count) {
  Value *r = seq->kind == VAL_LIST ? val_list_alloc(I, count) : val_tuple_alloc(I, count);
  if (!r) return NULL;
  r->u.list->n = count;
  for (int64_t i = 0; i < count; i++)
    r->u.list->items[i] = val_incref(VAL_SEQ_ITEM(seq, start + i * step));
  return r;
}

static Value *range_slice(Interp *I, Value *r, int64_t start, int64_t step, int64_t count) {
  __int128 rs = r->u.range.start, rst = r->u.range.step;
  __int128 nstart = rs + (__int128)start * rst, nstep = rst * step;
  __int128 nstop = nstart + (__int128)count * nstep;
  if (nstart > INT64_MAX || nstart < INT64_MIN || nstep > INT64_MAX || nstep < INT64_MIN ||
      nstop > INT64_MAX || nstop < INT64_MIN)
    return interp_raise(I, EXC_OverflowError, "integer overflow");
  return val_range((int64_t)nstart, (int64_t)nstop, (int64_t)nstep);
}

static Value *get_slice(Interp *I, Value *obj, Value *slice) {
  int64_t len = val_len(I, obj), start, step, count;
  if (len < 0 || val_slice_indices(I, slice, len, &start, &step, &count) < 0) return NULL;
  if (obj->kind == VAL_STR) return str_slice(I, obj, start, step, count);
  if (obj->kind == VAL_RANGE) return range_slice(I, obj, start, step, count);
  return seq_slice(I, obj, start, step, count);
}

/* ---- indexing ---- */

/* Normalizes a possibly negative index; -1 with IndexError "WHAT index out of range". */
static int seq_index(Interp *I, int64_t i, int64_t len, const char *what, int64_t *out) {
  if (i < 0) i += len;
  if (i < 0 || i >= len) {
    interp_raise(I, EXC_IndexError, "%s index out of range", what);
    return -1;
  }
  *out = i;
  return 0;
}

static Value *str_getitem(Interp *I, Value *s, Value *key) {
  if (!val_is_int(key))
    return interp_raise(I, EXC_TypeError, "string indices must be integers, not '%s'",
                        val_type_name(key));
  int64_t i;
  if (seq_index(I, key->u.i, val_str_cplen(s), "string", &i) < 0) return NULL;
  int64_t a = val_str_offset(s, i), b = a + 1;
  while (b < s->u.str.len && val_utf8_cont((unsigned char)s->u.str.s[b])) b++;
  return val_str_char(s->u.str.s + a, b - a);
}

static Value *seq_getitem(Interp *I, Value *seq, Value *key) {
  const char *what = val_type_name(seq);
  if (!val_is_int(key))
    return interp_raise(I, EXC_TypeError, "%s indices must be integers or slices, not %s", what,
                        val_type_name(key));
  int64_t i;
  if (seq_index(I, key->u.i, VAL_SEQ_N(seq), what, &i) < 0) return NULL;
  return val_incref(VAL_SEQ_ITEM(seq, i));
}

static Value *range_getitem(Interp *I, Value *r, Value *key) {
  if (!val_is_int(key))
    return interp_raise(I, EXC_TypeError, "range indices must be integers or slices, not %s",
                        val_type_name(key));
  int64_t len = val_len(I, r), i;
  if (len < 0 || seq_index(I, key->u.i, len, "range object", &i) < 0) return NULL;
  return val_int(r->u.range.start + i * r->u.range.step);
}

static Value *not_subscriptable(Interp *I, Value *obj) {
  return interp_raise(I, EXC_TypeError, "'%s' object is not subscriptable", val_type_name(obj));
}

/* An object key of a sequence: its int when its class has one (numpy's integer scalars:
 * Python's __index__), a new reference; else key itself. NULL: the object's hook raised. */
static Value *seq_key(Interp *I, Value *key) {
  Value *n = key->kind == VAL_OBJ ? val_number_of(I, key, NUM_INDEX) : NULL;
  if (n && !val_is_int(n)) val_decref(n), n = NULL;
  return n ? n : interp_error_pending(I) ? NULL : val_incref(key);
}

Value *val_getitem(Interp *I, Value *obj, Value *key) {
  if (obj->kind == VAL_OBJ) {
    if (!obj->u.obj.cls->getitem) return not_subscriptable(I, obj);
    return obj->u.obj.cls->getitem(I, obj, key);
  }
  if (obj->kind == VAL_DICT) {
    Value *v = dict_get(I, obj, key);
    if (v) return val_incref(v);
    return interp_error_pending(I) ? NULL : val_key_error(I, key);
  }
  bool indexable = obj->kind == VAL_STR || obj->kind == VAL_LIST || obj->kind == VAL_TUPLE ||
                   obj->kind == VAL_RANGE;
  if (!indexable) return not_subscriptable(I, obj);
  if (key->kind == VAL_OBJ) {
    Value *k = seq_key(I, key);
    if (!k) return NULL;
    Value *r = k != key ? val_getitem(I, obj, k) : NULL;
    val_decref(k);
    if (k != key) return r;
  }
  if (key->kind == VAL_SLICE) return get_slice(I, obj, key);
  if (obj->kind == VAL_STR) return str_getitem(I, obj, key);
  if (obj->kind == VAL_RANGE) return range_getitem(I, obj, key);
  return seq_getitem(I, obj, key);
}

/* ---- item assignment and deletion (lists, dicts, OBJ) ---- */

/* Replaces items [start, start+count) of a list by the m items of src (held by the caller). */
static void list_splice(Value *list, int64_t start, int64_t count, Value **src, int64_t m) {
  List *l = list->u.list;
  Value **old = xmalloc((size_t)(count ? count : 1) * sizeof *old);
  memcpy(old, l->items + start, (size_t)count * sizeof *old);
  int64_t n = l->n - count + m;
  if (n > l->cap) {
    l->cap = n;
    l->items = xrealloc(l->items, (size_t)n * sizeof *l->items);
  }
  memmove(l->items + start + m, l->items + start + count,
          (size_t)(l->n - start - count) * sizeof *l->items);
  for (int64_t i = 0; i < m; i++) l->items[start + i] = val_incref(src[i]);
  l->n = n;
  /* only now that the list is whole again may freeing run */
  for (int64_t i = 0; i < count; i++) val_decref(old[i]);
  free(old);
}

static int list_set_slice(Interp *I, Value *list, Value *slice, Value *v) {
  int64_t start, step, count;
  if (val_slice_indices(I, slice, VAL_SEQ_N(list), &start, &step, &count) < 0) return -1;
  Value *src = val_to_list(I, v); /* a copy, so that a[:] = a works */
  if (!src) {
    if (interp_error_matches(I, EXC_TypeError) && v->kind != VAL_OBJ) {
      interp_error_clear(I);
      interp_raise(I, EXC_TypeError, "can only assign an iterable");
    }
    return -1;
  }
  int64_t m = VAL_SEQ_N(src);
  if (step == 1) {
    list_splice(list, start, count, src->u.list->items, m);
  } else if (m != count) {
    interp_raise(I, EXC_ValueError,
                 "attempt to assign sequence of size %lld to extended slice of size %lld",
                 (long long)m, (long long)count);
    val_decref(src);
    return -1;
  } else {
    for (int64_t i = 0; i < m; i++)
      val_seq_set_take(list, start + i * step, val_incref(VAL_SEQ_ITEM(src, i)));
  }
  val_decref(src);
  return 0;
}

static int list_setitem(Interp *I, Value *list, Value *key, Value *v) {
  if (key->kind == VAL_SLICE) return list_set_slice(I, list, key, v);
  if (!val_is_int(key)) {
    interp_raise(I, EXC_TypeError, "list indices must be integers or slices, not %s",
                 val_type_name(key));
    return -1;
  }
  int64_t i;
  if (seq_index(I, key->u.i, VAL_SEQ_N(list), "list assignment", &i) < 0) return -1;
  val_seq_set_take(list, i, val_incref(v));
  return 0;
}

int val_setitem(Interp *I, Value *obj, Value *key, Value *v) {
  if (obj->kind == VAL_LIST) {
    Value *k = seq_key(I, key);
    int r = k ? list_setitem(I, obj, k, v) : -1;
    val_xdecref(k);
    return r;
  }
  if (obj->kind == VAL_DICT) return dict_set(I, obj, key, v);
  if (obj->kind == VAL_OBJ && obj->u.obj.cls->setitem)
    return obj->u.obj.cls->setitem(I, obj, key, v);
  interp_raise(I, EXC_TypeError, "'%s' object does not support item assignment",
               val_type_name(obj));
  return -1;
}

static int list_del_slice(Interp *I, Value *list, Value *slice) {
  int64_t start, step, count;
  if (val_slice_indices(I, slice, VAL_SEQ_N(list), &start, &step, &count) < 0) return -1;
  if (count == 0) return 0;
  if (step < 0) { /* the same items, walked forwards */
    start += (count - 1) * step;
    step = -step;
  }
  if (step == 1) {
    list_splice(list, start, count, NULL, 0);
    return 0;
  }
  List *l = list->u.list;
  Value **gone = xmalloc((size_t)count * sizeof *gone);
  int64_t k = 0, w = start;
  for (int64_t r = start; r < l->n; r++) {
    if (k < count && r == start + k * step)
      gone[k++] = l->items[r];
    else
      l->items[w++] = l->items[r];
  }
  l->n = w;
  for (int64_t i = 0; i < count; i++) val_decref(gone[i]);
  free(gone);
  return 0;
}

static int list_delitem(Interp *I, Value *list, Value *key) {
  if (key->kind == VAL_SLICE) return list_del_slice(I, list, key);
  if (!val_is_int(key)) {
    interp_raise(I, EXC_TypeError, "list indices must be integers or slices, not %s",
                 val_type_name(key));
    return -1;
  }
  int64_t i;
  if (seq_index(I, key->u.i, VAL_SEQ_N(list), "list assignment", &i) < 0) return -1;
  list_splice(list, i, 1, NULL, 0);
  return 0;
}

int val_delitem(Interp *I, Value *obj, Value *key) {
  if (obj->kind == VAL_LIST) return list_delitem(I, obj, key);
  if (obj->kind == VAL_DICT) return dict_del(I, obj, key);
  interp_raise(I, EXC_TypeError, "'%s' object doesn't support item deletion", val_type_name(obj));
  return -1;
}

/* ---- membership ---- */

static int seq_contains(Interp *I, Value *seq, Value *item) {
  for (int64_t i = 0; i < VAL_SEQ_N(seq); i++) {
    int r = val_eq(I, VAL_SEQ_ITEM(seq, i), item);
    if (r != 0) return r;
  }
  return 0;
}

static int range_contains(Value *r, Value *item) {
  int64_t x;
  if (val_is_int(item))
    x = item->u.i;
  else if (item->kind == VAL_FLOAT && fabs(item->u.f) < 9.2e18 && item->u.f == floor(item->u.f))
    x = (int64_t)item->u.f;
  else
    return 0;
  __int128 d = (__int128)x - r->u.range.start, step = r->u.range.step;
  if (step > 0 ? (x < r->u.range.start || x >= r->u.range.stop)
               : (x > r->u.range.start || x <= r->u.range.stop))
    return 0;
  return d % step == 0;
}

int val_contains(Interp *I, Value *container, Value *item) {
  switch ((ValKind)container->kind) {
  case VAL_TUPLE:
  case VAL_LIST:
    return seq_contains(I, container, item);
  case VAL_STR:
    if (item->kind != VAL_STR) {
      interp_raise(I, EXC_TypeError, "'in <string>' requires string as left operand, not %s",
                   val_type_name(item));
      return -1;
    }
    return memmem(container->u.str.s, (size_t)container->u.str.len, item->u.str.s,
                  (size_t)item->u.str.len) != NULL;
  case VAL_DICT:
    if (dict_get(I, container, item)) return 1;
    return interp_error_pending(I) ? -1 : 0;
  case VAL_RANGE:
    return range_contains(container, item);
  case VAL_OBJ: {
    Value *l = val_to_list(I, container);
    if (!l) return -1;
    int r = seq_contains(I, l, item);
    val_decref(l);
    return r;
  }
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_SLICE:
  case VAL_FUNC:
  case VAL_BUILTIN:
  case VAL_MODULE:
  case VAL_TYPE:
  case VAL_EXC:
  case VAL_ENV:
    interp_raise(I, EXC_TypeError, "argument of type '%s' is not iterable",
                 val_type_name(container));
    return -1;
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- iteration ---- */

static Value *not_iterable(Interp *I, Value *v) {
  return interp_raise(I, EXC_TypeError, "'%s' object is not iterable", val_type_name(v));
}

static Value *str_chars(Interp *I, Value *s) {
  Value *l = val_list_alloc(I, val_str_cplen(s));
  if (!l) return NULL;
  for (int64_t i = 0; i < s->u.str.len;) {
    int64_t j = i + 1;
    while (j < s->u.str.len && val_utf8_cont((unsigned char)s->u.str.s[j])) j++;
    val_list_append_take(l, val_str_char(s->u.str.s + i, j - i));
    i = j;
  }
  return l;
}

static Value *range_items(Interp *I, Value *r) {
  int64_t n = val_len(I, r);
  if (n < 0) return NULL;
  /* each item is a cell of its own, allocated one by one: check them all up front */
  if (val_mem_check(I, (double)n * (double)(sizeof(Value *) + sizeof(Value))) < 0) return NULL;
  Value *l = val_list_alloc(I, n);
  if (!l) return NULL;
  for (int64_t i = 0; i < n; i++)
    val_list_append_take(l, val_int(r->u.range.start + i * r->u.range.step));
  return l;
}

static Value *obj_items(Interp *I, Value *v) {
  if (!v->u.obj.cls->to_list) return not_iterable(I, v);
  Value *l = v->u.obj.cls->to_list(I, v);
  if (l && l->kind != VAL_LIST) { /* a hook may hand back a tuple */
    Value *c = val_list_of(l->u.list->items, VAL_SEQ_N(l));
    val_decref(l);
    l = c;
  }
  return l;
}

Value *val_to_list(Interp *I, Value *v) {
  switch ((ValKind)v->kind) {
  case VAL_TUPLE:
  case VAL_LIST: {
    Value *l = val_list_alloc(I, VAL_SEQ_N(v));
    for (int64_t i = 0; l && i < VAL_SEQ_N(v); i++) val_list_append(l, VAL_SEQ_ITEM(v, i));
    return l;
  }
  case VAL_STR:
    return str_chars(I, v);
  case VAL_DICT:
    return dict_keys(v);
  case VAL_RANGE:
    return range_items(I, v);
  case VAL_OBJ:
    return obj_items(I, v);
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_SLICE:
  case VAL_FUNC:
  case VAL_BUILTIN:
  case VAL_MODULE:
  case VAL_TYPE:
  case VAL_EXC:
  case VAL_ENV:
    return not_iterable(I, v);
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* Lists, tuples, strs and ranges are walked in place (it->i is the byte offset for a str);
 * anything else becomes a list first. */
int val_iter_init(Interp *I, ValIter *it, Value *v) {
  it->i = 0;
  if (v->kind == VAL_LIST || v->kind == VAL_TUPLE || v->kind == VAL_STR || v->kind == VAL_RANGE) {
    it->seq = val_incref(v);
    return 0;
  }
  it->seq = val_to_list(I, v);
  return it->seq ? 0 : -1;
}

static Value *range_next(ValIter *it) {
  Value *r = it->seq;
  int64_t off, x;
  if (__builtin_mul_overflow(it->i, r->u.range.step, &off) ||
      __builtin_add_overflow(r->u.range.start, off, &x))
    return NULL;
  if (r->u.range.step > 0 ? x >= r->u.range.stop : x <= r->u.range.stop) return NULL;
  it->i++;
  return val_int(x);
}

Value *val_iter_next(Interp *I, ValIter *it) {
  Value *s = it->seq;
  if (!s) return NULL;
  if (s->kind == VAL_RANGE) return range_next(it);
  if (s->kind == VAL_STR) {
    if (it->i >= s->u.str.len) return NULL;
    int64_t j = it->i + 1;
    while (j < s->u.str.len && val_utf8_cont((unsigned char)s->u.str.s[j])) j++;
    Value *c = val_str_char(s->u.str.s + it->i, j - it->i);
    it->i = j;
    return c;
  }
  if (it->i >= VAL_SEQ_N(s)) return NULL; /* re-read: the loop body may change the list */
  return val_incref(VAL_SEQ_ITEM(s, it->i++));
}

void val_iter_done(ValIter *it) {
  val_xdecref(it->seq);
  it->seq = NULL;
}

/* ---- attributes ---- */

static const Builtin *methods_of(Value *v) {
  switch ((ValKind)v->kind) {
  case VAL_STR:
    return val_str_methods;
  case VAL_LIST:
    return val_list_methods;
  case VAL_TUPLE:
    return val_tuple_methods;
  case VAL_DICT:
    return val_dict_methods;
  case VAL_OBJ:
    return v->u.obj.cls->methods;
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_RANGE:
  case VAL_SLICE:
  case VAL_FUNC:
  case VAL_BUILTIN:
  case VAL_MODULE:
  case VAL_TYPE:
  case VAL_EXC:
  case VAL_ENV:
    return NULL;
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static Value *bound_method(Value *obj, Sym *name) {
  const Builtin *m = val_find_method(methods_of(obj), name);
  return m ? val_builtin(m, obj) : NULL;
}

/* The few attributes every value (__class__), function, type, module and exception has. */
static Value *special_attr(Value *obj, Sym *name) {
  if (sym_is(name, "__class__")) return val_type(val_type_of(obj));
  if (obj->kind == VAL_EXC && sym_is(name, "args")) return val_incref(obj->u.exc->args);
  if (!sym_is(name, "__name__")) return NULL;
  switch ((ValKind)obj->kind) {
  case VAL_FUNC:
    return val_incref(obj->u.func->def->name);
  case VAL_BUILTIN:
    return val_cstr(obj->u.bi.def->name);
  case VAL_TYPE:
    return val_cstr(obj->u.type->name);
  case VAL_MODULE:
    return val_incref(obj->u.mod->name);
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_STR:
  case VAL_TUPLE:
  case VAL_LIST:
  case VAL_DICT:
  case VAL_RANGE:
  case VAL_SLICE:
  case VAL_EXC:
  case VAL_ENV:
  case VAL_OBJ:
    return NULL;
  case VAL_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

const Property *val_obj_prop(Value *obj, Sym *name) {
  const ObjClass *cls = obj->u.obj.cls;
  const Property *p = val_find_prop(cls->props, name);
  return p || !cls->props_of ? p : val_find_prop(cls->props_of(obj), name);
}

Value *val_getattr_opt(Interp *I, Value *obj, Sym *name) {
  if (obj->kind == VAL_MODULE) {
    Value *v = dict_get_sym(obj->u.mod->dict, name);
    if (v) return val_incref(v);
    if ((v = mod_getattr_miss(I, obj, name)) || interp_error_pending(I)) return v;
  }
  if (obj->kind == VAL_OBJ) {
    const Property *p = val_obj_prop(obj, name);
    Value *v = p ? p->get(I, obj) : NULL;
    if (!v && !interp_error_pending(I) && obj->u.obj.cls->getattr)
      v = obj->u.obj.cls->getattr(I, obj, name);
    if (v || interp_error_pending(I)) return v;
  }
  Value *v = bound_method(obj, name);
  return v ? v : special_attr(obj, name);
}

/* AttributeError for a name obj lacks, naming the nearest one it has. */
static Value *no_attr(Interp *I, Value *obj, Sym *name) {
  Value *names = val_dir(I, obj);
  if (!names) return NULL;
  const char *near = val_nearest_name(names, SYM_STR(name));
  StrBuf b = STRBUF_INIT;
  if (obj->kind == VAL_MODULE)
    sb_printf(&b, "module '%s'", SYM_STR(obj->u.mod->name));
  else if (obj->kind == VAL_TYPE)
    sb_printf(&b, "type object '%s'", obj->u.type->name);
  else
    sb_printf(&b, "'%s' object", val_type_name(obj));
  sb_printf(&b, " has no attribute '%s'", SYM_STR(name));
  if (near) sb_printf(&b, " (did you mean '%s'?)", near);
  interp_raise(I, EXC_AttributeError, "%s", sb_cstr(&b));
  sb_free(&b);
  val_decref(names);
  return NULL;
}

Value *val_getattr(Interp *I, Value *obj, Sym *name) {
  Value *v = val_getattr_opt(I, obj, name);
  if (v || interp_error_pending(I)) return v;
  if (obj->kind == VAL_MODULE && obj->u.mod->pending)
    return interp_raise(I, EXC_RuntimeError, "not supported yet: %s.%s (%s)",
                        SYM_STR(obj->u.mod->name), SYM_STR(name), obj->u.mod->pending);
  return no_attr(I, obj, name);
}

int val_setattr(Interp *I, Value *obj, Sym *name, Value *v) {
  if (obj->kind == VAL_MODULE) {
    dict_set_sym(obj->u.mod->dict, name, v);
    return 0;
  }
  if (obj->kind == VAL_OBJ && obj->u.obj.cls->setattr)
    return obj->u.obj.cls->setattr(I, obj, name, v);
  interp_raise(I, EXC_AttributeError, "'%s' object has no attribute '%s'", val_type_name(obj),
               SYM_STR(name));
  return -1;
}

static int cmp_names(const void *a, const void *b) {
  Value *x = *(Value *const *)a, *y = *(Value *const *)b;
  int64_t n = x->u.str.len < y->u.str.len ? x->u.str.len : y->u.str.len;
  int c = memcmp(x->u.str.s, y->u.str.s, (size_t)n);
  return c ? c : (x->u.str.len > y->u.str.len) - (x->u.str.len < y->u.str.len);
}

Value *val_dir(Interp *I, Value *v) {
  if (v->kind == VAL_MODULE && mod_load_source(I, v) < 0) return NULL;
  Value *names = val_list_new(16), *k, *x;
  if (v->kind == VAL_MODULE)
    for (int64_t pos = 0; dict_next(v->u.mod->dict, &pos, &k, &x);)
      if (k->kind == VAL_STR) val_list_append(names, k);
  for (const Builtin *m = methods_of(v); m && m->name; m++)
    val_list_append_take(names, val_cstr(m->name));
  for (const Property *p = v->kind == VAL_OBJ ? v->u.obj.cls->props : NULL; p && p->name; p++)
    val_list_append_take(names, val_cstr(p->name));
  const Property *own = v->kind == VAL_OBJ && v->u.obj.cls->props_of ? v->u.obj.cls->props_of(v)
                                                                       : NULL;
  for (const Property *p = own; p && p->name; p++) val_list_append_take(names, val_cstr(p->name));
  if (v->kind == VAL_EXC) val_list_append_take(names, val_cstr("args"));
  if (v->kind == VAL_FUNC || v->kind == VAL_BUILTIN || v->kind == VAL_TYPE)
    val_list_append_take(names, val_cstr("__name__"));
  qsort(names->u.list->items, (size_t)VAL_SEQ_N(names), sizeof(Value *), cmp_names);
  return names;
}

bool val_is_callable(Value *v) {
  switch ((ValKind)v->kind) {
  case VAL_FUNC:
  case VAL_BUILTIN:
  case VAL_TYPE: return true; /* as in Python, even a type whose instances cannot be made */
  case VAL_OBJ: return v->u.obj.cls->call != NULL;
  case VAL_NONE:
  case VAL_BOOL:
  case VAL_INT:
  case VAL_FLOAT:
  case VAL_STR:
  case VAL_TUPLE:
  case VAL_LIST:
  case VAL_DICT:
  case VAL_RANGE:
  case VAL_SLICE:
  case VAL_MODULE:
  case VAL_EXC:
  case VAL_ENV: return false;
  case VAL_KIND_COUNT: break;
  }
  TES_UNREACHABLE();
}
