// Tile rows: the work and memory of each loop of a schedule's main computation,
// and where the featurizer places them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "costmodel/tile_footprint_features.h"
#include "costmodel/tlp_featurizer.h"
#include "costmodel_fixtures.h"
#include "search/loop_state.h"
#include "search/schedule.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

constexpr int kEmb = kNumStepKinds + kTileRowValues;

float lg(double x) { return float(std::log2(1.0 + x)); }

std::vector<float> values(const std::vector<float> &m, int r) {
  return std::vector<float>(m.begin() + size_t(r) * kEmb + kNumStepKinds, m.begin() + size_t(r + 1) * kEmb);
}

std::vector<float> tiles_of(const ComputeDag &dag, const std::string &schedule, int rows, int *written = nullptr) {
  const LoopState state = LoopState::replay(dag, Schedule::from_text(schedule));
  std::vector<float> m(size_t(rows) * kEmb, 0.0f);
  const int n = write_tile_rows(state, rows, kEmb, m.data());
  if (written) *written = n;
  return m;
}

TEST(TileFootprintFeatures, ExactRowsOfATiledVectorizedMatmulInnermostFirst) {
  // C[i:64, j:48] += A[i, k:32] * B[k, j] as i (parallel), j.0 (6), k (32), j.1 (8, vectorized).
  int n = 0;
  const std::vector<float> m = tiles_of(
      testing::matmul_dag(), "SP(2,1,48,[8]); RE(2,[0,1,3,2]); AN(2,0,parallel); AN(2,3,vectorize)", 5, &n);
  EXPECT_EQ(n, 4);
  // marker, log extent, reduce, parallel, vectorize, unroll, log work, log bytes read, log bytes written, host
  // j.1: 8 outputs, one A element and 8 of B.
  EXPECT_EQ(values(m, 0), (std::vector<float>{3, lg(8), 0, 0, 1, 0, lg(8), lg(4 * (1 + 8)), lg(4 * 8), 0}));
  // k: the 8 outputs over 32 k: 32 of A, 32 x 8 of B.
  EXPECT_EQ(values(m, 1), (std::vector<float>{3, lg(32), 1, 0, 0, 0, lg(256), lg(4 * (32 + 256)), lg(4 * 8), 0}));
  // j.0: a whole row of C: 32 of A, all of B.
  EXPECT_EQ(values(m, 2),
            (std::vector<float>{3, lg(6), 0, 0, 0, 0, lg(48 * 32), lg(4 * (32 + 32 * 48)), lg(4 * 48), 0}));
  // i: everything.
  EXPECT_EQ(values(m, 3), (std::vector<float>{3, lg(64), 0, 1, 0, 0, lg(64 * 48 * 32),
                                              lg(4 * (64 * 32 + 32 * 48)), lg(4 * 64 * 48), 0}));
  EXPECT_EQ(values(m, 4), std::vector<float>(kTileRowValues, 0.0f));  // no fifth loop
}

TEST(TileFootprintFeatures, AComputedAtAccumulatorContinuesOutwardThroughItsHostsLoops) {
  // C.local (i bounded to 8, j 48, k 32) is computed at C's i.0 (8 iterations of 8 rows).
  int n = 0;
  const std::vector<float> m =
      tiles_of(testing::matmul_dag(), "CHW(2,local); SP(3,0,64,[8]); CA(2,3,0)", 6, &n);
  EXPECT_EQ(n, 4);  // C.local's k, j, i; then C's i.0
  EXPECT_EQ(values(m, 0), (std::vector<float>{3, lg(32), 1, 0, 0, 0, lg(32), lg(4 * 64), lg(4), 0}));
  EXPECT_EQ(values(m, 2), (std::vector<float>{3, lg(8), 0, 0, 0, 0, lg(8 * 48 * 32), lg(4 * (8 * 32 + 32 * 48)),
                                              lg(4 * 8 * 48), 0}));
  EXPECT_EQ(values(m, 3), (std::vector<float>{3, lg(8), 0, 0, 0, 0, lg(64 * 48 * 32),
                                              lg(4 * (64 * 32 + 32 * 48)), lg(4 * 64 * 48), 1}));
}

TEST(TileFootprintFeatures, AConvolutionsWindowSpansItsInputRowsAndSkipsLoopsOfOneIteration) {
  // conv[n:1, f:16, y:16, x:16, rc:8, ry:3, rx:3] reads pad[n, rc, y+ry, x+rx] and weight[f, rc, ry, rx].
  int n = 0;
  const std::vector<float> m = tiles_of(testing::conv_dag(), "", 8, &n);
  EXPECT_EQ(n, 6);  // n has one iteration: no row
  const int kWork = 6, kRead = 7;
  EXPECT_EQ(values(m, 0)[kRead], lg(4 * (3 + 3)));            // rx: 3 input columns, 3 weights
  EXPECT_EQ(values(m, 1)[kRead], lg(4 * (9 + 9)));            // ry: a 3 x 3 window
  EXPECT_EQ(values(m, 2)[kRead], lg(4 * (72 + 72)));          // rc
  EXPECT_EQ(values(m, 3)[kRead], lg(4 * (8 * 3 * 18 + 72)));  // x: 16 outputs read 18 input columns
  EXPECT_EQ(values(m, 3)[kWork], lg(16 * 72));
}

TEST(TileFootprintFeatures, RowsAreCroppedToTheCount) {
  int n = 0;
  const std::vector<float> m = tiles_of(testing::matmul_dag(), "", 2, &n);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(m.size(), size_t(2 * kEmb));
  EXPECT_EQ(values(m, 0)[1], lg(32));  // k, then j; i did not fit
  EXPECT_EQ(values(m, 1)[1], lg(48));
}

FeaturizerOptions tile_options(int seq_len, int tile_rows) {
  return testing::featurizer_with_rows(seq_len, kEmb, tile_rows);
}

TEST(TileFootprintFeatures, FeaturizerPutsThemAfterTheSteps) {
  const ComputeDag dag = testing::matmul_dag();
  const Schedule s = Schedule::from_text("SP(2,1,48,[8]); AN(2,0,parallel)");
  const std::vector<float> m = featurize(s, tile_options(5, 2), &dag);
  ASSERT_EQ(m.size(), size_t(5 * kEmb));
  EXPECT_EQ(m[0 * kEmb + int(StepKind::SP)], 1.0f);
  EXPECT_EQ(m[1 * kEmb + int(StepKind::AN)], 1.0f);
  EXPECT_EQ(values(m, 2), std::vector<float>(kTileRowValues, 0.0f));  // the third step row: no step
  EXPECT_EQ(values(m, 3)[0], 3.0f);                                    // tile rows: k, then j.1
  EXPECT_EQ(values(m, 3)[1], lg(32));
  EXPECT_EQ(values(m, 4)[1], lg(8));
  for (int k = 0; k < kNumStepKinds; ++k) EXPECT_EQ(m[3 * kEmb + k], 0.0f) << "a tile row has no step kind";
}

TEST(TileFootprintFeatures, AScheduleOfAnotherSpaceGetsEmptyTileRows) {
  const ComputeDag dag = testing::matmul_dag();
  const Schedule s = Schedule::from_text("SP(2,7,48,[8])");  // no loop 7
  const std::vector<float> m = featurize(s, tile_options(3, 2), &dag);
  EXPECT_EQ(values(m, 1), std::vector<float>(kTileRowValues, 0.0f));
  EXPECT_EQ(values(m, 2), std::vector<float>(kTileRowValues, 0.0f));
}

TEST(TileFootprintFeatures, OptionsThatLeaveNoRowForTheStepsAreRefused) {
  EXPECT_THROW(check_featurizer_options(tile_options(4, 4)), std::invalid_argument);
  EXPECT_THROW(check_featurizer_options(tile_options(4, -1)), std::invalid_argument);
  EXPECT_NO_THROW(check_featurizer_options(tile_options(4, 3)));
  EXPECT_TRUE(tile_options(4, 1).needs_dag());
}

}  // namespace
}  // namespace tlp
