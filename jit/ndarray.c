/* ndarray.c: the runtime's n-d array (jit/ndarray.h): host allocation, 64-byte aligned and
 * zero-filled (only nd_new allocates host data, only nd_free frees it, device memory too), and the IEEE half-precision
 * conversions that float16 arrays need on a CPU with no native half type in C. */
#include "jit/ndarray.h"
#include "jit/cuda_driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { ND_ALIGN = 64 };

size_t nd_elem_bytes(DType t) { return t.code == DT_BOOL ? 1 : (size_t)(t.bits / 8) * t.lanes; }

/* size * elem bytes; false on overflow (with room for the alignment slack). */
static bool alloc_bytes(int64_t size, size_t elem, size_t *out) {
  if (size < 0 || (elem && (uint64_t)size > (SIZE_MAX - 2 * ND_ALIGN) / elem)) return false;
  *out = (size_t)size * elem;
  return true;
}

/* An array of ND_HUGE_MIN bytes or more asks for transparent huge pages on Linux, as numpy's
 * do: madvise(MADV_HUGEPAGE) on the whole pages inside it, before anything touches them, so
 * the kernel maps it in 2 MiB pages where it can. A kernel streaming rows of a big matrix then
 * misses the TLB far less (a trial with every allocation on huge pages gave about 10 % on a
 * 2048^3 GEMM). A refusal changes nothing. */
static void huge_pages(uintptr_t data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  enum { ND_HUGE_MIN = 4 << 20, PAGE = 4096 };
  if (bytes < ND_HUGE_MIN) return;
  uintptr_t start = (data + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
  uintptr_t end = (data + bytes) & ~(uintptr_t)(PAGE - 1);
  (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
  (void)data, (void)bytes;
#endif
}

/* Zeroed by calloc, which maps a large block fresh from the kernel without touching it, so a
 * big np.zeros costs nothing until it is used; aligned by hand, the block's own address kept
 * just below the data for nd_free. Never NULL for zero bytes. */
static void *alloc_data(size_t bytes) {
  char *base = calloc(1, bytes + ND_ALIGN);
  if (!base) return NULL;
  uintptr_t data = ((uintptr_t)base + sizeof(void *) + ND_ALIGN - 1) & ~(uintptr_t)(ND_ALIGN - 1);
  ((void **)data)[-1] = base;
  huge_pages(data, bytes);
  return (void *)data;
}

static void free_data(void *data) {
  if (data) free(((void **)data)[-1]);
}

/* The array of nd_new with no data yet, and its bytes. */
static NDArray *header(DType t, int ndim, const int64_t *shape, size_t *bytes) {
  if (ndim < 0 || ndim > ND_MAX_DIMS) return NULL;
  int64_t size = 1;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0 || (shape[i] && size > INT64_MAX / shape[i])) return NULL;
    size *= shape[i];
  }
  if (!alloc_bytes(size, nd_elem_bytes(t), bytes)) return NULL;
  NDArray *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->dtype = t;
  a->ndim = ndim;
  for (int i = 0; i < ndim; i++) a->shape[i] = shape[i];
  a->size = size;
  a->device = ND_CPU;
  a->device_id = 0;
  return a;
}

NDArray *nd_new(DType t, int ndim, const int64_t *shape) {
  size_t bytes;
  NDArray *a = header(t, ndim, shape, &bytes);
  if (a && !(a->data = alloc_data(bytes))) {
    free(a);
    return NULL;
  }
  return a;
}

NDArray *nd_new_nodata(DType t, int ndim, const int64_t *shape) {
  size_t bytes;
  return header(t, ndim, shape, &bytes);
}

NDArray *nd_copy(const NDArray *a) {
  if (a->device != ND_CPU) return NULL;
  NDArray *c = nd_new(a->dtype, a->ndim, a->shape);
  if (c) {
    memcpy(c->data, a->data, (size_t)a->size * nd_elem_bytes(a->dtype));
    c->device = a->device;
    c->device_id = a->device_id;
  }
  return c;
}

static void (*ext_release)(int device_id, void *data);

void nd_set_ext_free(void (*release)(int device_id, void *data)) { ext_release = release; }

void nd_free(NDArray *a) {
  if (!a) return;
  if (a->device == ND_EXT_DEV) {
    if (ext_release) ext_release(a->device_id, a->data);
  } else if (a->device == ND_CUDA)
    cuda_mem_free(a->device_id, (CudaPtr)(uintptr_t)a->data, NULL);
  else
    free_data(a->data);
  free(a);
}

size_t nd_nbytes(const NDArray *a) { return (size_t)a->size * nd_elem_bytes(a->dtype); }

/* ---- IEEE 754 binary16 ---- */

double nd_half_to_double(uint16_t h) {
  int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v = exp == 0    ? ldexp(man, -24) /* subnormal */
             : exp == 31 ? (man ? NAN : INFINITY)
                         : ldexp(man | 0x400, exp - 25);
  return h >> 15 ? -v : v;
}

/* Straight from the double's bits, rounding to nearest even once: going through float first
 * would round twice and be off by one ulp in rare cases. */
uint16_t nd_double_to_half(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
  int exp = (int)((b >> 52) & 0x7ff), e = exp - 1023;
  uint64_t man = b & ((UINT64_C(1) << 52) - 1);
  if (exp == 0x7ff) return sign | 0x7c00 | (man ? 0x200 : 0);
  if (exp == 0) return sign; /* a double subnormal is far below half's smallest */
  if (e > 15) return sign | 0x7c00;
  /* the 53-bit significand scaled to half's 11 bits, or fewer for a half subnormal */
  int shift = e >= -14 ? 42 : 42 + (-14 - e);
  if (shift > 62) return sign;
  uint64_t sig = man | (UINT64_C(1) << 52), q = sig >> shift;
  uint64_t rem = sig & ((UINT64_C(1) << shift) - 1), halfway = UINT64_C(1) << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1))) q++;
  if (e < -14) return sign | (uint16_t)q; /* q == 0x400 is the smallest normal, as encoded */
  int he = e + 15;
  if (q == 0x800) q = 0x400, he++;
  if (he >= 31) return sign | 0x7c00;
  return sign | (uint16_t)(he << 10) | (uint16_t)(q & 0x3ff);
}

#ifdef __FLT16_MAX__
static float half_extend_float(_Float16 h) {
  uint16_t b;
  memcpy(&b, &h, sizeof b);
  return (float)nd_half_to_double(b);
}

static _Float16 half_trunc(double d) {
  uint16_t b = nd_double_to_half(d);
  _Float16 h;
  memcpy(&h, &b, sizeof h);
  return h;
}

/* float to double is exact, so rounding once from the double rounds the float once. */
static _Float16 half_trunc_float(float f) { return half_trunc(f); }

int nd_half_libcalls(const char *const **names, void *const **addrs) {
  static const char *const n[] = {"__extendhfsf2", "__truncsfhf2", "__truncdfhf2"};
  static void *const a[] = {(void *)half_extend_float, (void *)half_trunc_float,
                            (void *)half_trunc};
  *names = n;
  *addrs = a;
  return 3;
}
#else
int nd_half_libcalls(const char *const **names, void *const **addrs) {
  *names = NULL;
  *addrs = NULL;
  return 0;
}
#endif
