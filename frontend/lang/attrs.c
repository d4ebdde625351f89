/* attrs.c: the attributes a class declares in tables (Builtin methods, Property rows), found
 * by interned name, and the nearest name to a misspelt one for an error's "did you mean". */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/state.h"
#include "frontend/lang/value_impl.h"

/* Both kinds of row open with their name, so one walk over a table serves both. */
_Static_assert(offsetof(Builtin, name) == 0 && offsetof(Property, name) == 0,
               "a table row opens with its name");

static const char *row_name(const void *table, size_t stride, size_t i) {
  return *(const char *const *)((const char *)table + i * stride);
}

/* The names of each table met so far (TesState.names), interned on first use (tables are
 * static consts, so they cannot hold them), keyed by the table's address. Interned names live
 * as long as the state, and so does this cache. */

static size_t table_slot(TableNames *slots, size_t mask, const void *table) {
  uint64_t h = (uint64_t)(uintptr_t)table * UINT64_C(0x9e3779b97f4a7c15);
  size_t j = (size_t)(h >> 32) & mask;
  while (slots[j].table && slots[j].table != table) j = (j + 1) & mask;
  return j;
}

static void cache_grow(TesState *G) {
  size_t size = G->names.slots ? 2 * (G->names.mask + 1) : 64;
  TableNames *slots = xcalloc(size, sizeof *slots);
  for (size_t i = 0; G->names.slots && i <= G->names.mask; i++)
    if (G->names.slots[i].table)
      slots[table_slot(slots, size - 1, G->names.slots[i].table)] = G->names.slots[i];
  free(G->names.slots);
  G->names.slots = slots;
  G->names.mask = size - 1;
}

static const TableNames *names_of(const void *table, size_t stride) {
  TesState *G = tes_state();
  if (!G->names.slots || 2 * (G->names.n + 1) > G->names.mask) cache_grow(G);
  TableNames *e = &G->names.slots[table_slot(G->names.slots, G->names.mask, table)];
  if (e->table) return e;
  size_t n = 0;
  while (row_name(table, stride, n)) n++;
  Sym **syms = xmalloc((n ? n : 1) * sizeof *syms);
  for (size_t i = 0; i < n; i++) syms[i] = sym_cstr(row_name(table, stride, i));
  *e = (TableNames){table, syms, n};
  G->names.n++;
  return e;
}

/* The row index of name in the table, or -1. */
static ptrdiff_t find_row(const void *table, size_t stride, Sym *name) {
  if (!table) return -1;
  const TableNames *t = names_of(table, stride);
  for (size_t i = 0; i < t->n; i++)
    if (t->syms[i] == name) return (ptrdiff_t)i;
  return -1;
}

const Property *val_find_prop(const Property *props, Sym *name) {
  ptrdiff_t i = find_row(props, sizeof *props, name);
  return i < 0 ? NULL : &props[i];
}

const Builtin *val_find_method(const Builtin *methods, Sym *name) {
  ptrdiff_t i = find_row(methods, sizeof *methods, name);
  return i < 0 ? NULL : &methods[i];
}

/* ---- did you mean ---- */

/* Levenshtein distance, one row at a time; names longer than 64 bytes are never near. */
static size_t edit_distance(const char *a, size_t n, const char *b, size_t m) {
  size_t row[65];
  for (size_t j = 0; j <= m; j++) row[j] = j;
  for (size_t i = 1; i <= n; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[m];
}

/* Near means Python's bound: a distance of at most (the two lengths + 3) / 6, so "shap" finds
 * "shape" but "nope" does not find "pop". The first of equally near names wins. */
const char *val_nearest_name(Value *names, const char *name) {
  size_t n = strlen(name), best = SIZE_MAX;
  const char *found = NULL;
  if (n > 64) return NULL;
  for (int64_t i = 0; i < VAL_SEQ_N(names); i++) {
    Value *s = VAL_SEQ_ITEM(names, i);
    if (s->kind != VAL_STR) continue;
    size_t m = (size_t)s->u.str.len;
    if (m > 64 || (m == n && !memcmp(s->u.str.s, name, n))) continue;
    size_t d = edit_distance(name, n, s->u.str.s, m);
    if (6 * d <= n + m + 3 && d < best) {
      best = d;
      found = s->u.str.s;
    }
  }
  return found;
}
