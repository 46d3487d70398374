/* ops/ml/ml.h: what the ai.onnx.ml kernels share (ops/ml/post.c).
 *
 * post_transform, as LinearClassifier/Regressor, SVMClassifier/Regressor and
 * the tree ensembles apply it to each row of scores. TreeEnsemble-5 numbers
 * the transforms; the older ops name them. */
#ifndef OX_ML_H
#define OX_ML_H
#include <stdint.h>

#include "core/kernel.h"

enum { OX_PT_NONE, OX_PT_SOFTMAX, OX_PT_LOGISTIC, OX_PT_SOFTMAX_ZERO, OX_PT_PROBIT };

/* The string attribute post_transform (default NONE) as an OX_PT_ number. */
int ox_ml_post_transform_attr(ox_ctx *c, int *pt);
/* Transform one row of n scores in place. */
void ox_ml_post_transform(int pt, double *v, int64_t n);
/* 1 / (1 + e^-v), without overflow for large |v|. */
double ox_ml_logistic(double v);
#endif
