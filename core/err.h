/* core/err.h: errors are return codes (never longjmp).
 *
 * The innermost code says what it knows (ox_fail); each caller on the way out
 * may add its context in front (ox_prefix): the evaluator adds the node, op and
 * version, the CLI adds the file. The code is the process exit status. */
#ifndef OX_ERR_H
#define OX_ERR_H

enum {
  OX_OK = 0,
  OX_EINPUT = 1,       /* a model, an input or an evaluation was rejected, or a
                        * limit reached (also a value file onnxop does not read) */
  OX_EUSAGE = 2,       /* bad command line */
  OX_EUNSUPPORTED = 3, /* the model needs an operator (op, version, domain), or a
                        * case of one (an element type, an image format), that
                        * this build does not implement; nothing else */
  OX_ENOMEM = 4,       /* memory ran out: the memory limit or the system
                        * refused an allocation (ox_oom); exit status 1 */
};

typedef struct ox_err {
  int code;
  char msg[1536];
} ox_err;

/* Record an error (the first one wins) and return its code. */
int ox_fail(ox_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Out of memory: records OX_ENOMEM with "out of memory", then what was being
 * allocated when fmt is not NULL ("out of memory for a sequence of 5"), then
 * whether the memory limit was the cause, with what was in use and
 * asked for ("(the memory limit of N bytes is reached: U bytes are in use and
 * A more were asked for; see --max-memory)") as core/arena.c knows it; the
 * "see" names the account's source (core/arena.h), if any. */
int ox_oom(ox_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* need bytes, which the caller checked against the memory limit before
 * asking for them (a size read from a file, or computed from a shape), are
 * more than it allows: "WHAT needs N bytes, more than the memory limit allows
 * (L bytes; see --max-memory)" when they alone are, else "the memory limit
 * (L bytes; see --max-memory) is reached: U bytes are in use, and WHAT needs
 * N more". Records and returns OX_EINPUT. */
int ox_over_limit(ox_err *e, unsigned long long need, const char *what);
/* Put context in front of the message: "node 'n0' SequenceAt-11: " + msg. */
void ox_prefix(ox_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ONNX names are protobuf strings, so UTF-8: 0 when s is (or is NULL), else
 * an error quoting it with its other bytes as \xHH, e.g. `node name "n\xff"`. */
int ox_name_check(ox_err *e, const char *what, const char *s);
static inline void ox_err_clear(ox_err *e) { e->code = 0; e->msg[0] = 0; }

#define OX_TRY(x)                                                                     \
  do {                                                                                \
    int ox_rc_ = (x);                                                                 \
    if (ox_rc_) return ox_rc_;                                                        \
  } while (0)

#endif
