// The tuning tasks of an ONNX graph: each node (or chain of nodes fused into
// one operator: Conv + BatchNormalization + Relu, Conv + BatchNormalization +
// the residual Add of a skip connection + Relu, MatMul + Add + Relu) mapped to
// one of tlptune's operators, identical ones merged into one task whose weight
// is how often it occurs, and an account of what was not mapped. A residual Add
// joins the first of its two producers (in graph order) that is a Conv.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "frontend/onnx_graph.h"

namespace tlp {

struct ExtractedTask {
  std::string op;  // "conv2d_bias_relu:N=1,C=64,...", as network files write it
  int weight = 0;  // occurrences
  std::vector<std::vector<std::string>> nodes;  // per occurrence, the ONNX nodes it serves, in order
  double flops = 0;                             // of one occurrence
};

struct UnmappedOp {
  std::string op_type;
  int count = 0;
  double flops = 0;    // all occurrences together
  std::string reason;  // the first occurrence's
};

struct ExtractedNetwork {
  std::string name;
  std::string source;  // the ONNX file
  std::vector<ExtractedTask> tasks;     // in order of first occurrence
  std::vector<UnmappedOp> unmapped;     // by FLOPs, largest first
  double total_flops = 0, mapped_flops = 0;
  size_t nodes = 0;
};

ExtractedNetwork extract_tasks(const OnnxGraph &graph);

// The network file (search/network_spec.h, format 1) that `tune --network`
// reads; each task also lists its ONNX nodes ("onnx_nodes").
nlohmann::json network_file_json(const ExtractedNetwork &network);

// read_onnx_graph then extract_tasks, with input shapes as the command line
// gives them ("data=1x3x224x224"). Throws OnnxImportError, also when no node maps.
ExtractedNetwork import_onnx_tasks(const std::string &model, const std::vector<std::string> &input_shapes);

// Writes network_file_json(network) to `path`; throws std::runtime_error if it cannot.
void write_network_file(const ExtractedNetwork &network, const std::string &path);

}  // namespace tlp
