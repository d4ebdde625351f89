/* process.h: running a tool (a compiler, a linker) as a child process with its output in a
 * log file. Both the LLVM plugin (export_library's linker) and the core (clang for
 * tvm.contrib.clang) run tools; each links its own copy of process.c. */
#ifndef TES_JIT_PROCESS_H
#define TES_JIT_PROCESS_H

/* Runs argv (argv[0] a path or a name looked up on PATH) with stdout and stderr in the file
 * log: the exit status, or -1 when it could not run or was killed. */
int jit_run_logged(char *const *argv, const char *log);

#endif
