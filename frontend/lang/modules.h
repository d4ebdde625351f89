/* modules.h: the builtin modules (SPEC §5) and the import machinery. A module is declared by a
 * ModuleDef; importing it builds a module value once per session and caches it. */
#ifndef TES_MODULES_H
#define TES_MODULES_H

#include "frontend/lang/value.h"

typedef struct ModuleDef {
  const char *name;      /* dotted: "os.path"; a parent module gets it as an attribute */
  const Builtin *funcs;  /* {0}-terminated, may be NULL */
  /* Adds constants and other members; -1 with an exception raised on failure. May be NULL. */
  int (*init)(Interp *I, Value *module);
  const char *doc;       /* NULL for a module written in TES: its file's (mod_doc) */
  const char *pending;   /* see Module.pending in value.h; NULL for complete modules */
  /* see Module.source in value.h; NULL for builtin modules. A package's ("topi/__init__.tes")
   * submodules are the files in its folder, found by path. */
  const char *source;
} ModuleDef;

/* A name that imports as another module's very object (`te` is `tvm.te`), so both names
 * share one module value instead of two copies that drift apart. As a prebound name: the name
 * a session binds to that module before its first statement (SPEC §5's `np`). */
typedef struct ModuleAlias {
  const char *name, *target;
} ModuleAlias;

/* A room's modules. The language knows its own (math, os, sys, ...); the rooms above it (the
 * numpy subset, the tvm bindings) add theirs with mod_register at start-up, so the language
 * names none of them, not even at link time. */
typedef struct ModuleSet {
  const ModuleDef *const *defs; /* NULL-terminated */
  const ModuleAlias *aliases;   /* {0}-terminated; NULL for none */
  const ModuleAlias *prebound;  /* {0}-terminated; NULL for none */
} ModuleSet;

/* Adds set to what `import`, mod_known and mod_doc find and what interp_new binds. Called by
 * each program's start (tvm_register_modules in main.c, the C tests, the fuzzer) before its
 * first interp_new: the table is the process's, as a link-time table would be. A set already
 * registered is not added again. */
void mod_register(const ModuleSet *set);

/* Binds every registered prebound name in `globals` (interp_new). */
void mod_bind_prebound(Interp *I, Value *globals);


/* `import a.b`: returns module "a.b" (new reference), importing parents first. ImportError
 * naming the module if unknown. Cached per Interp in the dict `cache`. */
Value *mod_import(Interp *I, Value *cache, const char *dotted);

/* Whether `import DOTTED` finds a module: a builtin one, an alias, or a file of stdlib/ below a
 * package written in TES (found by path, modules.c). */
bool mod_known(const char *dotted);

/* Module DOTTED's doc line (malloc'd), or NULL: its ModuleDef's, else its stdlib file's. */
char *mod_doc(const char *dotted);

/* Module m has no member `name`: runs its file if it is written in TES and not loaded yet, then
 * looks again, then imports submodule m.NAME if one is found by path. New reference; NULL if
 * absent (nothing raised) or on error (raised). */
Value *mod_getattr_miss(Interp *I, Value *m, Sym *name);

/* Fills the builtins dict: functions, type objects, exception classes, constants. */
void builtins_install(Interp *I, Value *builtins);

/* Every builtin function table, for :help and completion. */
extern const Builtin builtin_funcs[];

/* Loads source module m (Module.source set): runs its stdlib file with the module's members
 * as globals. 0 (also when there is nothing to load) or -1 with the error raised. */
int mod_load_source(Interp *I, Value *m);

#endif
