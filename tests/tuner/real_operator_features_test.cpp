// The cost model's replayed features on operators built by codegen (the
// costmodel tests use hand-made DAGs): their loop names and accesses must be
// what the features look up.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "costmodel/tile_footprint_features.h"
#include "search/loop_state.h"
#include "search/schedule.h"
#include "tuner/compute_dag_cache.h"

namespace tlp {
namespace {

constexpr int kEmb = kNumStepKinds + kTileRowValues;

float lg(double x) { return float(std::log2(1.0 + x)); }

std::vector<float> tile_row(const std::vector<float> &m, int r) {
  return std::vector<float>(m.begin() + size_t(r) * kEmb + kNumStepKinds, m.begin() + size_t(r + 1) * kEmb);
}

TEST(RealOperatorFeatures, TileRowsOfAFusedOneByOneConvolutionFollowItsChannelLoopAndReadEachTensorOnce) {
  ComputeDagCache dags;
  const ComputeDag *dag =
      dags.find("conv2d_bias_relu:N=1,C=512,H=28,W=28,K=256,R=1,S=1,stride=1,pad=0,dilation=1,layout=NCHW");
  ASSERT_NE(dag, nullptr);
  const LoopState state = LoopState::replay(*dag, Schedule{});
  std::vector<float> m(8 * kEmb, 0.0f);
  // The convolution (not the bias-ReLU stage, which does less) at root: rc, ow, oh, k.
  ASSERT_EQ(write_tile_rows(state, 8, kEmb, m.data()), 4);
  const int kExtent = 1, kReduce = 2, kWork = 6, kRead = 7, kWritten = 8;
  EXPECT_EQ(tile_row(m, 0)[kExtent], lg(512));
  EXPECT_EQ(tile_row(m, 0)[kReduce], 1.0f);
  EXPECT_EQ(tile_row(m, 0)[kRead], lg(4 * (512 + 512)));  // a column of the input, a row of the weights
  const std::vector<float> all = tile_row(m, 3);
  EXPECT_EQ(all[kWork], lg(256.0 * 28 * 28 * 512));
  EXPECT_EQ(all[kRead], lg(4 * (512.0 * 28 * 28 + 256 * 512)));
  EXPECT_EQ(all[kWritten], lg(4 * 256.0 * 28 * 28));
}

TEST(RealOperatorFeatures, TileRowsOfACachedAccumulatorReachItsHostsParallelLoop) {
  ComputeDagCache dags;
  const ComputeDag *dag =
      dags.find("conv2d_bias_relu:N=1,C=512,H=28,W=28,K=256,R=1,S=1,stride=1,pad=0,dilation=1,layout=NCHW");
  ASSERT_NE(dag, nullptr);
  // A schedule the search sampled: a 4 x 16 register tile accumulated over rc in chunks of 8.
  const LoopState state = LoopState::replay(
      *dag, Schedule::from_text("SP(4,3,28,[1,16]); SP(4,2,28,[1,4]); SP(4,1,256,[4,32]); SP(4,0,1,[1,1]); "
                                "RE(4,[0,3,6,9,1,4,7,10,2,5,8,11]); FU(4,[0,1,2,3]); AN(4,0,parallel); "
                                "AN(4,8,vectorize); CA(3,4,4); SP(3,3,16,[1,16]); SP(3,2,4,[4]); SP(3,1,32,[1]); "
                                "SP(3,0,1,[1]); SP(3,11,1,[1]); SP(3,10,1,[1]); SP(3,9,512,[8]); "
                                "RE(3,[9,11,13,0,2,4,6,10,12,14,1,3,5,7,8]); AN(3,14,vectorize); AN(3,12,unroll)"));
  std::vector<float> m(8 * kEmb, 0.0f);
  ASSERT_EQ(write_tile_rows(state, 8, kEmb, m.data()), 7);
  const int kVectorize = 4, kParallel = 3, kWritten = 8, kHost = 9;
  EXPECT_EQ(tile_row(m, 0)[kVectorize], 1.0f);
  EXPECT_EQ(tile_row(m, 2)[kWritten], lg(4 * 4 * 16));  // the register tile, after the inner rc
  EXPECT_EQ(tile_row(m, 5)[kHost], 1.0f);
  EXPECT_EQ(tile_row(m, 6)[kParallel], 1.0f);
  EXPECT_EQ(tile_row(m, 6)[kWritten], lg(4 * 256.0 * 28 * 28));
}

}  // namespace
}  // namespace tlp
