// Workload rows: the improved featurization's rows that describe the operator,
// and how the featurizer places them before the step rows.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "costmodel/tlp_featurizer.h"
#include "costmodel/workload_features.h"
#include "costmodel_fixtures.h"
#include "search/schedule.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

constexpr int kEmb = kNumStepKinds + kWorkloadRowValues;

float lg(double x) { return float(std::log2(1.0 + x)); }

std::vector<float> values(const std::vector<float> &m, int r) {
  return std::vector<float>(m.begin() + size_t(r) * kEmb + kNumStepKinds, m.begin() + size_t(r + 1) * kEmb);
}

std::vector<float> rows_of(const ComputeDag &dag, int rows, int *written = nullptr) {
  std::vector<float> m(size_t(rows) * kEmb, 0.0f);
  const int n = write_workload_rows(dag, rows, kEmb, m.data());
  if (written) *written = n;
  return m;
}

// The fixture's convolution with stride 2: input row y*2 + ry, column x*2 + rx.
ComputeDag strided_conv_dag() {
  ComputeDag d = testing::conv_dag();
  d.stages[3].accesses[0].dims[2] = {{"y", 2}, {"ry", 1}};
  d.stages[3].accesses[0].dims[3] = {{"x", 2}, {"rx", 1}};
  return d;
}

TEST(WorkloadFeatures, ExactRowOfAMatmul) {
  int written = 0;
  const std::vector<float> m = rows_of(testing::matmul_dag(), 2, &written);
  EXPECT_EQ(written, 1) << "one computed stage; the inputs get no row";
  // marker, DAG index, output, points 64*48, reduction 32, innermost j 48,
  // largest stride 1, B[k,j] steps by 1 along j, 2 producers, 64*32 + 32*48 points read
  const std::vector<float> want = {2, 2, 1, lg(64 * 48), lg(32), lg(48), 1, 1, 2, lg(64 * 32 + 32 * 48)};
  EXPECT_EQ(values(m, 0), want);
  EXPECT_EQ(values(m, 1), std::vector<float>(kWorkloadRowValues, 0.0f));
  for (int k = 0; k < kNumStepKinds; ++k) EXPECT_EQ(m[size_t(k)], 0.0f) << "a workload row has no step kind";
}

TEST(WorkloadFeatures, StrideOfAConvolutionIsStated) {
  const std::vector<float> plain = rows_of(testing::conv_dag(), 2);
  const std::vector<float> strided = rows_of(strided_conv_dag(), 2);
  // Row 1 is the conv (row 0 the pad). Fields 6 and 7: largest stride, and how far
  // the innermost output column x moves along the input's contiguous dimension.
  EXPECT_EQ(values(plain, 1)[6], 1.0f);
  EXPECT_EQ(values(plain, 1)[7], 1.0f);
  EXPECT_EQ(values(strided, 1)[6], 2.0f);
  EXPECT_EQ(values(strided, 1)[7], 2.0f);
  EXPECT_EQ(values(plain, 0), values(strided, 0)) << "the pad stage reads its input the same way";
}

TEST(WorkloadFeatures, RowsAreCroppedToTheCount) {
  int written = 0;
  const std::vector<float> m = rows_of(testing::softmax_dag(), 2, &written);
  EXPECT_EQ(written, 2);  // max and sum; out is left out
  EXPECT_EQ(values(m, 0)[1], 1.0f);
  EXPECT_EQ(values(m, 1)[1], 2.0f);
}

FeaturizerOptions workload_options(int seq_len, int workload_rows, int nest_rows = 0) {
  return testing::featurizer_with_rows(seq_len, kEmb, workload_rows, nest_rows);
}

TEST(WorkloadFeatures, FeaturizerPutsTheOperatorFirstThenTheSteps) {
  const ComputeDag dag = testing::matmul_dag();
  const Schedule s = Schedule::from_text("SP(2,1,48,[8]); AN(2,0,parallel)");
  const std::vector<float> m = featurize(s, workload_options(4, 1), &dag);
  ASSERT_EQ(m.size(), size_t(4 * kEmb));
  EXPECT_EQ(values(m, 0)[0], 2.0f);                  // row 0: the operator
  EXPECT_EQ(m[1 * kEmb + int(StepKind::SP)], 1.0f);  // rows 1, 2: the steps
  EXPECT_EQ(m[2 * kEmb + int(StepKind::AN)], 1.0f);
  EXPECT_EQ(values(m, 3), std::vector<float>(kWorkloadRowValues, 0.0f));  // padding
}

TEST(WorkloadFeatures, StepsAreCroppedBetweenTheOperatorAndTheNest) {
  const ComputeDag dag = testing::matmul_dag();
  const Schedule s = Schedule::from_text("SP(2,1,48,[8]); AN(2,0,parallel); AN(2,2,vectorize)");
  const std::vector<float> m = featurize(s, workload_options(4, 1, 2), &dag);  // one step row
  EXPECT_EQ(values(m, 0)[0], 2.0f);
  EXPECT_EQ(m[1 * kEmb + int(StepKind::SP)], 1.0f);
  EXPECT_EQ(values(m, 2)[0], 1.0f) << "rows 2, 3: the loop nest";
}

TEST(WorkloadFeatures, WorkloadRowsNeedTheOperatorAndRowsForTheSteps) {
  EXPECT_TRUE(workload_options(4, 1).needs_dag());
  EXPECT_THROW(featurize(Schedule{}, workload_options(4, 1)), std::invalid_argument);
  EXPECT_NO_THROW(check_featurizer_options(workload_options(4, 3)));
  EXPECT_THROW(check_featurizer_options(workload_options(4, 4)), std::invalid_argument);
  EXPECT_THROW(check_featurizer_options(workload_options(4, 2, 2)), std::invalid_argument);
  EXPECT_THROW(check_featurizer_options(workload_options(4, -1)), std::invalid_argument);
}

}  // namespace
}  // namespace tlp
