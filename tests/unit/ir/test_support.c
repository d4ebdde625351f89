/* test_support.c: ir/support.c's vec_grow, the one way arrays of ir/ and backends/ grow:
 * doubling in an arena or on the heap, a jump to a larger need, the elements kept, no move
 * while there is room, and a capacity whose byte size overflows stopping with an internal
 * error rather than a short block. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ir/arena.h"
#include "ir/support.h"

static int passed, failed;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (cond)                                                                                      \
      passed++;                                                                                    \
    else                                                                                           \
      failed++, printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                    \
  } while (0)

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
static void test_support_vec_grow_overflow(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stderr);
    int cap = 0;
    void *p = vec_grow(NULL, NULL, &cap, 1, SIZE_MAX / 4);
    _exit(p ? 0 : 1);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

int main(void) {
  test_support_vec_grow();
  test_support_vec_grow_jump();
  test_support_vec_grow_overflow();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
