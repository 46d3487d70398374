/* core/compare.h: comparing two values as the ONNX test runners do; the one
 * rule that `onnxop test`, `onnxop compare` and onnxop_compare follow.
 *
 * numpy allclose semantics for floats: |got - want| <= atol + rtol * |want|,
 * NaN equals NaN, an infinity equals only the same infinity. Integers, bools
 * and strings must match exactly; dtypes and shapes must match exactly.
 * Complex numbers compare their real and imaginary parts each so.
 * Structure is compared the same way both ways (only rtol, relative to want,
 * tells got from want): values match when they hold the same. A present
 * optional is the value it holds (as ONNX's runner reads an OptionalProto),
 * so optional(x) matches x either way round; an absent optional matches only
 * an absent one. Sequences match by length, then element by element.
 * Types count only where nothing is held to compare, an empty sequence or
 * an absent optional, and there an element type left open ('?', as a .pb
 * leaves an empty sequence's) agrees with any: an empty seq(tensor(?))
 * matches any empty sequence of tensors, while an empty seq(tensor(float))
 * and an empty seq(tensor(int64)) differ. */
#ifndef OX_COMPARE_H
#define OX_COMPARE_H

#include "value.h"

/* Where an element is: its tensor (and sequence position, -1 if none) and its
 * flat index. */
typedef struct { const ox_tensor *t; int64_t seq; int64_t i; } ox_cmp_at;

typedef struct ox_cmp {
  int differ;       /* 1 if anything differs */
  int structural;   /* 1 if kind, type, dtype, shape or length differ (then `why` says so) */
  char why[1024];   /* the first difference, e.g. "element [1, 2]: expected 0.5, got 0.75" */
  int64_t total;    /* elements compared */
  int64_t bad;      /* elements out of tolerance (or unequal) */
  int64_t bad_exact; /* of those, the ones compared exactly (integers, bools, strings) */
  int numeric;      /* the stats below are set (numbers were compared) */
  double max_abs, max_rel;      /* worst |got - want| and |got - want| / |want| */
  ox_cmp_at abs_at, rel_at;
  double abs_got, abs_want, rel_got, rel_want;
  int floats;       /* float dtypes were compared: max_ulp is set */
  uint64_t max_ulp; /* largest distance in units in the last place (finite values) */
} ox_cmp;

/* Compare everything and fill r. Returns r->differ. */
int ox_compare_full(const ox_value *got, const ox_value *want, double rtol, double atol, ox_cmp *r);

/* The errors of the float (and complex) elements of two values that
 * ox_compare_full found alike in structure, into abs[] and rel[] (room for
 * 2 * r->total: a complex element gives one per part); returns how many.
 * abs = |got - want|, rel = abs / |want|; both 0 when the two are equal
 * (NaN and NaN, or the same infinity), both infinite when one is NaN or an
 * infinity and the other is not the same (rel is infinite when want is 0
 * and got is not). */
int64_t ox_compare_errors(const ox_value *got, const ox_value *want, double *abs, double *rel);

/* An error statistic, as Polygraphy's --check-error-stat: */
typedef enum { OX_STAT_MAX, OX_STAT_MEAN, OX_STAT_MEDIAN, OX_STAT_QUANTILE } ox_err_stat;
/* the statistic of v[0..n) (0 when n is 0). MEDIAN and QUANTILE sort v;
 * QUANTILE q in [0, 1] interpolates linearly between the two neighbouring
 * order statistics, as numpy.quantile does by default. */
double ox_error_stat(double *v, int64_t n, ox_err_stat s, double q);

/* How many NaN and infinite elements the floats of v hold (complex: either
 * part); *first is the first such element's place. */
void ox_count_nonfinite(const ox_value *v, int64_t *nan, int64_t *inf, ox_cmp_at *first);

/* "[1, 2]" (or "seq[3][1, 2]") for a place. */
const char *ox_cmp_at_str(const ox_cmp_at *at, char *buf, size_t n);

#endif
