#include "tests/codegen/codegen_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "codegen/lower.h"
#include "codegen/weight_packing.h"

namespace tlp {

int64_t elements(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::vector<std::vector<float>> random_inputs(const Operator &op, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<std::vector<float>> data;
  for (const Shape &s : user_input_shapes(op)) {
    data.emplace_back(elements(s));
    for (float &v : data.back()) v = dist(rng);
  }
  return data;
}

std::vector<int> int_sizes(const Shape &s) { return std::vector<int>(s.begin(), s.end()); }

std::vector<std::vector<float>> kernel_inputs(const Operator &op, std::vector<std::vector<float>> inputs) {
  const std::vector<PackedInput> packed = op.packed_inputs();
  for (size_t j = 0; j < packed.size(); ++j) {
    LoweredPacking p = lower_packing(op, j);
    std::vector<float> &in = inputs.at(size_t(packed[j].input));
    Halide::Buffer<float> user(int_sizes(packed[j].user_shape));
    std::copy(in.begin(), in.end(), user.data());
    p.user.set(user);
    Halide::Buffer<float> out = p.packed.realize(int_sizes(op.input_shapes()[size_t(packed[j].input)]));
    in.assign(out.data(), out.data() + out.number_of_elements());
  }
  return inputs;
}

// Gives each ImageParam a buffer holding `inputs`, packed where the operator packs
// (the params keep the buffers alive).
void bind_inputs(HalideAlgorithm &alg, const Operator &op, const std::vector<std::vector<float>> &user_inputs) {
  const std::vector<Shape> shapes = op.input_shapes();
  const std::vector<std::vector<float>> inputs = kernel_inputs(op, user_inputs);
  for (size_t i = 0; i < alg.inputs.size(); ++i) {
    Halide::Buffer<float> b(int_sizes(shapes[i]));
    std::copy(inputs[i].begin(), inputs[i].end(), b.data());
    alg.inputs[i].set(b);
  }
}

std::vector<float> realize_output(HalideAlgorithm &alg, const Operator &op) {
  Halide::Buffer<float> out = alg.stages.back().func.realize(int_sizes(op.output_shape()));
  return std::vector<float>(out.data(), out.data() + out.number_of_elements());
}

// Realizes the operator with Halide's JIT: every stage but the output at root.
std::vector<float> run_halide(const Operator &op, const std::vector<std::vector<float>> &inputs) {
  HalideAlgorithm alg = op.build();
  bind_inputs(alg, op, inputs);
  for (size_t s = 0; s + 1 < alg.stages.size(); ++s) alg.stages[s].func.compute_root();
  return realize_output(alg, op);
}

std::vector<float> run_reference(const Operator &op, const std::vector<std::vector<float>> &inputs) {
  std::vector<const float *> ptrs;
  for (const auto &v : inputs) ptrs.push_back(v.data());
  std::vector<float> out(elements(op.output_shape()));
  op.reference(ptrs, out.data());
  return out;
}


void expect_close(const std::vector<float> &got, const std::vector<float> &want) {
  ASSERT_EQ(got.size(), want.size());
  double scale = 0;
  for (float v : want) scale = std::max(scale, double(std::fabs(v)));
  ASSERT_GT(scale, 0.0) << "reference is all zeros: the check would prove nothing";
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= kRelTol * scale) && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": halide " << got[i] << " vs reference " << want[i];
  EXPECT_EQ(bad, 0u) << "of " << got.size() << " elements";
}

std::vector<float> run_scheduled(const Operator &op, const Schedule &schedule,
                                 const std::vector<std::vector<float>> &user_inputs) {
  const ComputeDag dag = make_compute_dag(op);
  LoweredKernel k = lower_schedule(op, dag, schedule, Halide::get_host_target());
  const auto shapes = op.input_shapes();
  const std::vector<std::vector<float>> inputs = kernel_inputs(op, user_inputs);
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    Halide::Buffer<float> b(int_sizes(shapes[i]));
    std::copy(inputs[i].begin(), inputs[i].end(), b.data());
    k.inputs[i].set(b);
  }
  Halide::Buffer<float> out = k.output.realize(int_sizes(op.output_shape()));
  return std::vector<float>(out.data(), out.data() + out.number_of_elements());
}

}  // namespace tlp
