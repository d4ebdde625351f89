/* repl.c: the REPL of SPEC §2. Lines come from GNU readline (a terminal) or from stdin (a
 * scripted session); both feed the same chunker, which decides when the input so far is a
 * complete statement, runs it with echo, prints any error and keeps the session going.
 * Readline is driven through its callback interface and pselect, so Ctrl-C at the prompt is an
 * ordinary event of the read loop rather than a longjmp out of readline's internals. */
#include "frontend/repl.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "frontend/tvm/pass.h"
#include "frontend/tvm/sched.h"
#include "frontend/tvm/te.h"
#include "frontend/diag.h"
#include "frontend/lang/help.h"
#include "frontend/lang/interp_impl.h"
#include "frontend/lang/modules.h"
#include "frontend/lang/parse.h"
#include "frontend/lang/resolve.h"
#include "ir/strbuf.h"

#define PROMPT "tes> "
#define PROMPT_MORE "...  "
enum { HISTORY_MAX = 1000 };

/* ---- signals ---- */

static volatile sig_atomic_t winch_pending;

static void on_sigint(int sig) {
  (void)sig;
  tes_interrupted = 1;
}

static void on_sigwinch(int sig) {
  (void)sig;
  winch_pending = 1;
}

void repl_install_sigint(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: a read blocked at the prompt must wake up */
  sigaction(SIGINT, &sa, NULL);
}

static void install_sigwinch(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigwinch;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGWINCH, &sa, NULL);
}

/* ---- reporting errors ---- */

int repl_report_error(Interp *I, bool *exiting) {
  Value *exc = interp_error_take(I);
  *exiting = false;
  if (!exc) return 1;
  int status = 1;
  const TypeObj *t = exc->kind == VAL_EXC ? exc->u.exc->type : NULL;
  if (t && exc_is(t, &exc_types[EXC_SystemExit])) {
    *exiting = true;
    status = exc->u.exc->code;
  } else {
    fflush(stdout);
    fflush(interp_stdout(I));
    diag_print_exc(stderr, exc);
    if (t && exc_is(t, &exc_types[EXC_SyntaxError])) status = 2;
  }
  val_decref(exc);
  return status;
}

/* ---- the session ---- */

/* What the chunker knows about the text so far, from a light scan that only tracks brackets,
 * strings and comments: enough to tell a block header from a dict literal, and to know
 * whether a line break is inside brackets or a string. The parser has the last word. */
typedef struct Scan {
  int depth;        /* open brackets */
  char quote;       /* the open string's quote character, or 0 */
  bool triple;      /* the open string is triple-quoted */
  bool opens_block; /* some line ended with ':' outside brackets and strings */
  bool continued;   /* the last line ended inside brackets, a string, or after '\' */
} Scan;

typedef struct Repl {
  Interp **pI;
  bool tty;
  StrBuf chunk; /* the lines of the statement being read, each ending in '\n' */
  Scan scan;
  int status; /* of the last failure (stdin session) */
  bool quit;
  int exit_code; /* when quit came from SystemExit */
  bool exiting;
  char *hist_path; /* NULL: no history file */
  /* :watch: the schedule (in the session's IR arena), the text naming it, the tensors to
   * lower it with (NULL: its placeholders and outputs) and the IR printed last */
  Schedule *watch;
  char *watch_name;
  int watch_nargs;
  Tensor **watch_args;
  char *watch_ir;
  /* tes --serve (repl_session_new): failures stay with the caller (an exception left pending,
   * a usage message in held_msg) instead of going to stderr, and :ir, :watch and the watch
   * hook write to ir_out */
  bool hold;
  char *held_msg;
  FILE *ir_out;
  const char *src_name; /* what errors in the code run call it; NULL: "<stdin>" */
} Repl;

static const char *src_name(const Repl *r) { return r->src_name ? r->src_name : "<stdin>"; }

static void scan_quoted(Scan *s, const char *p, size_t n, size_t *i) {
  char c = p[*i];
  if (c == '\\') {
    (*i)++; /* the escaped character, or the line break of a continued string */
    return;
  }
  if (c != s->quote) return;
  if (!s->triple) {
    s->quote = 0;
  } else if (*i + 2 < n && p[*i + 1] == c && p[*i + 2] == c) {
    *i += 2;
    s->quote = 0;
  }
}

static void scan_line(Scan *s, const char *p, size_t n) {
  char last = 0;
  bool escaped_eol = false;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (s->quote) {
      if (c == '\\' && i + 1 == n) escaped_eol = true;
      scan_quoted(s, p, n, &i);
      continue;
    }
    if (c == '#') break;
    if (c == '\'' || c == '"') {
      s->quote = c;
      s->triple = i + 2 < n && p[i + 1] == c && p[i + 2] == c;
      if (s->triple) i += 2;
    } else if (strchr("([{", c)) {
      s->depth++;
    } else if (strchr(")]}", c) && s->depth > 0) {
      s->depth--;
    }
    if (!isspace((unsigned char)c)) last = c;
  }
  if (s->quote && !s->triple && !escaped_eol) s->quote = 0; /* unterminated: the parser says so */
  s->continued = s->depth > 0 || s->quote || last == '\\';
  if (last == ':' && s->depth == 0 && !s->quote) s->opens_block = true;
}

static bool is_blank(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isspace((unsigned char)p[i])) return false;
  return true;
}

static const char *skip_space(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

static bool starts_with_word(const char *p, size_t n, const char *w) {
  size_t k = strlen(w);
  return n >= k && memcmp(p, w, k) == 0 &&
         (n == k || !(isalnum((unsigned char)p[k]) || p[k] == '_'));
}

/* In a stdin session a block has no blank line to end it when the script does not leave one,
 * so a line at column 0 ends it, unless it continues the same statement. */
static bool ends_block(const Repl *r, const char *p, size_t n) {
  if (r->tty || !r->scan.opens_block || r->scan.continued) return false;
  if (n == 0 || isspace((unsigned char)p[0]) || p[0] == '#') return false;
  static const char *const cont[] = {"elif", "else", "except", "finally"};
  for (size_t i = 0; i < sizeof cont / sizeof cont[0]; i++)
    if (starts_with_word(p, n, cont[i])) return false;
  return true;
}

static bool parse_incomplete(const char *text, size_t len) {
  Source *src = src_new("<stdin>", text, len);
  ParseError err;
  memset(&err, 0, sizeof err);
  Unit *u = parse_source(src, &err);
  bool incomplete = !u && err.incomplete;
  if (u) unit_decref(u);
  src_decref(src);
  return incomplete;
}

/* Called after `line` was appended; a blank line ends a block, as in Python's REPL. */
static bool chunk_complete(const Repl *r, const char *line, size_t n) {
  bool blank = is_blank(line, n);
  if (r->scan.opens_block) return blank && !r->scan.continued;
  if (r->scan.continued) return false;
  /* A blank line runs even an incomplete chunk, so the user sees the syntax error. */
  return blank || !parse_incomplete(r->chunk.s, r->chunk.len);
}

static void reset_chunk(Repl *r) {
  sb_free(&r->chunk);
  memset(&r->scan, 0, sizeof r->scan);
}

static void note_failure(Repl *r, Interp *I) {
  bool exiting = false;
  int st = repl_report_error(I, &exiting);
  if (exiting) {
    r->quit = true;
    r->exiting = true;
    r->exit_code = st;
  } else {
    r->status = st;
  }
}

static void report(Repl *r, Interp *I) {
  if (r->hold) return;
  if (interp_error_matches(I, EXC_KeyboardInterrupt)) {
    interp_error_clear(I);
    fflush(stdout);
    fputs("KeyboardInterrupt\n", stderr);
    r->status = 1;
    return;
  }
  note_failure(r, I);
}

/* Code runs with SIGINT deliverable; a stray Ctrl-C from before must not interrupt it. */
static void begin_run(void) { tes_interrupted = 0; }

static void end_run(Interp *I) {
  fflush(interp_stdout(I));
  fflush(stdout);
  tes_interrupted = 0;
}

static int run_text(Repl *r, const char *text, size_t len) {
  Interp *I = *r->pI;
  begin_run();
  int rc = interp_run_text(I, src_name(r), text, len, true);
  end_run(I);
  if (rc < 0) report(r, I);
  return rc;
}

static void run_chunk(Repl *r) {
  if (r->chunk.len > 0 && !is_blank(r->chunk.s, r->chunk.len))
    run_text(r, r->chunk.s, r->chunk.len);
  reset_chunk(r);
}

/* ---- looking names up without running anything (completion and :help) ---- */

static bool is_ident(const char *p, size_t n) {
  if (n == 0 || !(isalpha((unsigned char)p[0]) || p[0] == '_')) return false;
  for (size_t i = 1; i < n; i++)
    if (!(isalnum((unsigned char)p[i]) || p[i] == '_')) return false;
  return true;
}

static Value *lookup_name(Interp *I, const char *p, size_t n) {
  Sym *s = sym_intern(p, n);
  Value *v = dict_get_sym(interp_globals(I), s);
  if (!v) v = dict_get_sym(interp_builtins(I), s);
  return v ? val_incref(v) : NULL;
}

static Value *lookup_attr(Interp *I, Value *obj, const char *p, size_t n) {
  Value *v = val_getattr_opt(I, obj, sym_intern(p, n));
  if (!v) interp_error_clear(I); /* a getattr hook may raise; completion must stay quiet */
  return v;
}

/* Follows the dotted attributes p[0..n) ("b.c") from obj, which it takes. A new reference, or
 * NULL (nothing pending) if one is missing or not an identifier. */
static Value *lookup_attrs(Interp *I, Value *obj, const char *p, size_t n) {
  size_t start = 0;
  for (size_t i = 0; obj && i <= n; i++) {
    if (i < n && p[i] != '.') continue;
    Value *next = is_ident(p + start, i - start) ? lookup_attr(I, obj, p + start, i - start) : NULL;
    val_decref(obj);
    obj = next;
    start = i + 1;
  }
  return obj;
}

/* The value the dotted name p[0..n) evaluates to: globals, then builtins, then attributes. A
 * new reference, or NULL (nothing pending). */
static Value *lookup_dotted(Interp *I, const char *p, size_t n) {
  const char *dot = memchr(p, '.', n);
  size_t k = dot ? (size_t)(dot - p) : n;
  if (!is_ident(p, k)) return NULL;
  Value *v = lookup_name(I, p, k);
  return v && dot ? lookup_attrs(I, v, p + k + 1, n - k - 1) : v;
}


/* ---- tab completion ---- */

static Interp *compl_interp; /* readline's callbacks carry no user data */

typedef struct Matches {
  char **v;
  size_t n, cap, next;
  bool no_paren; /* completing a meta command's argument: names, not calls */
} Matches;
static Matches matches;

static const char *const meta_names[] = {":help", ":time",  ":load",    ":reset", ":quit",
                                         ":ir",   ":watch", ":unwatch", NULL};

static const char *const keywords[] = {
    "False",  "None",  "True",   "and",  "as",     "assert",  "break", "continue",
    "def",    "del",   "elif",   "else", "except", "finally", "for",   "from",
    "global", "if",    "import", "in",   "is",     "lambda",  "not",   "or",
    "pass",   "raise", "return", "try",  "while",  "with",    NULL};

static void matches_clear(void) {
  for (size_t i = matches.next; i < matches.n; i++) free(matches.v[i]);
  free(matches.v);
  bool no_paren = matches.no_paren;
  memset(&matches, 0, sizeof matches);
  matches.no_paren = no_paren;
}

/* Adds head + name, with "(" after a callable as Python's completer does. */
static void matches_add(const char *head, size_t hn, const char *name, Value *v) {
  if (matches.n == matches.cap) {
    matches.cap = matches.cap ? 2 * matches.cap : 32;
    matches.v = xrealloc(matches.v, matches.cap * sizeof *matches.v);
  }
  StrBuf b = STRBUF_INIT;
  sb_putn(&b, head, hn);
  sb_puts(&b, name);
  if (v && !matches.no_paren && val_is_callable(v)) sb_putc(&b, '(');
  size_t len;
  matches.v[matches.n++] = sb_take(&b, &len);
}

static bool wanted(const char *name, const char *part, size_t pn) {
  /* Private names only when asked for, as Python's completer does. */
  if (name[0] == '_' && (pn == 0 || part[0] != '_')) return false;
  return strncmp(name, part, pn) == 0;
}

static void complete_dict(Value *dict, const char *part, size_t pn) {
  int64_t pos = 0;
  Value *k, *v;
  while (dict_next(dict, &pos, &k, &v))
    if (k->kind == VAL_STR && wanted(k->u.str.s, part, pn)) matches_add("", 0, k->u.str.s, v);
}

static void complete_names(Interp *I, const char *part, size_t pn) {
  for (int i = 0; keywords[i]; i++)
    if (strncmp(keywords[i], part, pn) == 0) matches_add("", 0, keywords[i], NULL);
  complete_dict(interp_globals(I), part, pn);
  complete_dict(interp_builtins(I), part, pn);
}

static void complete_members(Interp *I, const char *text, size_t dot) {
  Value *obj = lookup_dotted(I, text, dot);
  if (!obj) return;
  Value *names = val_dir(I, obj);
  if (!names) {
    interp_error_clear(I);
    val_decref(obj);
    return;
  }
  const char *part = text + dot + 1;
  size_t pn = strlen(part);
  for (int64_t i = 0; i < VAL_SEQ_N(names); i++) {
    Value *s = VAL_SEQ_ITEM(names, i);
    if (s->kind != VAL_STR || !wanted(s->u.str.s, part, pn)) continue;
    /* A property is never called, so its getter (a.T copies the array) need not run. */
    bool prop = obj->kind == VAL_OBJ &&
                val_obj_prop(obj, sym_intern(s->u.str.s, (size_t)s->u.str.len));
    Value *m = prop ? NULL : lookup_attr(I, obj, s->u.str.s, (size_t)s->u.str.len);
    matches_add(text, dot + 1, s->u.str.s, m);
    val_xdecref(m);
  }
  val_decref(names);
  val_decref(obj);
}

/* The candidates for the word `text` into matches. */
static void collect_matches(Interp *I, const char *text) {
  matches_clear();
  const char *dot = strrchr(text, '.');
  if (text[0] == ':') {
    for (int i = 0; meta_names[i]; i++)
      if (strncmp(meta_names[i], text, strlen(text)) == 0) matches_add("", 0, meta_names[i], NULL);
  } else if (dot)
    complete_members(I, text, (size_t)(dot - text));
  else
    complete_names(I, text, strlen(text));
}

static char *next_match(const char *text, int state) {
  if (state == 0) collect_matches(compl_interp, text);
  return matches.next < matches.n ? matches.v[matches.next++] : NULL; /* readline frees it */
}

/* TAB indents where the line holds only blanks before the cursor (a block body), else
 * completes. Binding TAB to this instead of rl_complete hides readline's "second TAB lists
 * the matches" test (it compares rl_last_func with rl_complete), so that test is redone here. */
static int tab_key(int count, int key) {
  static bool changed; /* whether the previous TAB's completion changed the line */
  (void)count;
  if (is_blank(rl_line_buffer, (size_t)rl_point)) return rl_insert_text("    ") < 0;
  rl_completion_invoking_key = key;
  if (rl_last_func == tab_key && !changed) return rl_complete_internal('?');
  char *before = xstrdup(rl_line_buffer);
  int point = rl_point;
  const char *all = rl_variable_value("show-all-if-ambiguous");
  int r = rl_complete_internal(all && strcmp(all, "on") == 0 ? '!' : '\t');
  changed = point != rl_point || strcmp(before, rl_line_buffer) != 0;
  free(before);
  return r;
}

static const char name_breaks[] = " \t\n\"\\'`@$><=;|&{(,[]+-*/%^~!";

static bool load_line(const char *buf) {
  const char *line = skip_space(buf);
  return starts_with_word(line, strlen(line), ":load");
}

static bool is_load_line(void) { return load_line(rl_line_buffer); }

/* '.' never breaks a word, so "math.sq" completes as one; after :load only blanks do, so a
 * path completes whole. */
static char *word_breaks(void) { return (char *)(is_load_line() ? " \t\n" : name_breaks); }

/* In a meta command line: the command's name, file names after :load, plain names (no "(")
 * after the others. Elsewhere: names and members, never file names. */
static char **complete(const char *text, int start, int end) {
  (void)end;
  const char *line = skip_space(rl_line_buffer);
  bool meta = *line == ':';
  if (meta && start > line - rl_line_buffer && is_load_line()) {
    rl_attempted_completion_over = 0;
    return NULL;
  }
  rl_attempted_completion_over = 1;
  rl_completion_append_character = meta ? ' ' : '\0';
  matches.no_paren = meta;
  if (!compl_interp) return NULL;
  return rl_completion_matches(text, next_match);
}

char **repl_complete(Interp *I, const char *line, size_t cursor, size_t *start, int *n) {
  char *head = xstrndup(line, cursor); /* what readline would see left of the cursor */
  const char *lp = skip_space(head);
  bool meta = *lp == ':', load = meta && load_line(head);
  const char *breaks = load ? " \t\n" : name_breaks;
  size_t s = cursor;
  while (s > 0 && !strchr(breaks, head[s - 1])) s--;
  *start = s;
  *n = 0;
  char **out = NULL;
  if (is_blank(head, cursor)) { /* TAB indents there */
  } else if (load && s > (size_t)(lp - head)) { /* a path */
    int cap = 0;
    char *m;
    for (int state = 0; (m = rl_filename_completion_function(head + s, state)); state++) {
      if (*n == cap) out = xrealloc(out, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *out);
      out[(*n)++] = m;
    }
  } else {
    bool no_paren = matches.no_paren;
    matches.no_paren = meta;
    collect_matches(I, head + s);
    out = matches.v;
    *n = (int)matches.n;
    memset(&matches, 0, sizeof matches);
    matches.no_paren = no_paren;
  }
  free(head);
  return out;
}

/* ---- history ---- */

static char *history_path(void) {
  const char *home = getenv("HOME");
  if (!home || !*home) return NULL;
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s/.tes_history", home);
  size_t len;
  char *path = sb_take(&b, &len);
  /* append_history needs the file to exist; if it cannot be made, go without history. */
  if (read_history(path) != 0 && write_history(path) != 0) {
    free(path);
    return NULL;
  }
  return path;
}

static void remember(Repl *r, const char *line) {
  if (!r->tty || is_blank(line, strlen(line))) return;
  HIST_ENTRY *prev = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
  if (prev && strcmp(prev->line, line) == 0) return;
  add_history(line);
  if (r->hist_path) append_history(1, r->hist_path);
}

/* ---- reading lines ---- */

typedef enum { GOT_NONE, GOT_LINE, GOT_EOF, GOT_INTERRUPT } Got;

static char *rl_line;
static Got rl_got;

static void on_rl_line(char *line) {
  rl_line = line;
  rl_got = line ? GOT_LINE : GOT_EOF;
  rl_callback_handler_remove(); /* restores the terminal before the code runs */
}

/* "^C" goes out while the terminal is still readline's: restoring it may emit a carriage
 * return (when bracketed paste is on), which would otherwise put "^C" over the prompt. */
static void cancel_rl_line(void) {
  fputs("^C", rl_outstream);
  fflush(rl_outstream);
  rl_free_line_state();
  rl_callback_sigcleanup();
  rl_replace_line("", 0);
  rl_callback_handler_remove();
  fputc('\n', rl_outstream);
  fflush(rl_outstream);
}

/* Readline ends the prompt's line itself at end of input when bracketed paste is on. */
static void end_prompt_line(void) {
  const char *bp = rl_variable_value("enable-bracketed-paste");
  if (!bp || strcmp(bp, "on") != 0) fputc('\n', rl_outstream);
}

/* SIGINT and SIGWINCH stay blocked except inside pselect, so a signal can never slip in
 * between the flag check and the wait. */
static Got read_tty(const char *prompt, char **out) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGWINCH);
  sigprocmask(SIG_BLOCK, &block, &old);
  tes_interrupted = 0;
  rl_got = GOT_NONE;
  rl_callback_handler_install(prompt, on_rl_line);
  int fd = fileno(rl_instream);
  while (rl_got == GOT_NONE) {
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(fd, &fds);
    int n = pselect(fd + 1, &fds, NULL, NULL, NULL, &old);
    if (winch_pending) {
      winch_pending = 0;
      rl_resize_terminal();
    }
    if (tes_interrupted) {
      tes_interrupted = 0;
      cancel_rl_line();
      rl_got = GOT_INTERRUPT;
    } else if (n > 0) {
      rl_callback_read_char();
    } else if (n < 0 && errno != EINTR) {
      rl_callback_handler_remove();
      rl_got = GOT_EOF;
    }
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  *out = rl_line;
  rl_line = NULL;
  return rl_got;
}

static Got read_plain(char **out, size_t *len) {
  char *buf = NULL;
  size_t cap = 0;
  for (;;) {
    errno = 0;
    ssize_t n = getline(&buf, &cap, stdin);
    if (n >= 0) {
      while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = 0;
      *out = buf;
      *len = (size_t)n;
      return GOT_LINE;
    }
    if (!tes_interrupted && errno != EINTR) break;
    clearerr(stdin);
    if (tes_interrupted) {
      tes_interrupted = 0;
      free(buf);
      return GOT_INTERRUPT;
    }
  }
  free(buf);
  return GOT_EOF;
}

static Got read_line(Repl *r, char **out, size_t *len) {
  *out = NULL;
  *len = 0;
  if (!r->tty) return read_plain(out, len);
  fflush(stdout);
  Got got = read_tty(r->chunk.len ? PROMPT_MORE : PROMPT, out);
  if (*out) *len = strlen(*out);
  return got;
}

/* ---- meta commands ---- */

static Value *sorted_keys(Value *dict) {
  Value *list = val_list_new(dict_len(dict));
  int64_t pos = 0;
  Value *k, *v;
  while (dict_next(dict, &pos, &k, &v)) {
    if (k->kind != VAL_STR) continue;
    /* Insertion sort: the builtins dict has about a hundred names, sorted once per :help. */
    int64_t j = VAL_SEQ_N(list);
    val_list_append(list, k);
    for (; j > 0 && strcmp(VAL_SEQ_ITEM(list, j - 1)->u.str.s, k->u.str.s) > 0; j--)
      VAL_SEQ_ITEM(list, j) = VAL_SEQ_ITEM(list, j - 1);
    VAL_SEQ_ITEM(list, j) = k;
  }
  return list;
}

static void help_overview(Interp *I) {
  puts("meta commands:\n"
       "  :help [NAME]     this text, or the signature and doc of a builtin, module or function\n"
       "  :time EXPR       evaluate EXPR and print the wall time it took\n"
       "  :load FILE       run a script in this session\n"
       "  :reset           start a fresh session (argv is kept)\n"
       "  :quit            leave (Ctrl-D too)\n"
       "  :ir SCHED[, ARGS]\n"
       "                   print the IR of tvm.lower(SCHED, ARGS); ARGS (tensors) default to\n"
       "                   SCHED's placeholders, then its outputs\n"
       "  :watch SCHED[, ARGS]\n"
       "                   print SCHED's IR now and after every schedule primitive on it, lines\n"
       "                   marked '+ ' (new) and '- ' (gone) against the last print\n"
       "  :unwatch         stop watching\n"
       "keys: TAB completes names and members, Ctrl-C cancels the line or stops running code\n"
       "builtins:");
  Value *names = sorted_keys(interp_builtins(I));
  StrBuf b = STRBUF_INIT;
  val_help_wrapped(&b, "  ", names);
  fputs(sb_cstr(&b), stdout);
  sb_free(&b);
  val_decref(names);
}

/* What :help NAME is about: the name as the session sees it, else a builtin module (imported
 * into the session's module cache, not bound) and its members, so `:help math.sqrt` works
 * before `import math`. */
static Value *lookup_help(Interp *I, const char *name) {
  size_t n = strlen(name);
  Value *v = lookup_dotted(I, name, n);
  for (size_t k = n; !v && k > 0; k--) {
    if (k < n && name[k] != '.') continue;
    char *mod = xstrndup(name, k);
    bool known = mod_known(mod);
    if (known && !(v = mod_import(I, interp_modules(I), mod))) interp_error_clear(I);
    free(mod);
    if (v && k < n) v = lookup_attrs(I, v, name + k + 1, n - k - 1);
    if (known) break;
  }
  return v;
}

/* NAME's last part when it names a property of what the rest evaluates to (`:help A.shape`
 * is about the property, not the list it gives). */
static const Property *lookup_prop(Interp *I, const char *name) {
  const char *dot = strrchr(name, '.');
  if (!dot || !is_ident(dot + 1, strlen(dot + 1))) return NULL;
  char *head = xstrndup(name, (size_t)(dot - name));
  Value *obj = lookup_help(I, head);
  free(head);
  const Property *p = NULL;
  const ObjClass *cls = obj ? val_help_class(obj) : NULL;
  if (obj && obj->kind == VAL_OBJ) p = val_obj_prop(obj, sym_cstr(dot + 1));
  else if (cls) p = val_find_prop(cls->props, sym_cstr(dot + 1));
  val_xdecref(obj);
  return p;
}

/* Help for what NAME evaluates to, or for the property it names. */
bool repl_help_text(Interp *I, const char *name, StrBuf *b) {
  const Property *p = lookup_prop(I, name);
  Value *v = p ? NULL : lookup_help(I, name);
  bool found = true;
  if (p)
    sb_printf(b, "%s: %s\n", p->name, p->doc);
  else if (!v || !val_help(I, b, v))
    sb_printf(b, "no help for %s\n", name), found = false;
  val_xdecref(v);
  return found;
}

static void help_name(Interp *I, const char *name) {
  StrBuf b = STRBUF_INIT;
  repl_help_text(I, name, &b);
  fputs(sb_cstr(&b), stdout);
  sb_free(&b);
}

static void meta_time(Repl *r, const char *expr) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = run_text(r, expr, strlen(expr));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc < 0) return;
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  printf("time: %.3f ms\n", ms);
}

static void meta_load(Repl *r, const char *path) {
  Interp *I = *r->pI;
  begin_run();
  int rc = interp_run_file(I, path);
  end_run(I);
  if (rc < 0) report(r, I);
}

/* ---- :ir and :watch ---- */

/* A meta command's argument as an expression: a REPL entry of its own, so errors point into
 * "<stdin>" at the argument's columns. SCHED, or SCHED followed by the tensors to lower it
 * with (`s, A, B` or `s, [A, B]`). */
typedef struct IrRequest {
  Unit *unit; /* holds `at` */
  Node *at;   /* SCHED's expression, where a LowerError points */
  Schedule *s;
  int nargs; /* -1: the schedule's placeholders, then its outputs */
  Tensor **args;
} IrRequest;

static void ir_request_free(IrRequest *rq) {
  if (rq->unit) unit_decref(rq->unit);
  free(rq->args);
  memset(rq, 0, sizeof *rq);
}

/* Parses text as one expression statement; NULL with a SyntaxError pending. */
static Node *parse_expr_arg(Interp *I, const char *name, const char *text, Unit **unit) {
  Source *src = src_new(name, text, strlen(text));
  ParseError err;
  memset(&err, 0, sizeof err);
  Unit *u = parse_source(src, &err);
  Node *e = NULL;
  if (!u || resolve_unit(u, &err) < 0) {
    interp_raise_at(I, err.loc, EXC_SyntaxError, "%s", err.msg);
  } else if (u->root->u.list.n != 1 || u->root->u.list.items[0]->kind != AST_EXPRSTMT) {
    SrcLoc at = u->root->u.list.n ? u->root->u.list.items[0]->loc : (SrcLoc){src, 1, 1};
    interp_raise_at(I, at, EXC_SyntaxError, "expected an expression naming a schedule");
  } else {
    e = u->root->u.list.items[0]->u.unary.a;
  }
  if (!e && u) unit_decref(u);
  src_decref(src); /* the unit holds its own reference */
  *unit = e ? u : NULL;
  return e;
}

Value *repl_eval_expr(Interp *I, Unit *u, Node *e) {
  Frame F = {.unit = u, .globals = interp_globals(I), .name = sym_cstr("<module>")};
  bool outermost = I->stack_base == NULL;
  if (outermost) I->stack_base = __builtin_frame_address(0);
  Value *v = interp_eval(I, &F, e);
  if (!v) interp_locate(I, &F, e->loc);
  if (outermost) I->stack_base = NULL;
  return v;
}

/* ARGS: the items of v after the first, or the one list or tuple given there. */
static bool request_args(Interp *I, const char *cmd, Value *v, Node *e, IrRequest *rq) {
  Value *list = v;
  int64_t first = 1;
  if (VAL_SEQ_N(v) == 2 &&
      (VAL_SEQ_ITEM(v, 1)->kind == VAL_LIST || VAL_SEQ_ITEM(v, 1)->kind == VAL_TUPLE))
    list = VAL_SEQ_ITEM(v, 1), first = 0;
  rq->nargs = (int)(VAL_SEQ_N(list) - first);
  rq->args = xcalloc((size_t)rq->nargs + 1, sizeof *rq->args);
  for (int i = 0; i < rq->nargs; i++) {
    Value *item = VAL_SEQ_ITEM(list, first + i);
    if ((rq->args[i] = bi_te_tensor_of(item))) continue;
    Node *at = e->u.list.n > 1 ? e->u.list.items[1] : e;
    interp_raise_at(I, at->loc, EXC_TypeError, "%s: argument %d must be a tensor, not '%s'", cmd,
                    i + 1, val_type_name(item));
    return false;
  }
  return true;
}

static bool split_request(Interp *I, const char *cmd, Value *v, Node *e, IrRequest *rq) {
  bool tuple = e->kind == AST_TUPLE && VAL_SEQ_N(v) > 0;
  Value *sched = tuple ? VAL_SEQ_ITEM(v, 0) : v;
  rq->at = tuple ? e->u.list.items[0] : e;
  rq->nargs = -1;
  if (sched->kind != VAL_OBJ || sched->u.obj.cls != &bi_sched_schedule_class) {
    interp_raise_at(I, rq->at->loc, EXC_TypeError,
                    "%s needs a Schedule (te.create_schedule), not '%s'", cmd,
                    val_type_name(sched));
    return false;
  }
  rq->s = sched->u.obj.p;
  return !tuple || VAL_SEQ_N(v) < 2 || request_args(I, cmd, v, e, rq);
}

/* false with the error pending (and *rq empty) */
static bool ir_request(Interp *I, const char *name, const char *cmd, const char *text,
                       IrRequest *rq) {
  memset(rq, 0, sizeof *rq);
  Node *e = parse_expr_arg(I, name, text, &rq->unit);
  Value *v = e ? repl_eval_expr(I, rq->unit, e) : NULL;
  bool ok = v && split_request(I, cmd, v, e, rq);
  val_xdecref(v);
  if (!ok) ir_request_free(rq);
  return ok;
}

/* The schedule's placeholders in stage order, then its outputs' tensors. */
static Tensor **default_args(Arena *a, const Schedule *s, int *n) {
  int cap = s->nstages;
  for (int i = 0; i < s->noutputs; i++) cap += s->outputs[i]->noutputs;
  Tensor **args = arena_alloc(a, (size_t)(cap + 1) * sizeof *args);
  *n = 0;
  for (int i = 0; i < s->nstages; i++)
    if (s->stages[i]->op->kind == OP_PLACEHOLDER) args[(*n)++] = s->stages[i]->op->outputs[0];
  for (int i = 0; i < s->noutputs; i++)
    for (int j = 0; j < s->outputs[i]->noutputs; j++) {
      Tensor *t = s->outputs[i]->outputs[j];
      bool dup = false; /* an output that is a placeholder is already there */
      for (int k = 0; k < *n; k++) dup |= args[k] == t;
      if (!dup) args[(*n)++] = t;
    }
  return args;
}

/* The IR print(tvm.lower(s, args)) shows (malloc'd), or NULL with a LowerError pending.
 * Lowering never changes the schedule, so it goes into a scratch arena freed here, and :watch
 * can lower after every primitive without the session growing. */
static char *lower_text(Interp *I, Schedule *s, int nargs, Tensor **args) {
  Arena a;
  arena_init(&a);
  if (nargs < 0) args = default_args(&a, s, &nargs);
  LoweredFunc *f = bi_pass_lower(I, &a, s, nargs, args, "main", false);
  char *text = NULL;
  if (f) {
    StrBuf b = STRBUF_INIT;
    size_t len;
    lower_print_func(&b, f);
    text = sb_take(&b, &len);
  }
  arena_free(&a);
  return text;
}

static char *request_text(Interp *I, IrRequest *rq) {
  char *text = lower_text(I, rq->s, rq->nargs, rq->args);
  if (!text) {
    Frame F = {.unit = rq->unit, .name = sym_cstr("<module>")};
    interp_locate(I, &F, rq->at->loc);
  }
  return text;
}

/* Where :ir and :watch print: the script's stdout, or the server's buffer. */
static FILE *ir_out(const Repl *r, Interp *I) { return r->ir_out ? r->ir_out : interp_stdout(I); }

static void meta_ir(Repl *r, const char *arg) {
  Interp *I = *r->pI;
  IrRequest rq;
  begin_run();
  char *text = ir_request(I, src_name(r), ":ir", arg, &rq) ? request_text(I, &rq) : NULL;
  ir_request_free(&rq);
  if (text) fputs(text, ir_out(r, I));
  free(text);
  end_run(I);
  if (!text) report(r, I);
}

/* ---- :watch: a line diff of the IR against the last print ---- */

typedef struct Lines {
  int n;
  const char **s; /* into the text; each ends at its '\n' */
  int *len;
} Lines;

static Lines split_lines(const char *text) {
  Lines l = {0, NULL, NULL};
  int cap = 0;
  for (const char *p = text; p && *p;) {
    const char *nl = strchr(p, '\n');
    int len = nl ? (int)(nl - p) : (int)strlen(p);
    if (l.n == cap) {
      cap = cap ? 2 * cap : 64;
      l.s = xrealloc(l.s, (size_t)cap * sizeof *l.s);
      l.len = xrealloc(l.len, (size_t)cap * sizeof *l.len);
    }
    l.s[l.n] = p;
    l.len[l.n++] = len;
    p += len + (nl ? 1 : 0);
  }
  return l;
}

static bool same_line(const Lines *a, int i, const Lines *b, int j) {
  return a->len[i] == b->len[j] && memcmp(a->s[i], b->s[j], (size_t)a->len[i]) == 0;
}

static void put_line(FILE *out, const char *mark, const Lines *l, int i) {
  fputs(mark, out);
  fwrite(l->s[i], 1, (size_t)l->len[i], out);
  fputc('\n', out);
}

/* Old lines [i0, i1) against new lines [j0, j1) by a longest common subsequence; past 4M
 * cells (an IR of thousands of changed lines) every old line counts as removed and every new
 * one as added. */
static void diff_middle(FILE *out, const Lines *o, int i0, int i1, const Lines *n, int j0, int j1) {
  size_t rows = (size_t)(i1 - i0) + 1, cols = (size_t)(j1 - j0) + 1;
  int *lcs = rows * cols <= (4u << 20) ? xcalloc(rows * cols, sizeof *lcs) : NULL;
  for (int i = i1 - 1; lcs && i >= i0; i--)
    for (int j = j1 - 1; j >= j0; j--) {
      int *c = &lcs[(size_t)(i - i0) * cols + (size_t)(j - j0)];
      *c = same_line(o, i, n, j) ? c[cols + 1] + 1 : c[cols] > c[1] ? c[cols] : c[1];
    }
  int i = i0, j = j0;
  while (i < i1 || j < j1) {
    const int *c = lcs ? &lcs[(size_t)(i - i0) * cols + (size_t)(j - j0)] : NULL;
    if (c && i < i1 && j < j1 && same_line(o, i, n, j))
      put_line(out, "  ", n, j++), i++;
    else if (i < i1 && (!c || j == j1 || c[cols] >= c[1]))
      put_line(out, "- ", o, i++);
    else
      put_line(out, "+ ", n, j++);
  }
  free(lcs);
}

/* "  " before a line both have, "- " before one only old has, "+ " before one only new has.
 * old NULL: every line unmarked. */
static void print_diff(FILE *out, const char *old, const char *new_) {
  Lines o = split_lines(old), n = split_lines(new_);
  int pre = 0, suf = 0;
  while (pre < o.n && pre < n.n && same_line(&o, pre, &n, pre)) pre++;
  while (suf < o.n - pre && suf < n.n - pre && same_line(&o, o.n - 1 - suf, &n, n.n - 1 - suf))
    suf++;
  for (int i = 0; i < pre; i++) put_line(out, "  ", &n, i);
  if (!old)
    for (int j = pre; j < n.n; j++) put_line(out, "  ", &n, j);
  else
    diff_middle(out, &o, pre, o.n - suf, &n, pre, n.n - suf);
  for (int j = n.n - suf; old && j < n.n; j++) put_line(out, "  ", &n, j);
  free(o.s), free(o.len), free(n.s), free(n.len);
}

static void unwatch(Repl *r) {
  free(r->watch_name);
  free(r->watch_args);
  free(r->watch_ir);
  r->watch = NULL;
  r->watch_name = NULL;
  r->watch_args = NULL;
  r->watch_ir = NULL;
}

/* The hook after every primitive that succeeded: the watched schedule's IR under a header
 * naming the primitive, marked against the last print. A schedule that cannot be lowered as
 * it stands says why, and the next print is marked against the last one that could. */
static void watch_changed(void *user, Interp *I, Schedule *s, Stage *st, const char *what) {
  Repl *r = user;
  if (!r->watch || s != r->watch) return;
  FILE *out = ir_out(r, I);
  if (st)
    fprintf(out, "// after %s[%s].%s\n", r->watch_name, st->op->name, what);
  else
    fprintf(out, "// after %s.%s\n", r->watch_name, what);
  char *text = lower_text(I, s, r->watch_nargs, r->watch_args);
  if (text) {
    print_diff(out, r->watch_ir, text);
    free(r->watch_ir);
    r->watch_ir = text;
  } else {
    Value *exc = interp_error_take(I);
    const Value *msg = exc && exc->kind == VAL_EXC ? exc->u.exc->msg : NULL;
    fprintf(out, "(cannot lower: %s)\n", msg && msg->kind == VAL_STR ? msg->u.str.s : "?");
    val_xdecref(exc);
  }
  fflush(out);
}

/* What the user called the schedule: the argument up to its first comma outside brackets and
 * strings. */
static char *sched_name(const char *arg) {
  int depth = 0;
  char quote = 0;
  const char *p = arg;
  for (; *p && (quote || depth > 0 || *p != ','); p++) {
    if (quote && *p == '\\' && p[1])
      p++;
    else if (quote)
      quote = *p == quote ? 0 : quote;
    else if (*p == '\'' || *p == '"')
      quote = *p;
    else if (strchr("([{", *p))
      depth++;
    else if (strchr(")]}", *p))
      depth--;
  }
  while (p > arg && isspace((unsigned char)p[-1])) p--;
  return xstrndup(arg, (size_t)(p - arg));
}

static void meta_watch(Repl *r, const char *arg) {
  Interp *I = *r->pI;
  IrRequest rq;
  begin_run();
  char *text = ir_request(I, src_name(r), ":watch", arg, &rq) ? request_text(I, &rq) : NULL;
  end_run(I);
  if (!text) {
    ir_request_free(&rq);
    report(r, I);
    return;
  }
  unwatch(r);
  r->watch = rq.s;
  r->watch_name = sched_name(arg);
  r->watch_nargs = rq.nargs;
  r->watch_args = rq.args;
  rq.args = NULL;
  ir_request_free(&rq);
  r->watch_ir = text;
  FILE *out = ir_out(r, I);
  fprintf(out, "// watching %s\n", r->watch_name);
  print_diff(out, NULL, text);
  bi_pass_hooks(I)->changed = watch_changed;
  bi_pass_hooks(I)->changed_user = r;
}

static void meta_unwatch(Repl *r) {
  if (r->watch)
    printf("// stopped watching %s\n", r->watch_name);
  else
    puts("// not watching a schedule");
  unwatch(r);
}

/* A fresh Interp with the same argv; the old one goes only once the new one exists. */
static void meta_reset(Repl *r) {
  Interp *old = *r->pI;
  Value *argv = interp_argv(old);
  int argc = argv && argv->kind == VAL_LIST ? (int)VAL_SEQ_N(argv) : 0;
  char **args = xcalloc((size_t)argc + 1, sizeof *args);
  for (int i = 0; i < argc; i++) {
    Value *s = VAL_SEQ_ITEM(argv, i);
    args[i] = xstrdup(s->kind == VAL_STR ? s->u.str.s : "");
  }
  Interp *fresh = interp_new();
  interp_set_argv(fresh, argc, args);
  /* --dump-after and --emit=ir go on; the watched schedule was the old session's */
  *bi_pass_hooks(fresh) = *bi_pass_hooks(old);
  bi_pass_hooks(fresh)->changed = NULL;
  unwatch(r);
  for (int i = 0; i < argc; i++) free(args[i]);
  free(args);
  interp_free(old);
  *r->pI = fresh;
  compl_interp = fresh;
}

static void meta_error(Repl *r, const char *fmt, const char *arg) {
  if (r->hold) {
    StrBuf b = STRBUF_INIT;
    sb_printf(&b, fmt, arg);
    size_t len;
    free(r->held_msg);
    r->held_msg = sb_take(&b, &len);
    return;
  }
  fflush(stdout);
  fputs("tes: ", stderr);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  r->status = 1;
}

/* Commands that take an argument refuse to run without one rather than guess. */
static bool need_arg(Repl *r, const char *cmd, const char *arg, const char *what) {
  if (*arg) return true;
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "usage: %s %s", cmd, what);
  meta_error(r, "%s", sb_cstr(&b));
  sb_free(&b);
  return false;
}

static void run_meta(Repl *r, char *line) {
  char *cmd = (char *)skip_space(line);
  char *arg = cmd + 1;
  while (*arg && !isspace((unsigned char)*arg)) arg++;
  if (*arg) *arg++ = 0;
  arg = (char *)skip_space(arg);
  for (char *e = arg + strlen(arg); e > arg && isspace((unsigned char)e[-1]);) *--e = 0;
  if (strcmp(cmd, ":help") == 0) {
    if (*arg)
      help_name(*r->pI, arg);
    else
      help_overview(*r->pI);
  } else if (strcmp(cmd, ":time") == 0) {
    if (need_arg(r, cmd, arg, "EXPR")) meta_time(r, arg);
  } else if (strcmp(cmd, ":load") == 0) {
    if (need_arg(r, cmd, arg, "FILE")) meta_load(r, arg);
  } else if (strcmp(cmd, ":reset") == 0) {
    meta_reset(r);
  } else if (strcmp(cmd, ":quit") == 0 || strcmp(cmd, ":q") == 0) {
    r->quit = true;
  } else if (strcmp(cmd, ":ir") == 0) {
    if (need_arg(r, cmd, arg, "SCHED[, ARGS]")) meta_ir(r, arg);
  } else if (strcmp(cmd, ":watch") == 0) {
    if (need_arg(r, cmd, arg, "SCHED[, ARGS]")) meta_watch(r, arg);
  } else if (strcmp(cmd, ":unwatch") == 0) {
    meta_unwatch(r);
  } else {
    meta_error(r, "unknown meta command '%s' (:help lists them)", cmd);
  }
  fflush(stdout);
}

/* ---- the loop ---- */

static void feed_line(Repl *r, char *line, size_t n) {
  if (r->chunk.len == 0) {
    if (is_blank(line, n)) return;
    if (*skip_space(line) == ':') {
      run_meta(r, line);
      return;
    }
  } else if (ends_block(r, line, n)) {
    run_chunk(r);
    if (!r->quit) feed_line(r, line, n);
    return;
  }
  sb_putn(&r->chunk, line, n);
  sb_putc(&r->chunk, '\n');
  scan_line(&r->scan, line, n);
  if (chunk_complete(r, line, n)) run_chunk(r);
}

/* A bracketed paste can deliver several lines in one; each goes through the chunker. */
static void feed(Repl *r, char *text, size_t len) {
  remember(r, text);
  char *p = text, *end = text + len;
  for (;;) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    if (nl) *nl = 0;
    feed_line(r, p, (size_t)((nl ? nl : end) - p));
    if (!nl || r->quit) break;
    p = nl + 1;
  }
}

static void setup_readline(Repl *r) {
  rl_readline_name = "tes";
  rl_instream = stdin;
  rl_outstream = stdout;
  rl_catch_signals = 0; /* the read loop handles SIGINT and SIGWINCH itself */
  rl_catch_sigwinch = 0;
  rl_attempted_completion_function = complete;
  rl_initialize(); /* reads ~/.inputrc first, so our TAB binding wins */
  rl_bind_key('\t', tab_key);
  rl_completer_word_break_characters = name_breaks;
  rl_completion_word_break_hook = word_breaks;
  install_sigwinch();
  r->hist_path = history_path();
  if (r->hist_path) stifle_history(HISTORY_MAX);
}

static void teardown_readline(Repl *r) {
  if (r->hist_path) history_truncate_file(r->hist_path, HISTORY_MAX);
  free(r->hist_path);
  clear_history();
  matches_clear();
}

int repl_run(Interp **pI, bool interactive, int status) {
  Repl r;
  memset(&r, 0, sizeof r);
  r.pI = pI;
  r.tty = interactive;
  r.status = status;
  compl_interp = *pI;
  if (r.tty) setup_readline(&r);
  while (!r.quit) {
    char *line;
    size_t len;
    Got got = read_line(&r, &line, &len);
    if (got == GOT_EOF) {
      if (r.tty) end_prompt_line();
      run_chunk(&r);
      break;
    }
    if (got == GOT_INTERRUPT) {
      if (!r.tty) fputs("KeyboardInterrupt\n", stderr);
      reset_chunk(&r);
      continue;
    }
    feed(&r, line, len);
    free(line);
  }
  reset_chunk(&r);
  if (r.tty) teardown_readline(&r);
  compl_interp = NULL;
  if (bi_pass_hooks(*pI)->changed_user == &r) bi_pass_hooks(*pI)->changed = NULL;
  unwatch(&r);
  fflush(stdout);
  if (r.exiting) return r.exit_code;
  return r.tty ? 0 : r.status;
}

/* ---- what tes --serve shares (serve.c) ---- */

Repl *repl_session_new(Interp **pI) {
  Repl *r = xcalloc(1, sizeof *r);
  r->pI = pI;
  r->hold = true;
  return r;
}

void repl_session_free(Repl *r) {
  if (!r) return;
  if (bi_pass_hooks(*r->pI)->changed_user == r) bi_pass_hooks(*r->pI)->changed = NULL;
  unwatch(r);
  reset_chunk(r);
  free(r->held_msg);
  free(r);
}

void repl_session_set_ir_out(Repl *r, FILE *out) { r->ir_out = out; }

void repl_session_set_name(Repl *r, const char *name) { r->src_name = name; }

int repl_session_meta(Repl *r, const char *line, char **msg) {
  char *copy = xstrdup(line);
  free(r->held_msg);
  r->held_msg = NULL;
  r->quit = false;
  run_meta(r, copy);
  free(copy);
  *msg = r->held_msg;
  r->held_msg = NULL;
  if (r->quit) return 1;
  if (*msg) return -2;
  return interp_error_pending(*r->pI) ? -1 : 0;
}

ReplInputState repl_input_state(const char *text, size_t len) {
  Repl r;
  memset(&r, 0, sizeof r);
  if (is_blank(text, len)) return REPL_COMPLETE;
  if (*skip_space(text + strspn(text, " \t\r\n")) == ':') return REPL_COMPLETE;
  bool complete = false;
  for (size_t i = 0; i < len;) {
    const char *nl = memchr(text + i, '\n', len - i);
    size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
    sb_putn(&r.chunk, text + i, n);
    sb_putc(&r.chunk, '\n');
    scan_line(&r.scan, text + i, n);
    complete = chunk_complete(&r, text + i, n);
    if (complete) reset_chunk(&r);
    i += n + 1;
  }
  reset_chunk(&r);
  if (!complete) return REPL_INCOMPLETE;
  Source *src = src_new("<cell>", text, len);
  ParseError err;
  memset(&err, 0, sizeof err);
  Unit *u = parse_source(src, &err);
  bool ok = u && resolve_unit(u, &err) == 0;
  if (u) unit_decref(u);
  src_decref(src);
  return ok ? REPL_COMPLETE : REPL_INVALID;
}
