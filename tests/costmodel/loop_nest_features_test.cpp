// Loop-nest rows: the improved featurization's rows for the loops a schedule
// builds, and how the featurizer places them after the step rows.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/loop_nest_features.h"
#include "costmodel/tlp_featurizer.h"
#include "costmodel_fixtures.h"
#include "search/loop_state.h"
#include "search/schedule.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

constexpr int kEmb = kNumStepKinds + kLoopRowValues;

float lg(double x) { return float(std::log2(1.0 + x)); }

// Row r of an emb-wide matrix, without the (all-zero) one-hot part.
std::vector<float> values(const std::vector<float> &m, int r, int emb = kEmb) {
  return std::vector<float>(m.begin() + size_t(r) * emb + kNumStepKinds, m.begin() + size_t(r + 1) * emb);
}

std::vector<float> nest_of(const ComputeDag &dag, const std::string &schedule, int rows) {
  const LoopState state = LoopState::replay(dag, Schedule::from_text(schedule));
  std::vector<float> m(size_t(rows) * kEmb, 0.0f);
  write_loop_nest_rows(state, rows, kEmb, m.data());
  return m;
}

TEST(LoopNestFeatures, ExactRowsOfATiledVectorizedMatmul) {
  // C[i:64, j:48, k:32] becomes i (parallel), j.0 (6), k (32), j.1 (8, vectorized).
  const std::vector<float> m =
      nest_of(testing::matmul_dag(), "SP(2,1,48,[8]); RE(2,[0,1,3,2]); AN(2,0,parallel); AN(2,3,vectorize)", 5);
  // marker, log extent, reduce, parallel, vectorize, unroll, block, thread, contiguous,
  // log trips, log inside, depth, attached, local, cache read, rfactor, output,
  // log auto-unroll, shared, local scope, first loop, inlined producers
  const std::vector<float> i = {1, lg(64), 0, 1, 0, 0, 0, 0, 0, lg(64), lg(6 * 32 * 8), 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0};
  const std::vector<float> j0 = {1, lg(6), 0, 0, 0, 0, 0, 0, 1, lg(64 * 6), lg(32 * 8), 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  const std::vector<float> k = {1, lg(32), 1, 0, 0, 0, 0, 0, 0, lg(64 * 6 * 32), lg(8), 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  const std::vector<float> j1 = {1, lg(8), 0, 0, 1, 0, 0, 0, 1, lg(64 * 48 * 32), lg(1), 3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  EXPECT_EQ(values(m, 0), i);
  EXPECT_EQ(values(m, 1), j0);
  EXPECT_EQ(values(m, 2), k);
  EXPECT_EQ(values(m, 3), j1);
  EXPECT_EQ(values(m, 4), std::vector<float>(kLoopRowValues, 0.0f));  // no fifth loop
}

TEST(LoopNestFeatures, AStageComputedAtALoopFollowsThatLoopsRow) {
  // C.local is computed at C's i.0: its three loops come right after that row.
  const std::vector<float> m = nest_of(testing::matmul_dag(), "CHW(2,local); SP(3,0,64,[8]); CA(2,3,0)", 6);
  const int kMarker = 0, kLogExtent = 1, kLogTrips = 9, kAttached = 12, kLocal = 13, kOutput = 16, kFirst = 20;
  const std::vector<float> outer = values(m, 0), local_i = values(m, 1), local_k = values(m, 3), inner = values(m, 4);
  EXPECT_EQ(outer[kAttached], 1.0f);
  EXPECT_EQ(outer[kOutput], 1.0f);
  EXPECT_EQ(local_i[kLocal], 1.0f);
  EXPECT_EQ(local_i[kFirst], 1.0f);
  EXPECT_EQ(local_i[kOutput], 0.0f);
  EXPECT_EQ(local_i[kLogExtent], lg(8));  // bounded to the tile of i.0
  EXPECT_EQ(local_k[kLogTrips], lg(8 * 8 * 48 * 32));  // the outer trips of i.0 count
  EXPECT_EQ(inner[kLocal], 0.0f);          // back in C: i.1, then j
  EXPECT_EQ(inner[kLogExtent], lg(8));
  EXPECT_EQ(values(m, 5)[kMarker], 1.0f);
  EXPECT_EQ(values(m, 5)[kLogExtent], lg(48));
}

TEST(LoopNestFeatures, InlinedProducersAreCountedThroughInlinedStages) {
  // dense_add_relu: dense (reduction) -> add -> relu; inlining add puts it (and
  // nothing else) into relu's loops.
  const ComputeDag dag = testing::dense_add_relu_dag();
  const LoopState state = LoopState::replay(dag, Schedule::from_text("CI(4)"));
  std::vector<float> m(size_t(8) * kEmb, 0.0f);
  const int n = write_loop_nest_rows(state, 8, kEmb, m.data());
  // dense's three loops, then relu's two; add is inlined and has no rows.
  ASSERT_EQ(n, 5);
  const int kInlined = 21;
  EXPECT_EQ(values(m, 0)[kInlined], 0.0f);
  EXPECT_EQ(values(m, 3)[kInlined], 1.0f);
  EXPECT_EQ(values(m, 4)[kInlined], 1.0f);
}

TEST(LoopNestFeatures, RowsAreCroppedToTheCount) {
  const std::vector<float> m = nest_of(testing::matmul_dag(), "SP(2,1,48,[8])", 2);
  EXPECT_EQ(m.size(), size_t(2 * kEmb));
  EXPECT_EQ(values(m, 1)[1], lg(6));  // i, j.0; j.1 and k did not fit
}

FeaturizerOptions nest_options(int seq_len, int nest_rows) {
  return testing::featurizer_with_rows(seq_len, kEmb, 0, nest_rows);
}

TEST(LoopNestFeatures, FeaturizerPutsStepsFirstAndTheNestInTheLastRows) {
  const ComputeDag dag = testing::matmul_dag();
  const Schedule s = Schedule::from_text("SP(2,1,48,[8]); AN(2,0,parallel)");
  const std::vector<float> m = featurize(s, nest_options(5, 3), &dag);
  ASSERT_EQ(m.size(), size_t(5 * kEmb));
  EXPECT_EQ(m[0 * kEmb + int(StepKind::SP)], 1.0f);  // row 0: the split
  EXPECT_EQ(m[1 * kEmb + int(StepKind::AN)], 1.0f);  // row 1: the annotation
  EXPECT_EQ(values(m, 2)[0], 1.0f);  // rows 2..4: the nest, i first (parallel), then j.0 and j.1
  EXPECT_EQ(values(m, 2)[3], 1.0f);
  EXPECT_EQ(values(m, 3)[1], lg(6));
  EXPECT_EQ(values(m, 4)[1], lg(8));
  for (int k = 0; k < kNumStepKinds; ++k) EXPECT_EQ(m[2 * kEmb + k], 0.0f) << "a nest row has no step kind";
}

TEST(LoopNestFeatures, StepsBeyondTheirRowsAreCroppedNotWrittenOverTheNest) {
  const ComputeDag dag = testing::matmul_dag();
  const Schedule s = Schedule::from_text("SP(2,1,48,[8]); AN(2,0,parallel); AN(2,2,vectorize)");
  const std::vector<float> m = featurize(s, nest_options(3, 2), &dag);  // one step row
  EXPECT_EQ(m[0 * kEmb + int(StepKind::SP)], 1.0f);
  EXPECT_EQ(m[1 * kEmb + int(StepKind::AN)], 0.0f);
  EXPECT_EQ(values(m, 1)[0], 1.0f);
}

TEST(LoopNestFeatures, AScheduleOfAnotherSpaceGetsEmptyNestRows) {
  const ComputeDag dag = testing::matmul_dag();
  const std::vector<float> m = featurize(Schedule::from_text("SP(7,0,64,[8])"), nest_options(4, 2), &dag);
  EXPECT_EQ(m[int(StepKind::SP)], 1.0f);
  for (int r = 2; r < 4; ++r) EXPECT_EQ(values(m, r), std::vector<float>(kLoopRowValues, 0.0f));
}

TEST(LoopNestFeatures, NestRowsWithoutTheOperatorAreRefused) {
  EXPECT_THROW(featurize(Schedule{}, nest_options(4, 2)), std::invalid_argument);
  const DagLookup none = [](const std::string &) { return nullptr; };
  try {
    dag_for_features(nest_options(4, 2), none, "matmul:M=1,N=1,K=1");
    FAIL() << "no DAG, no features";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("matmul:M=1,N=1,K=1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dag_for_features(FeaturizerOptions{}, none, "x"), nullptr);  // the paper's mode needs none
}

TEST(LoopNestFeatures, NestRowsMustLeaveRowsForTheSteps) {
  EXPECT_NO_THROW(check_featurizer_options(nest_options(4, 3)));
  EXPECT_THROW(check_featurizer_options(nest_options(4, 4)), std::invalid_argument);
  EXPECT_THROW(check_featurizer_options(nest_options(4, -1)), std::invalid_argument);
}

}  // namespace
}  // namespace tlp
