/* arena.c: a list of blocks, each filled front to back; large requests get their own block. */
#include "ir/arena.h"

#include <stdlib.h>
#include <string.h>

#include "ir/support.h"

enum { BLOCK_SIZE = 32 * 1024 };

struct ArenaBlock {
  ArenaBlock *next;
  size_t size;
  _Alignas(16) unsigned char data[];
};

void arena_init(Arena *a) {
  a->head = NULL;
  a->used = 0;
}

void arena_free(Arena *a) {
  ArenaBlock *b = a->head;
  while (b) {
    ArenaBlock *next = b->next;
    free(b);
    b = next;
  }
  arena_init(a);
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!a->head || a->used + n > a->head->size) {
    size_t size = n > BLOCK_SIZE / 4 ? n : BLOCK_SIZE;
    ArenaBlock *b = xmalloc(sizeof(ArenaBlock) + size);
    b->size = size;
    if (a->head && size != BLOCK_SIZE) {
      /* keep filling the current block: put the big one behind it */
      b->next = a->head->next;
      a->head->next = b;
      memset(b->data, 0, n);
      return b->data;
    }
    b->next = a->head;
    a->head = b;
    a->used = 0;
  }
  void *p = a->head->data + a->used;
  a->used += n;
  memset(p, 0, n);
  return p;
}

void *arena_realloc(Arena *a, void *p, size_t old, size_t n) {
  if (n <= old) return p;
  void *q = arena_alloc(a, n);
  if (p) memcpy(q, p, old);
  return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *d = arena_alloc(a, n + 1);
  memcpy(d, s, n);
  return d;
}

char *arena_strcat(Arena *a, const char *x, const char *y) {
  size_t n = strlen(x), k = strlen(y);
  char *s = arena_alloc(a, n + k + 1);
  memcpy(s, x, n);
  memcpy(s + n, y, k + 1);
  return s;
}
