// Helpers shared by the codegen suites: random inputs, the plain-loop reference,
// Halide JIT runs (with the default or a tlptune schedule) and a tolerance check.
#pragma once

#include <string>
#include <vector>

#include "codegen/operator.h"
#include "search/schedule.h"

namespace tlp {

int64_t elements(const Shape &s);
// Inputs as users hold them (packed inputs plain), as reference() reads them.
std::vector<std::vector<float>> random_inputs(const Operator &op, unsigned seed = 42);
// The same, with each packed input run through the operator's packing pipeline (JIT).
std::vector<std::vector<float>> kernel_inputs(const Operator &op, std::vector<std::vector<float>> inputs);
std::vector<int> int_sizes(const Shape &s);
void bind_inputs(HalideAlgorithm &alg, const Operator &op, const std::vector<std::vector<float>> &inputs);
std::vector<float> realize_output(HalideAlgorithm &alg, const Operator &op);
// Every stage but the output at root.
std::vector<float> run_halide(const Operator &op, const std::vector<std::vector<float>> &inputs);
// The operator lowered with `schedule` for the host, run with Halide's JIT.
std::vector<float> run_scheduled(const Operator &op, const Schedule &schedule, const std::vector<std::vector<float>> &inputs);
std::vector<float> run_reference(const Operator &op, const std::vector<std::vector<float>> &inputs);

constexpr double kRelTol = 1e-4;  // of the largest |reference| value
void expect_close(const std::vector<float> &got, const std::vector<float> &want);

}  // namespace tlp
