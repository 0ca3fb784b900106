// The operator library's interface. An operator turns its parameters into:
//   - a Halide algorithm (fresh Funcs on every call: Halide schedules cannot be
//     reset, so every candidate builds its own),
//   - the shapes of its inputs and output,
//   - its FLOP count,
//   - a reference result computed by plain C++ loops, independent of Halide.
//
// How to add an operator:
//   1. Write codegen/ops/<kind>.cpp with a class deriving from Operator.
//   2. Add its OpInfo (name, parameters, defaults, help) and factory to the table
//      in codegen/op_library.cpp.
//   3. Add it to the reference test in tests/codegen/ops_test.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Halide.h"
#include "codegen/workload.h"
#include "search/compute_dag.h"

namespace tlp {

// Shapes are in Halide's order: dimension 0 is innermost (contiguous).
using Shape = std::vector<int64_t>;

struct HalideAlgorithm {
  std::vector<Halide::ImageParam> inputs;  // DAG stages 0..inputs.size()-1
  struct Stage {
    Halide::Func func;
    // Extent of each pure argument, in Halide argument order. A reduction's RDom
    // must have constant extents; they are read from the RDom itself.
    std::vector<int64_t> extents;
    // DAG indices of the stages this one reads (inputs count from 0, compute
    // stages continue after the inputs, in the order of `stages`).
    std::vector<int> reads;
  };
  std::vector<Stage> stages;  // topological order; the last one is the output
};

class Operator {
 public:
  explicit Operator(Workload w) : workload_(std::move(w)) {}
  virtual ~Operator() = default;

  const Workload &workload() const { return workload_; }

  virtual HalideAlgorithm build() const = 0;
  virtual std::vector<Shape> input_shapes() const = 0;
  virtual Shape output_shape() const = 0;
  virtual double flops() const = 0;
  // Plain loops over `inputs` (dense, Halide order) into `out` (dense, Halide order).
  // Accumulates in double where the operator reduces.
  virtual void reference(const std::vector<const float *> &inputs, float *out) const = 0;

 private:
  Workload workload_;
};

struct OpParamInfo {
  std::string name;
  std::string default_value;
  std::string help;
  std::vector<std::string> choices;  // empty: a positive integer
  int64_t min_value = 1;             // for integers
};

struct OpInfo {
  std::string kind;
  std::string help;
  std::vector<OpParamInfo> params;
  std::function<std::unique_ptr<Operator>(const Workload &)> make;
};

// The library, in listing order. Immutable.
const std::vector<OpInfo> &op_library();
const OpInfo &find_op(const std::string &kind);  // throws WorkloadError listing the known kinds

// Parses and builds in one go; throws WorkloadError. Rejects shapes whose tensors
// would not fit in memory (any tensor over 2^31 elements or 4 GiB in all).
std::unique_ptr<Operator> make_operator(const Workload &w);
std::unique_ptr<Operator> make_operator(const std::string &spec);

// The search's description of the operator, derived from its Halide algorithm.
ComputeDag make_compute_dag(const Operator &op);

}  // namespace tlp
