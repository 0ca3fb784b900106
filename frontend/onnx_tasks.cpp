#include "frontend/onnx_tasks.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

namespace tlp {

namespace {

int64_t product(const TensorShape &s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < s.size(); ++i) p *= s[i];
  return p;
}

std::string param(const char *name, int64_t v) { return std::string(name) + "=" + std::to_string(v); }

// A node mapped to an operator, with the nodes fused into it.
struct Mapping {
  std::string op;
  std::vector<size_t> nodes;
  double flops = 0;
};

// Why a node was not mapped; empty when it was.
struct Attempt {
  std::optional<Mapping> mapping;
  std::string reason;
};

Attempt refused(const std::string &why) { return {std::nullopt, why}; }

class Mapper {
 public:
  explicit Mapper(const OnnxGraph &g) : g_(g) {}

  // `served`: nodes already fused into an earlier task, which no later one may take.
  Attempt map(size_t i, const std::vector<bool> &served) const {
    const OnnxNode &n = g_.nodes[i];
    if (n.op_type == "Conv") return conv(i, served);
    if (n.op_type == "MatMul") return matmul(i);
    if (n.op_type == "Gemm") return gemm(i);
    if (n.op_type == "Softmax") return softmax(i);
    if (n.op_type == "LayerNormalization") return layernorm(i);
    if (n.op_type == "MaxPool") return max_pool(i);
    if (n.op_type == "GlobalAveragePool") return global_avg_pool(i);
    if (n.op_type == "AveragePool") return avg_pool(i);
    return refused("no tlptune operator for " + n.op_type);
  }

  // Rough FLOPs of a node, for the share of the model a mapping covers.
  double flops(size_t i) const {
    const OnnxNode &n = g_.nodes[i];
    const TensorShape *out = n.outputs.empty() ? nullptr : g_.shape_of(n.outputs[0]);
    const double numel = out ? double(product(*out, 0, out->size())) : 0;
    static const char *kFree[] = {"Reshape", "Flatten", "Transpose", "Concat", "Identity", "Shape", "Gather",
                                  "Unsqueeze", "Squeeze", "Constant", "ConstantOfShape", "Slice", "Cast", "Split"};
    for (const char *f : kFree)
      if (n.op_type == f) return 0;
    if (n.op_type == "Conv") {
      const TensorShape *w = shape(n, 1);
      return w && w->size() == 4 ? 2.0 * numel * double((*w)[1] * (*w)[2] * (*w)[3]) : numel;
    }
    if (n.op_type == "MatMul" || n.op_type == "Gemm") {
      const TensorShape *a = shape(n, 0);
      if (!a || a->empty()) return numel;
      const int64_t k = n.op_type == "Gemm" && n.int_attr("transA", 0) ? (*a)[0] : a->back();
      return 2.0 * numel * double(k);
    }
    if (n.op_type == "MaxPool" || n.op_type == "AveragePool") {
      const auto k = n.ints_attr("kernel_shape");
      return numel * double(std::accumulate(k.begin(), k.end(), int64_t(1), std::multiplies<int64_t>()));
    }
    if (n.op_type == "GlobalAveragePool") {
      const TensorShape *in = shape(n, 0);
      return in ? double(product(*in, 0, in->size())) : numel;
    }
    if (n.op_type == "Softmax") return 3 * numel;
    if (n.op_type == "LayerNormalization") return 5 * numel;
    return numel;  // elementwise
  }

 private:
  const TensorShape *shape(const OnnxNode &n, size_t input) const {
    return input < n.inputs.size() && !n.inputs[input].empty() ? g_.shape_of(n.inputs[input]) : nullptr;
  }

  // The single consumer of `node`'s first output when it is of `op_type` and the
  // output goes nowhere else; else none.
  std::optional<size_t> sole_consumer(size_t node, const char *op_type) const {
    const OnnxNode &n = g_.nodes[node];
    if (n.outputs.empty() || g_.is_graph_output(n.outputs[0])) return std::nullopt;
    const std::vector<size_t> c = g_.consumers(n.outputs[0]);
    if (c.size() != 1 || g_.nodes[c[0]].op_type != op_type) return std::nullopt;
    return c[0];
  }

  // Equal values in a 2-D attribute (strides, dilations), or none.
  static std::optional<int64_t> square(const std::vector<int64_t> &v, int64_t fallback) {
    if (v.empty()) return fallback;
    if (v.size() != 2 || v[0] != v[1]) return std::nullopt;
    return v[0];
  }

  static std::optional<int64_t> symmetric_pad(const OnnxNode &n) {
    const std::string auto_pad = n.string_attr("auto_pad", "NOTSET");
    if (auto_pad == "VALID") return 0;
    if (auto_pad != "NOTSET") return std::nullopt;
    const auto p = n.ints_attr("pads");
    if (p.empty()) return 0;
    if (p.size() != 4 || std::adjacent_find(p.begin(), p.end(), std::not_equal_to<>()) != p.end()) return std::nullopt;
    return p[0];
  }

  // The residual Add (or two-input Sum) that `node`'s output flows into, when the
  // other addend is a computed tensor of the same shape (a skip connection, not a bias).
  std::optional<size_t> residual_add(size_t node, const std::vector<bool> &served) const {
    std::optional<size_t> add = sole_consumer(node, "Add");
    if (!add) add = sole_consumer(node, "Sum");
    if (!add || served[*add]) return std::nullopt;
    const OnnxNode &a = g_.nodes[*add];
    if (a.inputs.size() != 2) return std::nullopt;
    const std::string &mine = g_.nodes[node].outputs[0];
    const std::string &other = a.inputs[0] == mine ? a.inputs[1] : a.inputs[0];
    const TensorShape *o = g_.shape_of(other), *out = g_.shape_of(mine);
    if (g_.constants.count(other) || !o || !out || *o != *out) return std::nullopt;
    return add;
  }

  Attempt conv(size_t i, const std::vector<bool> &served) const {
    const OnnxNode &n = g_.nodes[i];
    const TensorShape *x = shape(n, 0), *w = shape(n, 1);
    if (!x || !w || x->size() != 4 || w->size() != 4) return refused("Conv that is not 2-D (or of unknown shape)");
    const auto stride = square(n.ints_attr("strides"), 1), dilation = square(n.ints_attr("dilations"), 1);
    const auto pad = symmetric_pad(n);
    if (!stride || !dilation) return refused("Conv with different strides or dilations along H and W");
    if (!pad) return refused("Conv with asymmetric padding (or auto_pad SAME)");
    const auto &k = n.ints_attr("kernel_shape");
    if (!k.empty() && (k.size() != 2 || k[0] != (*w)[2] || k[1] != (*w)[3]))
      return refused("Conv whose kernel_shape disagrees with its weights");
    const int64_t group = n.int_attr("group", 1), C = (*x)[1], K = (*w)[0];
    Mapping m{"", {i}, flops(i)};
    // BatchNormalization folds into the weights and bias; a Relu after it fuses.
    size_t last = i;
    if (auto bn = sole_consumer(last, "BatchNormalization")) {
      m.nodes.push_back(*bn);
      m.flops += flops(*bn);
      last = *bn;
    }
    const std::string spatial = param("N", (*x)[0]) + "," + param("C", C) + "," + param("H", (*x)[2]) + "," +
                                param("W", (*x)[3]);
    const std::string window = param("R", (*w)[2]) + "," + param("S", (*w)[3]) + "," + param("stride", *stride) + "," +
                               param("pad", *pad);
    if (group == C && K == C && (*w)[1] == 1) {
      if (*dilation != 1) return refused("depthwise Conv with dilation (not built)");
      m.op = "depthwise_conv2d:" + spatial + "," + window;
      return {m, ""};
    }
    if (group != 1) {
      if (*dilation != 1) return refused("grouped Conv with dilation (not built)");
      if (C % group != 0 || K % group != 0) return refused("grouped Conv whose groups do not divide its channels");
      m.op = "group_conv2d:" + spatial + "," + param("K", K) + "," + window + "," + param("groups", group);
      return {m, ""};
    }
    const std::string conv_params = spatial + "," + param("K", K) + "," + window +
                                    (*dilation != 1 ? "," + param("dilation", *dilation) : "");
    if (auto add = residual_add(last, served)) {
      m.nodes.push_back(*add);
      m.flops += flops(*add);
      const auto relu = sole_consumer(*add, "Relu");
      if (relu) {
        m.nodes.push_back(*relu);
        m.flops += flops(*relu);
      }
      m.op = "conv2d_residual:" + conv_params + "," + param("relu", relu ? 1 : 0);
      return {m, ""};
    }
    bool relu = false;
    if (auto r = sole_consumer(last, "Relu")) {
      m.nodes.push_back(*r);
      m.flops += flops(*r);
      relu = true;
    }
    m.op = std::string(relu ? "conv2d_bias_relu:" : "conv2d:") + conv_params;
    return {m, ""};
  }

  // A MatMul or Gemm of M x K by K x N, then Add of a bias and Relu: dense_bias_relu.
  Attempt dense(size_t i, int64_t M, int64_t N, int64_t K, bool has_bias) const {
    Mapping m{"", {i}, flops(i)};
    size_t last = i;
    if (!has_bias) {
      const auto add = sole_consumer(i, "Add");
      if (add && sole_consumer(*add, "Relu")) {
        const OnnxNode &a = g_.nodes[*add];
        const std::string &other = a.inputs[0] == g_.nodes[i].outputs[0] ? a.inputs[1] : a.inputs[0];
        const TensorShape *b = g_.shape_of(other);
        if (g_.constants.count(other) && b && product(*b, 0, b->size()) == N) {
          m.nodes.push_back(*add);
          m.flops += flops(*add);
          last = *add;
          has_bias = true;
        }
      }
    }
    const auto relu = has_bias ? sole_consumer(last, "Relu") : std::nullopt;
    if (relu) {
      m.nodes.push_back(*relu);
      m.flops += flops(*relu);
    }
    m.op = std::string(relu ? "dense_bias_relu:" : "matmul:") + param("M", M) + "," + param("N", N) + "," +
           param("K", K);
    return {m, ""};
  }

  Attempt matmul(size_t i) const {
    const OnnxNode &n = g_.nodes[i];
    const TensorShape *a = shape(n, 0), *b = shape(n, 1);
    if (!a || !b || a->size() < 2 || b->size() < 2) return refused("MatMul of a vector or of unknown shape");
    const int64_t K = a->back(), N = b->back();
    if ((*b)[b->size() - 2] != K) return refused("MatMul whose shapes disagree");
    if (b->size() == 2) return dense(i, product(*a, 0, a->size() - 1), N, K, false);  // rows of A batch together
    const TensorShape batch_a(a->begin(), a->end() - 2), batch_b(b->begin(), b->end() - 2);
    if (batch_a != batch_b) return refused("batched MatMul with broadcast batch dimensions (not built)");
    Mapping m{"batch_matmul:" + param("B", product(batch_a, 0, batch_a.size())) + "," +
                  param("M", (*a)[a->size() - 2]) + "," + param("N", N) + "," + param("K", K),
              {i}, flops(i)};
    return {m, ""};
  }

  Attempt gemm(size_t i) const {
    const OnnxNode &n = g_.nodes[i];
    const TensorShape *a = shape(n, 0), *b = shape(n, 1);
    if (!a || !b || a->size() != 2 || b->size() != 2) return refused("Gemm of unknown shape");
    const bool ta = n.int_attr("transA", 0), tb = n.int_attr("transB", 0);
    const int64_t M = ta ? (*a)[1] : (*a)[0], K = ta ? (*a)[0] : (*a)[1], N = tb ? (*b)[0] : (*b)[1];
    const bool bias = n.inputs.size() > 2 && !n.inputs[2].empty();
    return dense(i, M, N, K, bias);
  }

  // Rows and row length of an op over the axis `axis` onwards.
  Attempt rows(size_t i, const char *kind, int64_t axis, bool last_axis_only) const {
    const OnnxNode &n = g_.nodes[i];
    const TensorShape *x = shape(n, 0);
    if (!x || x->empty()) return refused(n.op_type + " of unknown shape");
    const int64_t rank = int64_t(x->size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return refused(n.op_type + " with axis out of range");
    if (last_axis_only && axis != rank - 1) return refused(n.op_type + " over an axis that is not the last (not built)");
    Mapping m{std::string(kind) + ":" + param("M", product(*x, 0, size_t(axis))) + "," +
                  param("N", product(*x, size_t(axis), x->size())),
              {i}, flops(i)};
    return {m, ""};
  }

  Attempt softmax(size_t i) const {
    // Before opset 13 Softmax flattens the input at `axis` (default 1); from 13 it
    // normalizes along `axis` (default -1).
    const bool flattening = g_.opset < 13;
    return rows(i, "softmax", g_.nodes[i].int_attr("axis", flattening ? 1 : -1), !flattening);
  }

  Attempt layernorm(size_t i) const {
    const OnnxNode &n = g_.nodes[i];
    const TensorShape *x = shape(n, 0);
    const int64_t axis = n.int_attr("axis", -1);
    if (x && axis != -1 && axis != int64_t(x->size()) - 1)
      return refused("LayerNormalization over several axes (not built)");
    return rows(i, "layernorm", axis, true);
  }

  Attempt max_pool(size_t i) const {
    const OnnxNode &n = g_.nodes[i];
    const TensorShape *x = shape(n, 0);
    const auto k = n.ints_attr("kernel_shape");
    if (!x || x->size() != 4 || k.size() != 2) return refused("MaxPool that is not 2-D");
    const auto stride = square(n.ints_attr("strides"), 1), dilation = square(n.ints_attr("dilations"), 1);
    const auto pad = symmetric_pad(n);
    if (!stride || !pad || dilation != std::optional<int64_t>(1) || n.int_attr("ceil_mode", 0) != 0)
      return refused("MaxPool with uneven strides or padding, dilation or ceil_mode (not built)");
    if (*pad * 2 > std::min(k[0], k[1])) return refused("MaxPool padded by more than half its window");
    Mapping m{"max_pool2d:" + param("N", (*x)[0]) + "," + param("C", (*x)[1]) + "," + param("H", (*x)[2]) + "," +
                  param("W", (*x)[3]) + "," + param("R", k[0]) + "," + param("S", k[1]) + "," +
                  param("stride", *stride) + "," + param("pad", *pad),
              {i}, flops(i)};
    return {m, ""};
  }

  Attempt avg_pool(size_t i) const {
    const OnnxNode &n = g_.nodes[i];
    const TensorShape *x = shape(n, 0);
    const auto k = n.ints_attr("kernel_shape");
    if (!x || x->size() != 4 || k.size() != 2) return refused("AveragePool that is not 2-D");
    const auto stride = square(n.ints_attr("strides"), 1);
    const auto pad = symmetric_pad(n);
    if (!stride || !pad || n.int_attr("ceil_mode", 0) != 0)
      return refused("AveragePool with uneven strides or padding, or ceil_mode (not built)");
    if (*pad * 2 > std::min(k[0], k[1])) return refused("AveragePool padded by more than half its window");
    Mapping m{"avg_pool2d:" + param("N", (*x)[0]) + "," + param("C", (*x)[1]) + "," + param("H", (*x)[2]) + "," +
                  param("W", (*x)[3]) + "," + param("R", k[0]) + "," + param("S", k[1]) + "," +
                  param("stride", *stride) + "," + param("pad", *pad) + "," +
                  param("count_pad", n.int_attr("count_include_pad", 0) ? 1 : 0),
              {i}, flops(i)};
    return {m, ""};
  }

  Attempt global_avg_pool(size_t i) const {
    const TensorShape *x = shape(g_.nodes[i], 0);
    if (!x || x->size() != 4) return refused("GlobalAveragePool that is not 2-D");
    Mapping m{"global_avg_pool2d:" + param("N", (*x)[0]) + "," + param("C", (*x)[1]) + "," + param("H", (*x)[2]) + "," +
                  param("W", (*x)[3]),
              {i}, flops(i)};
    return {m, ""};
  }

  const OnnxGraph &g_;
};

}  // namespace

ExtractedNetwork extract_tasks(const OnnxGraph &graph) {
  ExtractedNetwork out;
  out.source = graph.path;
  out.name = graph.name;
  out.nodes = graph.nodes.size();
  const Mapper mapper(graph);
  std::vector<bool> served(graph.nodes.size(), false);
  std::map<std::string, size_t> task_of;
  std::map<std::string, size_t> unmapped_of;
  for (size_t i = 0; i < graph.nodes.size(); ++i) out.total_flops += mapper.flops(i);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (served[i]) continue;
    const Attempt a = mapper.map(i, served);
    if (!a.mapping) {
      const double f = mapper.flops(i);
      if (f == 0) continue;  // shape plumbing costs nothing
      const std::string &type = graph.nodes[i].op_type;
      auto it = unmapped_of.emplace(type, out.unmapped.size()).first;
      if (it->second == out.unmapped.size()) out.unmapped.push_back({type, 0, 0, a.reason});
      ++out.unmapped[it->second].count;
      out.unmapped[it->second].flops += f;
      continue;
    }
    const Mapping &m = *a.mapping;
    std::vector<std::string> names;
    for (size_t k : m.nodes) {
      served[k] = true;
      names.push_back(graph.nodes[k].name);
    }
    auto it = task_of.emplace(m.op, out.tasks.size()).first;
    if (it->second == out.tasks.size()) out.tasks.push_back({m.op, 0, {}, m.flops});
    ExtractedTask &t = out.tasks[it->second];
    ++t.weight;
    t.nodes.push_back(names);
    out.mapped_flops += m.flops;
  }
  std::stable_sort(out.unmapped.begin(), out.unmapped.end(),
                   [](const UnmappedOp &a, const UnmappedOp &b) { return a.flops > b.flops; });
  return out;
}

nlohmann::json network_file_json(const ExtractedNetwork &n) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const ExtractedTask &t : n.tasks) tasks.push_back({{"op", t.op}, {"weight", t.weight}, {"onnx_nodes", t.nodes}});
  nlohmann::json notes = nlohmann::json::array();
  char share[64];
  snprintf(share, sizeof share, "%.1f%%", n.total_flops > 0 ? 100.0 * n.mapped_flops / n.total_flops : 0.0);
  notes.push_back(std::string("Imported by tlptune from ") + n.source + ": " + std::to_string(n.tasks.size()) +
                  " tasks covering " + share + " of the model's FLOPs.");
  for (const UnmappedOp &u : n.unmapped)
    notes.push_back("Not mapped: " + u.op_type + " x" + std::to_string(u.count) + " (" + u.reason + ")");
  return {{"format", 1},
          {"name", n.name.empty() ? std::string("onnx-model") : n.name},
          {"description", "Tuning tasks of " + n.source + ", imported by tlptune"},
          {"notes", notes},
          {"tasks", tasks}};
}

}  // namespace tlp

namespace tlp {

ExtractedNetwork import_onnx_tasks(const std::string &model, const std::vector<std::string> &input_shapes) {
  std::map<std::string, TensorShape> shapes;
  for (const std::string &text : input_shapes) shapes.insert(parse_input_shape(text));
  ExtractedNetwork n = extract_tasks(read_onnx_graph(model, shapes));
  if (n.tasks.empty())
    throw OnnxImportError(model + ": no node maps to a tlptune operator ('tlptune tasks " + model + "' lists them)");
  return n;
}

void write_network_file(const ExtractedNetwork &network, const std::string &path) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write '" + path + "'");
  f << network_file_json(network).dump(2) << "\n";
}

}  // namespace tlp
