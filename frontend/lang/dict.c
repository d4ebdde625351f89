/* dict.c: the insertion-ordered hash table behind dicts, module members and globals. CPython
 * 3.6's layout: a sparse table of entry numbers probed by hash, over a dense array of entries
 * in insertion order. Deleting leaves a hole in the entries (order survives) and a dummy in
 * the table (probe chains survive); growing compacts both. */
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/value_impl.h"

enum { DICT_EMPTY = -1, DICT_DUMMY = -2, DICT_MIN_CAP = 6 };
enum { LOOKUP_ERROR = -2, LOOKUP_ABSENT = -1 };

/* Versions are drawn from one counter, so that a version names one dict in one layout: a
 * cache that holds a version (dict_get_sym_cached) needs no pointer to know it is stale. */
static uint64_t last_version;
static void new_version(Dict *d) { d->version = ++last_version; }

/* An index table at least 3/2 the entry capacity keeps probe chains short. With an Interp, a
 * table too large for the memory left is a MemoryError (-1, d untouched): a script can grow
 * a dict as far as it likes. Without one (module members, globals) running out is fatal. */
static int table_init(Interp *I, Dict *d, int64_t cap) {
  uint64_t size = 8;
  while (size < (uint64_t)cap + (uint64_t)cap / 2 + 1) size *= 2;
  int64_t *index = I ? val_alloc(I, (int64_t)size, sizeof *index) : xmalloc(size * sizeof *index);
  DictEntry *entries = !index ? NULL
                       : I    ? val_alloc(I, cap, sizeof *entries)
                              : xmalloc((size_t)cap * sizeof *entries);
  if (!entries) return free(index), -1;
  d->mask = size - 1;
  d->index = index;
  for (uint64_t i = 0; i < size; i++) d->index[i] = DICT_EMPTY;
  d->cap = cap;
  d->entries = entries;
  d->used = d->n = 0;
  new_version(d);
  return 0;
}

Dict *dict_alloc_(void) {
  Dict *d = xcalloc(1, sizeof *d);
  table_init(NULL, d, DICT_MIN_CAP);
  return d;
}

#define PROBE_NEXT(i, perturb, mask) (perturb >>= 5, (i) = ((i)*5 + perturb + 1) & (mask))

/* Places an entry whose key is known to be absent (growing, copying): no comparisons. */
static void insert_fresh(Dict *d, uint64_t hash, Value *key, Value *value) {
  uint64_t i = hash & d->mask, perturb = hash;
  while (d->index[i] != DICT_EMPTY) PROBE_NEXT(i, perturb, d->mask);
  d->index[i] = d->used;
  d->entries[d->used++] = (DictEntry){hash, key, value};
  d->n++;
}

static int resize(Interp *I, Dict *d, int64_t min_cap) {
  DictEntry *old = d->entries;
  int64_t used = d->used, *old_index = d->index;
  if (table_init(I, d, min_cap < DICT_MIN_CAP ? DICT_MIN_CAP : min_cap) < 0) return -1;
  free(old_index);
  for (int64_t i = 0; i < used; i++)
    if (old[i].key) insert_fresh(d, old[i].hash, old[i].key, old[i].value);
  free(old);
  return 0;
}

/* Keys compare by pointer, then hash, then ==. Without an Interp (the _sym functions, whose
 * keys are strs) only str keys are compared, which can neither fail nor run code. */
static int keys_equal(Interp *I, Dict *d, Value *a, Value *key, bool *restart) {
  if (a->kind == VAL_STR && key->kind == VAL_STR)
    return a->u.str.len == key->u.str.len &&
           !memcmp(a->u.str.s, key->u.str.s, (size_t)key->u.str.len);
  if (!I) return 0;
  uint64_t version = d->version;
  val_incref(a);
  int r = val_eq(I, a, key);
  val_decref(a);
  *restart = r >= 0 && d->version != version; /* == changed the dict: look again */
  return r;
}

/* The entry number of key, LOOKUP_ABSENT or LOOKUP_ERROR. *slot is the table slot holding it,
 * or the one where it would go. */
static int64_t lookup(Interp *I, Dict *d, Value *key, uint64_t hash, uint64_t *slot) {
  for (;;) {
    uint64_t i = hash & d->mask, perturb = hash;
    int64_t free_slot = -1;
    bool restart = false;
    for (;;) {
      int64_t ix = d->index[i];
      if (ix == DICT_EMPTY) {
        *slot = free_slot >= 0 ? (uint64_t)free_slot : i;
        return LOOKUP_ABSENT;
      }
      if (ix == DICT_DUMMY) {
        if (free_slot < 0) free_slot = (int64_t)i;
      } else if (d->entries[ix].key == key) {
        *slot = i;
        return ix;
      } else if (d->entries[ix].hash == hash) {
        int r = keys_equal(I, d, d->entries[ix].key, key, &restart);
        if (r < 0) return LOOKUP_ERROR;
        if (restart) break;
        if (r) {
          *slot = i;
          return ix;
        }
      }
      PROBE_NEXT(i, perturb, d->mask);
    }
  }
}

static int insert(Interp *I, Dict *d, Value *key, uint64_t hash, Value *v) {
  uint64_t slot;
  int64_t ix = lookup(I, d, key, hash, &slot);
  if (ix == LOOKUP_ERROR) return -1;
  if (ix >= 0) { /* Python keeps the first key and replaces the value */
    Value *old = d->entries[ix].value;
    d->entries[ix].value = val_incref(v);
    val_decref(old);
    return 0;
  }
  if (d->used == d->cap) {
    if (resize(I, d, 2 * d->n + 4) < 0) return -1;
    insert_fresh(d, hash, val_incref(key), val_incref(v));
    return 0;
  }
  val_incref(key);
  val_incref(v);
  d->index[slot] = d->used;
  d->entries[d->used++] = (DictEntry){hash, key, v};
  d->n++;
  new_version(d);
  return 0;
}

Value *dict_get(Interp *I, Value *dict, Value *key) {
  uint64_t hash, slot;
  if (val_hash(I, key, &hash) < 0) return NULL;
  int64_t ix = lookup(I, dict->u.dict, key, hash, &slot);
  return ix >= 0 ? dict->u.dict->entries[ix].value : NULL;
}

Value *dict_get_sym(Value *dict, Sym *name) {
  uint64_t hash, slot;
  val_hash(NULL, name, &hash); /* a str: cannot fail */
  int64_t ix = lookup(NULL, dict->u.dict, name, hash, &slot);
  return ix >= 0 ? dict->u.dict->entries[ix].value : NULL;
}

Value *dict_get_sym_cached(Value *globals, Value *builtins, Sym *name, SymCache *c) {
  Dict *g = globals->u.dict, *b = builtins->u.dict;
  if (c->gver == g->version) {
    if (c->ix >= 0) return g->entries[c->ix].value;
    if (c->bver == b->version) return b->entries[~c->ix].value;
  }
  uint64_t hash, slot;
  val_hash(NULL, name, &hash); /* a str: cannot fail */
  int64_t ix = lookup(NULL, g, name, hash, &slot);
  if (ix >= 0) {
    *c = (SymCache){g->version, 0, ix};
    return g->entries[ix].value;
  }
  ix = lookup(NULL, b, name, hash, &slot);
  if (ix < 0) return NULL;
  *c = (SymCache){g->version, b->version, ~ix};
  return b->entries[ix].value;
}

int dict_set(Interp *I, Value *dict, Value *key, Value *v) {
  uint64_t hash;
  if (val_hash(I, key, &hash) < 0) return -1;
  return insert(I, dict->u.dict, key, hash, v);
}

void dict_set_sym(Value *dict, Sym *name, Value *v) {
  uint64_t hash;
  val_hash(NULL, name, &hash);
  insert(NULL, dict->u.dict, name, hash, v);
}

int dict_del(Interp *I, Value *dict, Value *key) {
  Dict *d = dict->u.dict;
  uint64_t hash, slot;
  if (val_hash(I, key, &hash) < 0) return -1;
  int64_t ix = lookup(I, d, key, hash, &slot);
  if (ix == LOOKUP_ERROR) return -1;
  if (ix == LOOKUP_ABSENT) {
    val_key_error(I, key);
    return -1;
  }
  DictEntry e = d->entries[ix];
  d->index[slot] = DICT_DUMMY;
  d->entries[ix].key = d->entries[ix].value = NULL;
  d->n--;
  new_version(d);
  val_decref(e.key);
  val_decref(e.value);
  return 0;
}

int64_t dict_len(Value *dict) { return dict->u.dict->n; }

bool dict_next(Value *dict, int64_t *pos, Value **key, Value **value) {
  Dict *d = dict->u.dict;
  while (*pos < d->used) {
    DictEntry *e = &d->entries[(*pos)++];
    if (e->key) {
      *key = e->key;
      *value = e->value;
      return true;
    }
  }
  return false;
}

static void release_entries(DictEntry *entries, int64_t used) {
  for (int64_t i = 0; i < used; i++) {
    val_xdecref(entries[i].key);
    val_xdecref(entries[i].value);
  }
  free(entries);
}

void dict_free_(Dict *d) {
  gc_untrack(&d->gc);
  free(d->index);
  release_entries(d->entries, d->used);
  free(d);
}

/* The dict is empty before any key or value is released, since releasing may free things
 * that look at it. */
void dict_clear(Value *dict) {
  Dict *d = dict->u.dict;
  DictEntry *old = d->entries;
  int64_t used = d->used;
  free(d->index);
  table_init(NULL, d, DICT_MIN_CAP);
  release_entries(old, used);
}

Value *dict_copy(Value *dict) {
  Dict *s = dict->u.dict;
  Value *c = val_dict_new();
  Dict *d = c->u.dict;
  if (s->n > d->cap) resize(NULL, d, s->n);
  for (int64_t i = 0; i < s->used; i++)
    if (s->entries[i].key)
      insert_fresh(d, s->entries[i].hash, val_incref(s->entries[i].key),
                   val_incref(s->entries[i].value));
  return c;
}

Value *dict_keys(Value *dict) {
  Dict *d = dict->u.dict;
  Value *l = val_list_new(d->n);
  for (int64_t i = 0; i < d->used; i++)
    if (d->entries[i].key) val_list_append(l, d->entries[i].key);
  return l;
}

void dict_visit_(Dict *d, void (*fn)(Value *child, void *arg), void *arg) {
  for (int64_t i = 0; i < d->used; i++)
    if (d->entries[i].key) {
      fn(d->entries[i].key, arg);
      fn(d->entries[i].value, arg);
    }
}
