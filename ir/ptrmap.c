/* ptrmap.c: the pointer map of ptrmap.h. */
#include "ir/ptrmap.h"

#include <stdint.h>
#include <stdlib.h>

#include "ir/support.h"

void ptrmap_init(PtrMap *m, Arena *a) { *m = (PtrMap){.arena = a}; }

void ptrmap_free(PtrMap *m) {
  if (!m->arena) {
    free(m->keys);
    free(m->vals);
  }
  ptrmap_init(m, m->arena);
}

/* Fibonacci hashing: the multiply spreads the aligned low bits of an address over the high
 * half, from which the slot is taken. */
static size_t home(const void *k, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)k * UINT64_C(0x9E3779B97F4A7C15);
  return (size_t)(h >> 32) & (cap - 1);
}

/* key's slot, or the empty slot where it would go; cap > n, so the probe ends. */
static size_t find(const void *const *keys, size_t cap, const void *k) {
  size_t i = home(k, cap);
  while (keys[i] && keys[i] != k) i = (i + 1) & (cap - 1);
  return i;
}

static void *zeroed(const PtrMap *m, size_t n, size_t size) {
  return m->arena ? arena_alloc(m->arena, n * size) : xcalloc(n, size);
}

static void grow(PtrMap *m) {
  size_t cap = m->cap ? m->cap * 2 : 16;
  TES_ASSERT(cap > m->cap && cap <= SIZE_MAX / sizeof(void *), "pointer map of %zu keys", m->n);
  const void **keys = zeroed(m, cap, sizeof *keys);
  void **vals = zeroed(m, cap, sizeof *vals);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = find(keys, cap, m->keys[i]);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
  }
  if (!m->arena) {
    free(m->keys);
    free(m->vals);
  }
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
}

void *ptrmap_get(const PtrMap *m, const void *key) {
  if (!m->cap) return NULL;
  size_t i = find(m->keys, m->cap, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

void **ptrmap_slot(PtrMap *m, const void *key) {
  TES_ASSERT(key, "null key in a pointer map");
  if (m->cap) {
    size_t i = find(m->keys, m->cap, key);
    if (m->keys[i]) return &m->vals[i];
  }
  if (2 * (m->n + 1) > m->cap) grow(m);
  size_t i = find(m->keys, m->cap, key);
  m->keys[i] = key;
  m->vals[i] = NULL;
  m->n++;
  return &m->vals[i];
}

void ptrmap_put(PtrMap *m, const void *key, void *val) { *ptrmap_slot(m, key) = val; }
