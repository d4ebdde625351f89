/* diag.c: prints errors for a user: the located message, the source line with a caret, and the
 * traceback of TES frames. Nothing else in tes formats an error for people. */
#include "frontend/diag.h"

#include <string.h>

/* The caret must sit under the column however the terminal expands tabs, so copy every tab that
 * precedes the column and use a space for anything else. */
static void print_caret(FILE *out, const char *line, int len, int col) {
  for (int i = 0; i < col - 1; i++) fputc(i < len && line[i] == '\t' ? '\t' : ' ', out);
  fputs("^\n", out);
}

static void print_source(FILE *out, SrcLoc loc) {
  int len = 0;
  const char *line = loc.src ? src_line(loc.src, loc.line, &len) : NULL;
  if (!line) return;
  fwrite(line, 1, (size_t)len, out);
  fputc('\n', out);
  print_caret(out, line, len, loc.col > 0 ? loc.col : 1);
}

/* "KIND: MESSAGE", or "KIND" alone when the message is empty (raise KeyboardInterrupt). */
static void print_what(FILE *out, const char *kind, const char *msg) {
  if (kind && msg && *msg)
    fprintf(out, "%s: %s\n", kind, msg);
  else
    fprintf(out, "%s\n", kind ? kind : msg ? msg : "");
}

void diag_print_loc(FILE *out, SrcLoc loc, const char *kind, const char *msg) {
  if (!loc.src) {
    fputs("tes: error: ", out);
    print_what(out, kind, msg);
    return;
  }
  fprintf(out, "%s:%d:%d: error: ", loc.src->name, loc.line, loc.col);
  print_what(out, kind, msg);
  print_source(out, loc);
}

static void print_traceback(FILE *out, const Exc *e) {
  if (e->ntb <= 1) return;
  fputs("traceback (most recent call last):\n", out);
  for (int i = e->ntb - 1; i >= 0; i--) {
    const TraceEntry *t = &e->tb[i];
    const char *fn = t->func && t->func->kind == VAL_STR ? t->func->u.str.s : "<module>";
    fprintf(out, "  %s:%d:%d in %s\n", t->loc.src ? t->loc.src->name : "<unknown>", t->loc.line,
            t->loc.col, fn);
  }
}

/* Where the error is reported: where it was raised, unless that is inside tes's own library
 * (stdlib/): then the innermost call from the user's code into it, so a bad argument to
 * topi.nn.conv2d_nchw points at the user's line. The traceback keeps every frame. */
static SrcLoc report_loc(const Exc *e) {
  SrcLoc none = {0};
  if (!e->has_loc) return none;
  if (!e->loc.src || !e->loc.src->library) return e->loc;
  for (int i = 0; i < e->ntb; i++)
    if (e->tb[i].loc.src && !e->tb[i].loc.src->library) return e->tb[i].loc;
  return e->loc;
}

SrcLoc diag_exc_loc(Value *exc) {
  SrcLoc none = {0};
  return exc && exc->kind == VAL_EXC ? report_loc(exc->u.exc) : none;
}

void diag_print_exc(FILE *out, Value *exc) {
  if (!exc || exc->kind != VAL_EXC) {
    fputs("tes: error: (not an exception)\n", out);
    return;
  }
  const Exc *e = exc->u.exc;
  const char *kind = e->type ? e->type->name : "Error";
  const char *msg = e->msg && e->msg->kind == VAL_STR ? e->msg->u.str.s : "";
  diag_print_loc(out, report_loc(e), kind, msg);
  print_traceback(out, e);
  fflush(out);
}
