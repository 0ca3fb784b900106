// Builds small ONNX models with ONNX's own C++ API, for the importer's tests.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace tlp::testing {

class OnnxGraphBuilder {
 public:
  explicit OnnxGraphBuilder(int opset = 13) {
    model_.set_ir_version(8);
    auto *o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("test-graph");
  }

  // A float input; a dimension given as -1 is symbolic ("batch").
  void input(const std::string &name, const std::vector<int64_t> &dims) {
    auto *v = model_.mutable_graph()->add_input();
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
    for (int64_t d : dims) {
      auto *dim = t->mutable_shape()->add_dim();
      if (d == -1) dim->set_dim_param("batch");
      else dim->set_dim_value(d);
    }
  }

  // A float output of `rank` dimensions left for shape inference.
  void output(const std::string &name, int rank = 4) {
    auto *v = model_.mutable_graph()->add_output();
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
    for (int i = 0; i < rank; ++i) t->mutable_shape()->add_dim();
  }

  // A float initializer of zeros (only its shape matters to the importer).
  void weight(const std::string &name, const std::vector<int64_t> &dims) {
    auto *t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(ONNX_NAMESPACE::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= d;
    }
    t->set_raw_data(std::string(size_t(n) * sizeof(float), '\0'));
  }

  ONNX_NAMESPACE::NodeProto &node(const std::string &op, const std::vector<std::string> &inputs,
                                  const std::vector<std::string> &outputs, const std::string &name) {
    auto *n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto &i : inputs) n->add_input(i);
    for (const auto &o : outputs) n->add_output(o);
    return *n;
  }

  static void ints(ONNX_NAMESPACE::NodeProto &n, const std::string &key, const std::vector<int64_t> &v) {
    auto *a = n.add_attribute();
    a->set_name(key);
    a->set_type(ONNX_NAMESPACE::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }

  static void integer(ONNX_NAMESPACE::NodeProto &n, const std::string &key, int64_t v) {
    auto *a = n.add_attribute();
    a->set_name(key);
    a->set_type(ONNX_NAMESPACE::AttributeProto::INT);
    a->set_i(v);
  }

  // Conv (weights K x C/group x R x S, named after the node) then
  // BatchNormalization (and Relu) when asked; returns the last output.
  std::string conv(const std::string &name, const std::string &x, int64_t c, int64_t k, int64_t r, int64_t stride,
                   int64_t pad, bool bn, bool relu, int64_t group = 1) {
    weight(name + ".w", {k, c / group, r, r});
    auto &n = node("Conv", {x, name + ".w"}, {name + ".y"}, name);
    ints(n, "kernel_shape", {r, r});
    ints(n, "strides", {stride, stride});
    ints(n, "pads", {pad, pad, pad, pad});
    if (group != 1) integer(n, "group", group);
    std::string out = name + ".y";
    if (bn) {
      for (const char *p : {".scale", ".bias", ".mean", ".var"}) weight(name + p, {k});
      node("BatchNormalization", {out, name + ".scale", name + ".bias", name + ".mean", name + ".var"},
           {name + ".bn"}, name + "_bn");
      out = name + ".bn";
    }
    if (relu) {
      node("Relu", {out}, {name + ".relu"}, name + "_relu");
      out = name + ".relu";
    }
    return out;
  }

  ONNX_NAMESPACE::ModelProto &model() { return model_; }

  std::string save(const std::string &path) const {
    std::ofstream f(path, std::ios::binary);
    model_.SerializeToOstream(&f);
    return path;
  }

 private:
  ONNX_NAMESPACE::ModelProto model_;
};

}  // namespace tlp::testing
