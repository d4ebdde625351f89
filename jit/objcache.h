/* objcache.h: the persistent compile cache (docs/build.md). A compiled module's bytes are
 * kept in a file named by its key (a SHA-256 of everything the module is built from, which the
 * caller computes) under $XDG_CACHE_HOME/tes, else ~/.cache/tes, so that a later build of the
 * same module, in this process or another, skips LLVM's optimisation and code generation.
 *
 * TES_CACHE=0 turns the cache off. TES_CACHE_MAX_MB (default 256, fractions allowed) caps the
 * folder's size: a store that takes it past the cap removes the least recently used entries
 * (each hit renews its entry's time) until the folder is under three quarters of the cap. The
 * folder's size is read on a process's first store and after each eighth of the cap it stores
 * (reading it costs a stat of every entry), so one process overshoots by at most that.
 * Each entry starts with a header: a magic string, its length, its key and the SHA-256 of its
 * bytes; an entry that does not match its header (cut short, damaged, another format) is a
 * miss and is removed, and the caller builds it anew. A store writes a scratch file and
 * renames it into place, so other processes see a whole entry or none. The cache is an
 * optimisation: a folder that cannot be made or written makes every lookup a miss, silently. */
#ifndef TES_JIT_OBJCACHE_H
#define TES_JIT_OBJCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cache's folder (malloc'd, not yet made), or NULL when the cache is off: TES_CACHE=0, or
 * neither XDG_CACHE_HOME nor HOME is set. */
char *objcache_dir(void);
/* The entry of key, malloc'd into *data (*len bytes): false on a miss. */
bool objcache_get(const uint8_t key[32], void **data, size_t *len);
/* Stores len bytes under key (replacing an entry there), then evicts down to the cap. */
void objcache_put(const uint8_t key[32], const void *data, size_t len);
/* What identifies the build of the executable or shared object holding code address addr, for
 * keys: its GNU build ID in hex, else its file's size and modification time; malloc'd. NULL
 * when neither can be found (then nothing built by that code may be cached). */
char *objcache_code_id(const void *addr);

#endif
