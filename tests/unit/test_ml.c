/* tests/unit/test_ml.c: the ai.onnx.ml encoders and linear models
 * (ops/ml/encode.c, ops/ml/linear.c), called through the registry with a
 * hand-made node: look-up corner cases (NaN and repeated keys) and the errors
 * that bad attributes and inputs give. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kit.h"

/* ---- values and attributes ---- */

#define DIMS(...) {__VA_ARGS__}
#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, (int64_t[])dims, (float[])__VA_ARGS__)
#define I64(rank, dims, ...) tensor(OX_INT64, rank, (int64_t[])dims, (int64_t[])__VA_ARGS__)

static ox_str S(const char *s) { return (ox_str){s, (int64_t)strlen(s)}; }
#define STRS(rank, dims, ...) tensor(OX_STRING, rank, (int64_t[])dims, (ox_str[])__VA_ARGS__)

/* A map(int64 -> float) value of n entries. */
static ox_value *map_i64_f32(int n, const int64_t *keys, const float *vals) {
  ox_value *m = ox_alloc(A, sizeof *m), *vs = NULL;
  const ox_type *ft = ox_type_tensor(OX_FLOAT);
  ox_seq_new(A, ft, n, &vs, &E);
  for (int i = 0; i < n; i++) vs->u.seq.v[i] = tensor(OX_FLOAT, 0, NULL, &vals[i]);
  int64_t nn = n;
  m->kind = OX_MAP;
  m->type = ox_type_map(A, OX_INT64, ft);
  m->u.map.keys = tensor(OX_INT64, 1, &nn, keys);
  m->u.map.values = vs;
  return m;
}

/* ---- running one node ---- */

/* Run ai.onnx.ml `op` at `opset`; out[0] (and out[1] if nout is 2) get the
 * results. Returns the kernel's code (E holds the message). */
static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in, int nout,
               ox_value **out) {
  return kit_run("ai.onnx.ml", op, opset, nattr, attr, nin, in, nout, out);
}
/* RUN(op, opset, attrs, ins, out): attrs and ins are arrays (attrs may be `none`). */
#define LEN(a) (int)(sizeof(a) / sizeof *(a))
#define RUN(op, opset, at, in, y) run(op, opset, LEN(at), at, LEN(in), in, 1, y)
static ox_attr none[1];
#define RUN0(op, opset, in, y) run(op, opset, 0, none, LEN(in), in, 1, y)
#define ARR(T, ...) (T[]){__VA_ARGS__}
#define NI(...) LEN(ARR(int64_t, __VA_ARGS__)), ARR(int64_t, __VA_ARGS__)
#define NF(...) LEN(ARR(float, __VA_ARGS__)), ARR(float, __VA_ARGS__)
#define NS(...) LEN(ARR(ox_str, __VA_ARGS__)), ARR(ox_str, __VA_ARGS__)

static float f32_at(const ox_value *v, int64_t i) { return ((const float *)v->u.t.data)[i]; }
static int64_t i64_at(const ox_value *v, int64_t i) { return ((const int64_t *)v->u.t.data)[i]; }
static const char *str_at(const ox_value *v, int64_t i) { return ((const ox_str *)v->u.t.data)[i].p; }

/* ---- the tables ---- */

static void test_tables(void) {
  extern const ox_kernel ox_ml_encode_kernels[], ox_ml_linear_kernels[];
  const ox_kernel *tables[] = {ox_ml_encode_kernels, ox_ml_linear_kernels};
  for (int t = 0; t < 2; t++) {
    check_rows(tables[t], NULL, 0);
    for (const ox_kernel *k = tables[t]; k->op; k++) CHECK(!strcmp(k->domain, "ai.onnx.ml"));
  }
  CHECK_EQ_I(ox_registry_find("ai.onnx.ml", "LabelEncoder", 3)->since, 2);
  CHECK_EQ_I(ox_registry_find("ai.onnx.ml", "LabelEncoder", 5)->since, 4);
  CHECK(ox_registry_find("", "ZipMap", 21) == NULL);
}

/* ---- look-ups ---- */

static void test_label_encoder(void) {
  ox_value *y;
  /* NaN keys match any NaN; -0.0 matches 0.0 (LabelEncoder-4) */
  ox_attr nan_keys[] = {attr_floats("keys_floats", NF(0, NAN, 1)), attr_ints("values_int64s", NI(10, 20, 30))};
  ox_value *x1[] = {F32(1, DIMS(4), {NAN, -0.0f, 1, 2})};
  CHECK_EQ_I(RUN("LabelEncoder", 4, nan_keys, x1, &y), 0);
  CHECK(i64_at(y, 0) == 20 && i64_at(y, 1) == 10 && i64_at(y, 2) == 30 && i64_at(y, 3) == -1);
  /* repeated keys: the last wins */
  ox_attr rep[] = {attr_strs("keys_strings", NS(S("a"), S("b"), S("a"))),
                   attr_strs("values_strings", NS(S("x"), S("y"), S("z")))};
  ox_value *x2[] = {STRS(1, DIMS(3), {S("a"), S("c"), S("b")})};
  CHECK_EQ_I(RUN("LabelEncoder", 4, rep, x2, &y), 0);
  CHECK_EQ_S(str_at(y, 0), "z");
  CHECK_EQ_S(str_at(y, 1), "_Unused");
  CHECK_EQ_S(str_at(y, 2), "y");
  /* LabelEncoder-2's default_float is -0.0 */
  ox_attr i2f[] = {attr_ints("keys_int64s", NI(1)), attr_floats("values_floats", NF(5))};
  ox_value *x3[] = {I64(1, DIMS(2), {1, 2})};
  CHECK_EQ_I(RUN("LabelEncoder", 2, i2f, x3, &y), 0);
  CHECK(f32_at(y, 0) == 5 && f32_at(y, 1) == 0 && signbit(f32_at(y, 1)));
  /* LabelEncoder-1: int64 -> string by index */
  ox_attr v1[] = {attr_strs("classes_strings", NS(S("p"), S("q"))), attr_str("default_string", "-")};
  ox_value *x4[] = {I64(1, DIMS(3), {1, 2, -1})};
  CHECK_EQ_I(RUN("LabelEncoder", 1, v1, x4, &y), 0);
  CHECK_EQ_S(str_at(y, 0), "q");
  CHECK_EQ_S(str_at(y, 1), "-");
  CHECK_EQ_S(str_at(y, 2), "-");

  ox_attr uneven[] = {attr_ints("keys_int64s", NI(1, 2)), attr_floats("values_floats", NF(5))};
  CHECK_FAILS(RUN("LabelEncoder", 2, uneven, x3, &y), "they must be as long");
  ox_value *xs[] = {STRS(1, DIMS(1), {S("1")})};
  CHECK_FAILS(RUN("LabelEncoder", 2, i2f, xs, &y), "they must be the same type");
  ox_attr two[] = {attr_ints("keys_int64s", NI(1)), attr_strs("keys_strings", NS(S("a"))), attr_floats("values_floats", NF(5))};
  CHECK_FAILS(RUN("LabelEncoder", 4, two, x3, &y), "are both set");
  ox_attr nokeys[] = {attr_ints("keys_int64s", NI(1))};
  CHECK_FAILS(RUN("LabelEncoder", 4, nokeys, x3, &y), "one of the attributes");
}

static void test_category_mapper_one_hot(void) {
  ox_value *y;
  ox_attr cats[] = {attr_strs("cats_strings", NS(S("a"), S("b"))), attr_ints("cats_int64s", NI(5, 6))};
  ox_value *x1[] = {I64(1, DIMS(2), {6, 7})};
  CHECK_EQ_I(RUN("CategoryMapper", 1, cats, x1, &y), 0);
  CHECK_EQ_S(str_at(y, 0), "b");
  CHECK_EQ_S(str_at(y, 1), "_Unused");
  CHECK_FAILS(run("CategoryMapper", 1, 1, cats, LEN(x1), x1, 1, &y), "both required");
  ox_attr uneven[] = {attr_strs("cats_strings", NS(S("a"))), attr_ints("cats_int64s", NI(5, 6))};
  CHECK_FAILS(RUN("CategoryMapper", 1, uneven, x1, &y), "must be as long");

  ox_attr oh[] = {attr_ints("cats_int64s", NI(3, 1))};
  ox_value *x2[] = {F32(1, DIMS(3), {1.9f, NAN, 3})}; /* 1.9 truncates to 1; NaN is no category */
  CHECK_EQ_I(RUN("OneHotEncoder", 1, oh, x2, &y), 0);
  CHECK_EQ_I(y->u.t.rank, 2);
  CHECK(f32_at(y, 0) == 0 && f32_at(y, 1) == 1 && f32_at(y, 2) == 0 && f32_at(y, 3) == 0 &&
        f32_at(y, 4) == 1 && f32_at(y, 5) == 0);
  ox_attr strict[] = {attr_ints("cats_int64s", NI(3)), attr_int("zeros", 0)};
  ox_value *x3[] = {I64(1, DIMS(2), {3, 4})};
  CHECK_FAILS(RUN("OneHotEncoder", 1, strict, x3, &y), "element 1 of input 0 'x0' is not a category");
  ox_value *x4[] = {STRS(1, DIMS(1), {S("3")})};
  CHECK_FAILS(RUN("OneHotEncoder", 1, oh, x4, &y), "'cats_strings' is required");
}

/* ---- shapes and indices ---- */

static void test_array_feature_extractor(void) {
  ox_value *y, *x = F32(2, DIMS(2, 3), {0, 1, 2, 3, 4, 5});
  ox_value *ok[] = {x, I64(1, DIMS(3), {2, 2, 0})};
  CHECK_EQ_I(RUN0("ArrayFeatureExtractor", 1, ok, &y), 0);
  CHECK(y->u.t.rank == 2 && y->u.t.dims[0] == 2 && y->u.t.dims[1] == 3);
  CHECK(f32_at(y, 0) == 2 && f32_at(y, 2) == 0 && f32_at(y, 3) == 5);
  ox_value *big[] = {x, I64(1, DIMS(1), {3})}, *neg[] = {x, I64(1, DIMS(1), {-1})},
           *flt[] = {x, F32(1, DIMS(1), {0})};
  CHECK_FAILS(RUN0("ArrayFeatureExtractor", 1, big, &y),
              "index 3 (element 0 of input 1 'x1') is out of range [0, 3)");
  CHECK_FAILS(RUN0("ArrayFeatureExtractor", 1, neg, &y), "out of range");
  CHECK_FAILS(RUN0("ArrayFeatureExtractor", 1, flt, &y), "must be int64");
}

static void test_vectorizers(void) {
  ox_value *y;
  ox_attr one[] = {attr_ints("inputdimensions", NI(1))}, two[] = {attr_ints("inputdimensions", NI(1, 1))};
  ox_value *x1[] = {F32(1, DIMS(1), {1}), F32(1, DIMS(1), {2})};
  ox_value *x2[] = {F32(2, DIMS(2, 1), {1, 2}), F32(2, DIMS(3, 1), {1, 2, 3})};
  CHECK_FAILS(run("FeatureVectorizer", 1, 1, one, 2, x1, 1, &y), "needs one per input");
  CHECK_FAILS(run("FeatureVectorizer", 1, 1, two, 2, x2, 1, &y), "rows");

  int64_t k[] = {2, 0};
  float v[] = {1.5f, -1};
  ox_value *m[] = {map_i64_f32(2, k, v)};
  ox_attr voc[] = {attr_ints("int64_vocabulary", NI(0, 1, 2))};
  CHECK_EQ_I(RUN("DictVectorizer", 1, voc, m, &y), 0);
  CHECK(y->u.t.dims[0] == 1 && y->u.t.dims[1] == 3);
  CHECK(f32_at(y, 0) == -1 && f32_at(y, 1) == 0 && f32_at(y, 2) == 1.5f);
  ox_attr svoc[] = {attr_strs("string_vocabulary", NS(S("a")))};
  CHECK_FAILS(RUN("DictVectorizer", 1, svoc, m, &y), "does not match");
  ox_value *notmap[] = {F32(1, DIMS(1), {1})};
  CHECK_FAILS(RUN("DictVectorizer", 1, voc, notmap, &y), "expected a map");

  ox_attr tostr[] = {attr_str("cast_to", "TO_STRING")};
  CHECK_EQ_I(RUN("CastMap", 1, tostr, m, &y), 0);
  CHECK_EQ_S(str_at(y, 0), "-1.000000");
  CHECK_EQ_S(str_at(y, 1), "1.500000");
  ox_attr sparse[] = {attr_str("map_form", "SPARSE"), attr_int("max_map", 2)};
  CHECK_FAILS(RUN("CastMap", 1, sparse, m, &y), "map key 2 is out of range [0, 2)");
  ox_attr bad[] = {attr_str("cast_to", "TO_DOUBLE")};
  CHECK_FAILS(RUN("CastMap", 1, bad, m, &y), "cast_to");
}

static void test_zipmap(void) {
  ox_value *y;
  ox_attr lab[] = {attr_ints("classlabels_int64s", NI(7, 8))};
  ox_value *x[] = {F32(2, DIMS(3, 2), {1, 2, 3, 4, 5, 6})};
  CHECK_EQ_I(RUN("ZipMap", 1, lab, x, &y), 0);
  CHECK(y->kind == OX_SEQUENCE && y->u.seq.n == 3);
  const ox_value *m = y->u.seq.v[2];
  CHECK(m->kind == OX_MAP && i64_at(m->u.map.keys, 1) == 8);
  CHECK(f32_at(m->u.map.values->u.seq.v[1], 0) == 6);
  char buf[64];
  CHECK_EQ_S(ox_type_str(y->type, buf, sizeof buf), "seq(map(int64, tensor(float)))");
  ox_attr one[] = {attr_strs("classlabels_strings", NS(S("a")))};
  ox_value *x2[] = {F32(2, DIMS(1, 2), {1, 2})};
  CHECK_FAILS(RUN("ZipMap", 1, one, x2, &y), "has 2 columns but 'classlabels_strings' has 1 labels");
  ox_attr both[] = {attr_strs("classlabels_strings", NS(S("a"))), attr_ints("classlabels_int64s", NI(1))};
  CHECK_FAILS(RUN("ZipMap", 1, both, x2, &y), "both set");
}

/* ---- numbers ---- */

static void test_imputer_scaler(void) {
  ox_value *y;
  ox_attr two[] = {attr_floats("imputed_value_floats", NF(1, 2))};
  ox_value *x3[] = {F32(2, DIMS(1, 3), {0, 0, 0})}, *xi[] = {I64(1, DIMS(1), {0})};
  CHECK_FAILS(RUN("Imputer", 1, two, x3, &y), "needs 1 or 3");
  CHECK_FAILS(RUN("Imputer", 1, two, xi, &y), "'imputed_value_int64s' is required");
  ox_attr uneven[] = {attr_floats("offset", NF(1, 2)), attr_floats("scale", NF(1))};
  ox_attr scale2[] = {attr_floats("scale", NF(1, 2))}, scale1[] = {attr_floats("scale", NF(2))};
  CHECK_FAILS(RUN("Scaler", 1, uneven, x3, &y), "must be as long");
  CHECK_FAILS(RUN("Scaler", 1, scale2, x3, &y), "need 1 or 3");
  ox_value *scalar[] = {I64(0, DIMS(0), {-3})};
  CHECK_EQ_I(RUN("Scaler", 1, scale1, scalar, &y), 0);
  CHECK(y->u.t.rank == 0 && f32_at(y, 0) == -6);
}

static void test_linear(void) {
  ox_value *out[2];
  ox_attr binary[] = {attr_floats("coefficients", NF(1, 1)), attr_ints("classlabels_ints", NI(0, 1)),
                      attr_str("post_transform", "SOFTMAX")};
  ox_value *x[] = {F32(2, DIMS(1, 2), {0.25f, 0.25f})};
  CHECK_EQ_I(run("LinearClassifier", 1, LEN(binary), binary, 1, x, 2, out), 0);
  /* one score s = 0.5; scores [-s, s]; softmax: [1 / (1 + e), e / (1 + e)] */
  CHECK(fabsf(f32_at(out[1], 0) - 0.26894142f) < 1e-6f && fabsf(f32_at(out[1], 1) - 0.73105858f) < 1e-6f);
  CHECK_EQ_I(i64_at(out[0], 0), 1);

  ox_attr probit[] = {attr_floats("coefficients", NF(1)), attr_str("post_transform", "PROBIT")};
  ox_value *p[] = {F32(2, DIMS(2, 1), {0.5f, 0.975f})};
  CHECK_EQ_I(RUN("LinearRegressor", 1, probit, p, out), 0);
  CHECK(fabsf(f32_at(out[0], 0)) < 1e-6f);
  CHECK(fabsf(f32_at(out[0], 1) - 1.96f) < 2e-3f); /* the approximation is within 1e-3 */

  ox_attr w3[] = {attr_floats("coefficients", NF(1, 2, 3))};
  CHECK_FAILS(RUN("LinearRegressor", 1, w3, x, out), "not a multiple of 2");
  ox_attr t2[] = {attr_floats("coefficients", NF(1, 2)), attr_int("targets", 2)};
  CHECK_FAILS(RUN("LinearRegressor", 1, t2, x, out), "targets = 2");
  ox_attr b2[] = {attr_floats("coefficients", NF(1, 2)), attr_floats("intercepts", NF(1, 2)),
                  attr_ints("classlabels_ints", NI(0, 1))};
  CHECK_FAILS(RUN("LinearClassifier", 1, b2, x, out), "intercepts has 2 values; it needs 1");
  ox_attr l1[] = {attr_floats("coefficients", NF(1, 2, 3, 4)), attr_ints("classlabels_ints", NI(0))};
  ox_value *x1[] = {F32(2, DIMS(2, 1), {0, 0})};
  CHECK_FAILS(RUN("LinearClassifier", 1, l1, x1, out), "1 labels for 4 classes");
  ox_attr nolab[] = {attr_floats("coefficients", NF(1, 2))};
  CHECK_FAILS(RUN("LinearClassifier", 1, nolab, x, out), "exactly one of");
  ox_attr l3[] = {attr_str("norm", "L3")};
  CHECK_FAILS(RUN("Normalizer", 1, l3, x, out), "norm = 'L3'");
  ox_value *x3d[] = {F32(3, DIMS(1, 1, 1), {0})};
  CHECK_FAILS(RUN0("Normalizer", 1, x3d, out), "expected (N, C) or (C,)");
}

/* Empty inputs and attributes give empty outputs or clear errors. */
static void test_empty(void) {
  ox_value *y, *out[2];
  ox_value *e2[] = {F32(2, DIMS(0, 2), {0})}, *e1[] = {F32(1, DIMS(0), {0})};
  ox_attr lab[] = {attr_ints("classlabels_int64s", NI(7, 8))};
  CHECK_EQ_I(RUN("ZipMap", 1, lab, e2, &y), 0);
  CHECK(y->kind == OX_SEQUENCE && y->u.seq.n == 0);
  ox_attr fv[] = {attr_ints("inputdimensions", NI(3))};
  CHECK_EQ_I(RUN("FeatureVectorizer", 1, fv, e2, &y), 0);
  CHECK(y->u.t.dims[0] == 0 && y->u.t.dims[1] == 3);
  ox_attr noclass[] = {attr_floats("keys_floats", NF(1)), attr_floats("values_floats", NF(2))};
  CHECK_EQ_I(RUN("LabelEncoder", 2, noclass, e1, &y), 0);
  CHECK_EQ_I(y->u.t.n, 0);
  ox_attr nokeys[] = {attr_floats("keys_floats", 0, NULL), attr_floats("values_floats", 0, NULL)};
  ox_value *x1[] = {F32(1, DIMS(1), {1})};
  CHECK_EQ_I(RUN("LabelEncoder", 2, nokeys, x1, &y), 0);
  CHECK(f32_at(y, 0) == 0 && signbit(f32_at(y, 0)));
  ox_value *afe[] = {e2[0], I64(1, DIMS(0), {0})};
  CHECK_EQ_I(RUN0("ArrayFeatureExtractor", 1, afe, &y), 0);
  CHECK(y->u.t.dims[0] == 0 && y->u.t.dims[1] == 0);
  ox_attr nocats[] = {attr_ints("cats_int64s", 0, NULL)};
  CHECK_FAILS(RUN("OneHotEncoder", 1, nocats, x1, &y), "'cats_int64s' is required");
  ox_attr w[] = {attr_floats("coefficients", NF(1, 2)), attr_ints("classlabels_ints", NI(3))};
  CHECK_EQ_I(run("LinearClassifier", 1, LEN(w), w, 1, e2, 2, out), 0);
  CHECK(out[0]->u.t.n == 0 && out[1]->u.t.dims[1] == 1);
  CHECK_EQ_I(RUN0("Normalizer", 1, e2, &y), 0);
  CHECK_FAILS(RUN("LinearRegressor", 1, w, e1, &y), "not a multiple of 0");
}

int main(void) {
  A = ox_arena_new();
  test_tables();
  test_label_encoder();
  test_category_mapper_one_hot();
  test_array_feature_extractor();
  test_vectorizers();
  test_zipmap();
  test_imputer_scaler();
  test_linear();
  test_empty();
  ox_arena_free(A);
  return check_done("ml");
}
