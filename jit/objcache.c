/* objcache.c: the compile cache's files (objcache.h). One folder, one file an entry, named
 * KEY.tesobj (the key in hex): an 80-byte header (magic, payload length, key, SHA-256 of the
 * payload), then the payload. Scratch files of stores in flight are .tmp-*; one left by a
 * process that died is removed by the next eviction scan once it is an hour old. */
#include "jit/objcache.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ir/strbuf.h"
#include "ir/support.h"
#include "jit/sha256.h"

enum { HEADER = 80 };
static const char MAGIC[8] = {'T', 'E', 'S', 'O', 'B', 'J', '1', '\n'};
static const char SUFFIX[] = ".tesobj";
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;

char *objcache_dir(void) {
  const char *on = getenv("TES_CACHE");
  if (on && strcmp(on, "0") == 0) return NULL;
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  StrBuf b = STRBUF_INIT;
  /* XDG: a relative XDG_CACHE_HOME is invalid and is ignored */
  if (xdg && xdg[0] == '/')
    sb_printf(&b, "%s/tes", xdg);
  else if (home && *home)
    sb_printf(&b, "%s/.cache/tes", home);
  else
    return NULL;
  return sb_take(&b, NULL);
}

/* The cap in bytes. */
static double max_bytes(void) {
  const char *s = getenv("TES_CACHE_MAX_MB");
  char *end;
  double mb = s && *s ? strtod(s, &end) : 256;
  if (!(mb >= 0) || (s && *s && *end)) mb = 256;
  return mb * 1024 * 1024;
}

/* Makes dir and its parents (mode 0700); false when it cannot. */
static bool make_dirs(char *dir) {
  for (char *p = dir + 1;; p++) {
    if (*p != '/' && *p) continue;
    char c = *p;
    *p = 0;
    bool ok = mkdir(dir, 0700) == 0 || errno == EEXIST;
    *p = c;
    if (!ok) return false;
    if (!c) return true;
  }
}

static char *entry_path(const char *dir, const uint8_t key[32]) {
  char hex[65];
  sha256_hex(key, hex);
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s/%s%s", dir, hex, SUFFIX);
  return sb_take(&b, NULL);
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* The payload of a whole entry of key, or NULL. */
static bool entry_ok(const uint8_t *buf, size_t size, const uint8_t key[32]) {
  if (size < HEADER || memcmp(buf, MAGIC, 8) != 0 || get_u64(buf + 8) != size - HEADER ||
      memcmp(buf + 16, key, 32) != 0)
    return false;
  uint8_t sum[32];
  sha256(buf + HEADER, size - HEADER, sum);
  return memcmp(buf + 48, sum, 32) == 0;
}

bool objcache_get(const uint8_t key[32], void **data, size_t *len) {
  char *dir = objcache_dir();
  if (!dir) return false;
  char *path = entry_path(dir, key);
  free(dir);
  size_t size = 0;
  uint8_t *buf = (uint8_t *)read_whole_file(path, &size);
  bool ok = buf && entry_ok(buf, size, key);
  if (ok) {
    *len = size - HEADER;
    *data = xmalloc(*len + 1);
    memcpy(*data, buf + HEADER, *len);
    utimensat(AT_FDCWD, path, NULL, 0); /* recently used */
  } else if (buf) {
    unlink(path); /* damaged: the caller builds and stores it again */
  }
  free(buf);
  free(path);
  return ok;
}

static bool write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, len -= (size_t)n;
  }
  return true;
}

typedef struct Entry {
  char *name;
  off_t size;
  struct timespec used;
} Entry;

static int older_first(const void *a, const void *b) {
  const struct timespec *x = &((const Entry *)a)->used, *y = &((const Entry *)b)->used;
  if (x->tv_sec != y->tv_sec) return x->tv_sec < y->tv_sec ? -1 : 1;
  return x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec;
}

/* Removes the least recently used entries while the folder holds more than cap bytes, down to
 * three quarters of it; and scratch files an hour old. */
static void evict(const char *dir, double cap) {
  DIR *d = opendir(dir);
  if (!d) return;
  Entry *es = NULL;
  int n = 0, capn = 0;
  double total = 0;
  time_t now = time(NULL);
  for (struct dirent *de; (de = readdir(d));) {
    size_t nl = strlen(de->d_name);
    bool scratch = strncmp(de->d_name, ".tmp-", 5) == 0;
    bool entry = nl > sizeof SUFFIX && strcmp(de->d_name + nl - (sizeof SUFFIX - 1), SUFFIX) == 0;
    struct stat st;
    if ((!scratch && !entry) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
      continue;
    if (scratch) {
      if (now - st.st_mtime > 3600) unlinkat(dirfd(d), de->d_name, 0);
      continue;
    }
    VEC_GROW(NULL, es, capn, n + 1);
    es[n++] = (Entry){xstrdup(de->d_name), st.st_size, st.st_mtim};
    total += (double)st.st_size;
  }
  if (total > cap) {
    qsort(es, (size_t)n, sizeof *es, older_first);
    for (int i = 0; i < n && total > cap * 0.75; i++)
      if (unlinkat(dirfd(d), es[i].name, 0) == 0) total -= (double)es[i].size;
  }
  for (int i = 0; i < n; i++) free(es[i].name);
  free(es);
  closedir(d);
}

void objcache_put(const uint8_t key[32], const void *data, size_t len) {
  char *dir = objcache_dir();
  if (!dir) return;
  double cap = max_bytes();
  if ((double)(len + HEADER) > cap || !make_dirs(dir)) {
    free(dir);
    return;
  }
  uint8_t head[HEADER];
  memcpy(head, MAGIC, 8);
  put_u64(head + 8, len);
  memcpy(head + 16, key, 32);
  sha256(data, len, head + 48);
  static unsigned counter;
  StrBuf tmp = STRBUF_INIT;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  sb_printf(&tmp, "%s/.tmp-%ld-%u-%ld", dir, (long)getpid(),
            __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED), (long)ts.tv_nsec);
  int fd = open(sb_cstr(&tmp), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    bool ok = write_all(fd, head, HEADER) && write_all(fd, data, len);
    ok = close(fd) == 0 && ok;
    char *path = entry_path(dir, key);
    if (!ok || rename(sb_cstr(&tmp), path) != 0) unlink(sb_cstr(&tmp));
    free(path);
    /* the scan reads every entry's size: on the process's first store, then once an eighth of
     * the cap has been stored since the last */
    static double unscanned = -1;
    pthread_mutex_lock(&scan_lock);
    bool scan = unscanned < 0 || (unscanned += (double)(len + HEADER)) > cap / 8;
    if (scan) unscanned = 0;
    pthread_mutex_unlock(&scan_lock);
    if (scan) evict(dir, cap);
  }
  sb_free(&tmp);
  free(dir);
}

/* ---- the build of the code ---- */

typedef struct Find {
  uintptr_t addr;
  char *id; /* found */
} Find;

/* The GNU build ID among the notes of one PT_NOTE segment, as hex into f->id. */
static void note_build_id(Find *f, const uint8_t *p, size_t size) {
  while (size >= sizeof(ElfW(Nhdr))) {
    const ElfW(Nhdr) *h = (const ElfW(Nhdr) *)p;
    size_t name = (h->n_namesz + 3) & ~(size_t)3, desc = (h->n_descsz + 3) & ~(size_t)3;
    size_t total = sizeof *h + name + desc;
    if (total > size) return;
    if (h->n_type == NT_GNU_BUILD_ID && h->n_namesz == 4 &&
        memcmp(p + sizeof *h, "GNU", 4) == 0 && h->n_descsz > 0) {
      const uint8_t *id = p + sizeof *h + name;
      StrBuf b = STRBUF_INIT;
      for (size_t i = 0; i < h->n_descsz; i++) sb_printf(&b, "%02x", id[i]);
      f->id = sb_take(&b, NULL);
      return;
    }
    p += total, size -= total;
  }
}

static int find_object(struct dl_phdr_info *info, size_t size, void *ctx) {
  (void)size;
  Find *f = ctx;
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    holds = ph->p_type == PT_LOAD && f->addr >= lo && f->addr < lo + ph->p_memsz;
  }
  if (!holds) return 0;
  for (int i = 0; i < info->dlpi_phnum && !f->id; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_NOTE)
      note_build_id(f, (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz);
  }
  if (!f->id) {
    const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
    struct stat st;
    StrBuf b = STRBUF_INIT;
    if (stat(path, &st) == 0) {
      sb_printf(&b, "size %lld mtime %lld.%09ld", (long long)st.st_size,
                (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
      f->id = sb_take(&b, NULL);
    }
  }
  return 1;
}

char *objcache_code_id(const void *addr) {
  Find f = {(uintptr_t)addr, NULL};
  dl_iterate_phdr(find_object, &f);
  return f.id;
}
