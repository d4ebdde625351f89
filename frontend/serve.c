/* serve.c: `tes --serve` (docs/serve.md): one JSON request per line on stdin, one JSON reply
 * per line on a private copy of the original stdout. While a request runs, file descriptors 1
 * and 2 point at two unlinked temporary files, so whatever the cell prints (print, the C
 * library, compiled kernels, warnings) comes back in the reply and never mixes with the
 * protocol; an execute request that asks for it also gets the lines written so far while the
 * cell runs, as stream messages sent by a thread that reads the files. Meta commands,
 * completion, :help and the continuation test are the REPL's (repl.h). */
#include "frontend/serve.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "frontend/diag.h"
#include "frontend/json.h"
#include "frontend/lang/parse.h"
#include "frontend/lang/resolve.h"
#include "frontend/np/ndarray.h"
#include "frontend/np/np_impl.h"
#include "frontend/repl.h"
#include "frontend/tvm/sched.h"
#include "frontend/tvm/tir.h"

enum {
  REQUEST_MAX = 16 << 20, /* bytes in a request line */
  READ_CHUNK = 64 << 10,
  CAPTURE_MAX = 16 << 20, /* bytes of a cell's stdout (stderr) returned; the rest is cut */
  ARRAY_MAX = 10000,      /* elements of an array returned as data */
  STREAM_POLL_MS = 50,    /* how often a running cell's output is looked at */
  STREAM_CHUNK = 1 << 20, /* bytes in one stream message at most */
};

typedef struct Server {
  Interp **pI;
  Repl *repl;
  int proto;      /* the original stdout: replies only */
  int err;        /* the original stderr: fds 1 and 2 point here between requests */
  int capture[2]; /* the temporary files behind fds 1 and 2 while a request runs */
  int count;      /* execute requests so far */
  /* the request reader: buf[start..len) is read and not yet handed out */
  char *buf;
  size_t start, len, cap;
  bool eof;
} Server;

/* ---- the protocol's side of the file descriptors ---- */

static void write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return; /* the front end is gone; the next read sees end of input */
    p += k;
    n -= (size_t)k;
  }
}

static void send_reply(Server *S, StrBuf *b) {
  sb_putc(b, '\n');
  write_all(S->proto, b->s, b->len);
  sb_free(b);
}

static int temp_file(void) {
  const char *dir = getenv("TMPDIR");
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s/tes-serve-XXXXXX", dir && *dir ? dir : "/tmp");
  size_t len;
  char *path = sb_take(&b, &len);
  int fd = mkstemp(path);
  if (fd >= 0) unlink(path);
  if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
  free(path);
  return fd;
}

static void capture_begin(Server *S) {
  fflush(stdout);
  fflush(stderr);
  for (int k = 0; k < 2; k++) {
    if (ftruncate(S->capture[k], 0) != 0) { /* a full disk: the cell's output is lost */
    }
    lseek(S->capture[k], 0, SEEK_SET);
    dup2(S->capture[k], k + 1);
  }
}

/* The captured bytes of fd k (1 or 2) from byte `from` on (those before it were streamed),
 * malloc'd, cut at CAPTURE_MAX bytes of the whole with a note. */
static char *captured(Server *S, int k, size_t from, size_t *n) {
  int fd = S->capture[k - 1];
  off_t size = lseek(fd, 0, SEEK_END);
  size_t want = size > 0 ? (size_t)size : 0, keep = want > CAPTURE_MAX ? CAPTURE_MAX : want;
  from = from < keep ? from : keep;
  StrBuf b = STRBUF_INIT;
  sb_try_reserve(&b, keep - from + 64);
  char chunk[READ_CHUNK];
  lseek(fd, (off_t)from, SEEK_SET);
  for (size_t got = from; got < keep;) {
    ssize_t r = read(fd, chunk, keep - got < sizeof chunk ? keep - got : sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    sb_putn(&b, chunk, (size_t)r);
    got += (size_t)r;
  }
  if (keep < want) sb_printf(&b, "\n[tes: output cut at %d MiB of %zu bytes]\n", CAPTURE_MAX >> 20, want);
  sb_putc(&b, 0);
  char *s = sb_take(&b, n);
  (*n)--;
  return s;
}

static void capture_end(Server *S) {
  fflush(interp_stdout(*S->pI));
  fflush(stdout);
  fflush(stderr);
  dup2(S->err, 1);
  dup2(S->err, 2);
}

/* ---- reading requests ---- */

typedef enum { REQ_LINE, REQ_EOF, REQ_TOO_LONG } ReqGot;

/* The next line (its '\n' and a '\r' before it dropped) in *line, valid until the next call. A
 * line longer than REQUEST_MAX is read on and dropped up to its end, never held whole. SIGINT
 * while waiting is ignored. */
static ReqGot read_request(Server *S, char **line, size_t *n) {
  if (S->start) { /* what the last call handed out goes */
    memmove(S->buf, S->buf + S->start, S->len - S->start);
    S->len -= S->start;
    S->start = 0;
  }
  size_t scanned = 0;
  bool dropping = false;
  for (;;) {
    char *nl = S->len > scanned ? memchr(S->buf + scanned, '\n', S->len - scanned) : NULL;
    if (nl) {
      size_t k = (size_t)(nl - S->buf);
      S->start = k + 1;
      if (dropping || k > REQUEST_MAX) return REQ_TOO_LONG;
      if (k > 0 && S->buf[k - 1] == '\r') k--;
      S->buf[k] = 0;
      *line = S->buf;
      *n = k;
      return REQ_LINE;
    }
    scanned = S->len;
    if (S->len > REQUEST_MAX) {
      dropping = true;
      S->len = scanned = 0;
    }
    if (S->eof) {
      if (dropping) return REQ_TOO_LONG;
      if (S->len == 0) return REQ_EOF;
      S->buf[S->len] = 0; /* a last line without its '\n' */
      *line = S->buf;
      *n = S->len;
      S->start = S->len;
      return REQ_LINE;
    }
    if (S->cap < S->len + READ_CHUNK + 1) {
      S->cap = S->len + READ_CHUNK + 1 > 2 * S->cap ? S->len + READ_CHUNK + 1 : 2 * S->cap;
      S->buf = xrealloc(S->buf, S->cap);
    }
    ssize_t got = read(STDIN_FILENO, S->buf + S->len, READ_CHUNK);
    if (got > 0)
      S->len += (size_t)got;
    else if (got < 0 && errno == EINTR)
      tes_interrupted = 0; /* Ctrl-C while idle */
    else
      S->eof = true;
  }
}

/* ---- writing replies ---- */

static void reply_head(StrBuf *b, const Json *id, const char *type, bool ok) {
  sb_puts(b, "{\"id\":");
  if (id)
    json_write(b, id);
  else
    sb_puts(b, "null");
  sb_printf(b, ",\"type\":\"%s\",\"status\":\"%s\"", type, ok ? "ok" : "error");
}

static void put_key_str(StrBuf *b, const char *key, const char *s, size_t n) {
  sb_printf(b, ",\"%s\":", key);
  json_put_str(b, s, n);
}

static void protocol_error(Server *S, const Json *id, const char *msg) {
  StrBuf b = STRBUF_INIT;
  reply_head(&b, id, "error", false);
  sb_puts(&b, ",\"error\":{\"kind\":\"ProtocolError\"");
  put_key_str(&b, "message", msg, strlen(msg));
  sb_puts(&b, "}}");
  send_reply(S, &b);
}

static void put_loc(StrBuf *b, SrcLoc loc) {
  if (!loc.src) {
    sb_puts(b, ",\"file\":null,\"line\":null,\"col\":null");
    return;
  }
  put_key_str(b, "file", loc.src->name, strlen(loc.src->name));
  sb_printf(b, ",\"line\":%d,\"col\":%d", loc.line, loc.col);
}

/* The error object of an exception: its kind, message and location, the text tes prints for
 * it, and its frames outermost first. */
static void put_exc(StrBuf *b, Value *exc) {
  const Exc *e = exc->u.exc;
  const char *kind = e->type ? e->type->name : "Error";
  const char *msg = e->msg && e->msg->kind == VAL_STR ? e->msg->u.str.s : "";
  sb_puts(b, ",\"error\":{\"kind\":");
  json_put_str(b, kind, strlen(kind));
  put_key_str(b, "message", msg, strlen(msg));
  put_loc(b, diag_exc_loc(exc));
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f) {
    diag_print_exc(f, exc);
    fclose(f);
  }
  put_key_str(b, "text", text ? text : "", text ? len : 0);
  free(text);
  sb_puts(b, ",\"traceback\":[");
  for (int i = e->ntb - 1; i >= 0; i--) {
    const TraceEntry *t = &e->tb[i];
    const char *fn = t->func && t->func->kind == VAL_STR ? t->func->u.str.s : "<module>";
    sb_puts(b, i == e->ntb - 1 ? "{\"function\":" : ",{\"function\":");
    json_put_str(b, fn, strlen(fn));
    put_loc(b, t->loc);
    sb_putc(b, '}');
  }
  sb_puts(b, "]}");
}

/* A usage error of a meta command, printed by the REPL as "tes: MESSAGE". */
static void put_usage_error(StrBuf *b, const char *msg) {
  StrBuf text = STRBUF_INIT;
  sb_printf(&text, "tes: %s\n", msg);
  sb_puts(b, ",\"error\":{\"kind\":\"UsageError\"");
  put_key_str(b, "message", msg, strlen(msg));
  put_loc(b, (SrcLoc){0});
  put_key_str(b, "text", text.s, text.len);
  sb_puts(b, ",\"traceback\":[]}");
  sb_free(&text);
}

/* ---- a running cell's output, streamed ---- */

/* The thread that sends what a cell writes while it runs: every STREAM_POLL_MS it flushes
 * stdout and sends the complete lines each capture file holds past what it sent before (the
 * first CAPTURE_MAX bytes of each at most), as {"id":ID,"type":"stream","name":"stdout",
 * "text":...}. A line is never cut, so neither is a UTF-8 character, unless a line is longer
 * than STREAM_CHUNK (then cut before a character). The execute reply carries the rest. */
typedef struct Streamer {
  Server *S;
  const Json *id;
  size_t sent[2]; /* bytes of each capture file sent */
  bool stop;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t thread;
} Streamer;

/* How many of the n bytes at p to send now: up to the last '\n'; with none in a full chunk,
 * the chunk up to the last character that is whole. */
static size_t stream_cut(const char *p, size_t n) {
  for (size_t i = n; i > 0; i--)
    if (p[i - 1] == '\n') return i;
  if (n < STREAM_CHUNK) return 0;
  size_t i = n;
  while (i > 0 && ((unsigned char)p[i - 1] & 0xC0) == 0x80) i--; /* continuation bytes */
  if (i > 0 && (unsigned char)p[i - 1] >= 0xC0) i--;               /* their lead byte */
  return i > 0 ? i : n;
}

static void stream_file(Streamer *st, int k) {
  int fd = st->S->capture[k];
  struct stat sb;
  if (fstat(fd, &sb) != 0 || sb.st_size <= 0) return;
  size_t size = (size_t)sb.st_size > CAPTURE_MAX ? CAPTURE_MAX : (size_t)sb.st_size;
  while (st->sent[k] < size) {
    size_t want = size - st->sent[k] < STREAM_CHUNK ? size - st->sent[k] : STREAM_CHUNK;
    char *p = xmalloc(want);
    ssize_t got = pread(fd, p, want, (off_t)st->sent[k]);
    size_t n = got > 0 ? stream_cut(p, (size_t)got) : 0;
    if (n > 0) {
      StrBuf b = STRBUF_INIT;
      sb_puts(&b, "{\"id\":");
      if (st->id)
        json_write(&b, st->id);
      else
        sb_puts(&b, "null");
      sb_printf(&b, ",\"type\":\"stream\",\"name\":\"%s\"", k ? "stderr" : "stdout");
      put_key_str(&b, "text", p, n);
      sb_putc(&b, '}');
      send_reply(st->S, &b);
      st->sent[k] += n;
    }
    free(p);
    if (n < want) return; /* the rest waits for its line's end */
  }
}

static void *stream_main(void *arg) {
  Streamer *st = arg;
  pthread_mutex_lock(&st->lock);
  while (!st->stop) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += STREAM_POLL_MS * 1000000L;
    t.tv_sec += t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&st->wake, &st->lock, &t);
    if (st->stop) break;
    pthread_mutex_unlock(&st->lock);
    fflush(stdout); /* print's buffer (stdout is a file here: fully buffered) */
    for (int k = 0; k < 2; k++) stream_file(st, k);
    pthread_mutex_lock(&st->lock);
  }
  pthread_mutex_unlock(&st->lock);
  return NULL;
}

/* Starts the thread for the request id (NULL: null); NULL when it cannot start, and then
 * everything comes in the reply. */
static Streamer *stream_start(Server *S, const Json *id) {
  Streamer *st = xcalloc(1, sizeof *st);
  st->S = S;
  st->id = id;
  pthread_mutex_init(&st->lock, NULL);
  pthread_cond_init(&st->wake, NULL);
  /* every signal stays with the thread running the cell (SIGINT interrupts a sleep there) */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int rc = pthread_create(&st->thread, NULL, stream_main, st);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc == 0) return st;
  pthread_cond_destroy(&st->wake);
  pthread_mutex_destroy(&st->lock);
  free(st);
  return NULL;
}

/* Stops and frees st (NULL: none); sent[k] is then how much of capture file k went out. */
static void stream_stop(Streamer *st, size_t sent[2]) {
  sent[0] = sent[1] = 0;
  if (!st) return;
  pthread_mutex_lock(&st->lock);
  st->stop = true;
  pthread_cond_signal(&st->wake);
  pthread_mutex_unlock(&st->lock);
  pthread_join(st->thread, NULL);
  sent[0] = st->sent[0];
  sent[1] = st->sent[1];
  pthread_cond_destroy(&st->wake);
  pthread_mutex_destroy(&st->lock);
  free(st);
}

/* ---- values ---- */

/* The shortest decimal that reads back as x at `bits` precision; JSON has no NaN or infinity,
 * so those are the strings "nan", "inf" and "-inf". */
static void put_float(StrBuf *b, double x, int bits) {
  if (isnan(x) || isinf(x)) {
    sb_puts(b, isnan(x) ? "\"nan\"" : x < 0 ? "\"-inf\"" : "\"inf\"");
    return;
  }
  char buf[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, x);
    double y = strtod(buf, NULL);
    bool same = bits == 64   ? y == x
                : bits == 32 ? (float)y == (float)x
                             : nd_double_to_half(y) == nd_double_to_half(x);
    if (same) break;
  }
  sb_puts(b, buf);
  if (!strpbrk(buf, ".e")) sb_puts(b, ".0"); /* a float reads back as one */
}

/* Element i, read by the numpy subset's own loader (frontend/np). */
static void put_element(StrBuf *b, const NDArray *a, int64_t i) {
  DType t = a->dtype;
  NpKind k = bi_np_kind(t);
  NpScalar v = bi_np_get(a, i, k);
  if (t.code == DT_BOOL)
    sb_puts(b, v.i ? "true" : "false");
  else if (k == NK_FLOAT)
    put_float(b, v.f, t.bits);
  else if (k == NK_UINT)
    sb_printf(b, "%llu", (unsigned long long)v.u);
  else
    sb_printf(b, "%lld", (long long)v.i);
}

static bool array_returned(const NDArray *a) {
  DType t = a->dtype;
  bool known = t.lanes == 1 &&
               (t.code == DT_BOOL || (t.code == DT_FLOAT && (t.bits == 16 || t.bits == 32 ||
                                                             t.bits == 64)) ||
                ((t.code == DT_INT || t.code == DT_UINT) &&
                 (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)));
  return known && a->device == ND_CPU && a->ndim <= 2 && a->size <= ARRAY_MAX;
}

static void put_array(StrBuf *b, const NDArray *a) {
  char name[32];
  sb_printf(b, ",\"array\":{\"dtype\":\"%s\",\"shape\":[", dt_name(a->dtype, name));
  for (int d = 0; d < a->ndim; d++) sb_printf(b, d ? ",%lld" : "%lld", (long long)a->shape[d]);
  sb_puts(b, "],\"data\":");
  if (a->ndim == 0) put_element(b, a, 0);
  int64_t rows = a->ndim == 2 ? a->shape[0] : 1, cols = a->ndim ? a->shape[a->ndim - 1] : 0;
  for (int64_t r = 0; a->ndim > 0 && r < rows; r++) {
    if (a->ndim == 2) sb_puts(b, r ? ",[" : "[[");
    else sb_putc(b, '[');
    for (int64_t c = 0; c < cols; c++) {
      if (c) sb_putc(b, ',');
      put_element(b, a, r * cols + c);
    }
    sb_putc(b, ']');
  }
  if (a->ndim == 2) sb_puts(b, rows ? "]" : "[]");
  sb_putc(b, '}');
}

/* The echoed value's object into b; false with an error pending (its repr failed). */
static bool put_value(Interp *I, StrBuf *b, Value *v) {
  Value *r = val_repr(I, v);
  if (!r) return false;
  NDArray *a = bi_ndarray_of(v);
  bool ir = bi_sched_lowered_of(v) || bi_tir_stmt_of(v);
  bool array = a && array_returned(a);
  const char *type = val_type_name(v);
  sb_puts(b, ",\"value\":{\"text\":");
  json_put_str(b, r->u.str.s, (size_t)r->u.str.len);
  put_key_str(b, "type", type, strlen(type));
  sb_printf(b, ",\"kind\":\"%s\"", ir ? "ir" : array ? "array" : "text");
  if (array) put_array(b, a);
  sb_putc(b, '}');
  val_decref(r);
  return true;
}

/* ---- execute ---- */

/* Runs code as one module named `name`: every statement, then the last one's value when it is
 * an expression (a new reference in *value, or NULL for None or no expression). -1 with the
 * error pending. */
static int run_cell(Interp *I, const char *name, const char *code, size_t len, Value **value) {
  *value = NULL;
  Source *src = src_new(name, code, len);
  ParseError err;
  memset(&err, 0, sizeof err);
  Unit *u = parse_source(src, &err);
  if (!u || resolve_unit(u, &err) < 0) {
    interp_raise_at(I, err.loc, EXC_SyntaxError, "%s", err.msg);
    if (u) unit_decref(u);
    src_decref(src);
    return -1;
  }
  src_decref(src); /* the unit holds its own */
  NodeList *body = &u->root->u.list;
  Node *last = body->n ? body->items[body->n - 1] : NULL;
  bool expr = last && last->kind == AST_EXPRSTMT;
  if (expr) body->n--; /* the statements before it, then it alone */
  int rc = interp_run_unit(I, u, false);
  if (expr) body->n++;
  if (rc == 0 && expr) {
    Value *v = repl_eval_expr(I, u, last->u.unary.a);
    if (!v) rc = -1;
    else if (v == val_none()) val_decref(v);
    else *value = v;
  }
  fflush(interp_stdout(I));
  unit_decref(u);
  return rc;
}

static bool blank_line(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strchr(" \t\r", p[i])) return false;
  return true;
}

/* A cell of meta commands: each non-blank line one, run in order until one fails. */
static int run_meta_cell(Server *S, const char *code, size_t len, char **usage, bool *quit) {
  *usage = NULL;
  *quit = false;
  for (size_t i = 0; i < len;) {
    const char *nl = memchr(code + i, '\n', len - i);
    size_t n = nl ? (size_t)(nl - (code + i)) : len - i;
    if (!blank_line(code + i, n)) {
      char *line = xstrndup(code + i, n);
      const char *p = line + strspn(line, " \t");
      int rc = *p == ':' ? repl_session_meta(S->repl, line, usage) : -2;
      if (*p != ':') *usage = xstrdup("a cell that starts with a meta command holds only meta "
                                      "commands, one a line");
      free(line);
      if (rc == 1) *quit = true;
      if (rc != 0) return rc == 1 ? 0 : -1;
    }
    i += n + 1;
  }
  return 0;
}

static bool is_meta_cell(const char *code) {
  const char *p = code;
  while (*p && strchr(" \t\r\n", *p)) p++;
  return *p == ':';
}

/* -1: go on; else the exit status (sys.exit or :quit in the cell). With stream, the lines the
 * cell writes are sent while it runs (not for meta commands: :ir's output is the value). */
static int execute(Server *S, const Json *id, const Json *code, bool stream) {
  Interp *I = *S->pI;
  int n = ++S->count;
  StrBuf name = STRBUF_INIT;
  sb_printf(&name, "<cell %d>", n);
  char *ir = NULL;
  size_t irlen = 0;
  FILE *irf = open_memstream(&ir, &irlen);
  repl_session_set_ir_out(S->repl, irf);
  repl_session_set_name(S->repl, sb_cstr(&name));
  StrBuf value = STRBUF_INIT;
  char *usage = NULL;
  bool quit = false, meta = is_meta_cell(code->text);
  capture_begin(S);
  Streamer *streamer = stream && !meta ? stream_start(S, id) : NULL;
  tes_interrupted = 0; /* a stray Ctrl-C from before must not stop this cell */
  int rc;
  if (meta) {
    rc = run_meta_cell(S, code->text, code->len, &usage, &quit);
    I = *S->pI; /* :reset replaces it */
  } else {
    Value *v = NULL;
    rc = run_cell(I, sb_cstr(&name), code->text, code->len, &v);
    if (v && !put_value(I, &value, v)) rc = -1;
    val_xdecref(v);
  }
  repl_session_set_ir_out(S->repl, NULL);
  repl_session_set_name(S->repl, NULL);
  if (irf) fclose(irf);
  size_t sent[2];
  stream_stop(streamer, sent);
  capture_end(S);
  tes_interrupted = 0;
  size_t out_n, err_n;
  char *out = captured(S, 1, sent[0], &out_n), *err = captured(S, 2, sent[1], &err_n);
  Value *exc = rc < 0 && !usage ? interp_error_take(I) : NULL;
  const TypeObj *t = exc && exc->kind == VAL_EXC ? exc->u.exc->type : NULL;
  bool exiting = quit;
  int exit_status = 0;
  if (t && exc_is(t, &exc_types[EXC_SystemExit])) {
    exiting = true;
    exit_status = exc->u.exc->code;
    val_decref(exc);
    exc = NULL;
    rc = 0;
  }
  StrBuf b = STRBUF_INIT;
  reply_head(&b, id, "execute_reply", rc == 0);
  sb_printf(&b, ",\"count\":%d", n);
  /* :ir's and :watch's output is the value; next to an echoed value, it goes before stdout */
  StrBuf so = STRBUF_INIT;
  if (irlen && value.len) sb_putn(&so, ir, irlen);
  sb_putn(&so, out, out_n);
  put_key_str(&b, "stdout", so.s ? so.s : "", so.len);
  put_key_str(&b, "stderr", err, err_n);
  if (value.len) {
    sb_putn(&b, value.s, value.len);
  } else if (irlen) {
    sb_puts(&b, ",\"value\":{\"text\":");
    json_put_str(&b, ir, irlen);
    sb_puts(&b, ",\"type\":\"IRModule\",\"kind\":\"ir\"}");
  } else {
    sb_puts(&b, ",\"value\":null");
  }
  if (exc)
    put_exc(&b, exc);
  else if (usage)
    put_usage_error(&b, usage);
  else
    sb_puts(&b, ",\"error\":null");
  if (exiting) sb_printf(&b, ",\"exit\":%d", exit_status);
  sb_putc(&b, '}');
  send_reply(S, &b);
  val_xdecref(exc);
  interp_error_clear(I);
  sb_free(&so);
  sb_free(&value);
  sb_free(&name);
  free(usage);
  free(out);
  free(err);
  free(ir);
  return exiting ? exit_status : -1;
}

/* ---- complete, inspect, is_complete ---- */

/* The "cursor" of a request as a byte offset into code (absent: its end); false (a protocol
 * error sent) when it is not a whole number of code points within code. */
static bool cursor_arg(Server *S, const Json *req, const Json *id, const Json *code, size_t *at) {
  const Json *c = json_get(req, "cursor");
  size_t cps = json_utf8_count(code->text, code->len);
  if (!c) {
    *at = code->len;
    return true;
  }
  if (c->kind != JSON_NUMBER || c->num < 0 || c->num != floor(c->num) || c->num > (double)cps) {
    protocol_error(S, id, "\"cursor\" must be a code point offset into \"code\"");
    return false;
  }
  *at = json_utf8_offset(code->text, code->len, (size_t)c->num);
  return true;
}

static void complete(Server *S, const Json *req, const Json *id, const Json *code) {
  size_t at;
  if (!cursor_arg(S, req, id, code, &at)) return;
  size_t line = at;
  while (line > 0 && code->text[line - 1] != '\n') line--;
  size_t start;
  int n;
  capture_begin(S);
  char **m = repl_complete(*S->pI, code->text + line, at - line, &start, &n);
  capture_end(S);
  StrBuf b = STRBUF_INIT;
  reply_head(&b, id, "complete_reply", true);
  sb_puts(&b, ",\"matches\":[");
  for (int i = 0; i < n; i++) {
    if (i) sb_putc(&b, ',');
    json_put_str(&b, m[i], strlen(m[i]));
    free(m[i]);
  }
  free(m);
  sb_printf(&b, "],\"cursor_start\":%zu,\"cursor_end\":%zu}",
            json_utf8_count(code->text, line + start), json_utf8_count(code->text, at));
  send_reply(S, &b);
}

static bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The dotted name under the cursor, or, when none is, the one before an open parenthesis
 * just before it (`f(|`); malloc'd, NULL when there is none. */
static char *name_at(const char *s, size_t n, size_t at) {
  size_t a = at, e = at;
  while (e < n && name_char(s[e])) e++;
  while (a > 0 && (name_char(s[a - 1]) || s[a - 1] == '.')) a--;
  if (a == e) {
    size_t p = at;
    while (p > 0 && (s[p - 1] == ' ' || s[p - 1] == '\t')) p--;
    if (!(p > 0 && s[p - 1] == '(')) return NULL;
    p--;
    while (p > 0 && (s[p - 1] == ' ' || s[p - 1] == '\t')) p--;
    a = e = p;
    while (a > 0 && (name_char(s[a - 1]) || s[a - 1] == '.')) a--;
  }
  while (a < e && s[a] == '.') a++;
  return a < e ? xstrndup(s + a, e - a) : NULL;
}

static void inspect(Server *S, const Json *req, const Json *id, const Json *code) {
  size_t at;
  if (!cursor_arg(S, req, id, code, &at)) return;
  char *name = name_at(code->text, code->len, at);
  StrBuf text = STRBUF_INIT;
  bool found = false;
  if (name) {
    capture_begin(S);
    found = repl_help_text(*S->pI, name, &text);
    interp_error_clear(*S->pI);
    capture_end(S);
  }
  StrBuf b = STRBUF_INIT;
  reply_head(&b, id, "inspect_reply", true);
  sb_printf(&b, ",\"found\":%s", found ? "true" : "false");
  put_key_str(&b, "text", text.s ? text.s : "", text.len);
  sb_putc(&b, '}');
  send_reply(S, &b);
  sb_free(&text);
  free(name);
}

static void is_complete(Server *S, const Json *id, const Json *code) {
  static const char *const states[] = {"complete", "incomplete", "invalid"};
  ReplInputState st = repl_input_state(code->text, code->len);
  StrBuf b = STRBUF_INIT;
  reply_head(&b, id, "is_complete_reply", true);
  sb_printf(&b, ",\"state\":\"%s\"}", states[st]);
  send_reply(S, &b);
}

static void reset(Server *S, const Json *id) {
  char *msg = NULL;
  capture_begin(S);
  repl_session_meta(S->repl, ":reset", &msg);
  capture_end(S);
  free(msg);
  StrBuf b = STRBUF_INIT;
  reply_head(&b, id, "reset_reply", true);
  sb_putc(&b, '}');
  send_reply(S, &b);
}

/* ---- the loop ---- */

/* One request line; -1 to go on, else the exit status. */
static int handle(Server *S, const char *line, size_t n) {
  char *err = NULL;
  Json *req = json_parse(line, n, &err);
  if (!req) {
    protocol_error(S, NULL, err);
    free(err);
    return -1;
  }
  const Json *id = json_get(req, "id"), *type = json_get(req, "type");
  const Json *code = json_get(req, "code");
  const char *t = type && type->kind == JSON_STRING ? type->text : NULL;
  bool needs_code = t && (strcmp(t, "execute") == 0 || strcmp(t, "complete") == 0 ||
                          strcmp(t, "inspect") == 0 || strcmp(t, "is_complete") == 0);
  int status = -1;
  if (req->kind != JSON_OBJECT) {
    protocol_error(S, NULL, "a request must be a JSON object");
  } else if (!t) {
    protocol_error(S, id, "a request needs \"type\", a string");
  } else if (needs_code && (!code || code->kind != JSON_STRING)) {
    StrBuf m = STRBUF_INIT;
    sb_printf(&m, "\"%s\" needs \"code\", a string", t);
    protocol_error(S, id, sb_cstr(&m));
    sb_free(&m);
  } else if (strcmp(t, "execute") == 0) {
    const Json *stream = json_get(req, "stream");
    status = execute(S, id, code, stream && stream->kind == JSON_BOOL && stream->b);
  } else if (strcmp(t, "complete") == 0) {
    complete(S, req, id, code);
  } else if (strcmp(t, "inspect") == 0) {
    inspect(S, req, id, code);
  } else if (strcmp(t, "is_complete") == 0) {
    is_complete(S, id, code);
  } else if (strcmp(t, "reset") == 0) {
    reset(S, id);
  } else if (strcmp(t, "shutdown") == 0) {
    StrBuf b = STRBUF_INIT;
    reply_head(&b, id, "shutdown_reply", true);
    sb_putc(&b, '}');
    send_reply(S, &b);
    status = 0;
  } else {
    StrBuf m = STRBUF_INIT;
    sb_puts(&m, "unknown request type ");
    json_put_str(&m, type->text, type->len);
    sb_puts(&m, " (execute, complete, inspect, is_complete, reset, shutdown)");
    protocol_error(S, id, sb_cstr(&m));
    sb_free(&m);
  }
  json_free(req);
  return status;
}

int serve_run(Interp **pI, const char *tes_version, const char *llvm_version) {
  Server S;
  memset(&S, 0, sizeof S);
  S.pI = pI;
  fflush(stdout);
  S.proto = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  S.err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  S.capture[0] = temp_file();
  S.capture[1] = temp_file();
  if (S.proto < 0 || S.err < 0 || S.capture[0] < 0 || S.capture[1] < 0) {
    fprintf(stderr, "tes: --serve: cannot set up output capture: %s\n", strerror(errno));
    return 1;
  }
  dup2(S.err, STDOUT_FILENO); /* between requests, a stray write goes to stderr */
  S.repl = repl_session_new(pI);
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "{\"type\":\"ready\",\"protocol\":1,\"tes\":");
  json_put_str(&b, tes_version, strlen(tes_version));
  sb_puts(&b, ",\"llvm\":");
  json_put_str(&b, llvm_version, strlen(llvm_version));
  sb_puts(&b, ",\"language\":\"python\"}");
  send_reply(&S, &b);
  int status = -1;
  while (status < 0) {
    char *line;
    size_t n;
    ReqGot got = read_request(&S, &line, &n);
    if (got == REQ_EOF) break;
    if (got == REQ_TOO_LONG)
      protocol_error(&S, NULL, "request larger than 16 MiB");
    else if (!blank_line(line, n))
      status = handle(&S, line, n);
  }
  repl_session_free(S.repl);
  free(S.buf);
  close(S.capture[0]);
  close(S.capture[1]);
  dup2(S.proto, STDOUT_FILENO);
  close(S.proto);
  close(S.err);
  return status < 0 ? 0 : status;
}
