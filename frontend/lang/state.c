/* state.c: the frontend's heap state (state.h): its birth, its sharing among Interps and its
 * teardown with the last of them. */
#include <stdlib.h>

#include "frontend/lang/state.h"

TesState *tes_G;

TesState *tes_state_boot(void) {
  TesState *G = xcalloc(1, sizeof *G);
  G->tracked.next = G->tracked.prev = &G->tracked;
  G->collect_at = 1000;
  tes_G = G;
  return G;
}

void tes_state_open(void) { tes_state()->users++; }

static void free_table(ValueTable *t, bool strs) {
  for (uint64_t i = 0; t->slots && i <= t->mask; i++) {
    Value *v = t->slots[i];
    if (!v) continue;
    if (strs) free(v->u.str.s);
    free(v);
  }
  free(t->slots);
}

void tes_state_close(void) {
  TesState *G = tes_G;
  if (!G || --G->users > 0) return;
  gc_release_all(); /* first: freeing values still recycles cells and reads interned names */
  for (Value *v = G->free_cells, *next; v; v = next) {
    next = *(Value **)v;
    free(v);
  }
  for (int n = 0; n < ENV_POOL_SLOTS; n++)
    for (Env *e = G->env_pool[n], *next; e; e = next) {
      next = (Env *)e->parent;
      free(e);
    }
  free(G->free_queue);
  free(G->busy.v);
  free_table(&G->interned, true);
  free_table(&G->types, false);
  for (size_t i = 0; G->names.slots && i <= G->names.mask; i++) free(G->names.slots[i].syms);
  free(G->names.slots);
  free(G);
  tes_G = NULL;
}
