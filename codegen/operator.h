// The operator library's interface. An operator turns its parameters into:
//   - a Halide algorithm (fresh Funcs on every call: Halide schedules cannot be
//     reset, so every candidate builds its own),
//   - the shapes of its inputs and output,
//   - its FLOP count,
//   - a reference result computed by plain C++ loops, independent of Halide,
//   - optionally, inputs it reads packed (weights, constant at inference): the user
//     holds them in a plain order and a separate packing pipeline reorders them once,
//     at load time, into the order the kernel's tiles read. Packing is never part of
//     the kernel, so it is never timed.
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

// A kernel input the user holds in another (plain) order; see Operator::build_packing.
struct PackedInput {
  int input = 0;                 // the kernel input (index into input_shapes()) it fills
  Shape user_shape;              // the plain tensor's shape, Halide order
  std::string user_layout;       // for people, outermost first: "KCRS"
  std::string packed_layout;     // likewise: "OIhw16i16o"
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
  // A packed input comes in its user form (PackedInput::user_shape), as users hold it.
  // Accumulates in double where the operator reduces.
  virtual void reference(const std::vector<const float *> &inputs, float *out) const = 0;

  // The inputs the kernel reads packed; empty for most operators.
  virtual std::vector<PackedInput> packed_inputs() const { return {}; }
  // The packing of packed_inputs()[j]: a fresh Func over `user` (an ImageParam of the
  // user shape) whose values are the kernel's input, in its shape. Pure reordering.
  virtual Halide::Func build_packing(size_t j, const Halide::ImageParam &user) const;

 private:
  Workload workload_;
};

struct OpParamInfo {
  std::string name;
  std::string default_value;
  std::string help;
  std::vector<std::string> choices;  // empty: a positive integer
  int64_t min_value = 1;             // for integers
  bool in_key_at_default = true;     // false: Workload::key() leaves it out while it has its default
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

// The shapes the user holds: input_shapes(), with each packed input in its user form.
// These are the shapes reference() reads and task data stores.
std::vector<Shape> user_input_shapes(const Operator &op);

// The search's description of the operator, derived from its Halide algorithm.
ComputeDag make_compute_dag(const Operator &op);

}  // namespace tlp
