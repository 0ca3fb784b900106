// The GPU schedule space produces schedules Halide accepts for CUDA: for every
// operator (small shapes), 100 sampled GPU schedules are applied to the Halide
// pipeline for a CUDA target (every scheduling call checked by Halide), fewer
// than 1% may fail; the first few are lowered to Halide's module (GPU loops
// checked and offloaded) and the first two compiled to an object with their
// PTX. Halide's CUDA code generator needs no GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>

#include "codegen/kernel_compiler.h"
#include "codegen/lower.h"
#include "codegen/operator.h"
#include "search/gpu_launch_limits.h"
#include "search/loop_state.h"
#include "search/schedule_space.h"

namespace tlp {
namespace {

const char *kOperators[] = {"matmul:M=64,N=64,K=64",
                            "batch_matmul:B=2,M=32,N=32,K=16",
                            "conv2d:N=1,C=8,H=14,W=14,K=16",
                            "conv2d:N=1,C=8,H=14,W=14,K=16,layout=NHWC",
                            "conv2d:N=1,C=8,H=14,W=14,K=16,stride=2",
                            "depthwise_conv2d:N=1,C=8,H=14,W=14",
                            "dense_bias_relu:M=16,N=64,K=64",
                            "conv2d_bias_relu:N=1,C=8,H=14,W=14,K=16",
                            "softmax:M=16,N=100",
                            "layernorm:M=16,N=64",
                            "max_pool2d:N=1,C=8,H=14,W=14"};

Halide::Target cuda_target() { return Halide::Target("x86-64-linux-cuda-cuda_capability_80"); }

class GpuSpaceValidity : public ::testing::TestWithParam<const char *> {};

TEST_P(GpuSpaceValidity, SampledSchedulesLowerAndCompileForCuda) {
  auto op = make_operator(GetParam());
  const ComputeDag dag = make_compute_dag(*op);
  SpaceOptions so;
  so.gpu = GpuLimits{};
  ScheduleSpace space(dag, so);
  std::mt19937_64 rng(11);
  const int samples = 100, to_module = 3, to_object = 1;
  int invalid = 0;
  std::string first_error;
  const std::string object = ::testing::TempDir() + "gpu_space_validity_" + std::to_string(getpid()) + ".o";
  for (int i = 0; i < samples; ++i) {
    const Schedule s = space.sample(rng);
    try {
      const std::string why = gpu_launch_limit_violation(LoopState::replay(dag, s), GpuLimits{});
      if (!why.empty()) throw ScheduleError(why);
      LoweredKernel k = lower_schedule(*op, dag, s, cuda_target());
      Halide::Pipeline p(k.output);
      if (i < to_object) p.compile_to_object(object, k.arguments(), "k", cuda_target());
      else if (i < to_module) p.compile_to_module(k.arguments(), "k", cuda_target());
    } catch (const std::exception &e) {
      if (invalid++ == 0) first_error = s.to_text() + "\n" + e.what();
    }
  }
  std::remove(object.c_str());
  EXPECT_LE(invalid, samples / 100) << invalid << " of " << samples << " invalid; first:\n" << first_error;
}

INSTANTIATE_TEST_SUITE_P(EveryOperator, GpuSpaceValidity, ::testing::ValuesIn(kOperators));

// Softmax's row max and sum stay at root, their updates on the GPU: their
// initial values must be computed there too, not on the host between kernels.
TEST(GpuLowering, RootReductionsInitializeOnTheGpu) {
  auto op = make_operator("softmax:M=16,N=100");
  const ComputeDag dag = make_compute_dag(*op);
  SpaceOptions so;
  so.gpu = GpuLimits{};
  ScheduleSpace space(dag, so);
  std::mt19937_64 rng(3);
  const Schedule s = space.sample(rng);
  const LoopState state = LoopState::replay(dag, s);
  int root_reductions = 0;
  for (int i = 0; i < state.num_stages(); ++i)
    root_reductions += state.stage(i).has_reduction() && state.stage(i).location == ComputeLocation::Root;
  ASSERT_GT(root_reductions, 0) << s.to_text();
  LoweredKernel k = lower_schedule(*op, dag, s, cuda_target());
  size_t tiles = 0;
  for (size_t at = k.schedule_source.find(".gpu_tile("); at != std::string::npos;
       at = k.schedule_source.find(".gpu_tile(", at + 1))
    ++tiles;
  EXPECT_EQ(tiles, size_t(root_reductions)) << k.schedule_source;
  const std::string object = ::testing::TempDir() + "gpu_init_" + std::to_string(getpid()) + ".o";
  const std::string ptx = compile_kernel_object_with_ptx(k, cuda_target(), object, "k");
  std::remove(object.c_str());
  size_t kernels = 0;
  for (size_t at = ptx.find(".entry"); at != std::string::npos; at = ptx.find(".entry", at + 1)) ++kernels;
  // Each root reduction: one kernel for its initial value, one for its update.
  EXPECT_GE(kernels, size_t(2 * root_reductions)) << k.schedule_source;
}

}  // namespace
}  // namespace tlp

namespace tlp {
namespace {

// A matmul whose inputs the space stages in shared memory: the PTX stores each
// chunk into shared memory, synchronizes the block, and the multiply reads it
// from there.
// One GPU sample of `spec` under `so`, lowered and compiled for CUDA.
struct CompiledSample {
  Schedule schedule;
  std::string halide_source;
  std::string ptx;
};

CompiledSample compile_first_sample(const std::string &spec, SpaceOptions so, uint64_t seed) {
  auto op = make_operator(spec);
  const ComputeDag dag = make_compute_dag(*op);
  so.gpu = GpuLimits{};
  ScheduleSpace space(dag, so);
  std::mt19937_64 rng(seed);
  CompiledSample c;
  c.schedule = space.sample(rng);
  LoweredKernel k = lower_schedule(*op, dag, c.schedule, cuda_target());
  c.halide_source = k.schedule_source;
  // One file per process: ctest runs these tests side by side in separate processes.
  const std::string object = ::testing::TempDir() + "gpu_sample_" + std::to_string(getpid()) + ".o";
  c.ptx = compile_kernel_object_with_ptx(k, cuda_target(), object, "k");
  std::remove(object.c_str());
  return c;
}

TEST(GpuLowering, SharedStagingLoadsChunksIntoSharedMemoryBetweenBarriers) {
  SpaceOptions so;
  so.gpu_shared_staging_probability = 1.0;
  const CompiledSample c = compile_first_sample("matmul:M=64,N=64,K=64", so, 5);
  ASSERT_NE(c.schedule.to_text().find("CHR"), std::string::npos) << c.schedule.to_text();
  EXPECT_NE(c.halide_source.find("store_in(MemoryType::GPUShared)"), std::string::npos) << c.halide_source;
  EXPECT_NE(c.ptx.find("st.shared"), std::string::npos) << c.halide_source;
  EXPECT_NE(c.ptx.find("ld.shared"), std::string::npos) << c.halide_source;
  EXPECT_NE(c.ptx.find("bar.sync"), std::string::npos) << c.halide_source;
}

}  // namespace
}  // namespace tlp

namespace tlp {
namespace {

size_t count_of(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Softmax's rows reduced across threads: each block's threads write partials to
// shared memory and one thread adds them up. That loop stays a loop even under
// a large auto-unroll limit: unrolled at block level, Halide would put a
// barrier after every partial.
TEST(GpuLowering, CrossThreadReductionAddsPartialsWithoutABarrierEach) {
  SpaceOptions so;
  so.gpu_cross_thread_probability = 1.0;
  so.auto_unroll_values = {512};
  const CompiledSample c = compile_first_sample("softmax:M=64,N=128", so, 1);
  ASSERT_EQ(count_of(c.schedule.to_text(), "RF("), 2u) << c.schedule.to_text();  // max and sum
  EXPECT_EQ(count_of(c.halide_source, ".rfactor("), 2u) << c.halide_source;
  EXPECT_NE(c.ptx.find("ld.shared"), std::string::npos) << c.halide_source;
  EXPECT_GE(count_of(c.ptx, "bar.sync"), 2u) << c.halide_source;
  EXPECT_LE(count_of(c.ptx, "bar.sync"), 8u) << c.halide_source;
}

}  // namespace
}  // namespace tlp
