// An ONNX model as tlptune needs it: its nodes in order, the shape of every
// tensor (from ONNX's own shape inference), and which tensors are constants
// (weights). Reading, checking and inferring use ONNX's C++ library; nothing
// else in tlptune sees a protobuf.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tlp {

// A model that cannot be imported; the message names the file, the node or
// input, and what to do.
class OnnxImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One attribute, as far as the operator mapping reads them.
struct OnnxAttribute {
  int64_t i = 0;
  float f = 0;
  std::string s;
  std::vector<int64_t> ints;
};

struct OnnxNode {
  std::string name;     // the node's name, or "<op_type>#<index>" when it has none
  std::string op_type;  // "Conv", "MatMul", ... (default domain only)
  std::vector<std::string> inputs, outputs;  // "" for an optional input left out
  std::map<std::string, OnnxAttribute> attributes;

  int64_t int_attr(const std::string &key, int64_t fallback) const;
  std::vector<int64_t> ints_attr(const std::string &key) const;  // empty when absent
  std::string string_attr(const std::string &key, const std::string &fallback) const;
};

using TensorShape = std::vector<int64_t>;

struct OnnxGraph {
  std::string path;
  std::string name;
  int64_t opset = 0;
  std::vector<OnnxNode> nodes;                  // in topological order (as ONNX requires)
  std::map<std::string, TensorShape> shapes;    // every tensor whose shape is known
  std::set<std::string> constants;              // initializers and Constant outputs
  std::vector<std::string> inputs;              // graph inputs that are not initializers

  const TensorShape *shape_of(const std::string &tensor) const;  // null when unknown
  // The nodes that read `tensor`, as indices into `nodes`.
  std::vector<size_t> consumers(const std::string &tensor) const;
  bool is_graph_output(const std::string &tensor) const;
  std::set<std::string> outputs;                // graph outputs
};

// "data=1x3x224x224": the shape to give a graph input whose dimensions are
// symbolic (a dynamic batch) or missing. Throws OnnxImportError on a bad form.
std::pair<std::string, TensorShape> parse_input_shape(const std::string &text);

// Reads `path`, runs ONNX's checker, sets the given input shapes, infers every
// shape. Throws OnnxImportError for a file that is not ONNX, a graph the
// checker refuses, an opset newer than this ONNX library, an input with a
// symbolic, zero, negative or huge dimension and no --input for it, or a
// cycle.
OnnxGraph read_onnx_graph(const std::string &path, const std::map<std::string, TensorShape> &input_shapes = {});

}  // namespace tlp
