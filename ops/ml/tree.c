/* ops/ml/tree.c: ai.onnx.ml tree ensembles: TreeEnsembleClassifier-1/3,
 * TreeEnsembleRegressor-1/3 and TreeEnsemble-5.
 *
 * Each call flattens the attributes once into an array of interior nodes and
 * an array of leaves (a leaf is a run of (target, weight) pairs), checking
 * them on the way: lengths that match, ids in range, no cycles. A row then
 * walks each tree in a loop, without recursion.
 *
 * Where the spec is vague (the binary classifier, targets no leaf reached)
 * this follows onnx's reference implementation and onnxruntime where they
 * agree; the comments say which. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"
#include "ops/ml/ml.h"

/* ---- the flattened forest ---- */

enum { M_LEQ, M_LT, M_GTE, M_GT, M_EQ, M_NEQ, M_MEMBER, M_LEAF };
enum { AGG_AVERAGE, AGG_SUM, AGG_MIN, AGG_MAX }; /* TreeEnsemble-5's numbers */

/* 24 bytes, so that a tree's top levels share cache lines */
typedef struct {
  double split;
  int32_t feature;
  int32_t t, f;        /* >= 0: an interior node; < 0: ~leaf */
  uint8_t mode, mvt;   /* mvt: a NaN feature takes the true branch */
} tnode;

typedef struct {
  int64_t nnodes, nleaves, ntrees, ntargets;
  int64_t nfeat;       /* 1 + the largest feature id an interior node tests */
  tnode *node;
  int32_t *root;       /* as t/f: a node, or ~leaf for a one-leaf tree */
  int64_t *lw0, *lwn;  /* leaf i: weights lw0[i] .. lw0[i]+lwn[i]-1 */
  int64_t *wt;         /* weight target (class) */
  double *ww;
  double *set;         /* BRANCH_MEMBER node i: the sorted set */
  int64_t *mset;       /* set[mset[2i] .. mset[2i] + mset[2i+1]) */
} forest;

#define FAIL(...) ox_fail(c->err, OX_EINPUT, __VA_ARGS__)

static void *alloc(ox_ctx *c, int64_t n, size_t size) {
  void *p = ox_alloc_array(c->a, n > 0 ? n : 1, size);
  if (!p) ox_oom(c->err, NULL);
  return p;
}

/* An ints attribute; absent: *n = 0 (an error when required). */
static int ints(ox_ctx *c, const char *name, int required, const int64_t **v, int64_t *n) {
  *v = ox_attr_ints(c, name, n);
  if (c->err->code) return c->err->code;
  if (!*v && required) return FAIL("attribute '%s' is required", name);
  if (!*v) *n = 0;
  return 0;
}

/* Reals from attribute `name` (a list of floats or a tensor) or, from
 * opset 3, its twin `name`_as_tensor (a tensor, usually of doubles). *n = -1
 * when neither is there. */
static int reals(ox_ctx *c, const char *name, int twin, double **v, int64_t *n) {
  const ox_attr *a = ox_attr_find(c, name), *b = NULL;
  if (twin && c->version >= 3) {
    char tn[96];
    snprintf(tn, sizeof tn, "%s_as_tensor", name);
    b = ox_attr_find(c, tn);
  }
  if (a && b) return FAIL("attributes '%s' and '%s_as_tensor' are both given; use one", name, name);
  if (!a) a = b;
  *v = NULL;
  *n = -1;
  if (!a) return 0;
  if (a->type == OX_ATTR_FLOATS) {
    *n = a->n;
    if (!(*v = alloc(c, a->n, sizeof(double)))) return OX_EINPUT;
    for (int64_t i = 0; i < a->n; i++) (*v)[i] = a->floats[i];
    return 0;
  }
  const ox_value *t = a->type == OX_ATTR_TENSOR ? a->t : NULL;
  if (!t || t->kind != OX_TENSOR || t->u.t.dt == OX_STRING || t->u.t.dt == OX_BOOL ||
      ox_dtype_is_complex(t->u.t.dt))
    return FAIL("attribute '%s' must be a list of floats or a tensor of real numbers", a->name);
  *n = t->u.t.n;
  if (!(*v = alloc(c, *n, sizeof(double)))) return OX_EINPUT;
  for (int64_t i = 0; i < *n; i++) (*v)[i] = ox_load_f64(t->u.t.dt, t->u.t.data, i);
  return 0;
}

static int same_len(ox_ctx *c, const char *name, int64_t n, const char *ref, int64_t want) {
  if (n == want) return 0;
  return FAIL("attribute '%s' has %lld values but '%s' has %lld", name, (long long)n, ref,
              (long long)want);
}

static int feature_id(ox_ctx *c, int64_t f, int64_t i, int32_t *out) {
  if (f < 0 || f >= INT32_MAX)
    return FAIL("nodes_featureids[%lld] = %lld is not a feature index", (long long)i, (long long)f);
  *out = (int32_t)f;
  return 0;
}

static int in_set(const double *s, int64_t n, double v) {
  int64_t lo = 0, hi = n; /* s sorted, no NaN */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (s[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && s[lo] == v;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The leaf a row reaches from r. */
static inline int64_t walk(const forest *fo, int32_t r, const double *x) {
  while (r >= 0) {
    const tnode *nd = &fo->node[r];
    double v = x[nd->feature], s = nd->split;
    int go;
    switch (nd->mode) {
    case M_LEQ: go = v <= s; break;
    case M_LT: go = v < s; break;
    case M_GTE: go = v >= s; break;
    case M_GT: go = v > s; break;
    case M_EQ: go = v == s; break;
    case M_NEQ: go = v != s; break; /* NaN != s: true, whatever mvt says */
    default: go = in_set(fo->set + fo->mset[2 * r], fo->mset[2 * r + 1], v); break;
    }
    go |= nd->mvt && isnan(v);
    r = go ? nd->t : nd->f;
  }
  return ~(int64_t)r;
}

/* Checks shared by both layouts once the nodes are in place: every interior
 * node's feature id, and no cycle among interior nodes (Kahn's peeling: a
 * node left with a parent after all peelable ones are gone is on a cycle). */
static int check_forest(ox_ctx *c, forest *fo) {
  int64_t n = fo->nnodes, ninner = 0, done = 0;
  fo->nfeat = 0;
  int32_t *indeg = alloc(c, n, sizeof *indeg), *queue = alloc(c, n, sizeof *queue);
  if (!indeg || !queue) return OX_EINPUT;
  for (int64_t i = 0; i < n; i++) {
    const tnode *nd = &fo->node[i];
    if (nd->mode == M_LEAF) continue;
    ninner++;
    if (nd->feature >= fo->nfeat) fo->nfeat = nd->feature + 1;
    if (nd->t >= 0) indeg[nd->t]++;
    if (nd->f >= 0) indeg[nd->f]++;
  }
  int64_t qh = 0, qt = 0;
  for (int64_t i = 0; i < n; i++)
    if (fo->node[i].mode != M_LEAF && indeg[i] == 0) queue[qt++] = (int32_t)i;
  while (qh < qt) {
    const tnode *nd = &fo->node[queue[qh++]];
    done++;
    if (nd->t >= 0 && --indeg[nd->t] == 0) queue[qt++] = nd->t;
    if (nd->f >= 0 && --indeg[nd->f] == 0) queue[qt++] = nd->f;
  }
  if (done < ninner)
    for (int64_t i = 0; i < n; i++)
      if (fo->node[i].mode != M_LEAF && indeg[i] > 0)
        return FAIL("the trees have a cycle: node %lld is on it or below it", (long long)i);
  return 0;
}

/* ---- TreeEnsembleClassifier/Regressor-1/3: nodes named (tree id, node id) ---- */

typedef struct { int64_t tree, node, i; } tkey;

static int cmp_tkey(const void *a, const void *b) {
  const tkey *x = a, *y = b;
  if (x->tree != y->tree) return x->tree < y->tree ? -1 : 1;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

static int64_t find_node(const tkey *k, int64_t n, int64_t tree, int64_t node) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (k[mid].tree < tree || (k[mid].tree == tree && k[mid].node < node)) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && k[lo].tree == tree && k[lo].node == node ? k[lo].i : -1;
}

static int mode_of(ox_ctx *c, const ox_str *s, int64_t i, uint8_t *m) {
  static const char *names[] = {"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT",
                                "BRANCH_EQ", "BRANCH_NEQ", NULL, "LEAF"};
  for (int k = 0; k < 8; k++)
    if (names[k] && !strcmp(s->p, names[k])) return *m = (uint8_t)k, 0;
  return FAIL("nodes_modes[%lld] is '%s'; expected BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, BRANCH_GT, "
              "BRANCH_EQ, BRANCH_NEQ or LEAF", (long long)i, s->p);
}

/* Node i of the layout is leaf i too: an interior node has no weights, a
 * LEAF node no children. `w` names the weight attributes: "class" or
 * "target". `ntargets` bounds their ids. */
static int build_v3(ox_ctx *c, const char *w, int64_t ntargets, forest *fo) {
  const int64_t *tree, *nid, *feat, *tid, *fid, *mvt;
  int64_t n, k;
  OX_TRY(ints(c, "nodes_treeids", 1, &tree, &n));
  OX_TRY(ints(c, "nodes_nodeids", 1, &nid, &k));
  OX_TRY(same_len(c, "nodes_nodeids", k, "nodes_treeids", n));
  OX_TRY(ints(c, "nodes_featureids", 1, &feat, &k));
  OX_TRY(same_len(c, "nodes_featureids", k, "nodes_treeids", n));
  OX_TRY(ints(c, "nodes_truenodeids", 1, &tid, &k));
  OX_TRY(same_len(c, "nodes_truenodeids", k, "nodes_treeids", n));
  OX_TRY(ints(c, "nodes_falsenodeids", 1, &fid, &k));
  OX_TRY(same_len(c, "nodes_falsenodeids", k, "nodes_treeids", n));
  OX_TRY(ints(c, "nodes_missing_value_tracks_true", 0, &mvt, &k));
  if (k) OX_TRY(same_len(c, "nodes_missing_value_tracks_true", k, "nodes_treeids", n));
  const ox_attr *ma = ox_attr_find(c, "nodes_modes");
  if (!ma || ma->type != OX_ATTR_STRINGS)
    return FAIL("attribute 'nodes_modes' (a list of strings) is required");
  OX_TRY(same_len(c, "nodes_modes", ma->n, "nodes_treeids", n));
  double *val;
  int64_t nval;
  OX_TRY(reals(c, "nodes_values", 1, &val, &nval));
  if (nval >= 0) OX_TRY(same_len(c, "nodes_values", nval, "nodes_treeids", n));
  if (n >= INT32_MAX) return FAIL("%lld nodes are too many", (long long)n);

  tkey *key = alloc(c, n, sizeof *key);
  fo->node = alloc(c, n, sizeof *fo->node);
  if (!key || !fo->node) return OX_EINPUT;
  for (int64_t i = 0; i < n; i++) key[i] = (tkey){tree[i], nid[i], i};
  qsort(key, (size_t)n, sizeof *key, cmp_tkey);
  fo->ntrees = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i && key[i].tree == key[i - 1].tree && key[i].node == key[i - 1].node)
      return FAIL("node id %lld appears twice in tree %lld", (long long)key[i].node,
                  (long long)key[i].tree);
    fo->ntrees += !i || key[i].tree != key[i - 1].tree;
  }
  fo->nnodes = fo->nleaves = n;
  for (int64_t i = 0; i < n; i++) OX_TRY(mode_of(c, &ma->strings[i], i, &fo->node[i].mode));
  for (int64_t i = 0; i < n; i++) {
    tnode *nd = &fo->node[i];
    nd->mvt = k && mvt[i] != 0;
    if (nd->mode == M_LEAF) continue;
    OX_TRY(feature_id(c, feat[i], i, &nd->feature));
    if (nval < 0) return FAIL("attribute 'nodes_values' is required");
    nd->split = val[i];
    int64_t ch[2] = {tid[i], fid[i]};
    int32_t ref[2];
    for (int b = 0; b < 2; b++) {
      int64_t j = find_node(key, n, tree[i], ch[b]);
      if (j < 0)
        return FAIL("node %lld (tree %lld, id %lld): its %s branch, id %lld, is not a node of the "
                    "tree", (long long)i, (long long)tree[i], (long long)nid[i],
                    b ? "false" : "true", (long long)ch[b]);
      ref[b] = fo->node[j].mode == M_LEAF ? ~(int32_t)j : (int32_t)j;
    }
    nd->t = ref[0];
    nd->f = ref[1];
  }
  /* A tree's root is its first node in attribute order (onnx's reference). */
  fo->root = alloc(c, fo->ntrees, sizeof *fo->root);
  if (!fo->root) return OX_EINPUT;
  for (int64_t i = 0, t = -1; i < n; i++) {
    if (!i || key[i].tree != key[i - 1].tree) fo->root[++t] = (int32_t)key[i].i;
    else if (key[i].i < fo->root[t]) fo->root[t] = (int32_t)key[i].i;
    if (i == n - 1 || key[i + 1].tree != key[i].tree) {
      int32_t r = fo->root[t];
      fo->root[t] = fo->node[r].mode == M_LEAF ? ~r : r;
    }
  }
  OX_TRY(check_forest(c, fo));

  /* the weights: w_ids, w_nodeids, w_treeids, w_weights */
  char an[4][48];
  const char *sfx[4] = {"ids", "nodeids", "treeids", "weights"};
  for (int i = 0; i < 4; i++) snprintf(an[i], sizeof an[i], "%s_%s", w, sfx[i]);
  const int64_t *wid, *wnode, *wtree;
  int64_t m, m2;
  OX_TRY(ints(c, an[0], 0, &wid, &m));
  OX_TRY(ints(c, an[1], 0, &wnode, &m2));
  OX_TRY(same_len(c, an[1], m2, an[0], m));
  OX_TRY(ints(c, an[2], 0, &wtree, &m2));
  OX_TRY(same_len(c, an[2], m2, an[0], m));
  double *wv;
  OX_TRY(reals(c, an[3], 1, &wv, &m2));
  OX_TRY(same_len(c, an[3], m2 < 0 ? 0 : m2, an[0], m));
  fo->lw0 = alloc(c, n, sizeof(int64_t));
  fo->lwn = alloc(c, n, sizeof(int64_t));
  fo->wt = alloc(c, m, sizeof(int64_t));
  fo->ww = alloc(c, m, sizeof(double));
  int64_t *at = alloc(c, m, sizeof(int64_t));
  if (!fo->lw0 || !fo->lwn || !fo->wt || !fo->ww || !at) return OX_EINPUT;
  for (int64_t i = 0; i < m; i++) {
    int64_t j = find_node(key, n, wtree[i], wnode[i]);
    if (j < 0)
      return FAIL("%s[%lld] = %lld in tree %lld names no node", an[1], (long long)i,
                  (long long)wnode[i], (long long)wtree[i]);
    if (wid[i] < 0 || wid[i] >= ntargets)
      return FAIL("%s[%lld] = %lld is out of range [0, %lld)", an[0], (long long)i,
                  (long long)wid[i], (long long)ntargets);
    at[i] = j;
    fo->lwn[j]++;
  }
  for (int64_t j = 0, s = 0; j < n; j++) {
    fo->lw0[j] = s;
    s += fo->lwn[j];
    fo->lwn[j] = 0;
  }
  for (int64_t i = 0; i < m; i++) { /* counting sort, keeping attribute order per leaf */
    int64_t p = fo->lw0[at[i]] + fo->lwn[at[i]]++;
    fo->wt[p] = wid[i];
    fo->ww[p] = wv[i];
  }
  fo->ntargets = ntargets;
  return 0;
}

/* ---- TreeEnsemble-5: nodes by position, leaves apart ---- */

static int build_v5(ox_ctx *c, forest *fo) {
  const int64_t *roots, *feat, *tid, *fid, *tleaf, *fleaf, *mvt, *ltarget;
  int64_t n, k, nr, nl;
  OX_TRY(ints(c, "tree_roots", 1, &roots, &nr));
  OX_TRY(ints(c, "nodes_featureids", 1, &feat, &n));
  OX_TRY(ints(c, "nodes_truenodeids", 1, &tid, &k));
  OX_TRY(same_len(c, "nodes_truenodeids", k, "nodes_featureids", n));
  OX_TRY(ints(c, "nodes_falsenodeids", 1, &fid, &k));
  OX_TRY(same_len(c, "nodes_falsenodeids", k, "nodes_featureids", n));
  OX_TRY(ints(c, "nodes_trueleafs", 1, &tleaf, &k));
  OX_TRY(same_len(c, "nodes_trueleafs", k, "nodes_featureids", n));
  OX_TRY(ints(c, "nodes_falseleafs", 1, &fleaf, &k));
  OX_TRY(same_len(c, "nodes_falseleafs", k, "nodes_featureids", n));
  OX_TRY(ints(c, "nodes_missing_value_tracks_true", 0, &mvt, &k));
  int has_mvt = k > 0;
  if (has_mvt) OX_TRY(same_len(c, "nodes_missing_value_tracks_true", k, "nodes_featureids", n));
  OX_TRY(ints(c, "leaf_targetids", 1, &ltarget, &nl));
  double *modes, *split, *lw, *mem;
  int64_t nm, ns, nw, nmem;
  OX_TRY(reals(c, "nodes_modes", 0, &modes, &nm));
  if (nm < 0) return FAIL("attribute 'nodes_modes' is required");
  OX_TRY(same_len(c, "nodes_modes", nm, "nodes_featureids", n));
  OX_TRY(reals(c, "nodes_splits", 0, &split, &ns));
  if (ns < 0) return FAIL("attribute 'nodes_splits' is required");
  OX_TRY(same_len(c, "nodes_splits", ns, "nodes_featureids", n));
  OX_TRY(reals(c, "leaf_weights", 0, &lw, &nw));
  if (nw < 0) return FAIL("attribute 'leaf_weights' is required");
  OX_TRY(same_len(c, "leaf_weights", nw, "leaf_targetids", nl));
  OX_TRY(reals(c, "membership_values", 0, &mem, &nmem));
  if (n >= INT32_MAX || nl >= INT32_MAX) return FAIL("too many nodes or leaves");

  int64_t ntargets = ox_attr_int(c, "n_targets", -1);
  if (c->err->code) return c->err->code;
  if (ntargets < 0) /* absent: as many as the leaves name */
    for (int64_t i = 0; i < nl; i++)
      if (ltarget[i] >= ntargets && ltarget[i] < INT32_MAX) ntargets = ltarget[i] + 1;
  if (ntargets < 1) return FAIL("n_targets is %lld; it must be at least 1", (long long)ntargets);

  fo->nnodes = n;
  fo->nleaves = nl;
  fo->ntrees = nr;
  fo->ntargets = ntargets;
  fo->node = alloc(c, n, sizeof *fo->node);
  fo->root = alloc(c, nr, sizeof *fo->root);
  fo->lw0 = alloc(c, nl, sizeof(int64_t));
  fo->lwn = alloc(c, nl, sizeof(int64_t));
  fo->wt = (int64_t *)ltarget;
  fo->ww = lw;
  fo->set = mem;
  if (!fo->node || !fo->root || !fo->lw0 || !fo->lwn) return OX_EINPUT;
  for (int64_t i = 0; i < nl; i++) {
    if (ltarget[i] < 0 || ltarget[i] >= ntargets)
      return FAIL("leaf_targetids[%lld] = %lld is out of range [0, %lld)", (long long)i,
                  (long long)ltarget[i], (long long)ntargets);
    fo->lw0[i] = i;
    fo->lwn[i] = 1;
  }
  /* membership_values: one NaN-terminated set per BRANCH_MEMBER node, in
   * node order (the last NaN may be left out). */
  int64_t mpos = 0;
  for (int64_t i = 0; i < n; i++) {
    tnode *nd = &fo->node[i];
    double m = modes[i];
    if (!(m >= 0 && m <= 6 && m == floor(m)))
      return FAIL("nodes_modes[%lld] is %g; expected 0 (BRANCH_LEQ) .. 6 (BRANCH_MEMBER)",
                  (long long)i, m);
    nd->mode = (uint8_t)m;
    OX_TRY(feature_id(c, feat[i], i, &nd->feature));
    nd->split = split[i];
    nd->mvt = has_mvt && mvt[i] != 0;
    int64_t ch[2] = {tid[i], fid[i]}, lf[2] = {tleaf[i], fleaf[i]};
    int32_t ref[2];
    for (int b = 0; b < 2; b++) {
      int64_t lim = lf[b] ? nl : n;
      if (ch[b] < 0 || ch[b] >= lim)
        return FAIL("node %lld: nodes_%snodeids = %lld is out of range [0, %lld) of the %s",
                    (long long)i, b ? "false" : "true", (long long)ch[b], (long long)lim,
                    lf[b] ? "leaves" : "nodes");
      ref[b] = lf[b] ? ~(int32_t)ch[b] : (int32_t)ch[b];
    }
    nd->t = ref[0];
    nd->f = ref[1];
    if (nd->mode != M_MEMBER) continue;
    if (mpos >= nmem)
      return FAIL("membership_values has no set for BRANCH_MEMBER node %lld (one NaN-ended set "
                  "per such node)", (long long)i);
    if (!fo->mset && !(fo->mset = alloc(c, 2 * n, sizeof *fo->mset))) return OX_EINPUT;
    int64_t *ms = fo->mset + 2 * i;
    ms[0] = mpos;
    while (mpos < nmem && !isnan(mem[mpos])) mpos++;
    ms[1] = mpos - ms[0];
    mpos++;
    qsort(mem + ms[0], (size_t)ms[1], sizeof *mem, cmp_double);
  }
  if (mpos < nmem)
    return FAIL("membership_values holds more sets than there are BRANCH_MEMBER nodes");
  for (int64_t t = 0; t < nr; t++) {
    int64_t r = roots[t];
    if (r < 0 || r >= n)
      return FAIL("tree_roots[%lld] = %lld is out of range [0, %lld)", (long long)t, (long long)r,
                  (long long)n);
    /* a tree that is one leaf: both branches of its root name the same leaf */
    fo->root[t] = tleaf[r] && fleaf[r] && tid[r] == fid[r] ? fo->node[r].t : (int32_t)r;
  }
  return check_forest(c, fo);
}

/* ---- evaluation ---- */

/* x: (N, F) or (F,) as one row. Per row, the aggregated leaf weights of every
 * tree for each target: acc (N, ntargets), has (N, ntargets) marking targets
 * some leaf gave a weight to. AVERAGE divides by the number of trees.
 * Rows go in blocks, each tree over the whole block, so that a tree's nodes
 * stay in cache while the block walks it. */
enum { ROW_BLOCK = 128 };
static int aggregate(ox_ctx *c, const forest *fo, const ox_tensor *x, int agg, int64_t *N,
                     double **acc, uint8_t **has) {
  if (x->rank != 1 && x->rank != 2)
    return FAIL("%s has rank %d; expected (N, F) or (F)", ox_input_name(c, 0), x->rank);
  int64_t n = x->rank == 1 ? 1 : x->dims[0], F = x->dims[x->rank - 1], T = fo->ntargets;
  if (fo->nfeat > F)
    return FAIL("the trees test feature %lld but %s has %lld features", (long long)fo->nfeat - 1,
                ox_input_name(c, 0), (long long)F);
  int64_t block = n < ROW_BLOCK ? n : ROW_BLOCK;
  if (ox_numel(2, (int64_t[]){n, T}, sizeof(double)) < 0 ||
      ox_numel(2, (int64_t[]){block, F}, sizeof(double)) < 0)
    return FAIL("%s is too large", ox_input_name(c, 0));
  double *a = alloc(c, n * T, sizeof *a), *rows = alloc(c, block * F, sizeof *rows);
  uint8_t *h = alloc(c, n * T, 1);
  if (!a || !rows || !h) return OX_EINPUT;
  for (int64_t i0 = 0; i0 < n; i0 += ROW_BLOCK) {
    int64_t nb = n - i0 < ROW_BLOCK ? n - i0 : ROW_BLOCK;
    if (x->dt == OX_FLOAT)
      for (int64_t j = 0; j < nb * F; j++) rows[j] = ((const float *)x->data)[i0 * F + j];
    else
      for (int64_t j = 0; j < nb * F; j++) rows[j] = ox_load_f64(x->dt, x->data, i0 * F + j);
    for (int64_t t = 0; t < fo->ntrees; t++)
      for (int64_t i = 0; i < nb; i++) {
        double *ai = a + (i0 + i) * T;
        uint8_t *hi = h + (i0 + i) * T;
        int64_t leaf = walk(fo, fo->root[t], rows + i * F);
        for (int64_t p = fo->lw0[leaf], e = p + fo->lwn[leaf]; p < e; p++) {
          int64_t k = fo->wt[p];
          double w = fo->ww[p];
          if (agg == AGG_MIN) ai[k] = !hi[k] || w < ai[k] ? w : ai[k];
          else if (agg == AGG_MAX) ai[k] = !hi[k] || w > ai[k] ? w : ai[k];
          else ai[k] += w;
          hi[k] = 1;
        }
      }
  }
  /* A target no leaf reached stays 0, with MIN and MAX too (onnxruntime). */
  if (agg == AGG_AVERAGE && fo->ntrees > 0)
    for (int64_t j = 0; j < n * T; j++) a[j] /= (double)fo->ntrees;
  *N = n;
  *acc = a;
  *has = h;
  return 0;
}

static int agg_parse(ox_ctx *c, const char *s, int *agg) {
  static const char *names[] = {"AVERAGE", "SUM", "MIN", "MAX"};
  for (int i = 0; i < 4; i++)
    if (!strcmp(s, names[i])) return *agg = i, 0;
  return FAIL("aggregate_function '%s' is not one of AVERAGE, SUM, MIN, MAX", s);
}

/* base_values (or base_values_as_tensor): none, or one per target/class. */
static int base_values(ox_ctx *c, int64_t want, int allow_one, double **b, int64_t *nb) {
  OX_TRY(reals(c, "base_values", 1, b, nb));
  if (*nb < 0) *nb = 0;
  if (*nb && *nb != want && !(allow_one && *nb == 1))
    return FAIL("base_values has %lld values; expected none or %lld", (long long)*nb,
                (long long)want);
  return 0;
}

/* Y (N, T) of dtype dt: scores + base, post-transformed per row. */
static int write_scores(ox_ctx *c, int64_t n, int64_t T, double *acc, const double *base,
                        int64_t nb, int pt, ox_dtype dt, ox_value **out) {
  OX_TRY(ox_tensor_new(c->a, dt, 2, (int64_t[]){n, T}, out, c->err));
  for (int64_t i = 0; i < n; i++) {
    double *s = acc + i * T;
    for (int64_t k = 0; k < T && nb; k++) s[k] += base[k];
    ox_ml_post_transform(pt, s, T);
    for (int64_t k = 0; k < T; k++) ox_store_f64(dt, (*out)->u.t.data, i * T + k, s[k]);
  }
  return 0;
}

/* TreeEnsembleRegressor-1/3: Y (N, n_targets) float. */
static int regressor_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  int agg = AGG_SUM, pt = OX_PT_NONE;
  OX_TRY(agg_parse(c, ox_attr_string(c, "aggregate_function", "SUM"), &agg));
  OX_TRY(ox_ml_post_transform_attr(c, &pt));
  int64_t T = ox_attr_int(c, "n_targets", -1);
  if (c->err->code) return c->err->code;
  if (T < 0) { /* absent: as many as target_ids name */
    const int64_t *ids;
    int64_t m;
    OX_TRY(ints(c, "target_ids", 0, &ids, &m));
    for (int64_t i = 0; i < m; i++)
      if (ids[i] >= T && ids[i] < INT32_MAX) T = ids[i] + 1;
  }
  if (T < 1) return FAIL("n_targets is %lld; it must be at least 1", (long long)T);
  forest fo = {0};
  OX_TRY(build_v3(c, "target", T, &fo));
  double *base, *acc;
  int64_t nb, n;
  uint8_t *has;
  OX_TRY(base_values(c, T, 0, &base, &nb));
  OX_TRY(aggregate(c, &fo, &in[0]->u.t, agg, &n, &acc, &has));
  return write_scores(c, n, T, acc, base, nb, pt, OX_FLOAT, &out[0]);
}

/* TreeEnsemble-5: Y (N, n_targets) of X's type. */
static int ensemble_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  int64_t agg = ox_attr_int(c, "aggregate_function", AGG_SUM);
  int64_t pt = ox_attr_int(c, "post_transform", OX_PT_NONE);
  if (c->err->code) return c->err->code;
  if (agg < 0 || agg > 3)
    return FAIL("aggregate_function is %lld; expected 0 (AVERAGE), 1 (SUM), 2 (MIN) or 3 (MAX)",
                (long long)agg);
  if (pt < 0 || pt > 4)
    return FAIL("post_transform is %lld; expected 0 (NONE), 1 (SOFTMAX), 2 (LOGISTIC), "
                "3 (SOFTMAX_ZERO) or 4 (PROBIT)", (long long)pt);
  forest fo = {0};
  OX_TRY(build_v5(c, &fo));
  double *acc;
  int64_t n;
  uint8_t *has;
  OX_TRY(aggregate(c, &fo, &in[0]->u.t, (int)agg, &n, &acc, &has));
  return write_scores(c, n, fo.ntargets, acc, NULL, 0, (int)pt, in[0]->u.t.dt, &out[0]);
}

/* TreeEnsembleClassifier-1/3: Y (N) labels, Z (N, classes) float scores.
 * The class scores are sums of class_weights plus base_values.
 * Binary case (two labels, every class_id the same): the one score s is that
 * of the positive class, and Z is [1 - s, s] for NONE and PROBIT, [-s, s]
 * for the others, then transformed (onnx's reference; onnxruntime agrees for
 * NONE with non-negative weights and LOGISTIC with mixed ones).
 * Otherwise the label is the first class of highest score among the classes
 * some leaf or base value scored (onnxruntime), before the transform. */
static int classifier_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_attr *ls = ox_attr_find(c, "classlabels_strings");
  const int64_t *li;
  int64_t nli;
  OX_TRY(ints(c, "classlabels_int64s", 0, &li, &nli));
  if (ls && ls->type != OX_ATTR_STRINGS)
    return FAIL("attribute 'classlabels_strings' must be a list of strings");
  int64_t nls = ls ? ls->n : 0;
  if ((nls > 0) == (nli > 0))
    return FAIL("exactly one of classlabels_strings and classlabels_int64s must be given");
  int64_t nc = nls ? nls : nli;
  int pt = OX_PT_NONE;
  OX_TRY(ox_ml_post_transform_attr(c, &pt));
  forest fo = {0};
  OX_TRY(build_v3(c, "class", nc, &fo));
  double *base, *acc;
  int64_t nb, n;
  uint8_t *has;
  int64_t m;
  const int64_t *ids;
  OX_TRY(ints(c, "class_ids", 0, &ids, &m));
  int binary = nc == 2 && m > 0;
  for (int64_t i = 0; i < m; i++) binary &= ids[i] == ids[0];
  OX_TRY(base_values(c, nc, binary, &base, &nb));
  OX_TRY(aggregate(c, &fo, &in[0]->u.t, AGG_SUM, &n, &acc, &has));

  OX_TRY(ox_tensor_new(c->a, nls ? OX_STRING : OX_INT64, 1, &n, &out[0], c->err));
  ox_value *z;
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, 2, (int64_t[]){n, nc}, &z, c->err));
  float *zd = z->u.t.data;
  for (int64_t i = 0; i < n; i++) {
    double *s = acc + i * nc;
    uint8_t *h = has + i * nc;
    int64_t best = 0;
    if (binary) {
      int64_t k = ids[0];
      double p = s[k] + (nb == 2 ? base[k] : nb == 1 ? base[0] : 0);
      s[0] = pt == OX_PT_NONE || pt == OX_PT_PROBIT ? 1 - p : -p;
      s[1] = p;
      ox_ml_post_transform(pt, s, 2);
      best = s[1] > s[0];
    } else {
      for (int64_t k = 0; k < nc && nb; k++) s[k] += base[k], h[k] = 1;
      int64_t b = -1;
      for (int64_t k = 0; k < nc; k++)
        if (h[k] && (b < 0 || s[k] > s[b])) b = k;
      best = b < 0 ? 0 : b;
      ox_ml_post_transform(pt, s, nc);
    }
    for (int64_t k = 0; k < nc; k++) zd[i * nc + k] = (float)s[k];
    if (nls) ((ox_str *)out[0]->u.t.data)[i] = ls->strings[best];
    else ((int64_t *)out[0]->u.t.data)[i] = li[best];
  }
  if (nout > 1) out[1] = z;
  return 0;
}

#define TS_T1 (OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(INT64) | OX_T(INT32))
const ox_kernel ox_ml_tree_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "ai.onnx.ml", "TreeEnsembleClassifier", 1, 0, TS_T1, 1, 1, classifier_k,
    "base_values:floats,class_ids:ints,class_nodeids:ints,class_treeids:ints,"
    "class_weights:floats,classlabels_int64s:ints,classlabels_strings:strings,"
    "nodes_falsenodeids:ints,nodes_featureids:ints,nodes_hitrates:floats,"
    "nodes_missing_value_tracks_true:ints,nodes_modes:strings,nodes_nodeids:ints,"
    "nodes_treeids:ints,nodes_truenodeids:ints,nodes_values:floats,post_transform:string=NONE" },
  { "ai.onnx.ml", "TreeEnsembleClassifier", 3, 0, TS_T1, 1, 1, classifier_k,
    "base_values:floats,base_values_as_tensor:tensor,class_ids:ints,class_nodeids:ints,"
    "class_treeids:ints,class_weights:floats,class_weights_as_tensor:tensor,"
    "classlabels_int64s:ints,classlabels_strings:strings,nodes_falsenodeids:ints,"
    "nodes_featureids:ints,nodes_hitrates:floats,nodes_hitrates_as_tensor:tensor,"
    "nodes_missing_value_tracks_true:ints,nodes_modes:strings,nodes_nodeids:ints,"
    "nodes_treeids:ints,nodes_truenodeids:ints,nodes_values:floats,"
    "nodes_values_as_tensor:tensor,post_transform:string=NONE" },
  { "ai.onnx.ml", "TreeEnsembleClassifier", 5, OX_REMOVED }, /* TreeEnsemble replaces it */
  { "ai.onnx.ml", "TreeEnsembleRegressor",  1, 0, TS_T1, 1, 1, regressor_k,
    "aggregate_function:string=SUM,base_values:floats,n_targets:int,nodes_falsenodeids:ints,"
    "nodes_featureids:ints,nodes_hitrates:floats,nodes_missing_value_tracks_true:ints,"
    "nodes_modes:strings,nodes_nodeids:ints,nodes_treeids:ints,nodes_truenodeids:ints,"
    "nodes_values:floats,post_transform:string=NONE,target_ids:ints,target_nodeids:ints,"
    "target_treeids:ints,target_weights:floats" },
  { "ai.onnx.ml", "TreeEnsembleRegressor",  3, 0, TS_T1, 1, 1, regressor_k,
    "aggregate_function:string=SUM,base_values:floats,base_values_as_tensor:tensor,"
    "n_targets:int,nodes_falsenodeids:ints,nodes_featureids:ints,nodes_hitrates:floats,"
    "nodes_hitrates_as_tensor:tensor,nodes_missing_value_tracks_true:ints,nodes_modes:strings,"
    "nodes_nodeids:ints,nodes_treeids:ints,nodes_truenodeids:ints,nodes_values:floats,"
    "nodes_values_as_tensor:tensor,post_transform:string=NONE,target_ids:ints,"
    "target_nodeids:ints,target_treeids:ints,target_weights:floats,"
    "target_weights_as_tensor:tensor" },
  { "ai.onnx.ml", "TreeEnsembleRegressor",  5, OX_REMOVED }, /* TreeEnsemble replaces it */
  { "ai.onnx.ml", "TreeEnsemble",           5, 0, OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(FLOAT16), 1, 1, ensemble_k,
    "aggregate_function:int=1,leaf_targetids:ints:required,leaf_weights:tensor:required,"
    "membership_values:tensor,n_targets:int,nodes_falseleafs:ints:required,"
    "nodes_falsenodeids:ints:required,nodes_featureids:ints:required,nodes_hitrates:tensor,"
    "nodes_missing_value_tracks_true:ints,nodes_modes:tensor:required,"
    "nodes_splits:tensor:required,nodes_trueleafs:ints:required,"
    "nodes_truenodeids:ints:required,post_transform:int=0,tree_roots:ints:required" },
  {0},
};
