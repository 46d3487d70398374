/* core/compare.h: comparing two values as the ONNX test runners do.
 *
 * numpy allclose semantics for floats: |got - want| <= atol + rtol * |want|,
 * NaN equals NaN, an infinity equals only the same infinity. Integers, bools
 * and strings must match exactly; kinds, dtypes and shapes must match exactly.
 * Complex numbers compare their real and imaginary parts each so. */
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
  int numeric;      /* the stats below are set (numbers were compared) */
  double max_abs, max_rel;      /* worst |got - want| and |got - want| / |want| */
  ox_cmp_at abs_at, rel_at;
  double abs_got, abs_want, rel_got, rel_want;
  int floats;       /* float dtypes were compared: max_ulp is set */
  uint64_t max_ulp; /* largest distance in units in the last place (finite values) */
} ox_cmp;

/* Compare everything and fill r. Returns r->differ. */
int ox_compare_full(const ox_value *got, const ox_value *want, double rtol, double atol, ox_cmp *r);

/* 0: equal; 1: different, with the first difference described in why. */
int ox_compare(const ox_value *got, const ox_value *want, double rtol, double atol,
               char *why, size_t n);

/* "[1, 2]" (or "seq[3][1, 2]") for a place. */
const char *ox_cmp_at_str(const ox_cmp_at *at, char *buf, size_t n);

#endif
