/* check.h: the checks every C unit test uses: CHECK counts a condition as passed or failed and
 * prints a failed one with its place, finish() prints the "N passed, M failed" line that
 * ./check reads last and gives main's exit status, and dies() runs a function in a child to see
 * it end in an internal error. Each test includes it once; every helper is static, and unused
 * ones are fine. */
#ifndef TES_TEST_CHECK_H
#define TES_TEST_CHECK_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (cond)                                                                                      \
      passed++;                                                                                    \
    else                                                                                           \
      failed++, printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                    \
  } while (0)

/* For checks inside big loops: only failures are reported and counted. */
#define CHECK_QUIET(cond)                                                                          \
  do {                                                                                             \
    if (!(cond)) failed++, printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
  } while (0)

/* Compares printed text with the golden, showing both on a mismatch. */
#define CHECK_TEXT(got, want)                                                                      \
  do {                                                                                             \
    const char *g_ = (got), *w_ = (want);                                                          \
    CHECK(strcmp(g_, w_) == 0);                                                                    \
    if (strcmp(g_, w_) != 0) printf("--- want\n%s\n--- got\n%s\n---\n", w_, g_);                   \
  } while (0)

/* main's last words: the summary line, and a non-zero status when anything failed. */
static __attribute__((unused)) int finish(void) {
  printf("%d passed, %d failed\n", passed, failed);
  fflush(stdout); /* LeakSanitizer's report at exit would otherwise beat the buffer */
  return failed != 0;
}

/* Runs fn in a child and reports whether it ended in an internal error (abort). */
static __attribute__((unused)) bool dies(void (*fn)(void)) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stderr);
    fn();
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

#endif
