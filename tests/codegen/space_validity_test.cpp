// The schedule space produces schedules Halide accepts: for every operator,
// 1,000 sampled schedules are applied to the Halide pipeline (every scheduling
// call checked by Halide), fewer than 1% may fail, and the first 20 also
// compile to Halide's IR module. The full compile of 1,000 per operator takes
// minutes; tools/space_validity_census measures it.
#include <gtest/gtest.h>

#include <random>

#include "codegen/lower.h"
#include "codegen/operator.h"
#include "search/schedule_space.h"

namespace tlp {
namespace {

// Default shapes: the ones users tune, so the tile arithmetic is realistic.
const char *kOperators[] = {"matmul",
                            "batch_matmul",
                            "conv2d",
                            "conv2d:layout=NHWC",
                            "conv2d:C=128,H=28,W=28,K=128,stride=2",
                            "conv2d:layout=NCHW16c",
                            "conv2d_bias_relu:C=128,H=28,W=28,K=128,stride=2,layout=NCHW8c",
                            "depthwise_conv2d",
                            "depthwise_conv2d:C=144,H=56,W=56,stride=2,layout=NCHW16c",
                            "max_pool2d:layout=NCHW32c",
                            "depthwise_conv2d:C=96,H=28,W=28,layout=NHWC",
                            "layout_convert:from=NCHW16c,to=NHWC",
                            "dense_bias_relu",
                            "matmul:M=1024,N=1024,K=1024,layout=NK16n",
                            "dense_bias_relu:layout=NK32n",
                            "conv2d_bias_relu",
                            "softmax",
                            "layernorm",
                            "max_pool2d",
                            "global_avg_pool2d",
                            "avg_pool2d:count_pad=0",
                            "conv2d_residual:C=256,H=14,W=14,K=1024,R=1,S=1,pad=0,relu=1",
                            "conv2d_residual:C=64,K=64,layout=NCHW16c",
                            "conv2d:C=64,H=56,W=56,K=256,R=1,S=1,pad=0,layout=NCHWgemm",
                            "conv2d_bias_relu:C=1024,H=14,W=14,K=256,R=1,S=1,pad=0,layout=NCHWgemm",
                            "conv2d_bias_relu:C=1024,H=14,W=14,K=256,R=1,S=1,pad=0,layout=NCHW8cgemm",
                            "conv2d:C=64,H=56,W=56,K=256,R=1,S=1,pad=0,layout=NCHW16cgemm",
                            "group_conv2d:C=128,H=28,W=28,K=128,groups=32"};

class SpaceValidity : public ::testing::TestWithParam<const char *> {};

TEST_P(SpaceValidity, SampledSchedulesLowerAndCompile) {
  auto op = make_operator(GetParam());
  const ComputeDag dag = make_compute_dag(*op);
  SpaceOptions so;
  so.vector_lanes = 8;
  ScheduleSpace space(dag, so);
  std::mt19937_64 rng(11);
  const int samples = 1000, compiled = 20;
  int invalid = 0;
  std::string first_error;
  for (int i = 0; i < samples; ++i) {
    const Schedule s = space.sample(rng);
    try {
      LoweredKernel k = lower_schedule(*op, dag, s, Halide::get_host_target());
      if (i < compiled) Halide::Pipeline(k.output).compile_to_module(k.arguments(), "k", Halide::get_host_target());
    } catch (const std::exception &e) {
      if (invalid++ == 0) first_error = s.to_text() + "\n" + e.what();
    }
  }
  EXPECT_LT(invalid, samples / 100) << invalid << " of " << samples << " invalid; first:\n" << first_error;
}

INSTANTIATE_TEST_SUITE_P(EveryOperator, SpaceValidity, ::testing::ValuesIn(kOperators));

}  // namespace
}  // namespace tlp
