/* ptrmap.h: the one hash table of ir/, a map from pointers to pointers. IR objects are their
 * addresses (a Var is its pointer), so keys are compared and hashed as pointers; open
 * addressing with linear probing keeps a lookup to a multiply and a few adjacent loads. The
 * arrays live in an arena, freed with it, or, without one, on the heap until ptrmap_free. */
#ifndef TES_IR_PTRMAP_H
#define TES_IR_PTRMAP_H

#include <stddef.h>

#include "ir/arena.h"

typedef struct PtrMap {
  Arena *arena;      /* NULL: the arrays are malloc'd */
  const void **keys; /* cap slots, NULL an empty one; a walk visits i < cap where keys[i] */
  void **vals;
  size_t n, cap;     /* cap is 0 or a power of two, at least twice n */
} PtrMap;

void ptrmap_init(PtrMap *m, Arena *a);
/* Frees heap arrays (nothing for an arena's); the map is then empty and can be reused. */
void ptrmap_free(PtrMap *m);
/* key's value; NULL when absent. */
void *ptrmap_get(const PtrMap *m, const void *key);
/* key (not NULL) maps to val from now on. */
void ptrmap_put(PtrMap *m, const void *key, void *val);
/* The slot of key's value, added holding NULL when absent, for updating in place (a count
 * kept as an intptr_t). Valid until the next insertion of a new key. */
void **ptrmap_slot(PtrMap *m, const void *key);

#endif
