/* main.c: the command line of SPEC §2: run a file, a -c string or a session, and turn the
 * outcome into the exit status (0 success, 1 runtime error, 2 syntax error or bad usage). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/tvm/build.h"
#include "frontend/tvm/packages.h"
#include "frontend/tvm/pass.h"
#include "frontend/diag.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/parse.h"
#include "frontend/repl.h"
#include "frontend/serve.h"
#include "jit/cuda_driver.h"
#include "jit/nvrtc.h"
#include "ir/printer.h"
#include "ir/strbuf.h"

#ifndef TES_VERSION
#define TES_VERSION "0.0.0"
#endif
#ifndef TES_LLVM_VERSION
#define TES_LLVM_VERSION "unknown"
#endif

static const char usage_text[] =
    "usage: tes [FILE [ARGS...]]\n"
    "       tes -c CODE [ARGS...]\n"
    "       tes -i FILE [ARGS...]\n"
    "       tes --emit=ir|llvm|cuda|asm FILE [ARGS...]\n"
    "       tes --dump-after=PASS FILE [ARGS...]\n"
    "       tes --dump-ast FILE\n"
    "       tes --serve\n"
    "Runs a TES script; with no FILE, reads a session from standard input (the REPL when it\n"
    "is a terminal; otherwise statement by statement, echoing expression values).\n"
    "\n"
    "options:\n"
    "  -c CODE              run CODE; sys.argv is ['-c', ARGS...]\n"
    "  -i FILE              run FILE, then start the REPL with its names\n"
    "  --emit=KIND          print every module the script makes, when it is made: ir (each\n"
    "                       tvm.lower), llvm or asm (each tvm.build for \"llvm\"), cuda (the\n"
    "                       CUDA C of each tvm.build for \"cuda\")\n"
    "  --dump-after=PASS    print the IR after lowering pass PASS ('all': every pass)\n"
    "  --dump-ast FILE      print the syntax tree of FILE without running it\n"
    "  --serve              answer JSON requests, one a line, on stdin and stdout: the machine\n"
    "                       mode for front ends such as the Jupyter kernel (docs/serve.md)\n"
    "  --version            print the versions of tes, LLVM, NVRTC and the CUDA driver\n"
    "  -h, --help           print this help and exit\n"
    "\n"
    "tvm.build targets: \"llvm\" (the CPU, compiled in the process by LLVM), \"c\" (C source)\n"
    "and \"cuda\" (CUDA C compiled to PTX by NVRTC, run on a GPU through the CUDA driver).\n"
    "\n"
    "environment:\n"
    "  TES_LLVM_PLUGIN      the path of libtes-llvm.so (the LLVM back end), instead of looking\n"
    "                       beside tes and in the install's <libdir>/tes\n"
    "  TES_NUM_THREADS      threads for parallel loops (default: the CPUs tes may use)\n"
    "  TES_CACHE=0          turn the compile cache ($XDG_CACHE_HOME/tes) off\n"
    "  TES_CACHE_MAX_MB     the compile cache's size cap in megabytes (default 256)\n"
    "  TES_TIME_BUILD=1     print each \"llvm\" build's phases to stderr (=cpu: in CPU time)\n"
    "  TES_CUDA_DRIVER      the CUDA driver library to load (default: libcuda.so.1)\n"
    "  TES_CUDA_SYNC=1      wait after every kernel launch, so a fault names its kernel\n"
    "  CC                   the C compiler export_library links with (default: cc)\n"
    "\n"
    "exit status: 0 success, 1 runtime error, 2 syntax error or bad usage;\n"
    "sys.exit(N) exits with N. More in the manual page, man tes.\n";

static int usage_error(const char *fmt, ...) TES_PRINTF(1, 2);
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tes: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nusage: tes [-c CODE | -i FILE | FILE] [ARGS...]; tes --help for more\n", stderr);
  return 2;
}

/* Runs, reports any uncaught error and gives the exit status. `text` NULL: run the file. */
static int run_script(Interp *I, const char *name, const char *text, bool *exiting) {
  int rc = text ? interp_run_text(I, name, text, strlen(text), false) : interp_run_file(I, name);
  fflush(interp_stdout(I));
  fflush(stdout);
  *exiting = false;
  return rc < 0 ? repl_report_error(I, exiting) : 0;
}

static int dump_ast(const char *path) {
  size_t len;
  char *text = read_whole_file(path, &len);
  if (!text) {
    fprintf(stderr, "tes: cannot read %s\n", path);
    return 1;
  }
  Source *src = src_new(path, text, len);
  free(text);
  ParseError err;
  memset(&err, 0, sizeof err);
  Unit *u = parse_source(src, &err);
  int status = 0;
  if (u) {
    ast_dump(u->root, stdout);
    unit_decref(u);
  } else {
    fflush(stdout);
    diag_print_loc(stderr, err.loc, "SyntaxError", err.msg);
    status = 2;
  }
  src_decref(src);
  return status;
}

/* argv for the script: [name, rest...]. */
static void set_argv(Interp *I, const char *name, int nrest, char **rest) {
  char **v = xcalloc((size_t)nrest + 2, sizeof *v);
  v[0] = (char *)name;
  for (int i = 0; i < nrest; i++) v[i + 1] = rest[i];
  interp_set_argv(I, nrest + 1, v);
  free(v);
}

typedef enum { MODE_REPL, MODE_FILE, MODE_CODE, MODE_INSPECT, MODE_SERVE } Mode;

typedef struct Cmd {
  Mode mode;
  const char *target; /* FILE or CODE */
  int nrest;
  char **rest;
  const char *dump_after; /* --dump-after=PASS: a pass name, "all", or NULL */
  bool emit_ir;           /* --emit=ir */
  const char *emit_source; /* --emit=llvm|asm: get_source's format, or NULL */
} Cmd;

/* lower_run's callback for --dump-after: the IR after the chosen pass (after each, under a
 * header line naming it, for `all`), on standard output between the script's own lines. */
static void dump_ir(void *user, const char *pass, const Stmt *body, bool changed, int ndevice,
                    const DeviceFunc *device) {
  const char *want = user;
  bool all = strcmp(want, "all") == 0;
  if (!all && strcmp(want, pass) != 0) return;
  StrBuf b = STRBUF_INIT;
  if (all) sb_printf(&b, "// after %s\n", pass);
  if (changed)
    ir_print_stmt(&b, body, 0);
  else
    sb_puts(&b, "(unchanged)\n");
  if (changed) /* from tir.SplitHostDevice on, the kernels after the host function */
    for (int i = 0; i < ndevice; i++) lower_print_device_func(&b, &device[i]);
  fputs(sb_cstr(&b), stdout);
  fflush(stdout);
  sb_free(&b);
}

/* --emit=ir: each function tvm.lower makes, as print(mod) shows it, where the script's own
 * output goes. */
static void emit_ir(void *user, Interp *I, const LoweredFunc *f) {
  StrBuf b = STRBUF_INIT;
  lower_print_func(&b, f);
  fputs(sb_cstr(&b), interp_stdout(I));
  fflush(interp_stdout(I));
  sb_free(&b);
}

/* --emit=llvm|asm|cuda: each module tvm.build makes for that kind of target, as get_source(fmt)
 * gives it (a cuda module's CUDA C; an llvm or c module's LLVM IR or assembly). */
static void emit_source(void *user, Interp *I, Value *module) {
  if (bi_build_is_cuda(module) != (strcmp((const char *)user, "cuda") == 0)) return;
  Diag d = DIAG_INIT;
  char *text = bi_build_source(module, (const char *)user, &d);
  FILE *out = interp_stdout(I);
  if (text) fputs(text, out);
  else fprintf(stderr, "tes: --emit: %s\n", d.msg);
  fflush(out);
  free(text);
}

static int run_cmd(const Cmd *c) {
  Interp *I = interp_new();
  bool exiting = false;
  BiLowerHooks *hooks = bi_pass_hooks(I); /* the REPL carries them over :reset */
  if (c->dump_after) hooks->dump = dump_ir, hooks->dump_user = (void *)c->dump_after;
  if (c->emit_ir) hooks->lowered = emit_ir;
  if (c->emit_source) hooks->built = emit_source, hooks->built_user = (void *)c->emit_source;
  int status = 0;
  switch (c->mode) {
  case MODE_REPL:
    set_argv(I, "", 0, NULL);
    status = repl_run(&I, isatty(STDIN_FILENO), 0);
    break;
  case MODE_FILE:
    set_argv(I, c->target, c->nrest, c->rest);
    status = run_script(I, c->target, NULL, &exiting);
    break;
  case MODE_CODE:
    set_argv(I, "-c", c->nrest, c->rest);
    status = run_script(I, "<string>", c->target, &exiting);
    break;
  case MODE_INSPECT:
    set_argv(I, c->target, c->nrest, c->rest);
    status = run_script(I, c->target, NULL, &exiting);
    if (!exiting) status = repl_run(&I, isatty(STDIN_FILENO), status);
    break;
  case MODE_SERVE:
    set_argv(I, "", 0, NULL);
    status = serve_run(&I, TES_VERSION, TES_LLVM_VERSION);
    break;
  }
  interp_free(I);
  return status;
}

/* The FILE or CODE and the script's own arguments after it; -1: go on and run. */
static int take_target(Cmd *c, Mode mode, int n, char **args) {
  c->mode = mode;
  c->target = args[0];
  c->nrest = n - 1;
  c->rest = args + 1;
  return -1;
}

/* --emit=ir (tvm.lower's functions), llvm and asm (tvm.build's modules for the CPU), cuda
 * (tvm.build's modules for the GPU). -1 to go on, else the exit status. */
static int emit_option(Cmd *c, const char *value) {
  if (strcmp(value, "ir") == 0) {
    c->emit_ir = true;
    return -1;
  }
  if (strcmp(value, "llvm") == 0 || strcmp(value, "asm") == 0 || strcmp(value, "cuda") == 0) {
    c->emit_source = strcmp(value, "llvm") == 0 ? "ll" : value;
    return -1;
  }
  return usage_error("--emit takes ir, llvm, cuda or asm, not '%s'", value);
}

/* --dump-after=PASS: a pass of the lowering (lower_pass_name), schedule_ops or all; -1 to go
 * on, else the usage error's status. */
static int dump_after_option(Cmd *c, const char *value) {
  bool ok = strcmp(value, "all") == 0 || strcmp(value, "schedule_ops") == 0;
  for (int i = 0; !ok && lower_pass_name(i); i++) ok = strcmp(value, lower_pass_name(i)) == 0;
  if (!ok) {
    StrBuf names = STRBUF_INIT;
    for (int i = 0; lower_pass_name(i); i++) sb_printf(&names, ", %s", lower_pass_name(i));
    int status = usage_error("--dump-after: unknown pass '%s' (all, schedule_ops%s)", value,
                             sb_cstr(&names));
    sb_free(&names);
    return status;
  }
  c->dump_after = value;
  return -1;
}

/* --version: tes's, the LLVM it was built with, and the NVRTC and CUDA driver it finds now
 * (both are loaded at run time, so their absence is a line, not an error). */
static int print_version(void) {
  printf("tes %s\n", TES_VERSION);
  printf("LLVM %s\n", TES_LLVM_VERSION);
  int major, minor;
  Diag d = DIAG_INIT;
  if (nvrtc_version(&major, &minor, &d))
    printf("NVRTC %d.%d\n", major, minor);
  else
    printf("NVRTC: not found (%s)\n", d.msg);
  int v = cuda_driver_version();
  const char *why = cuda_driver_error(); /* NULL when the driver sees devices */
  if (v)
    printf("CUDA driver %d.%d\n", v / 1000, v % 1000 / 10);
  else if (!why)
    printf("CUDA driver: version unknown (cuDriverGetVersion failed)\n");
  else
    printf("CUDA driver: not found (%s)\n", why);
  return 0;
}

/* Options come before FILE; everything after FILE (or CODE) belongs to the script. */
static int parse_args(int argc, char **argv, Cmd *c) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *a = argv[i];
    const char *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (strcmp(a, "--version") == 0) {
      return print_version();
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      return 0;
    } else if (strcmp(a, "--dump-ast") == 0) {
      return i + 1 < argc ? dump_ast(argv[i + 1]) : usage_error("--dump-ast needs a FILE");
    } else if (strcmp(a, "-c") == 0 || strcmp(a, "-i") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs %s", a, a[1] == 'c' ? "CODE" : "a FILE");
      return take_target(c, a[1] == 'c' ? MODE_CODE : MODE_INSPECT, argc - i - 1, argv + i + 1);
    } else if (strcmp(a, "--serve") == 0) {
      c->mode = MODE_SERVE;
    } else if (n == 6 && strncmp(a, "--emit", n) == 0) {
      int status = eq ? emit_option(c, eq + 1) : usage_error("--emit needs =KIND");
      if (status >= 0) return status;
    } else if (n == 12 && strncmp(a, "--dump-after", n) == 0) {
      int status = eq ? dump_after_option(c, eq + 1) : usage_error("--dump-after needs =PASS");
      if (status >= 0) return status;
    } else {
      return usage_error("unknown option '%s'", a);
    }
  }
  if (c->mode == MODE_SERVE && i < argc) return usage_error("--serve takes no FILE");
  return i < argc ? take_target(c, MODE_FILE, argc - i, argv + i) : -1;
}

int main(int argc, char **argv) {
  Cmd c = {.mode = MODE_REPL};
  int status = parse_args(argc, argv, &c);
  if (status >= 0) return status;
  tvm_register_modules(); /* before the first Interp; :reset's finds them too */
  repl_install_sigint();
  status = run_cmd(&c);
  fflush(stdout);
  return status;
}
