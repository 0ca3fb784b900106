#include "frontend/onnx_graph.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

namespace tlp {

namespace {

namespace onnx = ONNX_NAMESPACE;

// Larger than any real tensor dimension; a larger one is a broken file.
constexpr int64_t kMaxDimension = int64_t(1) << 24;

[[noreturn]] void fail(const std::string &path, const std::string &what) { throw OnnxImportError(path + ": " + what); }

std::string first_line(const std::string &s) {
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

std::string shape_text(const TensorShape &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

int64_t default_opset(const onnx::ModelProto &m) {
  for (const auto &o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  return 0;
}

// Gives every graph input its shape: the one the user gave, else the file's,
// which must then be fully known and sane.
void set_input_shapes(const std::string &path, onnx::ModelProto &m,
                      const std::map<std::string, TensorShape> &given) {
  std::set<std::string> initializers;
  for (const auto &t : m.graph().initializer()) initializers.insert(t.name());
  std::set<std::string> inputs;
  for (const auto &input : m.graph().input())
    if (!initializers.count(input.name())) inputs.insert(input.name());
  for (const auto &[name, shape] : given) {
    if (!inputs.count(name)) fail(path, "--input names '" + name + "', which is not an input of the model");
    for (int64_t d : shape)
      if (d <= 0 || d > kMaxDimension) fail(path, "--input " + name + "=" + shape_text(shape) + ": a dimension is out of range");
  }
  for (auto &input : *m.mutable_graph()->mutable_input()) {
    if (initializers.count(input.name())) continue;
    if (!input.type().has_tensor_type()) fail(path, "input '" + input.name() + "' is not a tensor");
    auto *shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    const auto it = given.find(input.name());
    if (it != given.end()) {
      if (shape->dim_size() != 0 && size_t(shape->dim_size()) != it->second.size())
        fail(path, "--input " + input.name() + "=" + shape_text(it->second) + " has " +
                       std::to_string(it->second.size()) + " dimensions; the model's input has " +
                       std::to_string(shape->dim_size()));
      shape->clear_dim();
      for (int64_t d : it->second) shape->add_dim()->set_dim_value(d);
      continue;
    }
    if (!input.type().tensor_type().has_shape())
      fail(path, "input '" + input.name() + "' has no shape: give it with --input " + input.name() + "=1x3x224x224");
    for (int i = 0; i < shape->dim_size(); ++i) {
      const auto &d = shape->dim(i);
      const std::string hint = ": give the input's shape with --input " + input.name() + "=...";
      if (!d.has_dim_value())
        fail(path, "input '" + input.name() + "' dimension " + std::to_string(i) +
                       (d.has_dim_param() ? " is symbolic ('" + d.dim_param() + "')" : " is unknown") + hint);
      if (d.dim_value() <= 0 || d.dim_value() > kMaxDimension)
        fail(path, "input '" + input.name() + "' dimension " + std::to_string(i) + " is " +
                       std::to_string(d.dim_value()) + hint);
    }
  }
}

TensorShape shape_of_type(const onnx::TypeProto &t) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return {};
  TensorShape s;
  for (const auto &d : t.tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return {};
    s.push_back(d.dim_value());
  }
  return s;
}

OnnxAttribute attribute_of(const onnx::AttributeProto &a) {
  OnnxAttribute out;
  out.i = a.i();
  out.f = a.f();
  out.s = a.s();
  out.ints.assign(a.ints().begin(), a.ints().end());
  return out;
}

}  // namespace

int64_t OnnxNode::int_attr(const std::string &key, int64_t fallback) const {
  const auto it = attributes.find(key);
  return it == attributes.end() ? fallback : it->second.i;
}

std::vector<int64_t> OnnxNode::ints_attr(const std::string &key) const {
  const auto it = attributes.find(key);
  return it == attributes.end() ? std::vector<int64_t>{} : it->second.ints;
}

std::string OnnxNode::string_attr(const std::string &key, const std::string &fallback) const {
  const auto it = attributes.find(key);
  return it == attributes.end() ? fallback : it->second.s;
}

const TensorShape *OnnxGraph::shape_of(const std::string &tensor) const {
  const auto it = shapes.find(tensor);
  return it == shapes.end() ? nullptr : &it->second;
}

std::vector<size_t> OnnxGraph::consumers(const std::string &tensor) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (std::find(nodes[i].inputs.begin(), nodes[i].inputs.end(), tensor) != nodes[i].inputs.end()) out.push_back(i);
  return out;
}

bool OnnxGraph::is_graph_output(const std::string &tensor) const { return outputs.count(tensor) > 0; }

std::pair<std::string, TensorShape> parse_input_shape(const std::string &text) {
  const size_t eq = text.rfind('=');
  const std::string example = " (e.g. --input data=1x3x224x224)";
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw OnnxImportError("--input '" + text + "' should be NAME=DIMxDIMx..." + example);
  TensorShape shape;
  std::stringstream dims(text.substr(eq + 1));
  for (std::string d; std::getline(dims, d, 'x');) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(d, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (d.empty() || used != d.size() || v <= 0 || v > kMaxDimension)
      throw OnnxImportError("--input '" + text + "': dimension '" + d + "' is not a positive integer" + example);
    shape.push_back(v);
  }
  return {text.substr(0, eq), shape};
}

OnnxGraph read_onnx_graph(const std::string &path, const std::map<std::string, TensorShape> &input_shapes) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, "cannot be read (does it exist?)");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&f) || !model.has_graph())
    fail(path, "is not an ONNX model, or is truncated (it does not parse as an ONNX ModelProto)");
  if (model.ir_version() > onnx::Version::IR_VERSION)
    fail(path, "IR version " + std::to_string(model.ir_version()) + " is newer than this ONNX library reads (up to " +
                   std::to_string(int(onnx::Version::IR_VERSION)) + "): export the model with an older IR version (e.g. "
                   "torch.onnx.export with opset 17 or older, or onnx.helper's ir_version)");
  const int64_t opset = default_opset(model);
  const auto &range = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  const int64_t newest = range.count("") ? range.at("").second : 0;
  if (opset > newest)
    fail(path, "opset " + std::to_string(opset) + " is newer than this ONNX library knows (up to " +
                   std::to_string(newest) + "): export the model with opset " + std::to_string(newest) + " or older");
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    fail(path, "the ONNX checker refuses the model: " + first_line(e.what()));
  }
  set_input_shapes(path, model, input_shapes);
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(/*check_type=*/false, /*error_mode=*/1,
                                                                   /*data_propagation=*/true));
  } catch (const std::exception &e) {
    fail(path, "ONNX shape inference failed: " + first_line(e.what()));
  }

  OnnxGraph g;
  g.path = path;
  g.name = model.graph().name();
  g.opset = opset;
  const auto &graph = model.graph();
  for (const auto &t : graph.initializer()) {
    g.constants.insert(t.name());
    g.shapes[t.name()] = TensorShape(t.dims().begin(), t.dims().end());
  }
  for (const auto &v : graph.input()) {
    if (!g.constants.count(v.name())) g.inputs.push_back(v.name());
    if (TensorShape s = shape_of_type(v.type()); !s.empty() || !g.shapes.count(v.name())) g.shapes[v.name()] = s;
  }
  for (const auto &v : graph.value_info()) g.shapes[v.name()] = shape_of_type(v.type());
  for (const auto &v : graph.output()) {
    g.outputs.insert(v.name());
    g.shapes[v.name()] = shape_of_type(v.type());
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto &n = graph.node(i);
    OnnxNode node;
    node.name = n.name().empty() ? n.op_type() + "#" + std::to_string(i) : n.name();
    node.op_type = (n.domain().empty() || n.domain() == "ai.onnx") ? n.op_type() : n.domain() + "." + n.op_type();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto &a : n.attribute()) {
      node.attributes[a.name()] = attribute_of(a);
      if (n.op_type() == "Constant" && a.name() == "value" && !n.output().empty()) {
        g.constants.insert(n.output(0));
        g.shapes[n.output(0)] = TensorShape(a.t().dims().begin(), a.t().dims().end());
      }
    }
    if (node.op_type == "ConstantOfShape" && !node.outputs.empty()) g.constants.insert(node.outputs[0]);
    g.nodes.push_back(std::move(node));
  }
  // A shape with an unknown dimension reads as unknown.
  for (auto it = g.shapes.begin(); it != g.shapes.end();)
    it = it->second.empty() && !g.constants.count(it->first) ? g.shapes.erase(it) : std::next(it);
  return g;
}

}  // namespace tlp
