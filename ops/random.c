/* ops/random.c: RandomNormal, RandomUniform, their -Like forms, Bernoulli and Multinomial.
 *
 * With a `seed` attribute the numbers are those of the ONNX reference
 * implementation, which draws from numpy.random.RandomState(int(seed)):
 * core/random.h reproduces that generator and its legacy distributions bit for
 * bit, and the arithmetic below rounds where numpy's does. Without a seed (or
 * with a NaN one, as the reference treats it) the generator is seeded from the
 * OS, so every run differs, as the spec says ("we will auto generate one").
 * Every node run starts a fresh generator: a seeded node gives the same
 * numbers each time it runs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/kernel.h"
#include "core/random.h"

/* The `seed` attribute: a float by the spec (an int one is taken too). The
 * reference calls RandomState(int(seed)), which truncates and refuses seeds
 * outside [0, 2^32 - 1]. */
static int rng_init(ox_ctx *c, ox_mt19937 **out) {
  ox_mt19937 *m = ox_alloc(c->a, sizeof *m);
  if (!m) return ox_oom(c->err, NULL);
  *out = m;
  const ox_attr *at = ox_attr_find(c, "seed");
  double s;
  if (!at) s = NAN;
  else if (at->type == OX_ATTR_FLOAT) s = at->f;
  else if (at->type == OX_ATTR_INT) s = (double)at->i;
  else return ox_fail(c->err, OX_EINPUT, "attribute 'seed' must be a float");
  if (isnan(s)) {
    ox_mt_seed_entropy(m, c->run);
    return 0;
  }
  s = trunc(s);
  if (!(s >= 0 && s <= 4294967295.0))
    return ox_fail(c->err, OX_EINPUT,
                   "attribute 'seed' is %g; numpy's RandomState, which the ONNX reference "
                   "uses, takes seeds in [0, 2^32 - 1]", s);
  ox_mt_seed(m, (uint32_t)s);
  return 0;
}

static void type_list(uint64_t mask, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = 0;
  for (int d = 1; d < OX_DTYPE_MAX && at + 1 < n; d++)
    if (mask & (UINT64_C(1) << d))
      at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "", ox_dtypes[d].onnx_name);
}

/* The output type: the `dtype` attribute, else `def` (0: none, an error);
 * it must be one of `allowed`. `from` says where def came from in messages. */
static int out_dtype(ox_ctx *c, ox_dtype def, const char *from, uint64_t allowed, ox_dtype *dt) {
  char list[512];
  type_list(allowed, list, sizeof list);
  const ox_attr *at = ox_attr_find(c, "dtype");
  if (at) {
    if (at->type != OX_ATTR_INT) return ox_fail(c->err, OX_EINPUT, "attribute 'dtype' must be an int");
    int known = ox_dtype_valid(at->i);
    if (!known || !(allowed & (UINT64_C(1) << at->i)))
      return ox_fail(c->err, OX_EINPUT, "attribute 'dtype' is %lld (%s); it must be one of %s",
                     (long long)at->i, known ? ox_dtype_name((ox_dtype)at->i) : "not a type", list);
    *dt = (ox_dtype)at->i;
    return 0;
  }
  if (!(allowed & (UINT64_C(1) << def)))
    return ox_fail(c->err, OX_EINPUT, "%s is %s and there is no 'dtype' attribute; the output "
                   "type must be one of %s", from, ox_dtype_name(def), list);
  *dt = def;
  return 0;
}

/* v rounded to dt (float, double or a small float), as numpy holds an element
 * of that type between its operations. */
static double as_type(ox_dtype dt, double v) {
  if (dt == OX_DOUBLE) return v;
  if (dt == OX_FLOAT) return (double)(float)v;
  uint64_t tmp = 0;
  ox_store_f64(dt, &tmp, 0, v);
  return ox_load_f64(dt, &tmp, 0);
}

enum { NORMAL, UNIFORM };

/* The reference: res = draws.astype(T); res *= mul; res += add; with the
 * python-float scalars converted to T (numpy's weak scalars), each step
 * rounding to T. Normal: draws = randn, mul = scale, add = mean. Uniform:
 * draws = rand, mul = high - low (in double), add = low. */
static int fill(ox_ctx *c, int dist, ox_dtype dt, int rank, const int64_t *dims, ox_value **out) {
  double mul, add;
  if (dist == NORMAL) {
    mul = ox_attr_float(c, "scale", 1.0f);
    add = ox_attr_float(c, "mean", 0.0f);
  } else {
    double high = ox_attr_float(c, "high", 1.0f), low = ox_attr_float(c, "low", 0.0f);
    mul = high - low;
    add = low;
  }
  if (c->err->code) return c->err->code;
  ox_mt19937 *m;
  OX_TRY(rng_init(c, &m));
  OX_TRY(ox_tensor_new(c->a, dt, rank, dims, out, c->err));
  ox_tensor *t = &(*out)->u.t;
  mul = as_type(dt, mul);
  add = as_type(dt, add);
  for (int64_t i = 0; i < t->n; i++) {
    double r = dist == NORMAL ? ox_mt_gauss(m) : ox_mt_double(m);
    r = as_type(dt, as_type(dt, r) * mul);
    ox_store_f64(dt, t->data, i, r + add);
  }
  return 0;
}

/* T2 of RandomNormal, RandomUniform and their -Like forms. */
static uint64_t float_outputs(int version) { return version >= 22 ? OX_TS_FLOAT4 : OX_TS_FLOAT3; }

/* RandomNormal, RandomUniform: shape (required) and dtype (default float). */
static int random_shape(ox_ctx *c, int dist, ox_value **out) {
  int64_t rank;
  const int64_t *dims = ox_attr_ints(c, "shape", &rank);
  if (c->err->code) return c->err->code;
  if (!dims) return ox_fail(c->err, OX_EINPUT, "attribute 'shape' is required");
  if (rank > OX_MAX_RANK) return ox_fail(c->err, OX_EINPUT, "attribute 'shape' has %lld dims", (long long)rank);
  ox_dtype dt;
  OX_TRY(out_dtype(c, OX_FLOAT, "the default", float_outputs(c->version), &dt));
  return fill(c, dist, dt, (int)rank, dims, out);
}

/* The -Like forms: the input's shape, and its type unless dtype says. */
static int random_like(ox_ctx *c, int dist, ox_value **in, ox_value **out) {
  if (in[0]->kind != OX_TENSOR)
    return ox_fail(c->err, OX_EINPUT, "%s must be a tensor", ox_input_name(c, 0));
  const ox_tensor *x = &in[0]->u.t;
  char from[160];
  snprintf(from, sizeof from, "%s", ox_input_name(c, 0));
  ox_dtype dt;
  OX_TRY(out_dtype(c, x->dt, from, float_outputs(c->version), &dt));
  return fill(c, dist, dt, x->rank, x->dims, out);
}

static int random_normal(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return random_shape(c, NORMAL, out);
}
static int random_uniform(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return random_shape(c, UNIFORM, out);
}
static int random_normal_like(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return random_like(c, NORMAL, in, out);
}
static int random_uniform_like(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return random_like(c, UNIFORM, in, out);
}

/* Bernoulli-15/22: y = binomial(1, p=x) of RandomState, one draw per element
 * in order, stored as dtype (default: the input's type). p must be in [0, 1]
 * (numpy refuses others, NaN included). */
static int bernoulli(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x = &in[0]->u.t;
  uint64_t t2 = OX_TS_INTS | OX_TS_FLOAT4 | OX_T(BOOL);
  char from[160];
  snprintf(from, sizeof from, "%s", ox_input_name(c, 0));
  ox_dtype dt;
  OX_TRY(out_dtype(c, x->dt, from, t2, &dt));
  for (int64_t i = 0; i < x->n; i++) {
    double p = ox_load_f64(x->dt, x->data, i);
    if (!(p >= 0 && p <= 1))
      return ox_fail(c->err, OX_EINPUT, "%s holds %g at flat index %lld; probabilities must be in [0, 1]",
                     ox_input_name(c, 0), p, (long long)i);
  }
  ox_mt19937 *m;
  OX_TRY(rng_init(c, &m));
  OX_TRY(ox_tensor_new(c->a, dt, x->rank, x->dims, &out[0], c->err));
  for (int64_t i = 0; i < x->n; i++)
    ox_store_f64(dt, out[0]->u.t.data, i, ox_mt_bernoulli(m, ox_load_f64(x->dt, x->data, i)));
  return 0;
}

/* Multinomial-7/22: x (batch, classes) of unnormalized log-probabilities ->
 * y (batch, sample_size) of class indices (int32 by default, or int64). The
 * ONNX reference has no Multinomial; this draws as numpy's
 * RandomState.choice(classes, sample_size, p=softmax(x[b])) does, row after
 * row from one generator: cdf = cumsum(p) / its last value, then for each
 * sample u = random_sample(), the index searchsorted(cdf, u, 'right'). */
static int multinomial(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x = &in[0]->u.t;
  int64_t samples = ox_attr_int(c, "sample_size", 1);
  if (c->err->code) return c->err->code;
  if (x->rank != 2)
    return ox_fail(c->err, OX_EINPUT, "%s must be 2-D (batch_size, class_size); it has rank %d",
                   ox_input_name(c, 0), x->rank);
  if (samples < 0)
    return ox_fail(c->err, OX_EINPUT, "attribute 'sample_size' is %lld; it must be >= 0", (long long)samples);
  int64_t batch = x->dims[0], classes = x->dims[1];
  if (classes == 0 && batch > 0 && samples > 0)
    return ox_fail(c->err, OX_EINPUT, "%s has no classes to sample from", ox_input_name(c, 0));
  ox_dtype dt;
  OX_TRY(out_dtype(c, OX_INT32, "the default", OX_T(INT32) | OX_T(INT64), &dt));
  ox_mt19937 *m;
  OX_TRY(rng_init(c, &m));
  OX_TRY(ox_tensor_new(c->a, dt, 2, (int64_t[]){batch, samples}, &out[0], c->err));
  if (!out[0]->u.t.n) return 0;
  double *cdf = ox_alloc_array(c->a, classes, sizeof *cdf);
  if (!cdf) return ox_oom(c->err, NULL);
  for (int64_t b = 0; b < batch; b++) {
    /* softmax's weights, kept finite: exp(x - max); an +inf entry takes it all */
    double mx = -INFINITY;
    for (int64_t j = 0; j < classes; j++) {
      double v = ox_load_f64(x->dt, x->data, b * classes + j);
      if (isnan(v)) return ox_fail(c->err, OX_EINPUT, "%s row %lld holds NaN", ox_input_name(c, 0), (long long)b);
      if (v > mx) mx = v;
    }
    if (mx == -INFINITY)
      return ox_fail(c->err, OX_EINPUT, "%s row %lld has no finite log-probability (all -inf)",
                     ox_input_name(c, 0), (long long)b);
    double sum = 0;
    for (int64_t j = 0; j < classes; j++) {
      double v = ox_load_f64(x->dt, x->data, b * classes + j);
      sum += isinf(mx) ? (v == mx) : exp(v - mx);
      cdf[j] = sum;
    }
    for (int64_t j = 0; j < classes; j++) cdf[j] /= sum;
    for (int64_t s = 0; s < samples; s++) {
      double u = ox_mt_double(m);
      int64_t lo = 0, hi = classes; /* first j with cdf[j] > u */
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] > u) hi = mid;
        else lo = mid + 1;
      }
      ox_store_i64(dt, out[0]->u.t.data, b * samples + s, lo < classes ? lo : classes - 1);
    }
  }
  return 0;
}

#define F3 OX_TS_FLOAT3
#define F4 OX_TS_FLOAT4
#define ANY OX_TS_CLASSIC

/* Version 22 adds bfloat16 to every type list. */
const ox_kernel ox_random_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "RandomNormal",       1, -1, F3,                   0, 0, random_normal,
    "dtype:int=1,mean:float=0.0,scale:float=1.0,seed:float,shape:ints:required" },
  { "", "RandomNormal",      22, -1, F4,                   0, 0, random_normal, OX_ATTRS_OF(1) },
  { "", "RandomUniform",      1, -1, F3,                   0, 0, random_uniform,
    "dtype:int=1,high:float=1.0,low:float=0.0,seed:float,shape:ints:required" },
  { "", "RandomUniform",     22, -1, F4,                   0, 0, random_uniform, OX_ATTRS_OF(1) },
  { "", "RandomNormalLike",   1,  0, ANY,                  1, 1, random_normal_like,
    "dtype:int,mean:float=0.0,scale:float=1.0,seed:float" },
  { "", "RandomNormalLike",  22,  0, ANY | OX_T(BFLOAT16), 1, 1, random_normal_like, OX_ATTRS_OF(1) },
  { "", "RandomUniformLike",  1,  0, ANY,                  1, 1, random_uniform_like,
    "dtype:int,high:float=1.0,low:float=0.0,seed:float" },
  { "", "RandomUniformLike", 22,  0, ANY | OX_T(BFLOAT16), 1, 1, random_uniform_like, OX_ATTRS_OF(1) },
  { "", "Bernoulli",         15,  0, F3,                   1, 1, bernoulli,
    "dtype:int,seed:float" },
  { "", "Bernoulli",         22,  0, F4,                   1, 1, bernoulli, OX_ATTRS_OF(15) },
  { "", "Multinomial",        7,  0, F3,                   1, 1, multinomial,
    "dtype:int=6,sample_size:int=1,seed:float" },
  { "", "Multinomial",       22,  0, F4,                   1, 1, multinomial, OX_ATTRS_OF(7) },
  {0},
};
