// onnx_expand: what onnx's case generator asks of onnx's C++ schemas, for
// tests/cases/gen_onnx_latest.py (see tests/cases/README.md).
//
// The generator (onnx/backend/test/case/node/__init__.py, expect()) needs
// three things from onnx.defs: the since_version of the node's schema, the
// schema's function bodies (fixed ones and context-dependent ones built for
// the node and its input types), and the schema's attribute defaults. Debian's
// python3-onnx is too old to have the newest schemas, and onnx's own Python
// extension cannot be built with Debian 12's toolchain, so this small program
// is built against onnx's C++ library instead (not part of onnxop's build).
//
// usage: onnx_expand IN.onnx OUT.onnx
//   IN:  a ModelProto whose graph holds the node (node 0), one graph input per
//        present node input (its type), and the model's opset imports (none:
//        the newest schema, as expect() does without opset_imports).
//   OUT: a ModelProto: model_version = the schema's since_version; functions
//        = the bodies in onnx's order (fixed ones by opset version, then the
//        context-dependent ones); graph.node 0 = the node with each schema
//        attribute it lacks appended as the schema's default_value (empty when
//        none), as expect() appends them before it renames the body.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"

using namespace ONNX_NAMESPACE;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: onnx_expand IN.onnx OUT.onnx\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ModelProto model;
  if (!in || !model.ParseFromString(bytes) || model.graph().node_size() < 1) {
    std::cerr << "onnx_expand: cannot read a model with a node from " << argv[1] << "\n";
    return 1;
  }
  const NodeProto& node = model.graph().node(0);
  const std::string& domain = node.domain();

  const OpSchema* schema = nullptr;
  if (model.opset_import_size() == 0) {
    schema = OpSchemaRegistry::Schema(node.op_type(), domain);
  } else {
    for (const auto& opset : model.opset_import()) {
      bool onnx_domain = (domain.empty() || domain == "ai.onnx") &&
          (opset.domain().empty() || opset.domain() == "ai.onnx");
      if (opset.domain() == domain || onnx_domain) {
        schema = OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset.version()), domain);
        break;
      }
    }
  }
  if (schema == nullptr) {
    std::cerr << "onnx_expand: no schema for " << node.op_type() << "\n";
    return 1;
  }

  // One type per node input, a default TypeProto where the input is absent.
  std::vector<TypeProto> input_types;
  int present = 0;
  for (const auto& name : node.input()) {
    if (name.empty())
      input_types.emplace_back();
    else
      input_types.push_back(model.graph().input(present++).type());
  }

  ModelProto out;
  out.set_model_version(schema->since_version());
  for (int v : schema->function_opset_versions()) {
    const FunctionProto* f = schema->GetFunction(v);
    if (f != nullptr)
      *out.add_functions() = *f;
    else
      out.add_functions();
  }
  for (int v : schema->context_dependent_function_opset_versions()) {
    FunctionBodyBuildContextImpl ctx(node, input_types);
    FunctionProto f;
    schema->BuildContextDependentFunction(ctx, f, v);
    *out.add_functions() = f;
  }
  NodeProto* with_defaults = out.mutable_graph()->add_node();
  *with_defaults = node;
  for (const auto& kv : schema->attributes()) {
    bool given = false;
    for (const auto& a : node.attribute())
      given = given || a.name() == kv.first;
    if (!given)
      *with_defaults->add_attribute() = kv.second.default_value;
  }

  std::ofstream o(argv[2], std::ios::binary);
  if (!out.SerializeToOstream(&o)) {
    std::cerr << "onnx_expand: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
