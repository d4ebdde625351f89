/* contrib_clang.c: tvm.contrib.clang.create_llvm (SPEC §12): C or C++ source compiled to LLVM
 * IR text by clang, for s[C].pragma(axis, "import_llvm", text). clang is looked for as TVM
 * does (the clang of tes's LLVM version first, then plain clang); where none is installed the
 * call says so and names what to install. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir_impl.h"

static const char *const clang_names[] = {"clang-19", "clang", "/usr/lib/llvm-19/bin/clang"};

/* name as a path: itself when it has a slash, else the first executable of that name on
 * PATH; malloc'd, or NULL. */
static char *find_program(const char *name) {
  if (strchr(name, '/')) return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/bin:/bin";
  for (const char *p = path; *p;) {
    size_t len = strcspn(p, ":");
    char *full = xmalloc(len + strlen(name) + 2);
    snprintf(full, len + strlen(name) + 2, "%.*s/%s", (int)len, p, name);
    if (len && access(full, X_OK) == 0) return full;
    free(full);
    p += len + (p[len] == ':');
  }
  return NULL;
}

static char *read_file(const char *path, size_t max) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  StrBuf b = STRBUF_INIT;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0 && b.len < max) sb_putn(&b, buf, n);
  fclose(f);
  sb_cstr(&b);
  return sb_take(&b, NULL);
}

static bool write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(text, 1, strlen(text), f) == strlen(text);
  return fclose(f) == 0 && ok;
}

/* Runs argv[0] (a path) with its output in the file log: the exit status, or -1 when it could
 * not run or was killed. The JIT runs the linker for export_library the same way, inside the
 * LLVM plugin, which this room cannot call. */
static int run_tool(char *const *argv, const char *log) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
    execv(argv[0], argv);
    dprintf(2, "cannot run %s: %s", argv[0], strerror(errno));
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

typedef struct Job {
  char dir[256];
  char **argv;
  int argc, cap;
  char **temps; /* files to remove */
  int ntemps;
} Job;

static void add_arg(Job *j, const char *s) {
  VEC_GROW(NULL, j->argv, j->cap, j->argc + 2);
  j->argv[j->argc++] = xstrdup(s);
  j->argv[j->argc] = NULL;
}

static char *temp_path(Job *j, const char *name) {
  size_t n = strlen(j->dir) + strlen(name) + 2;
  char *p = xmalloc(n);
  snprintf(p, n, "%s/%s", j->dir, name);
  j->temps = xrealloc(j->temps, (size_t)(j->ntemps + 1) * sizeof *j->temps);
  j->temps[j->ntemps++] = p;
  return p;
}

static void job_free(Job *j) {
  for (int i = 0; i < j->ntemps; i++) unlink(j->temps[i]), free(j->temps[i]);
  free(j->temps);
  if (j->dir[0]) rmdir(j->dir);
  for (int i = 0; i < j->argc; i++) free(j->argv[i]);
  free(j->argv);
}

/* An input: a path to an existing source file, else source text (C++, as TVM writes it to
 * input%d.cc). */
static int add_input(Interp *I, Job *j, Value *v, int i) {
  if (v->kind != VAL_STR) {
    interp_raise(I, EXC_TypeError, "create_llvm: inputs must be str (source text or a path), "
                                   "not '%s'", val_type_name(v));
    return -1;
  }
  const char *s = v->u.str.s, *dot = strrchr(s, '.');
  bool is_path = !strchr(s, '\n') && dot &&
                 (!strcmp(dot, ".c") || !strcmp(dot, ".cc") || !strcmp(dot, ".cpp")) &&
                 access(s, R_OK) == 0;
  if (is_path) return add_arg(j, s), 0;
  char name[32];
  snprintf(name, sizeof name, "input%d.cc", i);
  char *p = temp_path(j, name);
  if (!write_file(p, s)) {
    interp_raise(I, EXC_RuntimeError, "create_llvm: cannot write %s: %s", p, strerror(errno));
    return -1;
  }
  add_arg(j, p);
  return 0;
}

static int add_options(Interp *I, Job *j, Value *v) {
  if (!v || v->kind == VAL_NONE) return 0;
  if (v->kind == VAL_STR) return add_arg(j, v->u.str.s), 0;
  if (v->kind != VAL_LIST && v->kind != VAL_TUPLE) {
    interp_raise(I, EXC_TypeError, "create_llvm: options must be a list of str");
    return -1;
  }
  for (int64_t i = 0; i < VAL_SEQ_N(v); i++) {
    Value *o = VAL_SEQ_ITEM(v, i);
    if (o->kind != VAL_STR) {
      interp_raise(I, EXC_TypeError, "create_llvm: options must be a list of str");
      return -1;
    }
    add_arg(j, o->u.str.s);
  }
  return 0;
}

static char *find_clang(Interp *I, Value *cc) {
  if (cc && cc->kind != VAL_NONE) {
    if (cc->kind != VAL_STR) {
      interp_raise(I, EXC_TypeError, "create_llvm: cc must be a str, not '%s'", val_type_name(cc));
      return NULL;
    }
    char *p = find_program(cc->u.str.s);
    if (!p) interp_raise(I, EXC_RuntimeError, "create_llvm: cannot find the compiler '%s'",
                         cc->u.str.s);
    return p;
  }
  for (size_t i = 0; i < sizeof clang_names / sizeof *clang_names; i++) {
    char *p = find_program(clang_names[i]);
    if (p) return p;
  }
  interp_raise(I, EXC_RuntimeError, "create_llvm: clang is not installed (looked for clang-19 "
                                    "and clang on PATH, and /usr/lib/llvm-19/bin/clang); "
                                    "install the clang-19 package");
  return NULL;
}

/* create_llvm(inputs, output=None, options=None, cc=None) -> str: the LLVM IR text. */
static Value *fn_create_llvm(Interp *I, Value *self, Value **a) {
  Job j = {0};
  Value *r = NULL;
  char *clang = find_clang(I, a[3]);
  if (!clang) return NULL;
  const char *tmp = getenv("TMPDIR");
  snprintf(j.dir, sizeof j.dir, "%s/tes-clang-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(j.dir)) {
    j.dir[0] = 0;
    interp_raise(I, EXC_RuntimeError, "create_llvm: cannot make a scratch directory: %s",
                 strerror(errno));
    goto out;
  }
  add_arg(&j, clang);
  add_arg(&j, "-S");
  add_arg(&j, "-emit-llvm");
  if (add_options(I, &j, a[2]) < 0) goto out;
  const char *output = bi_te_str_arg(I, a[1] && a[1]->kind != VAL_NONE ? a[1] : NULL,
                                     "create_llvm", "output", NULL);
  if (interp_error_pending(I)) goto out;
  if (!output) output = temp_path(&j, "output.ll");
  add_arg(&j, "-o");
  add_arg(&j, output);
  Value *in = a[0];
  bool seq = in->kind == VAL_LIST || in->kind == VAL_TUPLE;
  for (int64_t i = 0; i < (seq ? VAL_SEQ_N(in) : 1); i++)
    if (add_input(I, &j, seq ? VAL_SEQ_ITEM(in, i) : in, (int)i) < 0) goto out;
  char *log = temp_path(&j, "clang.log");
  int status = run_tool(j.argv, log);
  if (status != 0) {
    char *text = read_file(log, 1 << 16);
    interp_raise(I, EXC_RuntimeError, "create_llvm: %s %s:\n%s", clang,
                 status < 0 ? "could not run" : "failed", text ? text : "");
    free(text);
    goto out;
  }
  char *ll = read_file(output, (size_t)1 << 30);
  if (!ll) {
    interp_raise(I, EXC_RuntimeError, "create_llvm: cannot read %s", output);
    goto out;
  }
  r = val_cstr(ll);
  free(ll);
out:
  free(clang);
  job_free(&j);
  return r;
}

const Builtin bi_contrib_clang_funcs[] = {
    {"create_llvm", fn_create_llvm, 1, PARAMS("inputs", "output", "options", "cc"),
     "create_llvm(inputs, output=None, options=None, cc=None) -> str: C++ source (text or "
     "files) compiled to LLVM IR text by clang"},
    {0},
};
