/* test_objcache.c: jit/sha256.c against FIPS 180-4's examples, and jit/objcache.c: a stored
 * entry comes back, a missing one is a miss, a cut, damaged or misplaced entry is a miss and is
 * removed, TES_CACHE=0 turns the cache off, the size cap evicts the least recently used
 * entries, and code has a build to name. Every run works in a scratch XDG_CACHE_HOME. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/unit/check.h"
#include "ir/strbuf.h"
#include "jit/objcache.h"
#include "jit/sha256.h"

static void check_hash(const char *msg, size_t len, const char *want) {
  uint8_t h[32];
  char hex[65];
  sha256(msg, len, h);
  sha256_hex(h, hex);
  CHECK_TEXT(hex, want);
}

static void test_sha256(void) {
  check_hash("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  check_hash("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  check_hash(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  /* a million a's, fed in uneven pieces */
  Sha256 s;
  sha256_init(&s);
  char a[1000];
  memset(a, 'a', sizeof a);
  size_t done = 0;
  for (size_t step = 1; done < 1000000; step = step % 997 + 1) {
    size_t n = 1000000 - done < step ? 1000000 - done : step;
    sha256_update(&s, a, n);
    done += n;
  }
  uint8_t h[32];
  char hex[65];
  sha256_final(&s, h);
  sha256_hex(h, hex);
  CHECK_TEXT(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static char scratch[] = "/tmp/tes-objcache-test-XXXXXX";

static void key_of(const char *s, uint8_t key[32]) { sha256(s, strlen(s), key); }

static char *path_of(const uint8_t key[32]) {
  char hex[65];
  sha256_hex(key, hex);
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s/tes/%s.tesobj", scratch, hex);
  return sb_take(&b, NULL);
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static bool get_is(const uint8_t key[32], const char *want) {
  void *data = NULL;
  size_t len = 0;
  bool hit = objcache_get(key, &data, &len);
  bool same = hit && len == strlen(want) && memcmp(data, want, len) == 0;
  free(data);
  return same;
}

static bool miss(const uint8_t key[32]) {
  void *data = NULL;
  size_t len;
  bool hit = objcache_get(key, &data, &len);
  free(data);
  return !hit;
}

/* Rewrites byte at of the file (from the end when negative) or cuts it to at bytes. */
static void damage(const char *path, long at, bool cut) {
  FILE *f = fopen(path, "r+b");
  CHECK(f != NULL);
  if (!f) return;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  if (cut) {
    fclose(f);
    CHECK(truncate(path, at) == 0);
    return;
  }
  fseek(f, at < 0 ? size + at : at, SEEK_SET);
  int c = fgetc(f);
  fseek(f, at < 0 ? size + at : at, SEEK_SET);
  fputc(c ^ 0x5a, f);
  fclose(f);
}

static void test_store_and_damage(void) {
  uint8_t k1[32], k2[32];
  key_of("one", k1);
  key_of("two", k2);
  CHECK(miss(k1));
  objcache_put(k1, "first entry", 11);
  CHECK(get_is(k1, "first entry"));
  CHECK(miss(k2));
  objcache_put(k1, "replaced", 8);
  CHECK(get_is(k1, "replaced"));
  objcache_put(k2, "", 0);
  CHECK(get_is(k2, ""));

  char *p1 = path_of(k1);
  damage(p1, -1, false); /* the payload */
  CHECK(miss(k1));
  CHECK(!exists(p1)); /* removed, so the next build stores it again */
  objcache_put(k1, "rebuilt", 7);
  CHECK(get_is(k1, "rebuilt"));
  damage(p1, 20, false); /* the key in the header */
  CHECK(miss(k1));
  objcache_put(k1, "rebuilt", 7);
  damage(p1, 2, false); /* the magic */
  CHECK(miss(k1));
  objcache_put(k1, "rebuilt", 7);
  damage(p1, 84, true); /* cut short */
  CHECK(miss(k1) && !exists(p1));
  objcache_put(k1, "rebuilt", 7);
  damage(p1, 10, true); /* cut inside the header */
  CHECK(miss(k1) && !exists(p1));

  /* an entry under another key's name: the header's key tells */
  objcache_put(k1, "one's", 5);
  char *p2 = path_of(k2);
  CHECK(rename(p1, p2) == 0);
  CHECK(miss(k2));
  CHECK(miss(k1));
  free(p1);
  free(p2);
}

static void test_disabled(void) {
  uint8_t k[32];
  key_of("off", k);
  setenv("TES_CACHE", "0", 1);
  CHECK(objcache_dir() == NULL);
  objcache_put(k, "x", 1);
  CHECK(miss(k));
  unsetenv("TES_CACHE");
  char *p = path_of(k);
  CHECK(!exists(p)); /* nothing was written while off */
  free(p);
  char *dir = objcache_dir();
  CHECK(dir && strncmp(dir, scratch, strlen(scratch)) == 0);
  free(dir);
  /* no XDG_CACHE_HOME: HOME/.cache */
  const char *xdg = getenv("XDG_CACHE_HOME");
  char *saved = strdup(xdg);
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/nonexistent-home", 1);
  dir = objcache_dir();
  CHECK(dir && strcmp(dir, "/nonexistent-home/.cache/tes") == 0);
  free(dir);
  setenv("XDG_CACHE_HOME", saved, 1);
  free(saved);
}

static int count_entries(void) {
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s/tes", scratch);
  DIR *d = opendir(sb_cstr(&b));
  sb_free(&b);
  int n = 0;
  for (struct dirent *de; d && (de = readdir(d));) n += strstr(de->d_name, ".tesobj") != NULL;
  if (d) closedir(d);
  return n;
}

static void test_evict(void) {
  /* a cap of 40 KiB; entries of 10 KiB (+ the header) */
  setenv("TES_CACHE_MAX_MB", "0.0390625", 1);
  static char big[10240];
  uint8_t keys[6][32];
  char name[16];
  for (int i = 0; i < 6; i++) {
    snprintf(name, sizeof name, "evict %d", i);
    key_of(name, keys[i]);
  }
  /* older first: each entry's time a second after the last */
  struct timespec ts = {time(NULL) - 100, 0};
  for (int i = 0; i < 3; i++) {
    memset(big, 'a' + i, sizeof big);
    objcache_put(keys[i], big, sizeof big);
    char *p = path_of(keys[i]);
    struct timespec t[2] = {ts, ts};
    t[0].tv_sec = t[1].tv_sec = ts.tv_sec + i;
    CHECK(utimensat(AT_FDCWD, p, t, 0) == 0);
    free(p);
  }
  CHECK(count_entries() >= 3);
  /* a hit makes entry 0 the most recently used */
  void *data;
  size_t len;
  CHECK(objcache_get(keys[0], &data, &len));
  free(data);
  memset(big, 'x', sizeof big);
  objcache_put(keys[3], big, sizeof big); /* 4 entries: over 40 KiB, down to 30 */
  CHECK(miss(keys[1]));                   /* the least recently used went first */
  CHECK(!miss(keys[0]) && !miss(keys[3]));
  /* an entry larger than the cap is not stored */
  static char huge[50000];
  objcache_put(keys[5], huge, sizeof huge);
  CHECK(miss(keys[5]));
  unsetenv("TES_CACHE_MAX_MB");
}

static void test_code_id(void) {
  char *id = objcache_code_id((const void *)test_code_id);
  CHECK(id != NULL && strlen(id) >= 16);
  char *again = objcache_code_id((const void *)test_sha256);
  CHECK(again && id && strcmp(id, again) == 0); /* one executable */
  int local;
  CHECK(objcache_code_id(&local) == NULL); /* the stack is no object's code */
  free(id);
  free(again);
}

int main(void) {
  test_sha256();
  CHECK(mkdtemp(scratch) != NULL);
  setenv("XDG_CACHE_HOME", scratch, 1);
  unsetenv("TES_CACHE");
  unsetenv("TES_CACHE_MAX_MB");
  test_store_and_damage();
  test_disabled();
  test_evict();
  test_code_id();
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "rm -rf '%s'", scratch);
  CHECK(system(sb_cstr(&b)) == 0);
  sb_free(&b);
  return finish();
}
