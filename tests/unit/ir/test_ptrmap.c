/* test_ptrmap.c: ir/ptrmap.c, the pointer map of ir/: lookups, replacement, growth past many
 * rehashes in an arena and on the heap, counters kept in place through ptrmap_slot, walks over
 * the slots, and keys that share a home slot. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ptrmap.h"

#include "tests/unit/check.h"

enum { N = 1000 };
static int keys[N], vals[N];

static bool holds_all(const PtrMap *m, int n) {
  for (int k = 0; k < n; k++)
    if (ptrmap_get(m, &keys[k]) != &vals[k]) return false;
  return true;
}

static void fill_and_check(PtrMap *m) {
  CHECK(ptrmap_get(m, &keys[0]) == NULL && m->n == 0);
  for (int k = 0; k < N; k++) ptrmap_put(m, &keys[k], &vals[k]);
  CHECK(m->n == N && m->cap >= 2 * N && (m->cap & (m->cap - 1)) == 0);
  CHECK(holds_all(m, N));
  CHECK(ptrmap_get(m, &vals[0]) == NULL); /* absent, though the table is full of neighbours */
  ptrmap_put(m, &keys[7], &vals[8]);      /* replaces */
  CHECK(m->n == N && ptrmap_get(m, &keys[7]) == &vals[8]);
  ptrmap_put(m, &keys[7], &vals[7]);
}

static void test_ptrmap_arena(void) {
  Arena a;
  arena_init(&a);
  PtrMap m;
  ptrmap_init(&m, &a);
  fill_and_check(&m);
  arena_free(&a);
}

static void test_ptrmap_heap(void) {
  PtrMap m = {0}; /* a zeroed map is an empty heap map */
  fill_and_check(&m);
  ptrmap_free(&m);
  CHECK(m.n == 0 && m.cap == 0 && ptrmap_get(&m, &keys[3]) == NULL);
  ptrmap_put(&m, &keys[3], &vals[3]); /* usable again */
  CHECK(ptrmap_get(&m, &keys[3]) == &vals[3] && m.n == 1);
  ptrmap_free(&m);
}

/* A slot is made holding NULL and updated in place: the counters the verifier keeps. */
static void test_ptrmap_slot(void) {
  PtrMap m = {0};
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < 50; k++) {
      void **c = ptrmap_slot(&m, &keys[k]);
      *c = (void *)((intptr_t)*c + k);
    }
  CHECK(m.n == 50);
  bool all = true;
  for (int k = 0; k < 50; k++) all &= (intptr_t)ptrmap_get(&m, &keys[k]) == 3 * k;
  CHECK(all);
  CHECK(*ptrmap_slot(&m, &vals[0]) == NULL && m.n == 51);
  ptrmap_free(&m);
}

/* A walk over the slots meets every key once. */
static void test_ptrmap_walk(void) {
  PtrMap m = {0};
  for (int k = 0; k < 100; k++) ptrmap_put(&m, &keys[k], &vals[k]);
  int seen[100] = {0}, met = 0;
  for (size_t i = 0; i < m.cap; i++) {
    if (!m.keys[i]) continue;
    const int *key = m.keys[i];
    met++;
    if (key >= keys && key < keys + 100 && m.vals[i] == &vals[key - keys]) seen[key - keys]++;
  }
  bool once = met == 100;
  for (int k = 0; k < 100; k++) once &= seen[k] == 1;
  CHECK(once);
  ptrmap_free(&m);
}

/* Keys with one home slot in a 16-slot table (found with the map's hash) probe past each
 * other, and each is still found, as is the absence of another key with that home. */
static size_t home16(const void *k) {
  return (size_t)(((uint64_t)(uintptr_t)k * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & 15;
}

static void test_ptrmap_collisions(void) {
  static char pool[1 << 16];
  const void *same[8];
  int n = 0;
  for (size_t off = 0; off < sizeof pool && n < 8; off += 8)
    if (home16(&pool[off]) == home16(&pool[0])) same[n++] = &pool[off];
  CHECK(n == 8);
  PtrMap m = {0};
  for (int k = 0; k < 7; k++) ptrmap_put(&m, same[k], &vals[k]);
  CHECK(m.cap == 16); /* all seven share one home and the table did not grow */
  bool all = true;
  for (int k = 0; k < 7; k++) all &= ptrmap_get(&m, same[k]) == &vals[k];
  CHECK(all);
  CHECK(ptrmap_get(&m, same[7]) == NULL);
  ptrmap_free(&m);
}

int main(void) {
  test_ptrmap_arena();
  test_ptrmap_heap();
  test_ptrmap_slot();
  test_ptrmap_walk();
  test_ptrmap_collisions();
  return finish();
}
