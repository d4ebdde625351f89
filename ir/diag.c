/* diag.c: recording errors for the caller (diag.h). */
#include "ir/diag.h"

#include <stdio.h>

static bool record(Diag *d, DiagKind kind, const char *file, int line, const char *fmt,
                   va_list ap) {
  if (d->kind != DIAG_NONE) return false;
  d->kind = kind;
  d->file = file;
  d->line = line;
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  return false;
}

bool ir_verror(Diag *d, const char *fmt, va_list ap) {
  return record(d, DIAG_USER, NULL, 0, fmt, ap);
}

bool ir_verror_prefixed(Diag *d, const char *prefix, const char *fmt, va_list ap) {
  if (d->kind != DIAG_NONE) return false;
  char msg[DIAG_MSG_MAX];
  vsnprintf(msg, sizeof msg, fmt, ap);
  return ir_error(d, "%s: %s", prefix, msg);
}

bool ir_error(Diag *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(d, DIAG_USER, NULL, 0, fmt, ap);
  va_end(ap);
  return false;
}

bool ir_internal_error_at(Diag *d, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(d, DIAG_INTERNAL, file ? tes_source_path(file) : NULL, line, fmt, ap);
  va_end(ap);
  return false;
}

void diag_clear(Diag *d) {
  d->kind = DIAG_NONE;
  d->file = NULL;
  d->line = 0;
  d->msg[0] = 0;
}
