/* arena.h: bump allocation for trees that die together (an AST per parsed source, the IR of
 * one lowering). Nothing allocated in an arena owns a reference-counted value. */
#ifndef TES_ARENA_H
#define TES_ARENA_H

#include <stddef.h>

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
  ArenaBlock *head;
  size_t used; /* bytes used in head */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);                 /* frees every block; the arena can be reused */
void *arena_alloc(Arena *a, size_t n);     /* zeroed, 16-byte aligned */
void *arena_realloc(Arena *a, void *p, size_t old, size_t n); /* grows by copying */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strcat(Arena *a, const char *x, const char *y); /* x then y, one new string */

#endif
