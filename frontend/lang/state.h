/* state.h: the heap state of the frontend (Lua's global_State): interned names, type objects,
 * the recycled Value cells, the free queue, the recursion guards, the cycle collector's list,
 * the attribute-name cache and numpy's integer hook. The Interp owns it: interp_new opens it and
 * the last interp_free closes it, freeing everything it holds, interned names included, so that
 * nothing of the heap outlives the last Interp.
 *
 * Functions that take no Interp (sym_intern, the value constructors, gc_track, val_free_) reach
 * it through tes_G, the one pointer left global: Lua's functions find it through their
 * lua_State, but a value constructor is given none. Interps alive at the same time share one
 * state, as Lua's threads share a global_State (the REPL's :reset makes the new session before
 * it frees the old one, and a name interned by one must be the same pointer in the other). The
 * process is single-threaded, so a plain pointer will do. A parse with no Interp (the parser's
 * unit tests) opens one on first use; the next interp_new adopts it. */
#ifndef TES_STATE_H
#define TES_STATE_H

#include "frontend/lang/value.h"

typedef struct ValueTable { /* open addressing, a power-of-two number of slots */
  Value **slots;
  uint64_t mask;
  int64_t n;
} ValueTable;

typedef struct TableNames { /* attrs.c: the interned names of one table of rows */
  const void *table;
  Sym **syms; /* one per row, in row order */
  size_t n;
} TableNames;

enum { ENV_POOL_SLOTS = 16, ENV_POOL_MAX = 256 }; /* frames of < 16 slots, 256 of each size */

typedef struct TesState {
  int users; /* Interps that hold it; 0 while only a parse with no Interp has used it */
  /* value.c */
  ValueTable interned;          /* the interned names (immortal strs) */
  ValueTable types;             /* one immortal VAL_TYPE value per TypeObj */
  Value *free_cells;            /* recycled cells, linked through their first word */
  int64_t n_free_cells;
  /* recycled call frames (Env with their slots) by slot count, linked through parent; a
   * function call takes one instead of a calloc */
  struct Env *env_pool[ENV_POOL_SLOTS];
  int env_pool_n[ENV_POOL_SLOTS];
  int free_depth;               /* val_free_ calls in progress */
  Value **free_queue;           /* values whose freeing waits for the outermost val_free_ */
  int64_t free_queue_n, free_queue_cap;
  int val_depth;                /* val_enter: nesting of repr, ==, hash over user data */
  /* strfmt.c: containers being printed, innermost last */
  struct {
    Value **v;
    int n, cap;
  } busy;
  /* gc.c */
  GcHead tracked; /* sentinel of the circular list of containers */
  int64_t n_tracked;
  int64_t collect_at; /* n_tracked that makes a collection due: twice the count left by the
                         last one, and at least 1000 more */
  /* attrs.c: the names of each table met so far, keyed by the table's address */
  struct {
    TableNames *slots;
    size_t mask, n;
  } names;
  /* np/np.c: the integer a value of a room above lang stands for (te's constants); set by the
   * tvm package when it is imported */
  bool (*int_hook)(Value *v, int64_t *out);
  /* np/np.c: device arrays of the tvm package (np.h's NpDeviceHooks), set when it is imported */
  const struct NpDeviceHooks *device_hooks;
} TesState;

extern TesState *tes_G;

TesState *tes_state_boot(void); /* opens a state no Interp holds yet */
static inline TesState *tes_state(void) {
  return __builtin_expect(tes_G != NULL, 1) ? tes_G : tes_state_boot();
}

/* interp_new and interp_free: the first open makes the state (or adopts the booted one), the
 * last close frees every container left (cycles the collector cannot see included), then the
 * rest of the heap. */
void tes_state_open(void);
void tes_state_close(void);

/* gc_maybe_collect's test, inline for exec.c's statement boundaries */
static inline bool gc_collect_due(void) {
  TesState *G = tes_state();
  return G->n_tracked >= G->collect_at;
}

/* gc.c: drops every reference held by every tracked container, so all of them go. */
void gc_release_all(void);

#endif
