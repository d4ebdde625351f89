/* sha256.h: SHA-256 (FIPS 180-4), for the compile cache (jit/objcache.h): the key of a module
 * is the hash of what it is built from, and each entry carries the hash of its bytes, so that a
 * cut or corrupt entry is seen. */
#ifndef TES_JIT_SHA256_H
#define TES_JIT_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct Sha256 {
  uint32_t h[8];
  uint64_t len; /* bytes hashed so far */
  uint8_t buf[64];
  size_t nbuf;
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t len);
void sha256_final(Sha256 *s, uint8_t out[32]);
/* The hash of data in one call. */
void sha256(const void *data, size_t len, uint8_t out[32]);
/* The 64 lowercase hex digits of a hash, and a terminating 0. */
void sha256_hex(const uint8_t hash[32], char out[65]);

#endif
