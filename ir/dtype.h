/* dtype.h: the element types of tensor expressions: a code, a bit width and a lane count
 * (float32x4 is {DT_FLOAT, 32, 4}). Passed by value. */
#ifndef TES_DTYPE_H
#define TES_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { DT_INT, DT_UINT, DT_FLOAT, DT_BOOL, DT_HANDLE } DTypeCode;

typedef struct DType {
  uint8_t code; /* DTypeCode */
  uint8_t bits;
  uint16_t lanes;
} DType;

#define DT_MAKE(code, bits, lanes) ((DType){(code), (bits), (lanes)})
#define DT_I32 DT_MAKE(DT_INT, 32, 1)
#define DT_I64 DT_MAKE(DT_INT, 64, 1)
#define DT_F32 DT_MAKE(DT_FLOAT, 32, 1)
#define DT_F64 DT_MAKE(DT_FLOAT, 64, 1)
#define DT_BOOL1 DT_MAKE(DT_BOOL, 1, 1)
#define DT_HANDLE64 DT_MAKE(DT_HANDLE, 64, 1)

static inline bool dt_eq(DType a, DType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
static inline DType dt_element(DType t) { return DT_MAKE(t.code, t.bits, 1); }
static inline DType dt_with_lanes(DType t, int lanes) { return DT_MAKE(t.code, t.bits, lanes); }
static inline bool dt_is_int(DType t) { return t.code == DT_INT || t.code == DT_UINT; }
static inline bool dt_is_float(DType t) { return t.code == DT_FLOAT; }
static inline bool dt_is_bool(DType t) { return t.code == DT_BOOL; }

/* "float32", "int8", "uint1", "bool", "float32x4"; also "float" (float32) and "int" (int32).
 * Returns false for anything else. */
bool dt_parse(const char *name, DType *out);
/* The canonical name ("float32x4", "bool", "handle") into buf; returns buf. */
char *dt_name(DType t, char buf[32]);
/* C's name for an element type: as C source writes it (`_Float16`, `bool`, `void *`), or, abi
 * true, as an exported library's header declares it, where float16 travels as its bits
 * (`uint16_t`), bool as a byte (`uint8_t`) and a handle is the pointee `void`. The C back end
 * and the LLVM back end's exported headers both write it. */
const char *dt_c_name(DType t, bool abi);

#endif
