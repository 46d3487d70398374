/* ops/ml/post.c: the ai.onnx.ml score post-transforms (ops/ml/ml.h), shared
 * by linear.c, svm.c and tree.c. */
#include <math.h>
#include <string.h>

#include "ops/ml/ml.h"

int ox_ml_post_transform_attr(ox_ctx *c, int *pt) {
  static const char *const names[] = {"NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"};
  const char *s = ox_attr_string(c, "post_transform", "NONE");
  if (c->err->code) return c->err->code;
  for (int i = 0; i < 5; i++)
    if (!strcmp(s, names[i])) return *pt = i, 0;
  return ox_fail(c->err, OX_EINPUT, "attribute post_transform = '%s'; expected NONE, SOFTMAX, "
                 "LOGISTIC, SOFTMAX_ZERO or PROBIT", s);
}

double ox_ml_logistic(double v) {
  double e = 1.0 / (1.0 + exp(-fabs(v)));
  return v < 0 ? 1.0 - e : e;
}

/* PROBIT is sqrt(2) * erfinv(2p - 1) with erfinv by Winitzki's approximation
 * (a = 0.147), as both onnx's reference and onnxruntime compute it (the spec
 * does not define PROBIT further, and test data follows them); the exact
 * inverse differs from it by up to ~2e-3. */
static double probit(double p) {
  double x = 2 * p - 1, sgn = x < 0 ? -1.0 : 1.0;
  double l = log((1 - x) * (1 + x));
  double v = 2 / (M_PI * 0.147) + 0.5 * l, v2 = l / 0.147;
  return M_SQRT2 * sgn * sqrt(-v + sqrt(v * v - v2));
}

void ox_ml_post_transform(int pt, double *v, int64_t n) {
  double mx = -INFINITY, sum = 0;
  switch (pt) {
  case OX_PT_LOGISTIC:
    for (int64_t i = 0; i < n; i++) v[i] = ox_ml_logistic(v[i]);
    break;
  case OX_PT_PROBIT:
    for (int64_t i = 0; i < n; i++) v[i] = probit(v[i]);
    break;
  case OX_PT_SOFTMAX:
    for (int64_t i = 0; i < n; i++) mx = v[i] > mx ? v[i] : mx;
    for (int64_t i = 0; i < n; i++) sum += v[i] = exp(v[i] - mx);
    for (int64_t i = 0; i < n; i++) v[i] /= sum;
    break;
  case OX_PT_SOFTMAX_ZERO: /* a softmax that keeps (near-)zero scores near zero: */
    for (int64_t i = 0; i < n; i++) mx = v[i] > mx ? v[i] : mx;
    for (int64_t i = 0; i < n; i++) /* s exp(-max) for |s| <= 1e-7, as onnx's reference */
      sum += v[i] = fabs(v[i]) > 1e-7 ? exp(v[i] - mx) : v[i] * exp(-mx);
    /* a zero sum (all zeros): 0.5 each, as onnx's reference (onnxruntime divides by 0) */
    for (int64_t i = 0; i < n; i++) v[i] = sum != 0 ? v[i] / sum : 0.5;
    break;
  default:
    break;
  }
}
