/* io.c: np.save and np.load of .npy files (numpy's format, NEP 1): the magic
 * "\x93NUMPY", a version, a little-endian header length, and a Python dict literal giving
 * 'descr' ('<f4'), 'fortran_order' and 'shape', space-padded so the data starts 64-byte
 * aligned, then the raw elements. save writes version 1.0, little-endian, C order, byte for
 * byte what numpy 2 writes; load also reads versions 2 and 3, big-endian data and Fortran
 * order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/np/np_impl.h"

enum { ALIGN = 64, GROWTH_AXIS_MAX_DIGITS = 21 };
static const char magic[] = "\x93NUMPY";

static const char *descr_of(DType t, char buf[8]) {
  char kind = t.code == DT_FLOAT ? 'f' : t.code == DT_UINT ? 'u' : t.code == DT_INT ? 'i' : 'b';
  size_t size = nd_elem_bytes(t);
  snprintf(buf, 8, "%c%c%zu", size == 1 ? '|' : '<', kind, size);
  return buf;
}

/* numpy's header: the dict in sorted key order, room for the first axis to grow, then spaces
 * and a newline up to the alignment. */
static void header(StrBuf *b, const NDArray *a) {
  char d[8], len[32];
  StrBuf h = STRBUF_INIT;
  sb_printf(&h, "{'descr': '%s', 'fortran_order': False, 'shape': ", descr_of(a->dtype, d));
  bi_np_shape_str(&h, a->ndim, a->shape);
  sb_puts(&h, ", }");
  if (a->ndim > 0) {
    int n = snprintf(len, sizeof len, "%lld", (long long)a->shape[0]);
    for (int i = n; i < GROWTH_AXIS_MAX_DIGITS; i++) sb_putc(&h, ' ');
  }
  size_t hlen = h.len + 1, padlen = ALIGN - (sizeof magic - 1 + 2 + 2 + hlen) % ALIGN;
  size_t total = hlen + padlen;
  sb_putn(b, magic, sizeof magic - 1);
  sb_putc(b, 1);
  sb_putc(b, 0);
  sb_putc(b, (char)(total & 0xff));
  sb_putc(b, (char)(total >> 8));
  sb_putn(b, h.s, h.len);
  for (size_t i = 0; i < padlen; i++) sb_putc(b, ' ');
  sb_putc(b, '\n');
  sb_free(&h);
}

static Value *os_error(Interp *I, const char *what, const char *path) {
  return interp_raise(I, EXC_RuntimeError, "%s '%s': %s", what, path, strerror(errno));
}

static const char *path_arg(Interp *I, Value *v, const char *fn) {
  if (v->kind == VAL_STR) return v->u.str.s;
  interp_raise(I, EXC_TypeError, "%s: file must be a path (str), not '%s'", fn, val_type_name(v));
  return NULL;
}

Value *bi_np_fn_save(Interp *I, Value *self, Value **a) {
  const char *p = path_arg(I, a[0], "save");
  if (!p) return NULL;
  bool owned;
  NDArray *arr = bi_np_array_arg(I, a[1], "save", &owned);
  if (!arr) return NULL;
  size_t n = strlen(p);
  char *path = xmalloc(n + 5);
  strcpy(path, p);
  if (n < 4 || strcmp(p + n - 4, ".npy") != 0) strcat(path, ".npy");
  StrBuf h = STRBUF_INIT;
  header(&h, arr);
  FILE *f = fopen(path, "wb");
  Value *r = NULL;
  if (!f) {
    os_error(I, "cannot open", path);
  } else {
    bool ok = fwrite(h.s, 1, h.len, f) == h.len &&
              fwrite(arr->data, 1, nd_nbytes(arr), f) == nd_nbytes(arr);
    if (fclose(f) != 0) ok = false;
    r = ok ? val_none() : os_error(I, "cannot write", path);
  }
  sb_free(&h);
  free(path);
  if (owned) nd_free(arr);
  return r;
}

/* ---- load ---- */

typedef struct Header {
  DType t;
  bool big, fortran;
  int ndim;
  int64_t shape[ND_MAX_DIMS];
} Header;

/* The text after 'key': in the header dict, or NULL. */
static const char *find_key(const char *h, const char *key) {
  char k[32];
  snprintf(k, sizeof k, "'%s'", key);
  const char *p = strstr(h, k);
  if (!p) {
    snprintf(k, sizeof k, "\"%s\"", key);
    p = strstr(h, k);
  }
  if (!p) return NULL;
  p += strlen(k);
  while (*p == ' ' || *p == ':') p++;
  return p;
}

static bool parse_descr(const char *p, Header *h) {
  char q = *p;
  if (q != '\'' && q != '"') return false;
  char order = p[1], kind = p[2];
  char *end;
  long size = strtol(p + 3, &end, 10);
  if (*end != q || (order != '<' && order != '>' && order != '|' && order != '=')) return false;
  h->big = order == '>' && size > 1;
  DTypeCode code = kind == 'f' ? DT_FLOAT : kind == 'i' ? DT_INT : kind == 'u' ? DT_UINT : DT_BOOL;
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b' && kind != '?') return false;
  h->t = code == DT_BOOL ? NP_BOOL : DT_MAKE(code, (int)size * 8, 1);
  return (code != DT_BOOL || size == 1) && bi_np_dtype_ok(h->t);
}

static bool parse_shape(const char *p, Header *h) {
  if (*p++ != '(') return false;
  h->ndim = 0;
  for (;;) {
    while (*p == ' ' || *p == ',') p++;
    if (*p == ')') return true;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (end == p || x < 0 || h->ndim == ND_MAX_DIMS) return false;
    h->shape[h->ndim++] = x;
    p = end;
    while (*p == 'L') p++; /* Python 2's long literals */
  }
}

static bool parse_header(const char *text, Header *h) {
  const char *d = find_key(text, "descr"), *f = find_key(text, "fortran_order"),
             *s = find_key(text, "shape");
  if (!d || !f || !s || !parse_descr(d, h) || !parse_shape(s, h)) return false;
  h->fortran = strncmp(f, "True", 4) == 0;
  return h->fortran || strncmp(f, "False", 5) == 0;
}

static void byteswap(NDArray *a) {
  size_t e = nd_elem_bytes(a->dtype);
  unsigned char *p = a->data;
  for (int64_t i = 0; i < a->size; i++, p += e)
    for (size_t j = 0; j < e / 2; j++) {
      unsigned char t = p[j];
      p[j] = p[e - 1 - j];
      p[e - 1 - j] = t;
    }
}

static Value *bad_file(Interp *I, const char *path, const char *why) {
  return interp_raise(I, EXC_ValueError, "np.load: %s is not a .npy file numpy wrote: %s", path,
                      why);
}

/* The array of an open .npy file. */
static NDArray *read_npy(Interp *I, FILE *f, const char *path) {
  unsigned char pre[12];
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, magic, 6) != 0)
    return bad_file(I, path, "no \\x93NUMPY magic at its start"), NULL;
  int major = pre[6];
  size_t lenbytes = major == 1 ? 2 : 4, hlen = 0;
  if ((major < 1 || major > 3) || fread(pre + 8, 1, lenbytes, f) != lenbytes)
    return bad_file(I, path, "unknown format version"), NULL;
  for (size_t i = lenbytes; i-- > 0;) hlen = hlen << 8 | pre[8 + i];
  if (hlen > (1u << 24)) return bad_file(I, path, "header too long"), NULL;
  char *text = xmalloc(hlen + 1);
  Header h;
  bool ok = fread(text, 1, hlen, f) == hlen;
  text[ok ? hlen : 0] = 0;
  ok = ok && parse_header(text, &h);
  free(text);
  if (!ok) return bad_file(I, path, "cannot read its header (dtypes of SPEC §6 only)"), NULL;
  int64_t dims[ND_MAX_DIMS];
  for (int i = 0; i < h.ndim; i++) dims[i] = h.shape[h.fortran ? h.ndim - 1 - i : i];
  NDArray *a = bi_np_new(I, h.t, h.ndim, dims);
  if (!a) return NULL;
  size_t want = nd_nbytes(a), got = fread(a->data, 1, want, f);
  if (got != want) {
    nd_free(a);
    char why[96];
    snprintf(why, sizeof why, "%zu bytes of data where its shape needs %zu", got, want);
    return bad_file(I, path, why), NULL;
  }
  if (h.big) byteswap(a);
  if (!h.fortran) return a;
  NDArray *c = bi_np_transpose(I, a, NULL); /* Fortran order is the reversed shape, transposed */
  nd_free(a);
  return c;
}

Value *bi_np_fn_load(Interp *I, Value *self, Value **a) {
  const char *path = path_arg(I, a[0], "load");
  if (!path) return NULL;
  size_t n = strlen(path);
  if (n >= 4 && strcmp(path + n - 4, ".npz") == 0)
    return interp_raise(I, EXC_RuntimeError, "not supported yet: np.load of .npz archives");
  FILE *f = fopen(path, "rb");
  if (!f) return os_error(I, "cannot open", path);
  NDArray *arr = read_npy(I, f, path);
  fclose(f);
  return bi_np_wrap(arr);
}
