/* test_ndarray.c: unit tests of jit/ndarray.c, the runtime's n-d array: sizes, alignment and
 * zero fill, refusal of impossible shapes, copies, and the binary16 conversions, which are
 * checked against their definition: every finite half reads back exactly, and a double halfway
 * between two neighbouring halves rounds to the even one (a hair off it, to the nearer). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "jit/ndarray.h"
#include "tests/unit/check.h"

static void test_ndarray_elem_bytes(void) {
  CHECK(nd_elem_bytes(DT_F32) == 4);
  CHECK(nd_elem_bytes(DT_I64) == 8);
  CHECK(nd_elem_bytes(DT_MAKE(DT_FLOAT, 16, 1)) == 2);
  CHECK(nd_elem_bytes(DT_MAKE(DT_UINT, 8, 1)) == 1);
  CHECK(nd_elem_bytes(DT_MAKE(DT_BOOL, 8, 1)) == 1);
  CHECK(nd_elem_bytes(DT_BOOL1) == 1); /* bool is one byte whatever its bit width */
}

static void test_ndarray_new(void) {
  int64_t shape[3] = {3, 5, 7};
  NDArray *a = nd_new(DT_F32, 3, shape);
  CHECK(a && a->ndim == 3 && a->size == 105 && a->shape[2] == 7);
  CHECK(a && ((uintptr_t)a->data % 64) == 0);
  CHECK(a && a->device == ND_CPU && a->device_id == 0 && dt_eq(a->dtype, DT_F32));
  CHECK(a && nd_nbytes(a) == 420);
  bool zero = true;
  for (int64_t i = 0; a && i < a->size; i++) zero &= ((float *)a->data)[i] == 0.0f;
  CHECK(zero);
  nd_free(a);

  NDArray *s = nd_new(DT_I64, 0, NULL); /* a scalar: one element */
  CHECK(s && s->ndim == 0 && s->size == 1 && ((int64_t *)s->data)[0] == 0);
  nd_free(s);

  int64_t empty[2] = {4, 0};
  NDArray *e = nd_new(DT_F64, 2, empty);
  CHECK(e && e->size == 0 && e->data != NULL && nd_nbytes(e) == 0);
  nd_free(e);
  nd_free(NULL);
}

static void test_ndarray_refuses(void) {
  int64_t neg[1] = {-1};
  CHECK(nd_new(DT_F32, 1, neg) == NULL);
  int64_t huge[2] = {INT64_MAX / 2, 4}; /* the element count overflows */
  CHECK(nd_new(DT_F32, 2, huge) == NULL);
  int64_t big[1] = {INT64_MAX / 4}; /* the byte count overflows */
  CHECK(nd_new(DT_F64, 1, big) == NULL);
  int64_t many[ND_MAX_DIMS + 1];
  for (int i = 0; i <= ND_MAX_DIMS; i++) many[i] = 1;
  CHECK(nd_new(DT_F32, ND_MAX_DIMS + 1, many) == NULL);
  NDArray *ok = nd_new(DT_F32, ND_MAX_DIMS, many);
  CHECK(ok && ok->size == 1);
  nd_free(ok);
}

static void test_ndarray_copy(void) {
  int64_t shape[2] = {4, 3};
  NDArray *a = nd_new(DT_MAKE(DT_INT, 16, 1), 2, shape);
  for (int i = 0; i < 12; i++) ((int16_t *)a->data)[i] = (int16_t)(i * 1000 - 5000);
  a->device_id = 2;
  NDArray *c = nd_copy(a);
  CHECK(c && c != a && c->data != a->data && c->size == 12 && c->shape[1] == 3);
  CHECK(c && memcmp(c->data, a->data, 24) == 0 && c->device_id == 2);
  CHECK(c && ((uintptr_t)c->data % 64) == 0);
  ((int16_t *)a->data)[0] = 7;
  CHECK(c && ((int16_t *)c->data)[0] == -5000);
  nd_free(a);
  nd_free(c);
}

static void test_ndarray_half_exact(void) {
  CHECK(nd_half_to_double(0x3c00) == 1.0);
  CHECK(nd_half_to_double(0xc000) == -2.0);
  CHECK(nd_half_to_double(0x7bff) == 65504.0);
  CHECK(nd_half_to_double(0x0001) == ldexp(1, -24)); /* smallest subnormal */
  CHECK(nd_half_to_double(0x0400) == ldexp(1, -14)); /* smallest normal */
  CHECK(isinf(nd_half_to_double(0x7c00)) && nd_half_to_double(0xfc00) < 0);
  CHECK(isnan(nd_half_to_double(0x7e00)));
  CHECK(signbit(nd_half_to_double(0x8000)) && nd_half_to_double(0x8000) == 0.0);
  /* every finite half survives the trip through double */
  for (uint32_t h = 0; h < 0x10000; h++) {
    if ((h & 0x7c00) == 0x7c00) continue;
    CHECK_QUIET(nd_double_to_half(nd_half_to_double((uint16_t)h)) == h);
  }
  passed++;
}

static void test_ndarray_half_rounding(void) {
  /* between each pair of neighbouring positive halves: ties to even, else to the nearer */
  for (uint16_t h = 0; h < 0x7bff; h++) {
    double lo = nd_half_to_double(h), hi = nd_half_to_double((uint16_t)(h + 1));
    double mid = (lo + hi) / 2; /* exact in double */
    uint16_t even = (h & 1) ? (uint16_t)(h + 1) : h;
    CHECK_QUIET(nd_double_to_half(mid) == even);
    CHECK_QUIET(nd_double_to_half(nextafter(mid, 0)) == h);
    CHECK_QUIET(nd_double_to_half(nextafter(mid, INFINITY)) == h + 1);
    CHECK_QUIET(nd_double_to_half(-mid) == (even | 0x8000));
  }
  passed++;
  CHECK(nd_double_to_half(65519.99) == 0x7bff);
  CHECK(nd_double_to_half(65520.0) == 0x7c00); /* the tie above the largest rounds to inf */
  CHECK(nd_double_to_half(1e300) == 0x7c00 && nd_double_to_half(-1e300) == 0xfc00);
  CHECK(nd_double_to_half(ldexp(1, -25)) == 0);      /* half the smallest: to even 0 */
  CHECK(nd_double_to_half(ldexp(1.0001, -25)) == 1); /* just above it: up */
  CHECK(nd_double_to_half(ldexp(1, -1074)) == 0);    /* double subnormal */
  CHECK(nd_double_to_half(-0.0) == 0x8000);
  CHECK((nd_double_to_half(NAN) & 0x7c00) == 0x7c00 && (nd_double_to_half(NAN) & 0x3ff) != 0);
  CHECK(nd_double_to_half(INFINITY) == 0x7c00);
  CHECK(nd_double_to_half(0.1) == 0x2e66); /* numpy.float16(0.1).view(numpy.uint16) */
}

int main(void) {
  test_ndarray_elem_bytes();
  test_ndarray_new();
  test_ndarray_refuses();
  test_ndarray_copy();
  test_ndarray_half_exact();
  test_ndarray_half_rounding();
  return finish();
}
