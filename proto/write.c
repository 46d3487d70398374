/* proto/write.c: core model -> ModelProto, for `onnxop make`.
 *
 * Everything is built in the arena and packed once. The builders below stop
 * at a NULL where they must (and never write through one), but leave a
 * field NULL where an allocation failed; ox_model_encode then sees the
 * failure by ox_mem_failures() and packs nothing. */
#include <string.h>

#include "proto.h"

/* A protobuf-c message in the arena, set to its INIT value. */
static void *alloc_init(ox_arena *a, const void *init, size_t n) {
  void *p = ox_alloc(a, n);
  if (p) memcpy(p, init, n);
  return p;
}
#define NEW(a, T, INIT) ((T *)alloc_init(a, &(T)INIT, sizeof(T)))

static char *dup(ox_arena *a, const char *s) { return ox_strdup(a, s ? s : ""); }

static const Onnx__TypeProto *type_proto(ox_arena *a, const ox_type *t, int rank, const int64_t *dims,
                                         const char *const *params);

/* params: NULL, or rank entries naming symbolic dims (dim_param) */
static const Onnx__TypeProto *type_proto(ox_arena *a, const ox_type *t, int rank, const int64_t *dims,
                                         const char *const *params) {
  if (!t) return NULL;
  Onnx__TypeProto *tp = NEW(a, Onnx__TypeProto, ONNX__TYPE_PROTO__INIT);
  if (!tp) return NULL;
  switch (t->kind) {
  case OX_TENSOR: {
    Onnx__TypeProto__Tensor *tt = NEW(a, Onnx__TypeProto__Tensor, ONNX__TYPE_PROTO__TENSOR__INIT);
    if (!tt) return NULL;
    tt->has_elem_type = 1;
    tt->elem_type = (int32_t)t->elem;
    if (rank >= 0) {
      Onnx__TensorShapeProto *sh = NEW(a, Onnx__TensorShapeProto, ONNX__TENSOR_SHAPE_PROTO__INIT);
      Onnx__TensorShapeProto__Dimension **d = ox_alloc_array(a, rank + 1, sizeof *d);
      if (!sh || !d) return NULL;
      for (int i = 0; i < rank; i++) {
        d[i] = NEW(a, Onnx__TensorShapeProto__Dimension, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT);
        if (!d[i]) return NULL;
        if (dims && dims[i] >= 0) {
          d[i]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
          d[i]->dim_value = dims[i];
        } else if (params && params[i]) {
          d[i]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
          d[i]->dim_param = dup(a, params[i]);
        }
      }
      sh->n_dim = (size_t)rank;
      sh->dim = d;
      tt->shape = sh;
    }
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    return tp;
  }
  case OX_SEQUENCE: {
    Onnx__TypeProto__Sequence *s = NEW(a, Onnx__TypeProto__Sequence, ONNX__TYPE_PROTO__SEQUENCE__INIT);
    if (!s || !(s->elem_type = (Onnx__TypeProto *)type_proto(a, t->inner, -1, NULL, NULL))) return NULL;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    tp->sequence_type = s;
    return tp;
  }
  case OX_OPTIONAL: {
    Onnx__TypeProto__Optional *o = NEW(a, Onnx__TypeProto__Optional, ONNX__TYPE_PROTO__OPTIONAL__INIT);
    if (!o || !(o->elem_type = (Onnx__TypeProto *)type_proto(a, t->inner, -1, NULL, NULL))) return NULL;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
    tp->optional_type = o;
    return tp;
  }
  case OX_MAP: {
    Onnx__TypeProto__Map *m = NEW(a, Onnx__TypeProto__Map, ONNX__TYPE_PROTO__MAP__INIT);
    if (!m || !(m->value_type = (Onnx__TypeProto *)type_proto(a, t->inner, -1, NULL, NULL))) return NULL;
    m->has_key_type = 1;
    m->key_type = (int32_t)t->elem;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE;
    tp->map_type = m;
    return tp;
  }
  default:
    return NULL;
  }
}

static Onnx__ValueInfoProto *valueinfo(ox_arena *a, const ox_valueinfo *vi) {
  Onnx__ValueInfoProto *p = NEW(a, Onnx__ValueInfoProto, ONNX__VALUE_INFO_PROTO__INIT);
  if (!p) return NULL;
  p->name = dup(a, vi->name);
  if (vi->type) p->type = (Onnx__TypeProto *)type_proto(a, vi->type, vi->rank, vi->dims, vi->dim_param);
  return p;
}

static Onnx__GraphProto *graph(ox_arena *a, const ox_graph *g, ox_err *e);

static Onnx__AttributeProto *attribute(ox_arena *a, const ox_attr *at, ox_err *e) {
  Onnx__AttributeProto *p = NEW(a, Onnx__AttributeProto, ONNX__ATTRIBUTE_PROTO__INIT);
  if (!p) return NULL;
  p->name = dup(a, at->name);
  p->has_type = 1;
  p->type = (Onnx__AttributeProto__AttributeType)at->type;
  if (at->ref_attr_name) p->ref_attr_name = dup(a, at->ref_attr_name);
  switch (at->type) {
  case OX_ATTR_FLOAT: p->has_f = 1; p->f = at->f; break;
  case OX_ATTR_INT: p->has_i = 1; p->i = at->i; break;
  case OX_ATTR_STRING:
    p->has_s = 1;
    p->s.len = (size_t)at->s.n;
    p->s.data = (uint8_t *)at->s.p;
    break;
  case OX_ATTR_TENSOR:
    if (ox_to_tensor_proto(a, at->t, NULL, &p->t, e)) return NULL;
    break;
  case OX_ATTR_GRAPH:
    if (!(p->g = graph(a, at->g, e))) return NULL;
    break;
  case OX_ATTR_FLOATS: p->n_floats = (size_t)at->n; p->floats = at->floats; break;
  case OX_ATTR_INTS: p->n_ints = (size_t)at->n; p->ints = at->ints; break;
  case OX_ATTR_STRINGS:
    p->n_strings = (size_t)at->n;
    p->strings = ox_alloc_array(a, at->n, sizeof *p->strings);
    for (int64_t i = 0; p->strings && i < at->n; i++) {
      p->strings[i].len = (size_t)at->strings[i].n;
      p->strings[i].data = (uint8_t *)at->strings[i].p;
    }
    break;
  case OX_ATTR_TENSORS:
    p->n_tensors = (size_t)at->n;
    p->tensors = ox_alloc_array(a, at->n, sizeof *p->tensors);
    for (int64_t i = 0; p->tensors && i < at->n; i++)
      if (ox_to_tensor_proto(a, at->tensors[i], NULL, &p->tensors[i], e)) return NULL;
    break;
  case OX_ATTR_GRAPHS:
    p->n_graphs = (size_t)at->n;
    p->graphs = ox_alloc_array(a, at->n, sizeof *p->graphs);
    for (int64_t i = 0; p->graphs && i < at->n; i++)
      if (!(p->graphs[i] = graph(a, at->graphs[i], e))) return NULL;
    break;
  case OX_ATTR_TYPE_PROTO:
    p->tp = (Onnx__TypeProto *)type_proto(a, at->tp, -1, NULL, NULL);
    break;
  default:
    ox_fail(e, OX_EINPUT, "attribute '%s': cannot write attributes of type %d", at->name, (int)at->type);
    return NULL;
  }
  return p;
}

static char **names(ox_arena *a, int n, const char **src) {
  char **v = ox_alloc_array(a, n + 1, sizeof *v);
  for (int i = 0; v && i < n; i++) v[i] = dup(a, src[i]);
  return v;
}

static Onnx__GraphProto *graph(ox_arena *a, const ox_graph *g, ox_err *e) {
  Onnx__GraphProto *p = NEW(a, Onnx__GraphProto, ONNX__GRAPH_PROTO__INIT);
  if (!p) return NULL;
  p->name = dup(a, g->name ? g->name : "graph");
  p->n_node = (size_t)g->nnode;
  p->node = ox_alloc_array(a, g->nnode + 1, sizeof *p->node);
  for (int i = 0; p->node && i < g->nnode; i++) {
    const ox_node *n = &g->node[i];
    Onnx__NodeProto *np = NEW(a, Onnx__NodeProto, ONNX__NODE_PROTO__INIT);
    if (!np) return NULL;
    np->name = dup(a, n->name);
    np->op_type = dup(a, n->op);
    np->domain = dup(a, n->domain);
    np->n_input = (size_t)n->nin;
    np->input = names(a, n->nin, n->in);
    np->n_output = (size_t)n->nout;
    np->output = names(a, n->nout, n->out);
    np->n_attribute = (size_t)n->nattr;
    np->attribute = ox_alloc_array(a, n->nattr + 1, sizeof *np->attribute);
    for (int j = 0; np->attribute && j < n->nattr; j++)
      if (!(np->attribute[j] = attribute(a, &n->attr[j], e))) return NULL;
    p->node[i] = np;
  }
  p->n_input = (size_t)g->nin;
  p->input = ox_alloc_array(a, g->nin + 1, sizeof *p->input);
  for (int i = 0; p->input && i < g->nin; i++) p->input[i] = valueinfo(a, &g->in[i]);
  p->n_output = (size_t)g->nout;
  p->output = ox_alloc_array(a, g->nout + 1, sizeof *p->output);
  for (int i = 0; p->output && i < g->nout; i++) p->output[i] = valueinfo(a, &g->out[i]);
  p->n_initializer = (size_t)g->ninit;
  p->initializer = ox_alloc_array(a, g->ninit + 1, sizeof *p->initializer);
  for (int i = 0; p->initializer && i < g->ninit; i++)
    if (ox_to_tensor_proto(a, g->init[i], g->init_name[i], &p->initializer[i], e)) return NULL;
  return p;
}

int ox_model_encode(ox_arena *a, const ox_model *m, uint8_t **data, size_t *len, ox_err *e) {
  size_t failed = ox_mem_failures();
  Onnx__ModelProto *mp = NEW(a, Onnx__ModelProto, ONNX__MODEL_PROTO__INIT);
  if (!mp) return ox_oom(e, NULL);
  mp->has_ir_version = 1;
  mp->ir_version = m->ir_version ? m->ir_version : 10;
  mp->producer_name = "onnxop";
  mp->n_opset_import = (size_t)m->nopset;
  mp->opset_import = ox_alloc_array(a, m->nopset + 1, sizeof *mp->opset_import);
  for (int i = 0; mp->opset_import && i < m->nopset; i++) {
    Onnx__OperatorSetIdProto *o = NEW(a, Onnx__OperatorSetIdProto, ONNX__OPERATOR_SET_ID_PROTO__INIT);
    if (!o) return ox_oom(e, NULL);
    o->domain = dup(a, m->opset[i].domain);
    o->has_version = 1;
    o->version = m->opset[i].version;
    mp->opset_import[i] = o;
  }
  if (!(mp->graph = graph(a, m->graph, e)))
    return e->code ? e->code : ox_oom(e, NULL);
  if (ox_mem_failures() != failed) return ox_oom(e, NULL); /* a part is missing */
  size_t n = onnx__model_proto__get_packed_size(mp);
  uint8_t *buf = ox_alloc(a, n + 1);
  if (!buf) return ox_oom(e, NULL);
  *len = onnx__model_proto__pack(mp, buf);
  *data = buf;
  return 0;
}
