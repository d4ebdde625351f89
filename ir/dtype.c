/* dtype.c: dtype names, read and written in TVM's spelling ("float32x4", "bool", "handle"),
 * and C's names for them. */
#include "ir/dtype.h"

#include <stdio.h>
#include <string.h>

#include "ir/support.h"

/* Reads the decimal number at *p into *out (advancing *p); false when there is none or it is
 * out of [lo, hi]. */
static bool parse_number(const char **p, long lo, long hi, long *out) {
  const char *s = *p;
  if (*s < '0' || *s > '9') return false;
  long v = 0;
  while (*s >= '0' && *s <= '9') {
    v = v * 10 + (*s++ - '0');
    if (v > hi) return false;
  }
  if (v < lo) return false;
  *out = v;
  *p = s;
  return true;
}

/* The code word at the start of name: "int", "uint", "float", "bool", "handle". */
static const char *parse_code(const char *name, DTypeCode *code) {
  static const struct {
    const char *word;
    DTypeCode code;
  } words[] = {
      {"uint", DT_UINT}, {"int", DT_INT},       {"float", DT_FLOAT},
      {"bool", DT_BOOL}, {"handle", DT_HANDLE},
  };
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    size_t n = strlen(words[i].word);
    if (strncmp(name, words[i].word, n) == 0) {
      *code = words[i].code;
      return name + n;
    }
  }
  return NULL;
}

static int default_bits(DTypeCode code) {
  switch (code) {
  case DT_INT:
  case DT_UINT:
  case DT_FLOAT:
    return 32;
  case DT_BOOL:
    return 1;
  case DT_HANDLE:
    return 64;
  }
  TES_UNREACHABLE();
}

static bool bits_ok(DTypeCode code, long bits) {
  switch (code) {
  case DT_INT:
  case DT_UINT:
    return bits >= 1 && bits <= 64;
  case DT_FLOAT:
    return bits == 16 || bits == 32 || bits == 64;
  case DT_BOOL:
    return bits == 1;
  case DT_HANDLE:
    return bits == 64;
  }
  TES_UNREACHABLE();
}

bool dt_parse(const char *name, DType *out) {
  DTypeCode code;
  const char *p = parse_code(name, &code);
  if (!p) return false;
  long bits = default_bits(code), lanes = 1;
  /* bool and handle take no width: "bool8" is not a dtype */
  if (code != DT_BOOL && code != DT_HANDLE && *p >= '0' && *p <= '9' &&
      !parse_number(&p, 1, 64, &bits))
    return false;
  if (*p == 'x') {
    p++;
    if (!parse_number(&p, 1, 65535, &lanes)) return false;
  }
  if (*p || !bits_ok(code, bits)) return false;
  /* TVM's bool is uint1: both spellings name one type, so that dt_name's "uint1x4" reads back */
  if (code == DT_UINT && bits == 1) code = DT_BOOL;
  *out = DT_MAKE(code, bits, lanes);
  return true;
}

char *dt_name(DType t, char buf[32]) {
  const char *word = NULL;
  switch ((DTypeCode)t.code) {
  case DT_INT:
    word = "int";
    break;
  case DT_UINT:
    word = "uint";
    break;
  case DT_FLOAT:
    word = "float";
    break;
  /* TVM writes a bool vector as its storage type, uint1xN */
  case DT_BOOL:
    word = t.lanes == 1 ? "bool" : "uint";
    break;
  case DT_HANDLE:
    snprintf(buf, 32, "handle");
    return buf;
  }
  TES_ASSERT(word, "bad dtype code %d", t.code);
  int n = snprintf(buf, 32, "%s", word);
  if (t.code != DT_BOOL || t.lanes != 1) n += snprintf(buf + n, 32 - n, "%d", t.bits);
  if (t.lanes != 1) snprintf(buf + n, 32 - n, "x%d", t.lanes);
  return buf;
}

const char *dt_c_name(DType t, bool abi) {
  static const char *const ints[] = {"int8_t", "int16_t", "int32_t", "int64_t"};
  static const char *const uints[] = {"uint8_t", "uint16_t", "uint32_t", "uint64_t"};
  int k = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : 3;
  switch ((DTypeCode)t.code) {
  case DT_INT:
    return ints[k];
  case DT_UINT:
    return uints[k];
  case DT_FLOAT:
    return t.bits == 16 ? (abi ? "uint16_t" : "_Float16") : t.bits == 32 ? "float" : "double";
  case DT_BOOL:
    return abi ? "uint8_t" : "bool";
  case DT_HANDLE:
    return abi ? "void" : "void *";
  }
  TES_UNREACHABLE();
}
