/* io/text.c: values as text, printed the way numpy prints arrays.
 *
 * A tensor prints as numpy >= 1.14 prints np.array2string(a, separator=', ')
 * with the default options (precision=8, floatmode='maxprec', suppress=False,
 * linewidth=75, threshold=1000, edgeitems=3, sign='-'):
 *
 *   output: shape=(2, 3), dtype=float32
 *     [[-1.  ,  0.  ,  1.5 ],
 *      [-2.25,  3.5 , -4.75]]
 *
 * The value lines are VALUE_INDENT (2) columns further in than the header, as
 * on the reference pages (io.h says 4; the pages win: "  name: ..." over
 * "    [[...").
 *
 * The code follows numpy/core/arrayprint.py (FloatingFormat, IntegerFormat,
 * _formatArray, _extendLine) and numpy's Dragon4 (dragon4.c, shortest digits
 * that read back as the same value) closely, so the output matches numpy
 * character for character. Where numpy has no answer we chose:
 *   - A 0-d tensor prints like str() of the numpy scalar: -2, 1.5, 1e-05,
 *     True, (1+2j); a string scalar is quoted like the array elements.
 *   - Strings print like repr() of Python str: 'a', "it's", '\n'; bytes that
 *     are not UTF-8 print like repr() of bytes: b'\xff'. Non-ASCII characters
 *     are kept, except the invisible ones listed in invisible_char().
 *   - The small float types (float16, bfloat16, float8*, float4e2m1,
 *     float8e8m0) print like numpy's float16: the shortest digits that read
 *     back as the same value in their own format. For float16 this is exactly
 *     numpy; ml_dtypes prints its types differently and is not followed.
 *
 * Sequences, optionals and maps (numpy has none) print their elements in a
 * bracketed list, each element 2 columns in:
 *
 *   output_sequence: sequence(len=2), element_shape=(2,), element_dtype=int32
 *     [
 *       [0] [1, 2]
 *       [1] [3, 4]
 *     ]
 *
 *   - When every element is a tensor of the same shape the header says
 *     element_shape= and each element prints its values right after "[i] "
 *     (lines after the first line up under the first value).
 *   - Otherwise (tensors of different shapes, or sequences, maps, optionals)
 *     element_shape is left out and each element prints as a named value
 *     whose name is "[i]": "[i] shape=(2,), dtype=int32" and its values
 *     VALUE_INDENT columns further in on the next lines.
 *   - Elements that are not tensors give element_type=seq(tensor(float))
 *     (ONNX type syntax) in place of element_dtype=.
 *   - An empty sequence: "sequence(len=0), element_dtype=float32", then "[]".
 *   - An absent optional: "optional(empty), element_type=tensor(float)" and no
 *     value lines; a present one: "optional, " then its element's header and
 *     the element's value lines.
 *   - A map: "map(len=2), key_dtype=int64, value_type=tensor(float)", then
 *     "{", one "key: value" line per entry (keys as numpy prints scalars,
 *     string keys quoted; tensor values inline as in a sequence, other values
 *     as named values), and "}". An empty map prints "{}".
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

/* numpy's default print options */
enum { LINE_WIDTH = 75, THRESHOLD = 1000, EDGE_ITEMS = 3, PRECISION = 8 };

/* Columns from a header line to its value lines, and from a sequence's or
 * map's bracket to its elements. */
enum { VALUE_INDENT = 2, ITEM_INDENT = 2 };

/* ================================================================
 * Big unsigned integers, just enough for Dragon4.
 * ================================================================ */

/* The largest numbers Dragon4 builds for a double are below 2^1140 (a 55-bit
 * mantissa times 10^324, times 10); 40 words of 32 bits hold 1280 bits. */
#define BIG_WORDS 40

typedef struct {
  int n;                 /* words in use (no zero words at the top) */
  uint32_t w[BIG_WORDS]; /* least significant word first */
} big;

static void big_set(big *x, uint64_t v) {
  x->n = 0;
  while (v) {
    x->w[x->n++] = (uint32_t)v;
    v >>= 32;
  }
}

static void big_pow2(big *x, int e) { /* x = 2^e */
  x->n = e / 32 + 1;
  memset(x->w, 0, (size_t)x->n * sizeof x->w[0]);
  x->w[e / 32] = UINT32_C(1) << (e % 32);
}

static void big_shift_left(big *x, int s) { /* x <<= s */
  if (x->n == 0 || s == 0) return;
  int words = s / 32, bits = s % 32, n = x->n + words + 1;
  for (int i = n - 1; i >= 0; i--) { /* from the top, so it works in place */
    int src = i - words;
    uint32_t hi = src >= 0 && src < x->n ? x->w[src] : 0;
    uint32_t lo = src >= 1 && src - 1 < x->n ? x->w[src - 1] : 0;
    x->w[i] = bits ? (hi << bits) | (lo >> (32 - bits)) : hi;
  }
  x->n = n;
  while (x->n > 0 && x->w[x->n - 1] == 0) x->n--;
}

static void big_mul_small(big *x, uint32_t m) { /* x *= m */
  uint64_t carry = 0;
  for (int i = 0; i < x->n; i++) {
    uint64_t p = (uint64_t)x->w[i] * m + carry;
    x->w[i] = (uint32_t)p;
    carry = p >> 32;
  }
  if (carry) x->w[x->n++] = (uint32_t)carry;
}

static void big_mul_pow10(big *x, int e) { /* x *= 10^e */
  static const uint32_t pow10[10] = {1,      10,      100,      1000,      10000,
                                     100000, 1000000, 10000000, 100000000, 1000000000};
  for (; e >= 9; e -= 9) big_mul_small(x, pow10[9]);
  if (e > 0) big_mul_small(x, pow10[e]);
}

static int big_cmp(const big *a, const big *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (int i = a->n - 1; i >= 0; i--)
    if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

static void big_add(big *r, const big *a, const big *b) { /* r = a + b; r may be a */
  int n = a->n > b->n ? a->n : b->n;
  uint64_t carry = 0;
  for (int i = 0; i < n; i++) {
    uint64_t s = carry + (i < a->n ? a->w[i] : 0) + (i < b->n ? b->w[i] : 0);
    r->w[i] = (uint32_t)s;
    carry = s >> 32;
  }
  r->n = n;
  if (carry) r->w[r->n++] = 1;
}

static void big_sub(big *a, const big *b) { /* a -= b, a >= b */
  uint64_t borrow = 0;
  for (int i = 0; i < a->n; i++) {
    uint64_t d = (uint64_t)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
    a->w[i] = (uint32_t)d;
    borrow = (d >> 32) & 1;
  }
  while (a->n > 0 && a->w[a->n - 1] == 0) a->n--;
}

/* The next decimal digit: value / scale (below 10), leaving the remainder. */
static int big_digit(big *value, const big *scale) {
  int d = 0;
  while (big_cmp(value, scale) >= 0) {
    big_sub(value, scale);
    d++;
  }
  return d;
}

/* ================================================================
 * Dragon4: the decimal digits of mantissa * 2^exponent (numpy's dragon4.c,
 * "unique" digit mode only).
 * ================================================================ */

#define MAX_DIGITS 64

typedef struct {
  uint64_t mantissa; /* the value is mantissa * 2^exponent, mantissa < 2^53 */
  int exponent;
  int mantissa_bit;  /* index of the highest set bit of mantissa */
  int unequal;       /* a power of two: the gap below is half the gap above */
} float_parts;

/* Writes the shortest digits that identify the value among its neighbours
 * (ties count as identifying when the mantissa is even, as IEEE rounding
 * reads them back), but at most up to the `cutoff_max` digit and at least to
 * the `cutoff_min` digit (-1: no limit). `fraction` says what the cutoffs
 * count: digits after the decimal point (1) or significant digits (0).
 * Returns the number of digits; *exp10 receives the power of ten of the
 * first one. */
static int dragon4(const float_parts *f, int fraction, int cutoff_max, int cutoff_min,
                   char *out, int *exp10) {
  if (f->mantissa == 0) {
    out[0] = '0';
    *exp10 = 0;
    return 1;
  }
  /* value = scaled_value / scale; the margins are half the gaps to the
   * neighbouring floats, also over scale (the high one is margin_low, or
   * twice it when the gaps differ). */
  big scale, value, margin_low, high;
  int extra = f->unequal ? 2 : 1;
  int even = (f->mantissa & 1) == 0;
  big_set(&value, f->mantissa);
  if (f->exponent > 0) {
    big_shift_left(&value, f->exponent + extra);
    big_set(&scale, (uint64_t)1 << extra);
    big_pow2(&margin_low, f->exponent);
  } else {
    big_shift_left(&value, extra);
    big_pow2(&scale, -f->exponent + extra);
    big_set(&margin_low, 1);
  }

  /* An estimate of the exponent of the first digit, plus one (exact or one
   * too low), then scale the value into [0.1, 1) or [1, 10). */
  int digit_exp = (int)ceil((double)(f->mantissa_bit + f->exponent) *
                                0.30102999566398119521373889472449 - 0.69);
  if (cutoff_max >= 0 && fraction && digit_exp <= -cutoff_max) digit_exp = -cutoff_max + 1;
  if (digit_exp > 0) {
    big_mul_pow10(&scale, digit_exp);
  } else if (digit_exp < 0) {
    big_mul_pow10(&value, -digit_exp);
    big_mul_pow10(&margin_low, -digit_exp);
  }
  if (big_cmp(&value, &scale) >= 0) {
    digit_exp++;
  } else {
    big_mul_small(&value, 10);
    big_mul_small(&margin_low, 10);
  }

  /* The powers of ten of the last digit allowed and of the last one required */
  int last_max = digit_exp - MAX_DIGITS;
  if (cutoff_max >= 0) {
    int want = fraction ? -cutoff_max : digit_exp - cutoff_max;
    if (want > last_max) last_max = want;
  }
  int last_min = digit_exp;
  if (cutoff_min >= 0) {
    int want = fraction ? -cutoff_min : digit_exp - cutoff_min;
    if (want < last_min) last_min = want;
  }
  *exp10 = digit_exp - 1;

  int n = 0, digit, low, hi;
  for (;;) {
    digit_exp--;
    digit = big_digit(&value, &scale);
    big_add(&high, &value, &margin_low);
    if (f->unequal) big_add(&high, &high, &margin_low);
    int c = big_cmp(&value, &margin_low);
    low = even ? c <= 0 : c < 0;    /* rounding down still reads back as the value */
    c = big_cmp(&high, &scale);
    hi = even ? c >= 0 : c > 0;     /* rounding up still reads back as the value */
    if (((low || hi) && digit_exp <= last_min) || digit_exp == last_max) break;
    out[n++] = (char)('0' + digit);
    big_mul_small(&value, 10);
    big_mul_small(&margin_low, 10);
  }

  /* Round the last digit: down or up if only one reads back, else to nearest
   * (ties to even). */
  int round_down = low;
  if (low == hi) {
    big_shift_left(&value, 1);
    int c = big_cmp(&value, &scale);
    round_down = c < 0 || (c == 0 && digit % 2 == 0);
  }
  if (round_down) {
    out[n++] = (char)('0' + digit);
  } else if (digit < 9) {
    out[n++] = (char)('0' + digit + 1);
  } else {
    /* 9 rounds up: carry into the previous digits */
    while (n > 0 && out[n - 1] == '9') n--;
    if (n == 0) {
      out[n++] = '1';
      *exp10 += 1;
    } else {
      out[n - 1]++;
    }
  }
  return n;
}

/* ================================================================
 * One float as text (numpy's format_float_positional / _scientific).
 * ================================================================ */

/* The binary format of a float type: explicit mantissa bits and the exponent
 * of the smallest normal number. */
typedef struct {
  int mant_bits;
  int min_exp;
} float_kind;

static int float_kind_of(ox_dtype dt, float_kind *k) {
  switch (dt) {
  case OX_DOUBLE: case OX_COMPLEX128: *k = (float_kind){52, -1022}; return 1;
  case OX_FLOAT: case OX_COMPLEX64:   *k = (float_kind){23, -126}; return 1;
  case OX_FLOAT16:                    *k = (float_kind){10, -14}; return 1;
  case OX_BFLOAT16:                   *k = (float_kind){7, -126}; return 1;
  case OX_FLOAT8E4M3FN:               *k = (float_kind){3, -6}; return 1;
  case OX_FLOAT8E4M3FNUZ:             *k = (float_kind){3, -7}; return 1;
  case OX_FLOAT8E5M2:                 *k = (float_kind){2, -14}; return 1;
  case OX_FLOAT8E5M2FNUZ:             *k = (float_kind){2, -15}; return 1;
  case OX_FLOAT4E2M1:                 *k = (float_kind){1, 0}; return 1;
  case OX_FLOAT8E8M0:                 *k = (float_kind){0, -127}; return 1;
  default: return 0;
  }
}

/* Split |v| (finite, a value of the format k) into Dragon4's parts. */
static float_parts split_float(double v, const float_kind *k) {
  float_parts f = {0, 0, 0, 0};
  double a = fabs(v);
  if (a == 0) return f;
  int e;
  frexp(a, &e);
  int top = e - 1; /* a is in [2^top, 2^(top+1)) */
  if (top >= k->min_exp) {
    f.exponent = top - k->mant_bits;
    f.mantissa_bit = k->mant_bits;
  } else { /* subnormal */
    f.exponent = k->min_exp - k->mant_bits;
  }
  f.mantissa = (uint64_t)ldexp(a, -f.exponent);
  if (top < k->min_exp)
    while (f.mantissa >> (f.mantissa_bit + 1)) f.mantissa_bit++;
  f.unequal = top > k->min_exp && f.mantissa == (uint64_t)1 << k->mant_bits;
  return f;
}

/* numpy's trim= 'k', '.', '0' and '-' */
typedef enum { TRIM_NONE, TRIM_ZEROS, TRIM_ONE_ZERO, TRIM_DOT_ZEROS } trim_mode;

typedef struct {
  int scientific;
  int fraction;     /* positional: precision counts digits after the point */
  int precision;    /* at most this many digits (-1: no limit) */
  int min_digits;   /* at least this many digits (-1: no minimum) */
  int sign;         /* '+' before non-negative values */
  trim_mode trim;
  int pad_left;     /* pad with spaces to this many characters before the point */
  int pad_right;    /* ... and after it (-1: no padding) */
  int exp_digits;   /* at least this many exponent digits (-1: 2) */
} float_opts;

#define FLOAT_TEXT 192 /* room for any float with numpy's paddings */

typedef struct {
  char s[FLOAT_TEXT];
  int n;
} text;

static void text_ch(text *t, char c) {
  if (t->n < FLOAT_TEXT - 1) t->s[t->n++] = c;
}
static void text_rep(text *t, char c, int k) {
  while (k-- > 0) text_ch(t, c);
}
static void text_str(text *t, const char *s, int n) {
  for (int i = 0; i < n; i++) text_ch(t, s[i]);
}

/* Format v in the format k into out (NUL-terminated); returns the length. */
static int format_float(char *out, double v, const float_kind *k, const float_opts *o) {
  text t = {{0}, 0};
  int neg = signbit(v) != 0;
  char sign = neg ? '-' : o->sign ? '+' : 0;

  if (isnan(v) || isinf(v)) { /* numpy: nan never has a sign */
    if (isinf(v) && sign) text_ch(&t, sign);
    text_str(&t, isnan(v) ? "nan" : "inf", 3);
    memcpy(out, t.s, (size_t)t.n);
    out[t.n] = 0;
    return t.n;
  }

  float_parts f = split_float(v, k);
  char dig[MAX_DIGITS + 1];
  int nd, pexp;

  if (o->scientific) {
    if (o->pad_left > 1 + (sign != 0)) text_rep(&t, ' ', o->pad_left - 1 - (sign != 0));
    if (sign) text_ch(&t, sign);
    nd = dragon4(&f, 0, o->precision < 0 ? -1 : o->precision + 1,
                 o->min_digits < 0 ? -1 : o->min_digits + 1, dig, &pexp);
    text_ch(&t, dig[0]);
    int nfrac = nd - 1;
    if (nfrac > 0) {
      text_ch(&t, '.');
      text_str(&t, dig + 1, nfrac);
    }
    if (o->trim != TRIM_DOT_ZEROS && nfrac == 0) text_ch(&t, '.');
    int add = o->min_digits < 0 ? 0 : o->min_digits;
    if (o->trim == TRIM_ONE_ZERO) {
      if (nfrac == 0) {
        text_ch(&t, '0');
        nfrac++;
      }
    } else if (o->trim == TRIM_NONE && add > nfrac) {
      text_rep(&t, '0', add - nfrac);
      nfrac = add;
    }
    if (o->trim != TRIM_NONE && nfrac > 0) {
      while (t.s[t.n - 1] == '0') t.n--;
      if (o->trim == TRIM_ONE_ZERO && t.s[t.n - 1] == '.') text_ch(&t, '0');
    }
    char ebuf[16];
    int ed = o->exp_digits < 0 ? 2 : o->exp_digits > 5 ? 5 : o->exp_digits;
    int en = snprintf(ebuf, sizeof ebuf, "e%c%0*d", pexp < 0 ? '-' : '+', ed, abs(pexp));
    text_str(&t, ebuf, en);
  } else {
    if (sign) text_ch(&t, sign);
    nd = dragon4(&f, o->fraction, o->precision, o->min_digits, dig, &pexp);
    int whole, nfrac = 0;
    if (pexp >= 0) {
      whole = pexp + 1;
      if (nd <= whole) {
        text_str(&t, dig, nd);
        text_rep(&t, '0', whole - nd);
      } else {
        text_str(&t, dig, whole);
        text_ch(&t, '.');
        text_str(&t, dig + whole, nd - whole);
        nfrac = nd - whole;
      }
    } else {
      whole = 1;
      text_str(&t, "0.", 2);
      text_rep(&t, '0', -(pexp + 1));
      text_str(&t, dig, nd);
      nfrac = -(pexp + 1) + nd;
    }
    if (o->trim != TRIM_DOT_ZEROS && nfrac == 0) text_ch(&t, '.');
    int add = o->min_digits;
    int want = add < 0 ? 0 : add;
    if (!o->fraction) want = add - whole;
    if (o->trim == TRIM_ONE_ZERO) {
      if (nfrac == 0) {
        text_ch(&t, '0');
        nfrac++;
      }
    } else if (o->trim == TRIM_NONE && want > nfrac) {
      text_rep(&t, '0', want - nfrac);
      nfrac = want;
    }
    if (o->trim != TRIM_NONE && nfrac > 0) {
      while (t.s[t.n - 1] == '0') {
        t.n--;
        nfrac--;
      }
      if (t.s[t.n - 1] == '.') {
        if (o->trim == TRIM_ONE_ZERO) {
          text_ch(&t, '0');
          nfrac++;
        } else if (o->trim == TRIM_DOT_ZEROS) {
          t.n--;
        }
      }
    }
    if (o->pad_right >= nfrac) {
      if (o->trim == TRIM_DOT_ZEROS && nfrac == 0) text_ch(&t, ' ');
      text_rep(&t, ' ', o->pad_right - nfrac);
    }
    int left = whole + (sign != 0);
    if (o->pad_left > left) { /* shift right, spaces in front */
      int shift = o->pad_left - left;
      if (t.n + shift > FLOAT_TEXT - 1) shift = FLOAT_TEXT - 1 - t.n;
      memmove(t.s + shift, t.s, (size_t)t.n);
      memset(t.s, ' ', (size_t)shift);
      t.n += shift;
    }
  }
  memcpy(out, t.s, (size_t)t.n);
  out[t.n] = 0;
  return t.n;
}

/* str() of a numpy float scalar: positional between 1e-4 and 1e16, else
 * scientific; the shortest digits that read back, no precision limit. */
static int format_float_scalar(char *out, double v, const float_kind *k, trim_mode trim_pos,
                               trim_mode trim_sci, int sign) {
  double a = fabs(v);
  float_opts o = {0, 0, -1, -1, sign, trim_pos, -1, -1, -1};
  if (!(isnan(v) || a == 0 || (a < 1e16 && a >= 1e-4))) {
    o.scientific = 1;
    o.trim = trim_sci;
  }
  return format_float(out, v, k, &o);
}

/* ================================================================
 * Which elements are shown: all, or EDGE_ITEMS at both ends of every axis
 * longer than 2 * EDGE_ITEMS when the tensor has more than THRESHOLD of them.
 * ================================================================ */

typedef void (*visit_fn)(void *ctx, int64_t index);

static void visit_axis(const ox_tensor *t, int summarize, int axis, int64_t base, visit_fn fn,
                       void *ctx) {
  if (axis == t->rank) {
    fn(ctx, base);
    return;
  }
  int64_t len = t->dims[axis];
  for (int64_t i = 0; i < len; i++) {
    if (summarize && len > 2 * EDGE_ITEMS && i == EDGE_ITEMS) i = len - EDGE_ITEMS;
    visit_axis(t, summarize, axis + 1, base * len + i, fn, ctx);
  }
}

/* Call fn for the flat index of every shown element, in order. */
static void visit_shown(const ox_tensor *t, int summarize, visit_fn fn, void *ctx) {
  visit_axis(t, summarize, 0, 0, fn, ctx);
}

/* Element i of a float or complex tensor as a double: part 0 is the real
 * part, part 1 the imaginary one. */
static double load_part(const ox_tensor *t, int64_t i, int part) {
  if (t->dt == OX_COMPLEX64) {
    const ox_c64 *c = (const ox_c64 *)t->data + i;
    return part ? c->im : c->re;
  }
  if (t->dt == OX_COMPLEX128) {
    const ox_c128 *c = (const ox_c128 *)t->data + i;
    return part ? c->im : c->re;
  }
  return ox_load_f64(t->dt, t->data, i);
}

/* ================================================================
 * numpy's FloatingFormat: one format shared by all shown elements so the
 * decimal points line up.
 * ================================================================ */

typedef struct {
  float_kind kind;
  ox_dtype dt;        /* float type of the values (float32 for complex64) */
  int sign;           /* '+' before non-negative values (imaginary parts) */
  int exp_format;     /* scientific notation */
  int pad_left, pad_right;
  int precision, min_digits, exp_size;
} float_format;

typedef struct { /* what fill_float_format gathers in its passes */
  const ox_tensor *t;
  int part;
  float_format *ff;
  int any_nonzero, any_nonfinite, any_neg_inf;
  double max_abs, min_abs;
  int max_int, max_frac, max_exp; /* longest pieces of the first formatting */
} float_scan;

static void scan_range(void *ctx, int64_t i) {
  float_scan *s = ctx;
  double v = load_part(s->t, i, s->part);
  if (!isfinite(v)) {
    s->any_nonfinite = 1;
    if (isinf(v) && v < 0) s->any_neg_inf = 1;
    return;
  }
  double a = fabs(v);
  if (a == 0) return;
  if (!s->any_nonzero || a > s->max_abs) s->max_abs = a;
  if (!s->any_nonzero || a < s->min_abs) s->min_abs = a;
  s->any_nonzero = 1;
}

static void scan_widths(void *ctx, int64_t i) {
  float_scan *s = ctx;
  double v = load_part(s->t, i, s->part);
  if (!isfinite(v)) return;
  float_opts o = {s->ff->exp_format, 1, PRECISION, -1, s->ff->sign, TRIM_ZEROS, -1, -1, -1};
  char buf[FLOAT_TEXT];
  int n = format_float(buf, v, &s->ff->kind, &o);
  int dot = (int)(strchr(buf, '.') - buf);
  int e = o.scientific ? (int)(strchr(buf, 'e') - buf) : n;
  if (dot > s->max_int) s->max_int = dot;
  if (e - dot - 1 > s->max_frac) s->max_frac = e - dot - 1;
  if (o.scientific && n - e - 1 > s->max_exp) s->max_exp = n - e - 1; /* "+05" */
}

/* max / min > 1000, computed in the values' own precision as numpy does */
static int ratio_over_1000(ox_dtype dt, double max, double min) {
  if (dt == OX_FLOAT) {
    float r = (float)max / (float)min;
    return r > 1000.0f;
  }
  if (dt == OX_FLOAT16) { /* numpy divides halfs in float32 and rounds */
    float r = (float)max / (float)min;
    return ox_f16_to_f32(ox_f32_to_f16(r)) > 1000.0f;
  }
  return max / min > 1000.0;
}

static void fill_float_format(float_format *ff, const ox_tensor *t, int summarize, int part,
                              int sign) {
  memset(ff, 0, sizeof *ff);
  ff->dt = t->dt == OX_COMPLEX64 ? OX_FLOAT : t->dt == OX_COMPLEX128 ? OX_DOUBLE : t->dt;
  float_kind_of(t->dt, &ff->kind);
  ff->sign = sign;
  float_scan s = {.t = t, .part = part, .ff = ff};

  visit_shown(t, summarize, scan_range, &s);
  if (s.any_nonzero)
    ff->exp_format = s.max_abs >= 1e8 || s.min_abs < 1e-4 ||
                     ratio_over_1000(ff->dt, s.max_abs, s.min_abs);

  visit_shown(t, summarize, scan_widths, &s);
  ff->pad_left = s.max_int;
  if (ff->exp_format) {
    ff->exp_size = s.max_exp - 1;
    ff->precision = ff->min_digits = s.max_frac;
    ff->pad_right = ff->exp_size + 2 + ff->precision;
  } else {
    ff->pad_right = s.max_frac;
    ff->precision = PRECISION;
    ff->min_digits = 0;
    ff->exp_size = -1;
  }
  if (s.any_nonfinite) { /* room for "nan", "inf" and "-inf" */
    int neg_inf = sign || s.any_neg_inf;
    int offset = ff->pad_right + 1;
    if (3 - offset > ff->pad_left) ff->pad_left = 3 - offset;
    if (3 + neg_inf - offset > ff->pad_left) ff->pad_left = 3 + neg_inf - offset;
  }
}

static int apply_float_format(char *out, const float_format *ff, double v) {
  if (!isfinite(v)) {
    const char *s = isnan(v) ? (ff->sign ? "+nan" : "nan")
                             : v < 0 ? "-inf" : (ff->sign ? "+inf" : "inf");
    int width = ff->pad_left + ff->pad_right + 1, n = (int)strlen(s);
    if (width > FLOAT_TEXT - 1) width = FLOAT_TEXT - 1;
    int pad = width > n ? width - n : 0;
    memset(out, ' ', (size_t)pad);
    memcpy(out + pad, s, (size_t)n + 1);
    return pad + n;
  }
  float_opts o;
  if (ff->exp_format)
    o = (float_opts){1, 0, ff->precision, ff->min_digits, ff->sign, TRIM_NONE,
                     ff->pad_left, -1, ff->exp_size};
  else
    o = (float_opts){0, 1, ff->precision, ff->min_digits, ff->sign, TRIM_ZEROS,
                     ff->pad_left, ff->pad_right, -1};
  return format_float(out, v, &ff->kind, &o);
}

/* ================================================================
 * Strings, as Python's repr() prints str (or bytes when not UTF-8).
 * ================================================================ */

/* Decode one UTF-8 character at s (n bytes left): its length, or 0 if the
 * bytes are not valid UTF-8. */
static int utf8_char(const unsigned char *s, int64_t n, uint32_t *cp) {
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  int len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
  if (len == 0 || s[0] > 0xF4 || n < len) return 0;
  uint32_t c = s[0] & (0x7F >> len);
  for (int i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < min_cp[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *cp = c;
  return len;
}

/* Characters Python's repr() escapes because they are not printable: the
 * controls, spaces other than ' ', format characters and private use ones
 * (the common ones; Python knows all of Unicode). */
static int invisible_char(uint32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD || c == 0x61C || c == 0x1680 ||
         c == 0x180E || (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) ||
         (c >= 0x205F && c <= 0x206F) || c == 0x3000 || (c >= 0xE000 && c <= 0xF8FF) ||
         c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) || c >= 0xF0000;
}

static int put_repr(ox_buf *b, const ox_str *s) {
  const unsigned char *p = (const unsigned char *)s->p;
  int64_t n = s->p ? s->n : 0;
  int is_text = 1, has_single = 0, has_double = 0;
  uint32_t cp;
  for (int64_t i = 0; i < n;) {
    int len = utf8_char(p + i, n - i, &cp);
    if (!len) {
      is_text = 0;
      break;
    }
    i += len;
  }
  for (int64_t i = 0; i < n; i++) {
    if (p[i] == '\'') has_single = 1;
    if (p[i] == '"') has_double = 1;
  }
  char quote = has_single && !has_double ? '"' : '\'';
  int err = 0;
  if (!is_text) err |= ox_buf_put(b, "b", 1);
  err |= ox_buf_put(b, &quote, 1);
  for (int64_t i = 0; i < n && !err;) {
    int len = 1;
    cp = p[i];
    if (is_text) len = utf8_char(p + i, n - i, &cp);
    char esc[16];
    const char *out = esc;
    int k;
    if (cp == (uint32_t)quote || cp == '\\') k = snprintf(esc, sizeof esc, "\\%c", (char)cp);
    else if (cp == '\t') k = snprintf(esc, sizeof esc, "\\t");
    else if (cp == '\n') k = snprintf(esc, sizeof esc, "\\n");
    else if (cp == '\r') k = snprintf(esc, sizeof esc, "\\r");
    else if (!is_text && cp >= 0x7F) k = snprintf(esc, sizeof esc, "\\x%02x", (unsigned)cp);
    else if (!invisible_char(cp)) { out = (const char *)p + i; k = len; }
    else if (cp < 0x100) k = snprintf(esc, sizeof esc, "\\x%02x", (unsigned)cp);
    else if (cp < 0x10000) k = snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
    else k = snprintf(esc, sizeof esc, "\\U%08x", (unsigned)cp);
    err |= ox_buf_put(b, out, (size_t)k);
    i += len;
  }
  err |= ox_buf_put(b, &quote, 1);
  return err;
}

/* Characters as Python counts them: UTF-8 continuation bytes do not count. */
static int64_t text_width(const char *s, size_t n) {
  int64_t w = 0;
  for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
  return w;
}

/* ================================================================
 * The element format of a whole tensor.
 * ================================================================ */

typedef enum { E_SIGNED, E_UNSIGNED, E_BOOL, E_FLOAT, E_COMPLEX, E_STRING } elem_kind;

typedef struct {
  const ox_tensor *t;
  elem_kind kind;
  int int_width;         /* integers: right-aligned to this width */
  float_format re, im;   /* floats (re), complex (both) */
  int64_t imax, imin;    /* integers: the range of the shown elements */
  uint64_t umax;
  int seen;
  ox_buf word;           /* the element being formatted */
} elem_format;

static void scan_int(void *ctx, int64_t i) {
  elem_format *ef = ctx;
  if (ef->kind == E_UNSIGNED) { /* the max is the widest: no signs */
    uint64_t u = ox_load_u64(ef->t->dt, ef->t->data, i);
    if (!ef->seen || u > ef->umax) ef->umax = u;
  } else {
    int64_t v = ox_load_i64(ef->t->dt, ef->t->data, i);
    if (!ef->seen || v > ef->imax) ef->imax = v;
    if (!ef->seen || v < ef->imin) ef->imin = v;
  }
  ef->seen = 1;
}

static int init_elem_format(elem_format *ef, const ox_tensor *t, int summarize) {
  memset(ef, 0, sizeof *ef);
  ef->t = t;
  float_kind k;
  if (t->dt == OX_STRING) ef->kind = E_STRING;
  else if (t->dt == OX_BOOL) ef->kind = E_BOOL;
  else if (ox_dtype_is_complex(t->dt)) ef->kind = E_COMPLEX;
  else if (float_kind_of(t->dt, &k)) ef->kind = E_FLOAT;
  else if (ox_dtype_is_signed_int(t->dt)) ef->kind = E_SIGNED;
  else if (ox_dtype_is_unsigned_int(t->dt)) ef->kind = E_UNSIGNED;
  else return 1;

  if (ef->kind == E_SIGNED || ef->kind == E_UNSIGNED) { /* numpy's IntegerFormat */
    visit_shown(t, summarize, scan_int, ef);
    char a[32], b[32];
    int la, lb;
    if (ef->kind == E_UNSIGNED) {
      la = snprintf(a, sizeof a, "%llu", (unsigned long long)ef->umax);
      lb = 1;
    } else {
      la = snprintf(a, sizeof a, "%lld", (long long)ef->imax);
      lb = snprintf(b, sizeof b, "%lld", (long long)ef->imin);
    }
    ef->int_width = la > lb ? la : lb;
  } else if (ef->kind == E_FLOAT) {
    fill_float_format(&ef->re, t, summarize, 0, 0);
  } else if (ef->kind == E_COMPLEX) {
    fill_float_format(&ef->re, t, summarize, 0, 0);
    fill_float_format(&ef->im, t, summarize, 1, 1);
  }
  return 0;
}

/* Format element i into ef->word. Nonzero if out of memory. */
static int format_elem(elem_format *ef, int64_t i) {
  const ox_tensor *t = ef->t;
  char s[2 * FLOAT_TEXT + 2];
  int n = 0;
  ef->word.n = 0;
  switch (ef->kind) {
  case E_SIGNED:
    n = snprintf(s, sizeof s, "%*lld", ef->int_width, (long long)ox_load_i64(t->dt, t->data, i));
    break;
  case E_UNSIGNED:
    n = snprintf(s, sizeof s, "%*llu", ef->int_width,
                 (unsigned long long)ox_load_u64(t->dt, t->data, i));
    break;
  case E_BOOL:
    n = snprintf(s, sizeof s, "%s", ox_load_i64(t->dt, t->data, i) ? " True" : "False");
    break;
  case E_FLOAT:
    n = apply_float_format(s, &ef->re, load_part(t, i, 0));
    break;
  case E_COMPLEX: { /* real part, imaginary part with 'j' before its padding */
    n = apply_float_format(s, &ef->re, load_part(t, i, 0));
    char im[FLOAT_TEXT];
    int m = apply_float_format(im, &ef->im, load_part(t, i, 1));
    int end = m;
    while (end > 0 && im[end - 1] == ' ') end--;
    memcpy(s + n, im, (size_t)end);
    s[n + end] = 'j';
    memcpy(s + n + end + 1, im + end, (size_t)(m - end));
    n += m + 1;
    break;
  }
  case E_STRING:
    return put_repr(&ef->word, (const ox_str *)t->data + i);
  }
  return ox_buf_put(&ef->word, s, (size_t)n);
}

/* ================================================================
 * Writing the body: numpy's _formatArray, streamed.
 * ================================================================ */

/* numpy builds each line in memory and strips the trailing spaces of a line
 * before it breaks it; we hold spaces back until something follows them. */
typedef struct {
  ox_buf *b;
  int indent;    /* spaces before every line but the first */
  int64_t col;   /* numpy's len(line): characters since the line began */
  int held;      /* spaces not written yet */
  int fresh;     /* a new line whose indent is not written yet */
  int err;
} writer;

static void w_spaces_now(writer *w, int64_t k) {
  static const char sp[] = "                                ";
  while (k > 0 && !w->err) {
    size_t m = k > 32 ? 32 : (size_t)k;
    w->err |= ox_buf_put(w->b, sp, m);
    k -= (int64_t)m;
  }
}

static void w_text(writer *w, const char *s, size_t n) {
  size_t i = 0;
  while (i < n && !w->err) {
    if (s[i] == ' ') {
      w->held++;
      w->col++;
      i++;
      continue;
    }
    size_t j = i;
    while (j < n && s[j] != ' ') j++;
    if (w->fresh) w_spaces_now(w, w->indent);
    w_spaces_now(w, w->held);
    w->fresh = 0;
    w->held = 0;
    if (!w->err) w->err |= ox_buf_put(w->b, s + i, j - i);
    w->col += text_width(s + i, j - i);
    i = j;
  }
}

static void w_str(writer *w, const char *s) { w_text(w, s, strlen(s)); }

static void w_hang(writer *w, int k) { /* spaces at the start of a line */
  w->held += k;
  w->col += k;
}

static void w_newline(writer *w) {
  w->held = 0; /* numpy's line.rstrip() */
  if (!w->err) w->err |= ox_buf_put(w->b, "\n", 1);
  w->col = 0;
  w->fresh = 1;
}

typedef struct {
  writer w;
  elem_format ef;
  const ox_tensor *t;
  int summarize;
} body_ctx;

/* numpy's _extendLine: break the line first if the word would pass `width`
 * (unless the line holds nothing but its indent). */
static void put_word(body_ctx *c, const char *word, size_t n, int64_t width, int hang) {
  if (c->w.col + text_width(word, n) > width && c->w.col > hang) {
    w_newline(&c->w);
    w_hang(&c->w, hang);
  }
  w_text(&c->w, word, n);
}

static void put_elem(body_ctx *c, int64_t index, int64_t width, int hang) {
  if (format_elem(&c->ef, index)) {
    c->w.err = 1;
    return;
  }
  put_word(c, (const char *)c->ef.word.p, c->ef.word.n, width, hang);
}

/* The sub-array at `axis` whose first element has flat index base * dims[axis]:
 * `hang` is numpy's hanging indent (columns of '[' before it), `width` the
 * room numpy leaves for it. */
static void put_axis(body_ctx *c, int axis, int64_t base, int hang, int64_t width) {
  const ox_tensor *t = c->t;
  int64_t len = t->dims[axis];
  int summary = c->summarize && len > 2 * EDGE_ITEMS;
  w_str(&c->w, "[");
  if (axis == t->rank - 1) { /* a row: elements, wrapped at the line width */
    int64_t elem_width = width - 1; /* room for ',' or ']' */
    for (int64_t i = 0; i < len && !c->w.err; i++) {
      if (summary && i == EDGE_ITEMS) {
        put_word(c, "...", 3, elem_width, hang);
        w_str(&c->w, ", ");
        i = len - EDGE_ITEMS;
      }
      put_elem(c, base * len + i, elem_width, hang);
      if (i < len - 1) w_str(&c->w, ", ");
    }
  } else { /* rows of rows: one per line, blank lines between blocks */
    for (int64_t i = 0; i < len && !c->w.err; i++) {
      if (i > 0) {
        w_str(&c->w, ",");
        for (int k = axis + 1; k < t->rank; k++) w_newline(&c->w);
        w_hang(&c->w, hang);
      }
      if (summary && i == EDGE_ITEMS) {
        w_str(&c->w, "...,");
        for (int k = axis + 1; k < t->rank; k++) w_newline(&c->w);
        w_hang(&c->w, hang);
        i = len - EDGE_ITEMS;
      }
      put_axis(c, axis + 1, base * len + i, hang + 1, width - 1);
    }
  }
  w_str(&c->w, "]");
}

/* str() of a numpy scalar */
static void put_scalar(body_ctx *c) {
  const ox_tensor *t = c->t;
  char s[2 * FLOAT_TEXT + 8];
  float_kind k;
  switch (c->ef.kind) {
  case E_BOOL:
    w_str(&c->w, ox_load_i64(t->dt, t->data, 0) ? "True" : "False");
    return;
  case E_SIGNED:
    snprintf(s, sizeof s, "%lld", (long long)ox_load_i64(t->dt, t->data, 0));
    break;
  case E_UNSIGNED:
    snprintf(s, sizeof s, "%llu", (unsigned long long)ox_load_u64(t->dt, t->data, 0));
    break;
  case E_FLOAT:
    float_kind_of(t->dt, &k);
    format_float_scalar(s, load_part(t, 0, 0), &k, TRIM_ONE_ZERO, TRIM_DOT_ZEROS, 0);
    break;
  case E_COMPLEX: { /* like Python: 1j, (1+2j), (-0-2j), (nan+infj) */
    double re = load_part(t, 0, 0), im = load_part(t, 0, 1);
    char rs[FLOAT_TEXT], is[FLOAT_TEXT];
    float_kind_of(t->dt, &k);
    if (re == 0 && !signbit(re)) {
      format_float_scalar(is, im, &k, TRIM_DOT_ZEROS, TRIM_DOT_ZEROS, 0);
      snprintf(s, sizeof s, "%sj", is);
      break;
    }
    if (isfinite(re)) format_float_scalar(rs, re, &k, TRIM_DOT_ZEROS, TRIM_DOT_ZEROS, 0);
    else snprintf(rs, sizeof rs, "%s", isnan(re) ? "nan" : re > 0 ? "inf" : "-inf");
    if (isfinite(im)) format_float_scalar(is, im, &k, TRIM_DOT_ZEROS, TRIM_DOT_ZEROS, 1);
    else snprintf(is, sizeof is, "%s", isnan(im) ? "+nan" : im > 0 ? "+inf" : "-inf");
    snprintf(s, sizeof s, "(%s%sj)", rs, is);
    break;
  }
  case E_STRING:
    if (format_elem(&c->ef, 0)) c->w.err = 1;
    else w_text(&c->w, (const char *)c->ef.word.p, c->ef.word.n);
    return;
  }
  w_str(&c->w, s);
}

/* full: every element, never summarised with "..." (show --full) */
static int text_tensor(ox_buf *b, const ox_tensor *t, int indent, int full) {
  body_ctx c;
  memset(&c, 0, sizeof c);
  c.w.b = b;
  c.w.indent = indent;
  c.t = t;
  c.summarize = !full && t->n > THRESHOLD;
  if (t->n == 0) { /* numpy prints any empty array as [] */
    w_str(&c.w, "[]");
    return c.w.err ? OX_EINPUT : 0;
  }
  if (init_elem_format(&c.ef, t, c.summarize)) {
    w_str(&c.w, "?");
    return c.w.err ? OX_EINPUT : 0;
  }
  if (t->rank == 0) put_scalar(&c);
  else put_axis(&c, 0, 0, 1, LINE_WIDTH);
  ox_buf_free(&c.ef.word);
  return c.w.err ? OX_EINPUT : 0;
}

/* ================================================================
 * Values: headers and bodies of tensors, sequences, optionals and maps.
 * ================================================================ */

typedef struct {
  ox_buf *b;
  int err;
  int full; /* print every element (ox_text_print_full) */
} out;

int ox_text_tensor(ox_buf *b, const ox_tensor *t, int indent) { return text_tensor(b, t, indent, 0); }

static void o_put(out *o, const char *s) {
  if (!o->err) o->err |= ox_buf_put(o->b, s, strlen(s));
}

static void o_spaces(out *o, int k) {
  for (; k > 0; k--) o_put(o, " ");
}

/* fmt takes one long long */
static void o_int(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void o_int(out *o, const char *fmt, ...) {
  char s[32];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s, sizeof s, fmt, ap);
  va_end(ap);
  o_put(o, s);
}

static void o_shape(out *o, const ox_tensor *t) { /* (2, 3), (4,), () */
  o_put(o, "(");
  for (int i = 0; i < t->rank; i++) o_int(o, i ? ", %lld" : "%lld", (long long)t->dims[i]);
  o_put(o, t->rank == 1 ? ",)" : ")");
}

static void o_type(out *o, const ox_type *t) {
  char s[1024];
  o_put(o, ox_type_str(t, s, sizeof s));
}

/* Do all elements of the sequence share one shape? (Then they print inline.) */
static int common_shape(const ox_value *seq) {
  int64_t n = seq->u.seq.n;
  for (int64_t i = 0; i < n; i++) {
    const ox_value *e = seq->u.seq.v[i];
    if (!e || e->kind != OX_TENSOR) return 0;
    const ox_tensor *a = &e->u.t, *z = &seq->u.seq.v[0]->u.t;
    if (a->rank != z->rank) return 0;
    for (int k = 0; k < a->rank; k++)
      if (a->dims[k] != z->dims[k]) return 0;
  }
  return n > 0;
}

static void put_header(out *o, const ox_value *v) {
  switch (v->kind) {
  case OX_TENSOR:
    o_put(o, "shape=");
    o_shape(o, &v->u.t);
    o_put(o, ", dtype=");
    o_put(o, ox_dtype_name(v->u.t.dt));
    break;
  case OX_SEQUENCE: {
    const ox_type *elem = v->type ? v->type->inner : NULL;
    o_int(o, "sequence(len=%lld)", (long long)v->u.seq.n);
    if (elem && elem->kind == OX_TENSOR) {
      if (common_shape(v)) {
        o_put(o, ", element_shape=");
        o_shape(o, &v->u.seq.v[0]->u.t);
      }
      o_put(o, ", element_dtype=");
      o_put(o, ox_dtype_name(elem->elem));
    } else {
      o_put(o, ", element_type=");
      o_type(o, elem);
    }
    break;
  }
  case OX_OPTIONAL:
    if (!v->u.opt) {
      o_put(o, "optional(empty), element_type=");
      o_type(o, v->type ? v->type->inner : NULL);
    } else {
      o_put(o, "optional, ");
      put_header(o, v->u.opt);
    }
    break;
  case OX_MAP: {
    const ox_value *keys = v->u.map.keys;
    o_int(o, "map(len=%lld)", keys ? (long long)keys->u.t.n : 0LL);
    o_put(o, ", key_dtype=");
    o_put(o, ox_dtype_name(v->type ? v->type->elem : keys ? keys->u.t.dt : OX_UNDEFINED));
    o_put(o, ", value_type=");
    o_type(o, v->type ? v->type->inner : NULL);
    break;
  }
  default:
    o_put(o, "?");
  }
}

static void put_body(out *o, const ox_value *v, int indent);

/* A value after its label ("name: ", "[3] ", "7: ") at column `indent`: the
 * header, then the body VALUE_INDENT columns further in than the label. */
static void put_labeled(out *o, const ox_value *v, int indent) {
  put_header(o, v);
  o_put(o, "\n");
  put_body(o, v, indent + VALUE_INDENT);
}

/* An element of a sequence or map whose label is already written at column
 * `indent` with `label_width` characters: a tensor inline (if `inline_ok`),
 * anything else as a labeled value. */
static void put_item(out *o, const ox_value *v, int indent, int64_t label_width, int inline_ok) {
  if (!v) {
    o_put(o, "None\n");
  } else if (inline_ok && v->kind == OX_TENSOR) {
    if (!o->err && text_tensor(o->b, &v->u.t, indent + (int)label_width, o->full)) o->err = 1;
    o_put(o, "\n");
  } else {
    put_labeled(o, v, indent);
  }
}

/* The text of map key i, as numpy prints a scalar. */
static int key_text(ox_buf *kb, const ox_tensor *keys, int64_t i) {
  char s[32];
  if (keys->dt == OX_STRING) return put_repr(kb, (const ox_str *)keys->data + i);
  if (ox_dtype_is_unsigned_int(keys->dt))
    snprintf(s, sizeof s, "%llu", (unsigned long long)ox_load_u64(keys->dt, keys->data, i));
  else
    snprintf(s, sizeof s, "%lld", (long long)ox_load_i64(keys->dt, keys->data, i));
  return ox_buf_put(kb, s, strlen(s));
}

static void put_body(out *o, const ox_value *v, int indent) {
  switch (v->kind) {
  case OX_TENSOR:
    o_spaces(o, indent);
    if (!o->err && text_tensor(o->b, &v->u.t, indent, o->full)) o->err = 1;
    o_put(o, "\n");
    break;
  case OX_SEQUENCE: {
    int64_t n = v->u.seq.n;
    o_spaces(o, indent);
    if (n == 0) {
      o_put(o, "[]\n");
      break;
    }
    o_put(o, "[\n");
    int inline_ok = common_shape(v);
    for (int64_t i = 0; i < n && !o->err; i++) {
      char label[32];
      int w = snprintf(label, sizeof label, "[%lld] ", (long long)i);
      o_spaces(o, indent + ITEM_INDENT);
      o_put(o, label);
      put_item(o, v->u.seq.v[i], indent + ITEM_INDENT, w, inline_ok);
    }
    o_spaces(o, indent);
    o_put(o, "]\n");
    break;
  }
  case OX_OPTIONAL:
    if (v->u.opt) put_body(o, v->u.opt, indent);
    break;
  case OX_MAP: {
    const ox_value *keys = v->u.map.keys, *vals = v->u.map.values;
    int64_t n = keys ? keys->u.t.n : 0;
    if (vals && vals->u.seq.n < n) n = vals->u.seq.n;
    o_spaces(o, indent);
    if (n == 0) {
      o_put(o, "{}\n");
      break;
    }
    o_put(o, "{\n");
    ox_buf kb = {0};
    for (int64_t i = 0; i < n && !o->err; i++) {
      kb.n = 0;
      if (key_text(&kb, &keys->u.t, i) || ox_buf_put(&kb, ": ", 2)) {
        o->err = 1;
        break;
      }
      o_spaces(o, indent + ITEM_INDENT);
      if (!o->err) o->err |= ox_buf_put(o->b, kb.p, kb.n);
      put_item(o, vals->u.seq.v[i], indent + ITEM_INDENT, text_width((const char *)kb.p, kb.n),
               1);
    }
    ox_buf_free(&kb);
    o_spaces(o, indent);
    o_put(o, "}\n");
    break;
  }
  default:
    break;
  }
}

int ox_text_print(FILE *f, const char *name, const ox_value *v, int indent) {
  return ox_text_print_full(f, name, v, indent, 0);
}

int ox_text_print_full(FILE *f, const char *name, const ox_value *v, int indent, int full) {
  ox_buf b = {0};
  out o = {&b, 0, full};
  o_spaces(&o, indent);
  if (name && *name) {
    o_put(&o, name);
    o_put(&o, ": ");
  }
  if (v) put_labeled(&o, v, indent);
  else o_put(&o, "None\n");
  if (!o.err && b.n && fwrite(b.p, 1, b.n, f) != b.n) o.err = 1;
  ox_buf_free(&b);
  /* a write that failed now or earlier (stdio keeps the flag): the caller
   * stops printing rather than go on into a full disk or a closed pipe */
  return o.err || ferror(f) ? OX_EINPUT : 0;
}
