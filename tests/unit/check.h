/* tests/unit/check.h: a minimal unit-test harness.
 *
 *   CHECK(cond)            counts a pass or prints the failing line
 *   CHECK_EQ_I(a, b)       integers, both printed on failure
 *   CHECK_EQ_S(a, b)       strings
 *   return check_done("dtype");   prints "dtype: N passed, M failed" (no
 *                          check at all is a failure)
 *   check_minor_faults()   the process's minor page faults so far (a test
 *                          that memory is reused counts them around a call) */
#ifndef OX_CHECK_H
#define OX_CHECK_H
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static int check_pass_, check_fail_;

#define CHECK(c)                                                                      \
  do {                                                                                \
    if (c) check_pass_++;                                                             \
    else { check_fail_++; fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); } \
  } while (0)
#define CHECK_EQ_I(a, b)                                                              \
  do {                                                                                \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                               \
    if (check_a_ == check_b_) check_pass_++;                                                      \
    else { check_fail_++; fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n",   \
                                  __FILE__, __LINE__, #a, #b, check_a_, check_b_); }              \
  } while (0)
#define CHECK_EQ_S(a, b)                                                              \
  do {                                                                                \
    const char *check_a_ = (a), *check_b_ = (b);                                                  \
    if (check_a_ && check_b_ && !strcmp(check_a_, check_b_)) check_pass_++;                                   \
    else { check_fail_++; fprintf(stderr, "%s:%d: %s == %s failed:\n  got:  %s\n  want: %s\n", \
                                  __FILE__, __LINE__, #a, #b, check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)"); } \
  } while (0)

static inline long check_minor_faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

/* A test that made no check at all fails: it proved nothing. */
static inline int check_done(const char *name) {
  if (!check_pass_ && !check_fail_) {
    fprintf(stderr, "%s: no check ran\n", name);
    check_fail_ = 1;
  }
  printf("%s: %d passed, %d failed\n", name, check_pass_, check_fail_);
  return check_fail_ ? 1 : 0;
}
#endif
