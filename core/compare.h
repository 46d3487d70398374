/* core/compare.h: comparing two values as the ONNX test runners do.
 *
 * numpy allclose semantics for floats: |got - want| <= atol + rtol * |want|,
 * NaN equals NaN, an infinity equals only the same infinity. Integers, bools
 * and strings must match exactly; kinds, dtypes and shapes must match exactly.
 * Complex numbers compare their real and imaginary parts each so. */
#ifndef OX_COMPARE_H
#define OX_COMPARE_H

#include "value.h"

/* 0: equal; 1: different, with the first difference described in why
 * ("element [1, 2]: expected 0.5, got 0.75"). */
int ox_compare(const ox_value *got, const ox_value *want, double rtol, double atol,
               char *why, size_t n);

#endif
