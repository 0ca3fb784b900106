// Lowering: every step kind lowers onto Halide and the kernel still computes the
// reference; schedules the IR rejects, or the target cannot run, fail with a
// ScheduleError that names the step.
#include <gtest/gtest.h>

#include <random>

#include "codegen/lower.h"
#include "codegen/operator.h"
#include "search/loop_state.h"
#include "search/schedule_space.h"
#include "tests/codegen/codegen_test_util.h"

namespace tlp {
namespace {

void expect_schedule_correct(const std::string &spec, const std::string &schedule_text) {
  SCOPED_TRACE(spec + " with " + schedule_text);
  auto op = make_operator(spec);
  const auto inputs = random_inputs(*op);
  const Schedule s = Schedule::from_text(schedule_text);
  expect_close(run_scheduled(*op, s, inputs), run_reference(*op, inputs));
}

std::string halide_source(const std::string &spec, const std::string &schedule_text) {
  auto op = make_operator(spec);
  return schedule_to_halide_source(*op, make_compute_dag(*op), Schedule::from_text(schedule_text));
}

// matmul DAG: 0 A, 1 B, 2 C [m, n, k~].
const char *kMatmul = "matmul:M=37,N=29,K=53";

TEST(Lower, DagOfMatmulHasSpatialThenReductionLoops) {
  auto op = make_operator(kMatmul);
  const ComputeDag dag = make_compute_dag(*op);
  ASSERT_EQ(dag.stages.size(), 3u);
  const DagStage &c = dag.stages[2];
  ASSERT_EQ(c.iters.size(), 3u);
  EXPECT_EQ(c.iters[0].extent, 37);
  EXPECT_EQ(c.iters[1].extent, 29);
  EXPECT_EQ(c.iters[2].extent, 53);
  EXPECT_EQ(c.iters[2].kind, IterKind::Reduce);
  EXPECT_TRUE(c.is_output);
}

TEST(Lower, EmptyScheduleMatchesReference) { expect_schedule_correct(kMatmul, ""); }

TEST(Lower, SplitReorderAndAnnotationsMatchReference) {
  expect_schedule_correct(kMatmul,
                          "SP(2,1,29,[8]); SP(2,0,37,[4]); RE(2,[0,2,4,1,3]); AN(2,0,parallel); "
                          "AN(2,4,vectorize); AN(2,3,unroll)");
}

TEST(Lower, FuseOfOuterLoopsMatchesReference) {
  expect_schedule_correct(kMatmul, "SP(2,1,29,[8]); SP(2,0,37,[4]); RE(2,[0,2,1,3,4]); FU(2,[0,1]); AN(2,0,parallel)");
}

TEST(Lower, FollowSplitUsesTheSourceFactors) {
  expect_schedule_correct(kMatmul, "SP(2,1,29,[2,4]); FSP(2,0,0,2); AN(2,5,vectorize)");
}

TEST(Lower, CacheWriteWithComputeAtMatchesReference) {
  // C.local (2) computed inside the copy's (3) tile, reduction split and innermost.
  expect_schedule_correct(kMatmul,
                          "CHW(2,local); SP(3,1,29,[8]); SP(3,0,37,[4]); RE(3,[0,2,1,3]); AN(3,0,parallel); "
                          "CA(2,3,1); SP(2,2,53,[4]); AN(2,1,vectorize)");
}

TEST(Lower, CacheReadStagesAnInput) {
  // B (1) copied into a cache read by C; the cache is stage 2 and C moves to 3.
  expect_schedule_correct(kMatmul, "CHR(1,2,local); SP(3,0,37,[4]); CA(2,3,0)");
}

TEST(Lower, RfactorMatchesReference) {
  expect_schedule_correct("softmax:M=13,N=100", "SP(2,1,100,[10]); RF(2,2,1)");
}

// The stage left after rfactor reduces over a variable Halide names itself
// ("rn.rn_0"); splitting and unrolling it must still work.
TEST(Lower, TheReductionOverPartialsCanBeScheduled) {
  expect_schedule_correct("softmax:M=13,N=100", "SP(2,1,100,[25]); RF(2,1,1); RE(2,[1,0,2]); AN(2,0,parallel); "
                                                "SP(3,1,4,[2]); AN(3,2,unroll); AN(3,0,parallel)");
}

TEST(Lower, InlineAndRootMatchReference) {
  // conv2d with padding: 0 input, 1 weight, 2 pad, 3 conv.
  expect_schedule_correct("conv2d:N=1,C=3,H=9,W=9,K=4,R=3,S=3,stride=1,pad=1", "CI(2)");
  expect_schedule_correct("conv2d:N=1,C=3,H=9,W=9,K=4,R=3,S=3,stride=1,pad=1", "CR(2)");
}

TEST(Lower, AutoUnrollPragmaMatchesReference) {
  expect_schedule_correct(kMatmul, "SP(2,1,29,[8]); SP(2,3,53,[4]); PR(2,0,64)");
}

// A 64-lane vectorized loop is several native vectors (8 on AVX2, 4 on AVX-512,
// 16 on SSE); they count toward the auto-unroll budget, so a budget of 16 leaves
// the reduction loop around it rolled, and one of 512 unrolls it.
TEST(Lower, AutoUnrollCountsAVectorizedLoopAsItsNativeVectors) {
  const std::string spec = "matmul:M=16,N=64,K=8";
  auto op = make_operator(spec);
  const ComputeDag dag = make_compute_dag(*op);
  const std::string base = "SP(2,1,64,[64]); RE(2,[0,1,3,2]); AN(2,3,vectorize); ";
  const std::string tight = schedule_to_halide_source(*op, dag, Schedule::from_text(base + "PR(2,0,16)"));
  const std::string roomy = schedule_to_halide_source(*op, dag, Schedule::from_text(base + "PR(2,0,512)"));
  EXPECT_EQ(tight.find(".unroll(k"), std::string::npos) << tight;
  EXPECT_NE(roomy.find(".unroll(k"), std::string::npos) << roomy;
  expect_schedule_correct(spec, base + "PR(2,0,16)");
}

TEST(Lower, NonDivisibleTilesOfAnUpdateStayInBounds) {
  // Register-block splits that do not divide the tile: guarded, never out of bounds.
  expect_schedule_correct("matmul:M=512,N=512,K=512",
                          "CHW(2,local); SP(3,1,512,[4,16]); SP(3,0,512,[2,8]); RE(3,[0,3,1,4,2,5]); "
                          "CA(2,3,1); SP(2,1,64,[5,8]); SP(2,0,16,[11]); SP(2,5,512,[4]); "
                          "RE(2,[5,6,0,2,1,3,4]); AN(2,6,vectorize); AN(2,5,unroll)");
}

// Tuning matmul 512^3 logged runtime errors for this schedule: C.local, computed
// at a loop fusing m_0, n_0 and m_1, split its 4 rows by 1, and Halide's bounds
// then asked for rows of A up to 1019. The accumulator's extent is now bounded
// to its tile.
TEST(Lower, SplitByOneInsideAFusedLoopStaysInBounds) {
  expect_schedule_correct("matmul:M=512,N=512,K=512",
                          "CHW(2,local); SP(3,1,512,[1,40]); SP(3,0,512,[64,4]); RE(3,[0,3,1,4,2,5]); "
                          "FU(3,[0,1,2]); AN(3,0,parallel); AN(3,3,vectorize); CA(2,3,0); SP(2,1,40,[1,8]); "
                          "SP(2,0,4,[1]); SP(2,5,512,[2]); RE(2,[5,0,2,6,1,3,4]); AN(2,6,vectorize); "
                          "AN(2,5,unroll); AN(2,4,unroll)");
}

// Below a fused loop the loop state overestimates the accumulator's tile (the
// fused loop counts whole for rows and for columns): bounding it to that
// would read past A's last row, so it is left to Halide.
TEST(Lower, AccumulatorBelowAFusedLoopIsNotBoundedToTheEstimate) {
  expect_schedule_correct(kMatmul, "CHW(2,local); SP(3,1,29,[8]); SP(3,0,37,[4]); RE(3,[0,2,1,3]); FU(3,[2,3]); "
                                   "CA(2,3,1)");
}

// A padded convolution computed row by row, its 10 columns blocked by 3 around a
// vectorized channel block: the extra columns read only the clamped padding, so
// the tail is rounded up (no guard), the block stays unrolled, and the two
// columns past the row are computed and never read.
const char *kConvRowsBlockedBy3 = "conv2d_bias_relu:N=1,C=16,H=10,W=10,K=16,R=3,S=3,stride=1,pad=1,layout=NCHW8c";
const char *kRoundedUpBlock =
    "CA(4,5,2); SP(4,3,10,[3]); SP(4,2,1,[1]); RE(4,[0,1,2,3,4,7,8,9,10,5,6]); AN(4,10,vectorize); AN(4,9,unroll)";

TEST(Lower, ABlockThatDoesNotDivideAPaddedImageRoundsItsTailUpAndMatchesReference) {
  const std::string source = halide_source(kConvRowsBlockedBy3, kRoundedUpBlock);
  EXPECT_NE(source.find("split(ow, ow_0, ow_1, 3, TailStrategy::RoundUp)"), std::string::npos) << source;
  EXPECT_NE(source.find(".unroll(ow_1);"), std::string::npos) << source;
  EXPECT_EQ(source.find("left out"), std::string::npos) << source;
  expect_schedule_correct(kConvRowsBlockedBy3, kRoundedUpBlock);
}

// A cache-write accumulator is bounded to its tile; rounding its 10 columns up
// to blocks of 3 widens that bound to 12 rather than asking past it.
TEST(Lower, ARoundedUpAccumulatorIsBoundedToItsWholeBlocks) {
  const char *conv = "conv2d:N=1,C=8,H=10,W=10,K=8,R=3,S=3,stride=1,pad=1";
  const char *schedule = "CHW(3,local); SP(4,2,10,[2]); CA(3,4,2); SP(3,3,10,[3])";
  const std::string source = halide_source(conv, schedule);
  EXPECT_NE(source.find("bound_extent(ow, 12)"), std::string::npos) << source;
  expect_schedule_correct(conv, schedule);
}

// A 1x1 convolution over a 7x7 image read as a blocked matrix product: its 49
// pixels in register blocks of 6, the last rounded up to 54 (reads clamp to the
// last pixel), in a producer computed per channel block and in an accumulator.
TEST(Lower, ABlockedMatrixProductRoundsItsPixelsUpToWholeRegisterBlocksAndMatchesReference) {
  const char *fused = "conv2d_bias_relu:N=1,C=16,H=7,W=7,K=16,R=1,S=1,stride=1,pad=0,layout=NCHW8cgemm";
  const char *producer_block = "CA(3,4,1); SP(3,2,49,[6]); RE(3,[0,1,2,5,6,3,4]); AN(3,6,vectorize); AN(3,5,unroll)";
  const std::string source = halide_source(fused, producer_block);
  EXPECT_NE(source.find("split(p, p_0, p_1, 6, TailStrategy::RoundUp)"), std::string::npos) << source;
  expect_schedule_correct(fused, producer_block);

  const char *conv = "conv2d:N=1,C=16,H=7,W=7,K=16,R=1,S=1,stride=1,pad=0,layout=NCHW8cgemm";
  const char *accumulator_block =
      "CHW(2,local); CA(2,3,1); SP(2,2,49,[6]); RE(2,[0,1,2,5,6,3,4]); AN(2,6,vectorize); AN(2,5,unroll)";
  const std::string acc = halide_source(conv, accumulator_block);
  EXPECT_NE(acc.find("split(p, p_0, p_1, 6, TailStrategy::RoundUp)"), std::string::npos) << acc;
  expect_schedule_correct(conv, accumulator_block);
}

TEST(Lower, ChannelsReadFromTheWeightsAndUnpaddedImagesKeepGuardedTails) {
  // Output channels index the weights, which nothing clamps.
  const std::string channels = halide_source(kConvRowsBlockedBy3, "CA(4,5,2); SP(4,4,8,[3])");
  EXPECT_NE(channels.find("split(ki, ki_0, ki_1, 3, TailStrategy::GuardWithIf)"), std::string::npos) << channels;
  // Without padding the convolution reads its input directly.
  const char *unpadded = "conv2d_bias_relu:N=1,C=16,H=10,W=10,K=16,R=1,S=1,stride=1,pad=0,layout=NCHW8c";
  const std::string columns = halide_source(unpadded, "CA(3,4,2); SP(3,3,10,[3])");
  EXPECT_NE(columns.find("TailStrategy::GuardWithIf"), std::string::npos) << columns;
  EXPECT_EQ(columns.find("RoundUp"), std::string::npos) << columns;
  expect_schedule_correct(unpadded, "CA(3,4,2); SP(3,3,10,[3])");
}

// A mutant the evolutionary search produced: the accumulator's 120-wide tile is
// split by 16 (a guarded tail), its row loop unrolled around the vectorized
// columns. Halide 14 added the last row's tail twice; the lowering now keeps that
// row loop serial (and says so in the source), so the kernel is right.
const char *kGuardedTailWithUnrolledRows =
    "CHW(2,local); SP(3,1,512,[3,40]); SP(3,0,512,[1,4]); RE(3,[0,3,1,4,2,5]); FU(3,[0,1]); AN(3,0,parallel); "
    "AN(3,4,vectorize); CA(2,3,0); SP(2,1,120,[2,8]); SP(2,0,4,[4]); SP(2,5,512,[4]); RE(2,[5,0,2,6,1,3,4]); "
    "AN(2,6,vectorize); AN(2,4,unroll)";

TEST(Lower, UnrolledLoopAroundAVectorizedGuardedTailMatchesReference) {
  expect_schedule_correct("matmul:M=512,N=512,K=512", kGuardedTailWithUnrolledRows);
}

TEST(Lower, UnrollLeftOutOnlyWhereTheTailIsGuarded) {
  const std::string guarded = halide_source("matmul:M=512,N=512,K=512", kGuardedTailWithUnrolledRows);
  EXPECT_NE(guarded.find("unroll(m_1) left out"), std::string::npos) << guarded;
  // The same schedule with a dividing tile (128 = 8 x 16): unrolled as asked.
  std::string text = kGuardedTailWithUnrolledRows;
  text.replace(text.find("[3,40]"), 6, "[4,32]");
  text.replace(text.find("SP(2,1,120"), 10, "SP(2,1,128");
  const std::string dividing = halide_source("matmul:M=512,N=512,K=512", text);
  EXPECT_EQ(dividing.find("left out"), std::string::npos) << dividing;
  EXPECT_NE(dividing.find(".unroll(m_1);"), std::string::npos) << dividing;
}

// softmax 128x1024: 1 max, 2 expsum.rf, 3 expsum (rfactored), 4 out. expsum is
// computed at out's tile of 8 rows. Halide 14 summed 4 times over when its rows
// were split by 32 (guarded) around a vectorized 8: the loop lost its guard and
// index term. The rows now shrink to the tile at CA, so that split is refused.
const std::string kSoftmaxRfactorAtTile =
    "SP(2,1,1024,[256]); RF(2,1,1); RE(2,[1,0,2]); AN(2,0,parallel); SP(4,1,1024,[16,16]); SP(4,0,128,[2,8]); "
    "RE(4,[0,3,1,4,2,5]); AN(4,0,parallel); AN(4,5,vectorize); CA(3,4,3); ";
const std::string kSoftmaxRest =
    "SP(3,3,4,[3]); RE(3,[3,0,4,1,2]); AN(3,4,vectorize); AN(3,3,unroll); SP(1,0,128,[1,64]); RE(1,[0,1,2,3]); "
    "SP(1,3,1024,[53]); RE(1,[0,1,3,4,2]); AN(1,0,parallel); AN(1,4,vectorize); PR(1,0,512); PR(2,0,512); "
    "PR(3,0,64); PR(4,0,16)";

TEST(Lower, ARowSplitWiderThanTheTileOfAnRfactoredSumIsRefused) {
  auto op = make_operator("softmax:M=128,N=1024");
  const ComputeDag dag = make_compute_dag(*op);
  const Schedule s = Schedule::from_text(kSoftmaxRfactorAtTile + "SP(3,0,8,[4,8]); " + kSoftmaxRest);
  try {
    lower_schedule(*op, dag, s, Halide::get_host_target());
    FAIL() << "expected a ScheduleError";
  } catch (const ScheduleError &e) {
    EXPECT_NE(std::string(e.what()).find("more than loop m's extent 8"), std::string::npos) << e.what();
  }
}

TEST(Lower, ARowSplitWithinTheTileOfAnRfactoredSumMatchesReference) {
  expect_schedule_correct("softmax:M=128,N=1024", kSoftmaxRfactorAtTile + "SP(3,0,8,[2,4]); " + kSoftmaxRest);
  expect_schedule_correct("softmax:M=128,N=1024", kSoftmaxRfactorAtTile + "SP(3,0,8,[1,8]); " + kSoftmaxRest);
}

// layernorm 256x512: 5 (rfactored) is computed at out's tile of 40 rows, which
// its rows split by 32 (a guarded tail of 8) around a vectorized 8. Halide 14
// added the tail's lanes wrongly; that vectorize is left out.
const std::string kLayernormGuardedRows =
    "SP(4,1,512,[128]); RF(4,1,1); RE(4,[1,0,2]); FU(4,[0,1]); AN(4,0,parallel); SP(6,1,512,[9,56]); "
    "SP(6,0,256,[2,40]); RE(6,[0,3,1,4,2,5]); FU(6,[0,1]); AN(6,0,parallel); AN(6,4,vectorize); CA(5,6,2); "
    "SP(5,0,40,[4,8]); SP(5,3,4,[1]); RE(5,[3,4,0,1,2]); AN(5,4,vectorize); SP(3,0,256,[2,64]); RE(3,[0,1,2,3]); "
    "SP(3,3,512,[1]); RE(3,[0,1,3,4,2]); AN(3,0,parallel); AN(3,4,vectorize)";

TEST(Lower, AVectorizedLoopInAGuardedUpdateTailMatchesReference) {
  expect_schedule_correct("layernorm:M=256,N=512", kLayernormGuardedRows);
}

TEST(Lower, VectorizeLeftOutOnlyInsideAGuardedUpdateTail) {
  const std::string guarded = halide_source("layernorm:M=256,N=512", kLayernormGuardedRows);
  EXPECT_NE(guarded.find("vectorize(m_2) left out"), std::string::npos) << guarded;
  // Split by 40 (5 x 8), the tile divides: the same loop is vectorized.
  std::string text = kLayernormGuardedRows;
  text.replace(text.find("SP(5,0,40,[4,8])"), 16, "SP(5,0,40,[5,8])");
  const std::string exact = halide_source("layernorm:M=256,N=512", text);
  EXPECT_EQ(exact.find("left out"), std::string::npos) << exact;
  EXPECT_NE(exact.find(".vectorize(m_2)"), std::string::npos) << exact;
}

TEST(Lower, GpuAnnotationOnCpuTargetIsAnInvalidSchedule) {
  auto op = make_operator(kMatmul);
  const ComputeDag dag = make_compute_dag(*op);
  const Schedule s = Schedule::from_text("AN(2,0,gpu_block)");
  EXPECT_THROW(lower_schedule(*op, dag, s, Halide::get_host_target()), ScheduleError);
}

TEST(Lower, StepOnMissingLoopNamesTheStep) {
  auto op = make_operator(kMatmul);
  const ComputeDag dag = make_compute_dag(*op);
  try {
    lower_schedule(*op, dag, Schedule::from_text("SP(2,7,29,[8])"), Halide::get_host_target());
    FAIL() << "expected a ScheduleError";
  } catch (const ScheduleError &e) {
    EXPECT_NE(std::string(e.what()).find("SP(2,7,29,[8])"), std::string::npos) << e.what();
  }
}

TEST(Lower, HalideSourceNamesEveryScheduledCall) {
  auto op = make_operator(kMatmul);
  const ComputeDag dag = make_compute_dag(*op);
  const std::string src = schedule_to_halide_source(
      *op, dag, Schedule::from_text("SP(2,1,29,[8]); AN(2,2,vectorize); AN(2,0,parallel)"));
  EXPECT_NE(src.find(".split("), std::string::npos) << src;
  EXPECT_NE(src.find(".vectorize("), std::string::npos) << src;
  EXPECT_NE(src.find(".parallel("), std::string::npos) << src;
}

// Samples of the schedule space lower and compute the reference, for every operator.
TEST(Lower, SampledSchedulesOfEveryOperatorMatchReference) {
  const std::vector<std::string> specs = {
      "matmul:M=48,N=40,K=24", "batch_matmul:B=2,M=16,N=24,K=8",
      "conv2d:N=1,C=4,H=10,W=10,K=8,R=3,S=3,stride=1,pad=1",
      "conv2d:N=1,C=4,H=10,W=10,K=8,R=3,S=3,stride=1,pad=1,layout=NHWC",
      "depthwise_conv2d:N=1,C=8,H=12,W=12,R=3,S=3,stride=1,pad=1", "dense_bias_relu:M=16,N=24,K=32",
      "conv2d_bias_relu:N=1,C=4,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1", "softmax:M=8,N=40", "layernorm:M=8,N=48",
      "max_pool2d:N=1,C=4,H=12,W=12,R=3,S=3,stride=2,pad=1",
      "conv2d_residual:N=1,C=4,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1,relu=1",
      "group_conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1,groups=4"};
  std::mt19937_64 rng(7);
  for (const auto &spec : specs) {
    auto op = make_operator(spec);
    const auto inputs = random_inputs(*op);
    const auto want = run_reference(*op, inputs);
    ScheduleSpace space(make_compute_dag(*op), SpaceOptions{});
    for (int i = 0; i < 3; ++i) {
      const Schedule s = space.sample(rng);
      SCOPED_TRACE(spec + " with " + s.to_text());
      expect_close(run_scheduled(*op, s, inputs), want);
    }
  }
}

}  // namespace
}  // namespace tlp
