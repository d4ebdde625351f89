/* test_support.c: ir/support.c's vec_grow, the one way arrays of ir/ and backends/ grow:
 * doubling in an arena or on the heap, a jump to a larger need, the elements kept, no move
 * while there is room, and a capacity whose byte size overflows stopping with an internal
 * error rather than a short block. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir/arena.h"
#include "ir/support.h"

#include "tests/unit/check.h"

/* Appends 0..n-1 one at a time, counting the moves; true when every element survived. */
static bool append_all(Arena *a, int n, int *moves, int *cap_out) {
  int64_t *xs = NULL;
  int len = 0, cap = 0;
  *moves = 0;
  for (int i = 0; i < n; i++) {
    int64_t *before = xs;
    VEC_GROW(a, xs, cap, len + 1);
    *moves += xs != before;
    xs[len++] = i * 3;
  }
  bool ok = cap >= n;
  for (int i = 0; i < n; i++) ok &= xs[i] == i * 3;
  if (!a) free(xs);
  *cap_out = cap;
  return ok;
}

static void test_support_vec_grow(void) {
  Arena a;
  arena_init(&a);
  int moves, cap;
  CHECK(append_all(&a, 1000, &moves, &cap));
  CHECK(cap == 1024 && moves == 8); /* 8, 16, ..., 1024 */
  CHECK(append_all(NULL, 1000, &moves, &cap));
  CHECK(cap == 1024);
  CHECK(append_all(&a, 1, &moves, &cap) && cap == 8 && moves == 1);
  arena_free(&a);
}

/* A need past twice the capacity is met at once; one within it does not move the array. */
static void test_support_vec_grow_jump(void) {
  char *p = NULL;
  int cap = 0;
  VEC_GROW(NULL, p, cap, 100);
  CHECK(cap == 128);
  p[99] = 'x';
  char *q = p;
  VEC_GROW(NULL, p, cap, 128);
  CHECK(p == q && cap == 128 && p[99] == 'x');
  VEC_GROW(NULL, p, cap, 1000);
  CHECK(cap == 1024 && p[99] == 'x');
  free(p);
}

/* Elements of SIZE_MAX / 4 bytes: 8 of them do not fit a size_t, which must stop the
 * process (an internal error) and not hand back a block too small. */
static void grow_too_far(void) {
  int cap = 0;
  vec_grow(NULL, NULL, &cap, 1, SIZE_MAX / 4);
}

static void test_support_vec_grow_overflow(void) { CHECK(dies(grow_too_far)); }

int main(void) {
  test_support_vec_grow();
  test_support_vec_grow_jump();
  test_support_vec_grow_overflow();
  return finish();
}
