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

#include "frontend/diag.h"
#include "frontend/modules.h"
#include "frontend/parse.h"
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
} Repl;

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
  int rc = interp_run_text(I, "<stdin>", text, len, true);
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
    Value *m = lookup_attr(I, obj, s->u.str.s, (size_t)s->u.str.len);
    matches_add(text, dot + 1, s->u.str.s, m);
    val_xdecref(m);
  }
  val_decref(names);
  val_decref(obj);
}

static char *next_match(const char *text, int state) {
  if (state == 0) {
    matches_clear();
    const char *dot = strrchr(text, '.');
    if (text[0] == ':') {
      for (int i = 0; meta_names[i]; i++)
        if (strncmp(meta_names[i], text, strlen(text)) == 0)
          matches_add("", 0, meta_names[i], NULL);
    } else if (dot)
      complete_members(compl_interp, text, (size_t)(dot - text));
    else
      complete_names(compl_interp, text, strlen(text));
  }
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

static bool is_load_line(void) {
  const char *line = skip_space(rl_line_buffer);
  return starts_with_word(line, strlen(line), ":load");
}

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

static void print_wrapped(const char *indent, Value *names) {
  size_t col = 0;
  for (int64_t i = 0; i < VAL_SEQ_N(names); i++) {
    Value *s = VAL_SEQ_ITEM(names, i);
    if (s->kind != VAL_STR) continue;
    size_t w = (size_t)s->u.str.len + 2;
    if (col > 0 && col + w > 78) {
      putchar('\n');
      col = 0;
    }
    col += (size_t)printf("%s%s", col == 0 ? indent : "  ", s->u.str.s);
  }
  if (col > 0) putchar('\n');
}

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
       "  :ir SCHED, :watch SCHED, :unwatch   arrive with tensor expressions (issue 3)\n"
       "keys: TAB completes names and members, Ctrl-C cancels the line or stops running code\n"
       "builtins:");
  Value *names = sorted_keys(interp_builtins(I));
  print_wrapped("  ", names);
  val_decref(names);
}

static const ModuleDef *find_module_def(const char *name) {
  for (int i = 0; mod_table[i]; i++)
    if (strcmp(mod_table[i]->name, name) == 0) return mod_table[i];
  return NULL;
}

static void help_module(Interp *I, Value *m) {
  const char *name = m->u.mod->name ? m->u.mod->name->u.str.s : "?";
  const ModuleDef *def = find_module_def(name);
  printf("module %s", name);
  if (def && def->doc) printf(": %s", def->doc);
  putchar('\n');
  if (m->u.mod->pending) printf("  (not supported yet: %s)\n", m->u.mod->pending);
  Value *names = val_dir(I, m);
  if (!names) {
    interp_error_clear(I);
    return;
  }
  puts("members:");
  print_wrapped("  ", names);
  val_decref(names);
}

static void help_param(Interp *I, StrBuf *b, const Func *fn, int i) {
  const Param *p = &fn->def->params[i];
  const char *name = p->name ? SYM_STR(p->name) : "";
  switch (p->kind) {
  case PARAM_STAR:
    sb_printf(b, "*%s", name);
    return;
  case PARAM_STARSTAR:
    sb_printf(b, "**%s", name);
    return;
  case PARAM_PLAIN:
  case PARAM_KWONLY:
    sb_puts(b, name);
    break;
  }
  Value *d = fn->defaults ? fn->defaults[i] : NULL;
  Value *r = d ? val_repr(I, d) : NULL;
  if (d && !r) interp_error_clear(I);
  if (d) sb_printf(b, "=%s", r ? r->u.str.s : "...");
  val_xdecref(r);
}

static void help_func(Interp *I, Value *f) {
  const Func *fn = f->u.func;
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "def %s(", SYM_STR(fn->def->name));
  for (int i = 0; i < fn->def->nparams; i++) {
    if (i) sb_puts(&b, ", ");
    help_param(I, &b, fn, i);
  }
  sb_putc(&b, ')');
  const char *where = fn->unit && fn->unit->src ? fn->unit->src->name : NULL;
  if (where) sb_printf(&b, ": defined in %s", where);
  puts(sb_cstr(&b));
  sb_free(&b);
}

static void help_type(Value *t) {
  const TypeObj *ty = t->u.type;
  if (ty->ctor && ty->ctor->doc)
    puts(ty->ctor->doc);
  else if (ty->base)
    printf("%s(%s): an exception class\n", ty->name, ty->base->name);
  else
    printf("type %s\n", ty->name);
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
    bool known = find_module_def(mod) != NULL;
    if (known && !(v = mod_import(I, interp_modules(I), mod))) interp_error_clear(I);
    free(mod);
    if (v && k < n) v = lookup_attrs(I, v, name + k + 1, n - k - 1);
    if (known) break;
  }
  return v;
}

/* Help for what NAME evaluates to; anything but a builtin, module, type or function has none. */
static void help_name(Interp *I, const char *name) {
  Value *v = lookup_help(I, name);
  bool found = v != NULL;
  if (v && v->kind == VAL_BUILTIN && v->u.bi.def->doc)
    puts(v->u.bi.def->doc);
  else if (v && v->kind == VAL_MODULE)
    help_module(I, v);
  else if (v && v->kind == VAL_TYPE)
    help_type(v);
  else if (v && v->kind == VAL_FUNC)
    help_func(I, v);
  else
    found = false;
  if (!found) printf("no help for %s\n", name);
  val_xdecref(v);
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
  for (int i = 0; i < argc; i++) free(args[i]);
  free(args);
  interp_free(old);
  *r->pI = fresh;
  compl_interp = fresh;
}

static void meta_error(Repl *r, const char *fmt, const char *arg) {
  fflush(stdout);
  fputs("tes: ", stderr);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  r->status = 1;
}

static void meta_pending(Repl *r, const char *cmd) {
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "not supported yet: %s (tensor expressions arrive with issue 3)", cmd);
  meta_error(r, "%s", sb_cstr(&b));
  sb_free(&b);
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
  } else if (strcmp(cmd, ":ir") == 0 || strcmp(cmd, ":watch") == 0 ||
             strcmp(cmd, ":unwatch") == 0) {
    meta_pending(r, cmd);
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
  fflush(stdout);
  if (r.exiting) return r.exit_code;
  return r.tty ? 0 : r.status;
}
