// The operator library: every operator's Halide algorithm computes what its plain-loop
// reference computes, the algorithms follow the rules the searcher relies on, and
// workload specs parse, canonicalize and fail with messages that name the culprit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "codegen/operator.h"
#include "tests/codegen/codegen_test_util.h"

namespace tlp {
namespace {

void expect_matches_reference(const std::string &spec) {
  SCOPED_TRACE(spec);
  auto op = make_operator(spec);
  const auto inputs = random_inputs(*op);
  expect_close(run_halide(*op, inputs), run_reference(*op, inputs));
}

TEST(Ops, MatmulMatchesReference) { expect_matches_reference("matmul:M=37,N=29,K=53"); }
TEST(Ops, BatchMatmulMatchesReference) { expect_matches_reference("batch_matmul:B=3,M=17,N=23,K=19"); }
TEST(Ops, Conv2dMatchesReference) {
  expect_matches_reference("conv2d:N=2,C=5,H=11,W=9,K=7,R=3,S=3,stride=1,pad=1");
}
TEST(Ops, Conv2dWithStrideDilationAndNoPaddingMatchesReference) {
  expect_matches_reference("conv2d:N=1,C=4,H=13,W=12,K=3,R=3,S=2,stride=2,pad=0,dilation=2");
  expect_matches_reference("conv2d:N=1,C=3,H=10,W=10,K=2,R=5,S=5,stride=3,pad=2,dilation=1");
}
TEST(Ops, Conv2dNhwcMatchesReference) {
  expect_matches_reference("conv2d:N=2,C=5,H=9,W=8,K=6,R=3,S=3,stride=2,pad=1,layout=NHWC");
}
TEST(Ops, DepthwiseConv2dMatchesReference) {
  expect_matches_reference("depthwise_conv2d:N=2,C=5,H=12,W=11,R=3,S=3,stride=1,pad=1");
  expect_matches_reference("depthwise_conv2d:N=1,C=3,H=12,W=11,R=5,S=3,stride=2,pad=0");
}
TEST(Ops, DenseBiasReluMatchesReference) { expect_matches_reference("dense_bias_relu:M=19,N=33,K=41"); }
TEST(Ops, Conv2dBiasReluMatchesReference) {
  expect_matches_reference("conv2d_bias_relu:N=1,C=6,H=10,W=10,K=5,R=3,S=3,stride=1,pad=1");
  expect_matches_reference("conv2d_bias_relu:N=1,C=6,H=10,W=10,K=5,R=3,S=3,stride=1,pad=0,layout=NHWC");
}
TEST(Ops, Conv2dResidualMatchesReferenceWithAndWithoutRelu) {
  expect_matches_reference("conv2d_residual:N=1,C=6,H=10,W=10,K=5,R=3,S=3,stride=1,pad=1,relu=1");
  expect_matches_reference("conv2d_residual:N=1,C=6,H=9,W=10,K=4,R=1,S=1,stride=2,pad=0,relu=0");
  expect_matches_reference("conv2d_residual:N=1,C=6,H=10,W=10,K=5,R=3,S=3,stride=1,pad=1,layout=NHWC");
}
TEST(Ops, GroupConv2dMatchesReference) {
  expect_matches_reference("group_conv2d:N=1,C=8,H=9,W=10,K=12,R=3,S=3,stride=1,pad=1,groups=4");
  expect_matches_reference("group_conv2d:N=2,C=6,H=11,W=9,K=6,R=3,S=3,stride=2,pad=0,groups=3");
}
TEST(Ops, SoftmaxMatchesReference) { expect_matches_reference("softmax:M=13,N=100"); }
TEST(Ops, LayernormMatchesReference) { expect_matches_reference("layernorm:M=11,N=96"); }
TEST(Ops, MaxPool2dMatchesReference) {
  expect_matches_reference("max_pool2d:N=2,C=3,H=15,W=14,R=3,S=3,stride=2,pad=1");
  expect_matches_reference("max_pool2d:N=1,C=2,H=9,W=9,R=2,S=3,stride=1,pad=0");
}

// Every channel-blocked layout, for every operator that has one, with and without
// padding, strides and dilation: the kernel (weights packed by the operator's own
// packing pipeline) matches the plain reference (converting layouts in the check).
TEST(Ops, AvgPool2dMatchesReferenceCountingPaddingOrNot) {
  expect_matches_reference("avg_pool2d:N=2,C=3,H=15,W=14,R=3,S=3,stride=2,pad=1,count_pad=1");
  expect_matches_reference("avg_pool2d:N=1,C=4,H=9,W=9,R=3,S=3,stride=1,pad=1,count_pad=0");
  expect_matches_reference("avg_pool2d:N=1,C=2,H=8,W=8,R=2,S=2,stride=2,pad=0");
}

TEST(Ops, GlobalAvgPool2dMatchesReference) {
  expect_matches_reference("global_avg_pool2d:N=2,C=5,H=7,W=6");
  expect_matches_reference("global_avg_pool2d:N=1,C=64,H=3,W=3");
}

TEST(Ops, EveryBlockedLayoutMatchesTheReference) {
  for (const char *layout : {"NCHW8c", "NCHW16c", "NCHW32c"}) {
    const std::string l = std::string(",layout=") + layout;
    expect_matches_reference("conv2d:N=2,C=32,H=7,W=6,K=64,R=3,S=3,stride=1,pad=1" + l);
    expect_matches_reference("conv2d:N=1,C=32,H=9,W=9,K=32,R=3,S=2,stride=2,pad=0,dilation=2" + l);
    expect_matches_reference("conv2d_bias_relu:N=1,C=64,H=6,W=5,K=32,R=1,S=1,stride=1,pad=0" + l);
    expect_matches_reference("conv2d_bias_relu:N=1,C=32,H=8,W=8,K=32,R=3,S=3,stride=2,pad=1" + l);
    expect_matches_reference("conv2d_residual:N=1,C=32,H=7,W=7,K=64,R=1,S=1,stride=1,pad=0,relu=1" + l);
    expect_matches_reference("depthwise_conv2d:N=2,C=32,H=9,W=7,R=3,S=3,stride=1,pad=1" + l);
    expect_matches_reference("depthwise_conv2d:N=1,C=64,H=10,W=10,R=5,S=3,stride=2,pad=0" + l);
    expect_matches_reference("max_pool2d:N=2,C=32,H=11,W=10,R=3,S=3,stride=2,pad=1" + l);
    expect_matches_reference("max_pool2d:N=1,C=32,H=8,W=8,R=2,S=2,stride=2,pad=0" + l);
  }
}

// NCHWgemm: the same NCHW memory, the convolution written as a matrix product.
TEST(Ops, TheMatrixProductFormOfAOneByOneConvolutionMatchesTheReference) {
  expect_matches_reference("conv2d:N=2,C=24,H=7,W=5,K=40,R=1,S=1,stride=1,pad=0,layout=NCHWgemm");
  expect_matches_reference("conv2d_bias_relu:N=1,C=64,H=6,W=5,K=32,R=1,S=1,stride=1,pad=0,layout=NCHWgemm");
  expect_matches_reference("conv2d_residual:N=2,C=32,H=7,W=7,K=64,R=1,S=1,stride=1,pad=0,relu=1,layout=NCHWgemm");
  expect_matches_reference("conv2d_residual:N=1,C=16,H=4,W=9,K=8,R=1,S=1,stride=1,pad=0,relu=0,layout=NCHWgemm");
}

TEST(Ops, TheMatrixProductFormComputesWhatNchwComputesOnTheSameMemory) {
  const std::string base = "conv2d_bias_relu:N=2,C=16,H=5,W=6,K=24,R=1,S=1,stride=1,pad=0";
  auto plain = make_operator(base), gemm = make_operator(base + ",layout=NCHWgemm");
  EXPECT_EQ(gemm->input_shapes()[0], (Shape{30, 16, 2}));
  EXPECT_EQ(gemm->input_shapes()[1], (Shape{16, 24}));
  EXPECT_EQ(gemm->output_shape(), (Shape{30, 24, 2}));
  EXPECT_EQ(gemm->flops(), plain->flops());
  const auto inputs = random_inputs(*plain);  // the same floats, read through either shape
  expect_close(run_halide(*gemm, inputs), run_halide(*plain, inputs));
}

// NCHW<b>cgemm: the blocked memory, every image's pixels one loop.
TEST(Ops, TheBlockedMatrixProductFormsOfAOneByOneConvolutionMatchTheReference) {
  for (const std::string l : {",layout=NCHW8cgemm", ",layout=NCHW16cgemm"}) {
    expect_matches_reference("conv2d:N=2,C=32,H=7,W=5,K=48,R=1,S=1,stride=1,pad=0" + l);
    expect_matches_reference("conv2d_bias_relu:N=1,C=64,H=6,W=5,K=32,R=1,S=1,stride=1,pad=0" + l);
    expect_matches_reference("conv2d_residual:N=2,C=32,H=7,W=7,K=64,R=1,S=1,stride=1,pad=0,relu=1" + l);
    expect_matches_reference("conv2d_residual:N=1,C=16,H=4,W=9,K=16,R=1,S=1,stride=1,pad=0,relu=0" + l);
  }
}

TEST(Ops, TheBlockedMatrixProductFormComputesWhatItsBlockedLayoutComputesOnTheSameMemory) {
  const std::string base = "conv2d_bias_relu:N=2,C=16,H=5,W=6,K=24,R=1,S=1,stride=1,pad=0";
  auto blocked = make_operator(base + ",layout=NCHW8c"), gemm = make_operator(base + ",layout=NCHW8cgemm");
  EXPECT_EQ(gemm->input_shapes()[0], (Shape{8, 30, 2, 2}));
  EXPECT_EQ(gemm->input_shapes()[1], blocked->input_shapes()[1]) << "the same packed weights";
  EXPECT_EQ(gemm->output_shape(), (Shape{8, 30, 3, 2}));
  EXPECT_EQ(gemm->flops(), blocked->flops());
  ASSERT_EQ(gemm->packed_inputs().size(), 1u);
  EXPECT_EQ(gemm->packed_inputs()[0].packed_layout, blocked->packed_inputs()[0].packed_layout);
  const auto inputs = random_inputs(*blocked);
  expect_close(run_halide(*gemm, inputs), run_halide(*blocked, inputs));
}

TEST(Ops, TheMatrixProductFormIsRefusedWhereTheConvolutionIsNotOneByOne) {
  for (const char *spec : {"conv2d:R=3,S=3,pad=1,layout=NCHWgemm", "conv2d:R=1,S=1,pad=0,stride=2,layout=NCHWgemm",
                           "conv2d:R=1,S=1,pad=1,layout=NCHWgemm"}) {
    try {
      make_operator(spec);
      ADD_FAILURE() << spec << ": expected a WorkloadError";
    } catch (const WorkloadError &e) {
      EXPECT_NE(std::string(e.what()).find("is for 1x1 convolutions with stride 1 and pad 0"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(make_operator("conv2d:R=3,S=3,pad=1,layout=NCHW16cgemm"), WorkloadError);
  EXPECT_THROW(make_operator("conv2d:C=24,K=24,R=1,S=1,pad=0,layout=NCHW16cgemm"), WorkloadError) << "16 divides no 24";
  EXPECT_THROW(make_operator("depthwise_conv2d:layout=NCHWgemm"), WorkloadError);
  EXPECT_THROW(make_operator("layout_convert:C=24,from=NCHW,to=NCHWgemm"), WorkloadError);
}

// A matrix's packed B: the kernel reads panels the operator's own packing wrote from
// the user's K x N matrix, and matches the reference, which reads K x N.
TEST(Ops, EveryPackedMatrixBMatchesTheReference) {
  for (const char *layout : {"NK8n", "NK16n", "NK32n"}) {
    const std::string l = std::string(",layout=") + layout;
    expect_matches_reference("matmul:M=37,N=64,K=53" + l);
    expect_matches_reference("matmul:M=1,N=96,K=7" + l);
    expect_matches_reference("dense_bias_relu:M=19,N=32,K=41" + l);
  }
}

TEST(Ops, PackedMatrixBTakesTheUsersKnAndKeepsItsKeyAtKn) {
  auto op = make_operator("matmul:M=4,N=32,K=3,layout=NK16n");
  const std::vector<PackedInput> packed = op->packed_inputs();
  ASSERT_EQ(packed.size(), 1u);
  EXPECT_EQ(packed[0].input, 1);
  EXPECT_EQ(packed[0].user_layout, "KN");
  EXPECT_EQ(packed[0].packed_layout, "NK16n");
  EXPECT_EQ(op->input_shapes()[1], (Shape{16, 3, 2}));
  EXPECT_EQ(user_input_shapes(*op)[1], (Shape{32, 3}));
  EXPECT_EQ(op->workload().key(), "matmul:M=4,N=32,K=3,layout=NK16n");
  // Keys written before B had a layout name the plain kernel still.
  EXPECT_EQ(make_operator("matmul:M=4,N=32,K=3,layout=KN")->workload().key(), "matmul:M=4,N=32,K=3");
  EXPECT_TRUE(make_operator("dense_bias_relu:N=32")->packed_inputs().empty());
}

TEST(Ops, APanelThatDoesNotDivideNIsRefusedWithTheLayoutsThatFit) {
  try {
    make_operator("matmul:M=4,N=40,K=3,layout=NK16n");
    FAIL() << "N=40 in panels of 16 was accepted";
  } catch (const WorkloadError &e) {
    EXPECT_NE(std::string(e.what()).find("N=40"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("layouts that fit: KN, NK8n"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_operator("matmul:layout=NCHW16c"), WorkloadError);
}

TEST(Ops, LayoutConvertMatchesTheReferenceBetweenEveryPairOfLayouts) {
  const std::vector<std::string> layouts = {"NCHW", "NHWC", "NCHW8c", "NCHW16c", "NCHW32c"};
  for (const std::string &from : layouts)
    for (const std::string &to : layouts)
      if (from != to) expect_matches_reference("layout_convert:N=2,C=32,H=5,W=3,from=" + from + ",to=" + to);
}

TEST(Ops, LayoutConvertToTheSameLayoutIsRefused) {
  EXPECT_THROW(make_operator("layout_convert:from=NHWC,to=NHWC"), WorkloadError);
  EXPECT_THROW(make_operator("layout_convert:C=24,from=NCHW,to=NCHW16c"), WorkloadError);
}

TEST(Ops, DepthwiseAndPoolingInNhwcMatchTheReference) {
  expect_matches_reference("depthwise_conv2d:N=2,C=24,H=9,W=7,R=3,S=3,stride=1,pad=1,layout=NHWC");
  expect_matches_reference("depthwise_conv2d:N=1,C=5,H=10,W=10,R=5,S=3,stride=2,pad=0,layout=NHWC");
  expect_matches_reference("max_pool2d:N=2,C=6,H=11,W=10,R=3,S=3,stride=2,pad=1,layout=NHWC");
  expect_matches_reference("max_pool2d:N=1,C=3,H=8,W=8,R=2,S=2,stride=2,pad=0,layout=NHWC");
}

// The same element, in each layout: a blocked kernel's output is the plain one's,
// moved to where NCHW<b>c keeps it (the reference alone could not show a shared mistake).
TEST(Ops, BlockedConvOutputIsThePlainOutputInBlocks) {
  const std::string base = "conv2d:N=1,C=16,H=5,W=4,K=16,R=3,S=3,stride=1,pad=1";
  auto plain = make_operator(base), blocked = make_operator(base + ",layout=NCHW8c");
  std::vector<std::vector<float>> in = random_inputs(*plain);
  std::vector<std::vector<float>> in_blocked = in;  // the data into blocks; weights stay KCRS (the user's form)
  const int64_t C = 16, H = 5, W = 4, b = 8;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w)
        in_blocked[0][((c / b * H + h) * W + w) * b + c % b] = in[0][(c * H + h) * W + w];
  const std::vector<float> want = run_halide(*plain, in), got = run_halide(*blocked, in_blocked);
  ASSERT_EQ(got.size(), want.size());
  for (int64_t k = 0; k < C; ++k)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w)
        // The sums run in another order: equal to float rounding.
        EXPECT_NEAR(got[size_t(((k / b * H + h) * W + w) * b + k % b)], want[size_t((k * H + h) * W + w)], 1e-5);
}

TEST(Ops, BlockedConvWeightsArePackedFromTheUsersKcrs) {
  auto op = make_operator("conv2d:N=1,C=16,H=4,W=4,K=32,R=3,S=1,layout=NCHW16c");
  const std::vector<PackedInput> packed = op->packed_inputs();
  ASSERT_EQ(packed.size(), 1u);
  EXPECT_EQ(packed[0].input, 1);
  EXPECT_EQ(packed[0].user_shape, (Shape{1, 3, 16, 32}));
  EXPECT_EQ(packed[0].packed_layout, "OIhw16i16o");
  EXPECT_EQ(op->input_shapes()[1], (Shape{16, 16, 1, 3, 1, 2}));
  EXPECT_EQ(user_input_shapes(*op)[1], (Shape{1, 3, 16, 32}));
  EXPECT_TRUE(make_operator("conv2d:N=1,C=16,H=4,W=4,K=32")->packed_inputs().empty());
}

TEST(Ops, ABlockThatDoesNotDivideTheChannelsIsRefusedNamingTheLayoutsThatFit) {
  try {
    make_operator("conv2d:C=3,K=64,layout=NCHW16c");
    FAIL() << "expected a WorkloadError";
  } catch (const WorkloadError &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("divisible by 16"), std::string::npos) << m;
    EXPECT_NE(m.find("C=3"), std::string::npos) << m;
    EXPECT_NE(m.find("layouts that fit: NCHW, NHWC"), std::string::npos) << m;
  }
  EXPECT_THROW(make_operator("depthwise_conv2d:C=24,layout=NCHW16c"), WorkloadError);
  EXPECT_NO_THROW(make_operator("depthwise_conv2d:C=24,layout=NCHW8c"));
}

TEST(Ops, ALayoutAnOperatorDoesNotHaveIsRefusedWithTheListOfThoseItHas) {
  try {
    parse_workload("max_pool2d:layout=NCWH");
    FAIL() << "expected a WorkloadError";
  } catch (const WorkloadError &e) {
    EXPECT_NE(std::string(e.what()).find("NCHW, NHWC, NCHW8c, NCHW16c, NCHW32c"), std::string::npos) << e.what();
  }
}

// Keys written before depthwise_conv2d and max_pool2d had a layout still name them.
TEST(Workload, ALayoutAddedLaterStaysOutOfTheKeyAtItsDefault) {
  EXPECT_EQ(parse_workload("depthwise_conv2d").key(), "depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=1,pad=1");
  EXPECT_EQ(parse_workload("max_pool2d:layout=NCHW16c").key(),
            "max_pool2d:N=1,C=64,H=112,W=112,R=3,S=3,stride=2,pad=1,layout=NCHW16c");
  EXPECT_EQ(parse_workload(parse_workload("depthwise_conv2d:layout=NCHW").key()).key(),
            parse_workload("depthwise_conv2d").key());
}

// The algorithms take the kinds of schedules the search produces: tiling, vectorizing,
// parallel loops, rfactor, compute_at of a producer into a consumer's tile.
TEST(Ops, AlgorithmsStayCorrectUnderNontrivialSchedules) {
  using namespace Halide;
  {
    auto op = make_operator("dense_bias_relu:M=16,N=40,K=24");
    const auto inputs = random_inputs(*op);
    HalideAlgorithm alg = op->build();
    bind_inputs(alg, *op, inputs);
    Func dense = alg.stages[0].func, out = alg.stages[1].func;
    Var n = out.args()[0], m = out.args()[1], no("no"), ni("ni");
    out.split(n, no, ni, 8).parallel(m).vectorize(ni);
    dense.compute_at(out, no).vectorize(dense.args()[0], 8);
    dense.update().vectorize(dense.args()[0], 8);
    expect_close(realize_output(alg, *op), run_reference(*op, inputs));
  }
  {
    auto op = make_operator("matmul:M=4,N=6,K=64");
    const auto inputs = random_inputs(*op);
    HalideAlgorithm alg = op->build();
    bind_inputs(alg, *op, inputs);
    Func C = alg.stages[0].func;
    RVar k(C.function().update(0).schedule().rvars()[0].var), ko("ko"), ki("ki");
    Var u("u");
    C.update().split(k, ko, ki, 16);
    C.update().rfactor(ki, u).compute_root();
    expect_close(realize_output(alg, *op), run_reference(*op, inputs));
  }
}

TEST(Ops, ReluActuallyClampsSomeOutputs) {
  auto op = make_operator("dense_bias_relu:M=8,N=16,K=8");
  const auto out = run_reference(*op, random_inputs(*op));
  EXPECT_GT(std::count(out.begin(), out.end(), 0.0f), 0);
  EXPECT_LT(std::count(out.begin(), out.end(), 0.0f), int64_t(out.size()));
}

// Data NCHW {W,H,C,N} -> NHWC {C,W,H,N}; weights KCRS {S,R,C,K} -> RSCK {K,C,S,R}.
TEST(Ops, NhwcConvMatchesNchwConvOnTransposedData) {
  const int64_t N = 2, C = 3, H = 7, W = 6, K = 4, R = 3, S = 2;
  const std::string params = "N=2,C=3,H=7,W=6,K=4,R=3,S=2,stride=1,pad=1";
  for (const std::string kind : {"conv2d", "conv2d_bias_relu"}) {
    SCOPED_TRACE(kind);
    auto nchw = make_operator(kind + ":" + params + ",layout=NCHW");
    auto nhwc = make_operator(kind + ":" + params + ",layout=NHWC");
    const auto in = random_inputs(*nchw);
    auto t = in;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w) t[0][((n * H + h) * W + w) * C + c] = in[0][((n * C + c) * H + h) * W + w];
    for (int64_t k = 0; k < K; ++k)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t r = 0; r < R; ++r)
          for (int64_t s = 0; s < S; ++s) t[1][((r * S + s) * C + c) * K + k] = in[1][((k * C + c) * R + r) * S + s];

    const std::vector<float> want = run_reference(*nchw, in);
    const std::vector<float> got_nhwc = run_halide(*nhwc, t);
    const Shape os = nchw->output_shape();  // {OW, OH, K, N}
    const int64_t OW = os[0], OH = os[1];
    std::vector<float> got(got_nhwc.size());
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t h = 0; h < OH; ++h)
          for (int64_t w = 0; w < OW; ++w)
            got[((n * K + k) * OH + h) * OW + w] = got_nhwc[((n * OH + h) * OW + w) * K + k];
    expect_close(got, want);
  }
}

// The structure the DAG builder and the lowering rely on, for every operator's defaults.
TEST(Ops, AlgorithmsFollowTheStageRules) {
  for (const OpInfo &info : op_library()) {
    SCOPED_TRACE(info.kind);
    auto op = make_operator(info.kind);
    HalideAlgorithm alg = op->build();
    const auto shapes = op->input_shapes();
    ASSERT_EQ(alg.inputs.size(), shapes.size());
    std::set<std::string> names;
    for (size_t i = 0; i < alg.inputs.size(); ++i) {
      EXPECT_EQ(alg.inputs[i].dimensions(), int(shapes[i].size()));
      names.insert(alg.inputs[i].name());
    }
    ASSERT_FALSE(alg.stages.empty());
    for (size_t s = 0; s < alg.stages.size(); ++s) {
      const auto &st = alg.stages[s];
      const int index = int(alg.inputs.size() + s);
      names.insert(st.func.name());
      EXPECT_EQ(st.func.dimensions(), int(st.extents.size())) << st.func.name();
      EXPECT_LE(st.func.num_update_definitions(), 1) << st.func.name();
      EXPECT_FALSE(st.reads.empty()) << st.func.name();
      for (int r : st.reads) EXPECT_TRUE(r >= 0 && r < index) << st.func.name() << " reads " << r;
      if (st.func.num_update_definitions() == 1)
        // (Func::rvars() returns bare RVars; the schedule keeps their bounds.)
        for (const auto &rv : st.func.function().update(0).schedule().rvars()) {
          EXPECT_NE(Halide::Internal::as_const_int(rv.min), nullptr) << rv.var;
          EXPECT_NE(Halide::Internal::as_const_int(rv.extent), nullptr) << rv.var;
        }
    }
    EXPECT_EQ(names.size(), alg.inputs.size() + alg.stages.size()) << "names must be distinct";
    EXPECT_EQ(alg.stages.back().extents, op->output_shape());
    EXPECT_GT(op->flops(), 0);
  }
}

TEST(Ops, BuildReturnsFreshFuncsEveryCall) {
  auto op = make_operator("softmax:M=4,N=8");
  HalideAlgorithm a = op->build(), b = op->build();
  a.stages[0].func.compute_root();  // scheduling one must not touch the other
  EXPECT_FALSE(a.stages.back().func.function().same_as(b.stages.back().func.function()));
  EXPECT_FALSE(a.stages[0].func.function().same_as(b.stages[0].func.function()));
}

// Logs, DAG text and exported schedules show these names, so they must not depend on
// how many operators this process has built before.
TEST(Ops, StageNamesAreStableAcrossBuilds) {
  auto op = make_operator("conv2d_bias_relu:N=1,C=2,H=5,W=5,K=2");
  for (int i = 0; i < 2; ++i) {
    HalideAlgorithm alg = op->build();
    std::vector<std::string> names;
    for (const auto &st : alg.stages) names.push_back(st.func.name());
    EXPECT_EQ(names, (std::vector<std::string>{"pad", "conv", "out"}));
    std::vector<std::string> rvars;
    for (const auto &rv : alg.stages[1].func.function().update(0).schedule().rvars()) rvars.push_back(rv.var);
    EXPECT_EQ(rvars, (std::vector<std::string>{"rx", "ry", "rc"}));
  }
}

TEST(Ops, MatmulShapesAndFlops) {
  auto op = make_operator("matmul:M=2,N=3,K=4");
  EXPECT_EQ(op->input_shapes(), (std::vector<Shape>{{4, 2}, {3, 4}}));
  EXPECT_EQ(op->output_shape(), (Shape{3, 2}));
  EXPECT_DOUBLE_EQ(op->flops(), 2.0 * 2 * 3 * 4);
}

TEST(Ops, ConvOutputSizeFollowsStridePadAndDilation) {
  auto op = make_operator("conv2d:N=1,C=2,H=10,W=9,K=3,R=3,S=3,stride=2,pad=1,dilation=2");
  // OH = (10 + 2 - 2*2 - 1)/2 + 1 = 4, OW = (9 + 2 - 4 - 1)/2 + 1 = 4
  EXPECT_EQ(op->output_shape(), (Shape{4, 4, 3, 1}));
}

// --- workload specs -------------------------------------------------------------

TEST(Workload, KindAloneFillsEveryDefault) {
  EXPECT_EQ(parse_workload("matmul").key(), "matmul:M=512,N=512,K=512");
  EXPECT_EQ(parse_workload("conv2d:C=3").key(),
            "conv2d:N=1,C=3,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,dilation=1,layout=NCHW");
}

TEST(Workload, KeyIsCanonicalWhateverTheOrderAndSpacing) {
  EXPECT_EQ(parse_workload(" matmul: K=07 , M=1").key(), "matmul:M=1,N=512,K=7");
  EXPECT_EQ(parse_workload("matmul:K=7,M=1").key(), parse_workload("matmul:M=1,K=7,N=512").key());
}

TEST(Workload, KeyRoundTripsForEveryOperator) {
  for (const OpInfo &info : op_library()) {
    const Workload w = parse_workload(info.kind);
    EXPECT_EQ(w.params.size(), info.params.size());
    EXPECT_EQ(parse_workload(w.key()).key(), w.key());
    EXPECT_EQ(make_operator(w)->workload().key(), w.key());
  }
}

TEST(Workload, GettersReadValuesAndRejectAbsentNames) {
  const Workload w = parse_workload("conv2d:pad=0,layout=NHWC");
  EXPECT_EQ(w.get_int("pad"), 0);
  EXPECT_EQ(w.get_int("H"), 56);
  EXPECT_EQ(w.get_str("layout"), "NHWC");
  EXPECT_THROW(w.get_int("Q"), WorkloadError);
  EXPECT_THROW(w.get_int("layout"), WorkloadError);
}

TEST(Workload, HandMadeWorkloadGetsDefaultsAndChecks) {
  Workload w{"matmul", {{"K", "8"}}};
  EXPECT_EQ(make_operator(w)->workload().key(), "matmul:M=512,N=512,K=8");
  Workload bad{"matmul", {{"K", "0"}}};
  EXPECT_THROW(make_operator(bad), WorkloadError);
}

// The message of the WorkloadError `spec` raises, or "" when it parses and builds.
std::string error_of(const std::string &spec) {
  try {
    make_operator(spec);
  } catch (const WorkloadError &e) {
    return e.what();
  }
  return "";
}

::testing::AssertionResult Mentions(const std::string &msg, const std::string &text) {
  if (msg.find(text) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "message \"" << msg << "\" does not mention \"" << text << "\"";
}

TEST(Workload, UnknownOperatorIsRejectedWithTheKnownOnes) {
  const std::string msg = error_of("matmal:M=4");
  EXPECT_TRUE(Mentions(msg, "'matmal'"));
  EXPECT_TRUE(Mentions(msg, "batch_matmul"));
  EXPECT_TRUE(Mentions(msg, "tlptune ops"));
  EXPECT_THROW(find_op("nope"), WorkloadError);
}

TEST(Workload, UnknownParameterIsRejectedWithTheKnownOnes) {
  const std::string msg = error_of("matmul:Q=4");
  EXPECT_TRUE(Mentions(msg, "'Q'"));
  EXPECT_TRUE(Mentions(msg, "M, N, K"));
}

TEST(Workload, NonPositiveOrNonIntegerValueIsRejected) {
  EXPECT_TRUE(Mentions(error_of("matmul:M=-3"), "M must be an integer >= 1, got '-3'"));
  EXPECT_TRUE(Mentions(error_of("matmul:M=0"), "got '0'"));
  EXPECT_TRUE(Mentions(error_of("matmul:N=12x"), "got '12x'"));
  EXPECT_TRUE(Mentions(error_of("matmul:K="), "K must be an integer"));
  EXPECT_TRUE(Mentions(error_of("matmul:K=99999999999999999999"), "K must be an integer"));
  EXPECT_TRUE(Mentions(error_of("matmul:K=4294967296"), "K must be at most 2147483647"));
}

TEST(Workload, PadMayBeZeroButNotNegative) {
  EXPECT_EQ(error_of("conv2d:pad=0"), "");
  EXPECT_TRUE(Mentions(error_of("conv2d:pad=-1"), "pad must be an integer >= 0"));
  EXPECT_TRUE(Mentions(error_of("conv2d:stride=0"), "stride"));
  EXPECT_TRUE(Mentions(error_of("conv2d:dilation=0"), "dilation"));
}

TEST(Workload, BadChoiceIsRejectedWithTheChoices) {
  EXPECT_TRUE(Mentions(error_of("conv2d:layout=NCWH"), "layout must be one of NCHW, NHWC, NCHW8c, NCHW16c, NCHW32c, NCHWgemm, NCHW8cgemm, "
                                                      "NCHW16cgemm, NCHW32cgemm, got 'NCWH'"));
}

TEST(Workload, DuplicateParameterIsRejected) {
  EXPECT_TRUE(Mentions(error_of("matmul:M=4,M=8"), "'M' is given twice"));
}

TEST(Workload, ParameterWithoutEqualsIsRejected) {
  EXPECT_TRUE(Mentions(error_of("matmul:M4"), "'M4' is missing '='"));
  EXPECT_TRUE(Mentions(error_of("matmul:M=4,,N=2"), "empty parameter"));
  EXPECT_TRUE(Mentions(error_of(""), "empty workload spec"));
}

TEST(Workload, TensorOver2To31ElementsIsRejectedAsTooLarge) {
  EXPECT_TRUE(Mentions(error_of("matmul:M=100000,N=100000,K=4"), "too large"));
  EXPECT_TRUE(Mentions(error_of("conv2d:N=64,C=256,H=2048,W=2048"), "too large"));
}

TEST(Workload, TensorsOver4GiBInAllAreRejectedAsTooLarge) {
  // C is 2^30 elements (allowed alone) = 4 GiB, plus A and B.
  EXPECT_TRUE(Mentions(error_of("matmul:M=32768,N=32768,K=2"), "too large"));
  EXPECT_EQ(error_of("matmul:M=16384,N=16384,K=16384"), "");  // 3 GiB in all: fine
}

TEST(Workload, WindowLargerThanPaddedInputIsRejected) {
  const std::string msg = error_of("conv2d:H=2,W=2,R=5,S=5,pad=0");
  EXPECT_TRUE(Mentions(msg, "larger than the padded input"));
  EXPECT_TRUE(Mentions(error_of("conv2d:H=4,W=4,R=3,S=3,pad=0,dilation=3"), "after dilation"));
  EXPECT_TRUE(Mentions(error_of("depthwise_conv2d:H=1,W=8,R=3,pad=0"), "along H"));
  EXPECT_TRUE(Mentions(error_of("max_pool2d:H=8,W=1,S=3,pad=0"), "along W"));
}

TEST(Workload, PoolPaddingOverHalfTheWindowIsRejected) {
  EXPECT_TRUE(Mentions(error_of("max_pool2d:R=3,S=3,pad=2"), "at most half the window"));
}

TEST(Workload, LibraryKindsAreUniqueAndDefaultsAreValid) {
  std::set<std::string> kinds;
  for (const OpInfo &info : op_library()) {
    EXPECT_TRUE(kinds.insert(info.kind).second) << info.kind;
    EXPECT_EQ(&find_op(info.kind), &info);
    EXPECT_FALSE(info.help.empty());
  }
  EXPECT_EQ(kinds.size(), 14u);
}

}  // namespace
}  // namespace tlp
