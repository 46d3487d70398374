/* tests/unit/test_ml_tree.c: the ai.onnx.ml tree ensembles and SVMs, called
 * through the registry with hand-made nodes: the post transforms, branch
 * semantics the spec states in words (NaN at BRANCH_NEQ, missing-value
 * tracks, set membership), and the errors for malformed attributes (ids out
 * of range, cycles, mismatched lengths), which must never crash or loop.
 * Expected values are worked out by hand. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KIT_IN_NAMES {"X"}
#define KIT_OUT_NAMES {"Y", "Z"}
#include "kit.h"
#include "ops/ml/ml.h"

#define ML "ai.onnx.ml"

#define DIMS(...) (int64_t[]){__VA_ARGS__}

#define AINTS(nm, ...)                                                                  \
  ((ox_attr){.name = nm, .type = OX_ATTR_INTS, .ints = (int64_t[])__VA_ARGS__,          \
             .n = sizeof((int64_t[])__VA_ARGS__) / sizeof(int64_t)})
#define AFLOATS(nm, ...)                                                                \
  ((ox_attr){.name = nm, .type = OX_ATTR_FLOATS, .floats = (float[])__VA_ARGS__,        \
             .n = sizeof((float[])__VA_ARGS__) / sizeof(float)})
#define ATENSOR(nm, dt, ctype, ...)                                                     \
  ((ox_attr){.name = nm, .type = OX_ATTR_TENSOR,                                        \
             .t = tensor(dt, 1, DIMS(sizeof((ctype[])__VA_ARGS__) / sizeof(ctype)),     \
                         (ctype[])__VA_ARGS__)})
static ox_attr astrs(const char *name, int n, const char **s) {
  ox_str *v = ox_alloc_array(A, n, sizeof *v);
  for (int i = 0; i < n; i++) v[i] = (ox_str){s[i], (int64_t)strlen(s[i])};
  return (ox_attr){.name = name, .type = OX_ATTR_STRINGS, .strings = v, .n = n};
}

static int run(const char *op, int version, int nattr, ox_attr *attr, ox_value *x, int nout,
               ox_value **out) {
  return kit_run(ML, op, version, nattr, attr, 1, &x, nout, out);
}

#define CLOSE(v, n, ...) CHECK(close_d(v, n, (double[])__VA_ARGS__, 1e-6, 0))

static void post_transforms(void) {
  double v[3] = {0, log(2.0), 0};
  ox_ml_post_transform(1, v, 2); /* SOFTMAX: e^0 : e^ln2 = 1 : 2 */
  CHECK(fabs(v[0] - 1.0 / 3) < 1e-12 && fabs(v[1] - 2.0 / 3) < 1e-12);
  double l[2] = {0, -log(3.0)};
  ox_ml_post_transform(2, l, 2); /* LOGISTIC: 1/2, 1/(1+3) */
  CHECK(fabs(l[0] - 0.5) < 1e-12 && fabs(l[1] - 0.25) < 1e-12);
  double z[3] = {0, log(3.0), 0};
  ox_ml_post_transform(3, z, 3); /* SOFTMAX_ZERO: zeros stay zero, the rest sums to 1 */
  CHECK(z[0] == 0 && fabs(z[1] - 1) < 1e-12 && z[2] == 0);
  double p[3] = {0.5, 0.8413447460685429, 0.022750131948179195};
  ox_ml_post_transform(4, p, 3); /* PROBIT ~ the normal quantile: 0, 1, -2 */
  CHECK(fabs(p[0]) < 1e-9 && fabs(p[1] - 1) < 3e-3 && fabs(p[2] + 2) < 3e-3);
}

/* TreeEnsemble-5, one tree: node 0 is BRANCH_NEQ x0 != 1 (true: leaf 0,
 * false: node 1); node 1 is BRANCH_MEMBER x1 in {2, 4} with missing values
 * tracking true (true: leaf 1, false: leaf 2). Leaves weigh 1, 10, 100. */
static int ensemble(int nattr_extra, ox_attr *extra, ox_value *x, ox_value **y) {
  ox_attr at[16] = {
      attr_int("n_targets", 1),
      AINTS("tree_roots", {0}),
      ATENSOR("nodes_modes", OX_UINT8, uint8_t, {5, 6}),
      AINTS("nodes_featureids", {0, 1}),
      ATENSOR("nodes_splits", OX_FLOAT, float, {1, 0}),
      AINTS("nodes_truenodeids", {0, 1}),
      AINTS("nodes_trueleafs", {1, 1}),
      AINTS("nodes_falsenodeids", {1, 2}),
      AINTS("nodes_falseleafs", {0, 1}),
      AINTS("nodes_missing_value_tracks_true", {0, 1}),
      ATENSOR("membership_values", OX_FLOAT, float, {4, 2, NAN}),
      AINTS("leaf_targetids", {0, 0, 0}),
      ATENSOR("leaf_weights", OX_FLOAT, float, {1, 10, 100}),
  };
  int n = 13;
  for (int i = 0; i < nattr_extra; i++) { /* replace or add */
    int j = 0;
    while (j < n && strcmp(at[j].name, extra[i].name)) j++;
    at[j] = extra[i];
    if (j == n) n++;
  }
  return run("TreeEnsemble", 5, n, at, x, 1, y);
}

static void tree_semantics(void) {
  /* rows: x0 NaN (NaN != 1: true -> 1); x0 = 1 and x1 = 4 (member -> 10);
   * x1 = 3 (not -> 100); x1 NaN (tracks true -> 10) */
  float xs[] = {NAN, 3, 1, 4, 1, 3, 1, NAN};
  ox_value *x = tensor(OX_FLOAT, 2, DIMS(4, 2), xs), *y;
  CHECK_EQ_I(ensemble(0, NULL, x, &y), 0);
  CLOSE(y, 4, {1, 10, 100, 10});
  CHECK(y && y->u.t.dt == OX_FLOAT && y->u.t.rank == 2 && y->u.t.dims[1] == 1);
}

static void tree_errors(void) {
  float xs[] = {0, 0};
  ox_value *x = tensor(OX_FLOAT, 2, DIMS(1, 2), xs), *y;
  ox_attr e1[] = {AINTS("nodes_falsenodeids", {1, 7})};
  CHECK_FAILS(ensemble(1, e1, x, &y), "out of range");
  ox_attr e2[] = {AINTS("nodes_truenodeids", {1, 0}), AINTS("nodes_trueleafs", {0, 0})};
  CHECK_FAILS(ensemble(2, e2, x, &y), "cycle"); /* node 0 -> node 1 -> node 0 */
  ox_attr e3[] = {AINTS("nodes_featureids", {0, 1, 0})};
  CHECK_FAILS(ensemble(1, e3, x, &y), "nodes_featureids");
  ox_attr e4[] = {AINTS("nodes_featureids", {0, 5})};
  CHECK_FAILS(ensemble(1, e4, x, &y), "features");
  ox_attr e5[] = {ATENSOR("membership_values", OX_FLOAT, float, {4, 2, NAN, 3, NAN})};
  CHECK_FAILS(ensemble(1, e5, x, &y), "membership_values");
  ox_attr e6[] = {attr_int("aggregate_function", 7)};
  CHECK_FAILS(ensemble(1, e6, x, &y), "aggregate_function");
  ox_attr e7[] = {AINTS("leaf_targetids", {0, 0, 3})};
  CHECK_FAILS(ensemble(1, e7, x, &y), "leaf_targetids");

  /* TreeEnsembleRegressor-3: tree 0 with nodes 0 and 1 */
  const char *modes[] = {"BRANCH_LEQ", "BRANCH_GT"};
  ox_attr r[] = {
      attr_int("n_targets", 1),
      AINTS("nodes_treeids", {0, 0}),
      AINTS("nodes_nodeids", {0, 1}),
      astrs("nodes_modes", 2, modes),
      AINTS("nodes_featureids", {0, 1}),
      AFLOATS("nodes_values", {0.5f, 1}),
      AINTS("nodes_truenodeids", {1, 0}), /* 0 -> 1 -> 0 */
      AINTS("nodes_falsenodeids", {1, 0}),
      AINTS("target_ids", {0}),
      AINTS("target_nodeids", {1}),
      AINTS("target_treeids", {0}),
      AFLOATS("target_weights", {1}),
  };
  CHECK_FAILS(run("TreeEnsembleRegressor", 3, 12, r, x, 1, &y), "cycle");
  r[6] = AINTS("nodes_truenodeids", {9, 0});
  CHECK_FAILS(run("TreeEnsembleRegressor", 3, 12, r, x, 1, &y), "is not a node of the tree");
  r[2] = AINTS("nodes_nodeids", {0, 0});
  CHECK_FAILS(run("TreeEnsembleRegressor", 3, 12, r, x, 1, &y), "appears twice");
  r[2] = AINTS("nodes_nodeids", {0, 1});
  const char *bad[] = {"BRANCH_LEQ", "BRANCH_LE"};
  r[3] = astrs("nodes_modes", 2, bad);
  CHECK_FAILS(run("TreeEnsembleRegressor", 3, 12, r, x, 1, &y), "nodes_modes[1]");
  r[3] = astrs("nodes_modes", 2, modes);
  r[5] = AFLOATS("nodes_values", {0.5f});
  CHECK_FAILS(run("TreeEnsembleRegressor", 3, 12, r, x, 1, &y), "nodes_values");

  /* a good regressor: a stump x0 <= 0.5 -> leaf 1 (weight 2), else leaf 2
   * (weight -1); AVERAGE over one tree, base value 0.25 */
  const char *m3[] = {"BRANCH_LEQ", "LEAF", "LEAF"};
  ox_attr g[] = {
      attr_int("n_targets", 1),
      AINTS("nodes_treeids", {0, 0, 0}),
      AINTS("nodes_nodeids", {0, 1, 2}),
      astrs("nodes_modes", 3, m3),
      AINTS("nodes_featureids", {0, 0, 0}),
      AFLOATS("nodes_values", {0.5f, 0, 0}),
      AINTS("nodes_truenodeids", {1, 0, 0}),
      AINTS("nodes_falsenodeids", {2, 0, 0}),
      AINTS("target_ids", {0, 0}),
      AINTS("target_nodeids", {1, 2}),
      AINTS("target_treeids", {0, 0}),
      AFLOATS("target_weights", {2, -1}),
      attr_str("aggregate_function", "AVERAGE"),
      AFLOATS("base_values", {0.25f}),
  };
  float x2s[] = {0, 1};
  ox_value *x2 = tensor(OX_FLOAT, 2, DIMS(2, 1), x2s);
  CHECK_EQ_I(run("TreeEnsembleRegressor", 3, 14, g, x2, 1, &y), 0);
  CLOSE(y, 2, {2.25, -0.75});
  g[9] = AINTS("target_nodeids", {1, 5});
  CHECK_FAILS(run("TreeEnsembleRegressor", 3, 14, g, x2, 1, &y), "names no node");

  /* TreeEnsembleClassifier: both label lists */
  g[9] = AINTS("target_nodeids", {1, 2});
  ox_attr cl[16];
  memcpy(cl, g + 1, 7 * sizeof *cl);
  cl[7] = AINTS("class_ids", {0, 1});
  cl[8] = AINTS("class_nodeids", {1, 2});
  cl[9] = AINTS("class_treeids", {0, 0});
  cl[10] = AFLOATS("class_weights", {1, 1});
  cl[11] = AINTS("classlabels_int64s", {3, 4});
  const char *lab[] = {"a", "b"};
  cl[12] = astrs("classlabels_strings", 2, lab);
  ox_value *yz[2];
  CHECK_FAILS(run("TreeEnsembleClassifier", 1, 13, cl, x2, 2, yz), "exactly one");
  CHECK_EQ_I(run("TreeEnsembleClassifier", 1, 12, cl, x2, 2, yz), 0);
  CHECK(yz[0] && ((int64_t *)yz[0]->u.t.data)[0] == 3 && ((int64_t *)yz[0]->u.t.data)[1] == 4);
  CLOSE(yz[1], 4, {1, 0, 0, 1});
}

static void svm_errors(void) {
  float xs[] = {1, 2};
  ox_value *x = tensor(OX_FLOAT, 2, DIMS(1, 2), xs), *y[2];
  ox_attr r[] = {
      attr_int("n_supports", 2),
      attr_str("kernel_type", "RBF"),
      AFLOATS("kernel_params", {0.5f, 0, 0}),
      AFLOATS("support_vectors", {1, 2, 0}),
      AFLOATS("coefficients", {1, -1}),
      AFLOATS("rho", {0}),
  };
  CHECK_FAILS(run("SVMRegressor", 1, 6, r, x, 1, y), "support_vectors");
  r[3] = AFLOATS("support_vectors", {1, 2, 0, 0});
  CHECK_EQ_I(run("SVMRegressor", 1, 6, r, x, 1, y), 0);
  CLOSE(y[0], 1, {1 - exp(-2.5)}); /* K = 1 for x itself, e^(-0.5*5) for 0 */
  r[1] = attr_str("kernel_type", "CUBIC");
  CHECK_FAILS(run("SVMRegressor", 1, 6, r, x, 1, y), "kernel_type");

  ox_attr c[] = {
      AINTS("classlabels_ints", {0, 1, 2}),
      AINTS("vectors_per_class", {1, 1, 1}),
      AFLOATS("support_vectors", {1, 2, 0, 0, 3, 3}),
      AFLOATS("coefficients", {1, 1, 1, 1, 1}), /* needs (3 - 1) * 3 */
      AFLOATS("rho", {0, 0, 0}),
  };
  CHECK_FAILS(run("SVMClassifier", 1, 5, c, x, 2, y), "coefficients");
}

int main(void) {
  A = ox_arena_new();
  post_transforms();
  tree_semantics();
  tree_errors();
  svm_errors();
  ox_arena_free(A);
  return check_done("ml_tree");
}
