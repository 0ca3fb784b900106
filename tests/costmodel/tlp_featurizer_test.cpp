// TLP's featurization: one row per step, the kind's one-hot then the layout's fields.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/tlp_featurizer.h"
#include "search/schedule.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

FeaturizerOptions opts(int seq_len, int emb_size, FeatureScaling scaling = FeatureScaling::Raw) {
  FeaturizerOptions o;
  o.seq_len = seq_len;
  o.emb_size = emb_size;
  o.scaling = scaling;
  return o;
}

std::vector<float> row(const std::vector<float> &m, int r, int emb) {
  return std::vector<float>(m.begin() + size_t(r) * emb, m.begin() + size_t(r + 1) * emb);
}

TEST(TlpFeaturizer, DefaultsAreThePapersCpuShape) {
  FeaturizerOptions o;
  EXPECT_EQ(o.seq_len, 25);
  EXPECT_EQ(o.emb_size, 22);
  EXPECT_EQ(o.scaling, FeatureScaling::Raw);
  EXPECT_EQ(featurize(Schedule{}, o).size(), 25u * 22u);
}

TEST(TlpFeaturizer, RawMatrixOfATwoStepSchedule) {
  const Schedule s = Schedule::from_text("SP(2,0,64,[4,8]); AN(2,3,vectorize)");
  const std::vector<float> m = featurize(s, opts(3, 20));
  ASSERT_EQ(m.size(), 60u);
  // Columns 0..11: one-hot of the kind (SP = 0, AN = 4); from column 12: the fields.
  const std::vector<float> sp = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 64, 4, 8, 0, 0, 0};
  const std::vector<float> an = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 3, 2, 0, 0, 0, 0, 0};
  const std::vector<float> pad(20, 0.0f);
  EXPECT_EQ(row(m, 0, 20), sp);
  EXPECT_EQ(row(m, 1, 20), an);  // vectorize = 2
  EXPECT_EQ(row(m, 2, 20), pad);
}

TEST(TlpFeaturizer, SplitTailsMarkASplitThatLeavesARemainderAndTheIterationsItAdds) {
  // 112 by [3,32]: 2 x 3 x 32 = 192 iterations, 80 more than 112; 64 by [4,8]
  // divides evenly; 256 by [30] runs 9 x 30 = 270. Other kinds get no tail values.
  const Schedule s = Schedule::from_text("SP(2,0,112,[3,32]); SP(2,2,64,[4,8]); SP(3,1,256,[30]); AN(2,3,vectorize)");
  FeaturizerOptions o = opts(4, 20);
  o.split_tails = true;
  const std::vector<float> m = featurize(s, o);
  const std::vector<float> uneven = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 112, 3, 32, 0, 1, 80.0f / 112.0f};
  const std::vector<float> even = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 64, 4, 8, 0, 0, 0};
  const std::vector<float> one = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 256, 30, 0, 0, 1, 14.0f / 256.0f};
  const std::vector<float> an = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 3, 2, 0, 0, 0, 0, 0};
  EXPECT_EQ(row(m, 0, 20), uneven);
  EXPECT_EQ(row(m, 1, 20), even);
  EXPECT_EQ(row(m, 2, 20), one);
  EXPECT_EQ(row(m, 3, 20), an);
  // A middle level that does not divide counts too: 64 by [6,4] has 4 | 64 but 24 does not.
  const std::vector<float> mid = featurize(Schedule::from_text("SP(2,0,64,[6,4])"), o);
  EXPECT_EQ(mid[18], 1.0f);
  EXPECT_FLOAT_EQ(mid[19], (3 * 24 - 64) / 64.0f);
  // A split whose fields reach the tail columns loses them to the tails.
  const std::vector<float> cut = featurize(Schedule::from_text("SP(2,0,64,[2,2,2,2])"), opts(1, 18));
  FeaturizerOptions narrow = opts(1, 18);
  narrow.split_tails = true;
  const std::vector<float> cut_tails = featurize(Schedule::from_text("SP(2,0,64,[2,2,2,2])"), narrow);
  EXPECT_EQ(cut[16], 2.0f);        // the second factor, without tails
  EXPECT_EQ(cut_tails[16], 0.0f);  // with them: the flag (64 divides evenly)
  EXPECT_EQ(cut_tails[15], 2.0f);  // the first factor is still there
  // Off, the rows are the paper's.
  EXPECT_EQ(row(featurize(s, opts(4, 20)), 0, 20)[18], 0.0f);
}

TEST(TlpFeaturizer, NamedLoopsGiveTheLoopEachAnnotateFuseAndComputeAtNames) {
  // C[i:64, j:48, k:32] += A[i, k] * B[k, j]: j splits into j.0 (6) and j.1
  // (8), k moves above j.1, i and j.0 fuse into one loop of 384 = 2^7 * 3 (twos
  // capped at 6), which runs in parallel, and j.1 (8 = 2^3) is vectorized.
  const ComputeDag dag = testing::matmul_dag();
  const Schedule s = Schedule::from_text(
      "SP(2,1,48,[8]); RE(2,[0,1,3,2]); FU(2,[0,1]); AN(2,0,parallel); AN(2,2,vectorize)");
  FeaturizerOptions o = opts(5, 20);
  o.named_loops = true;
  const std::vector<float> m = featurize(s, o, &dag);
  const auto last = [&](int r, int n) { return std::vector<float>(m.begin() + (r + 1) * 20 - n, m.begin() + (r + 1) * 20); };
  const std::vector<float> plain = featurize(s, opts(5, 20));
  EXPECT_EQ(row(m, 0, 20), row(plain, 0, 20));  // a split names no loop of its own
  EXPECT_EQ(row(m, 1, 20), row(plain, 1, 20));  // nor a reorder
  EXPECT_EQ(last(2, 2), (std::vector<float>{384, 6}));
  // An annotated loop: whether it walks the stage's contiguous dimension (j
  // does), how it walks the reads (i moves A along its rows: a gather, 64; j
  // walks B densely: 1), its extent and twos.
  EXPECT_EQ(last(3, 4), (std::vector<float>{1, 64, 384, 6}));
  EXPECT_EQ(last(4, 4), (std::vector<float>{1, 1, 8, 3}));
  // The rest of each row is the paper's.
  for (size_t i = 0; i < m.size(); ++i)
    if (i % 20 < 16) EXPECT_EQ(m[i], plain[i]) << "value " << i;

  // compute_at: C.local at C's i.0 (8 of i's 64) runs 8 times, each over 8 x 48 x 32.
  const std::vector<float> ca = featurize(Schedule::from_text("CHW(2,local); SP(3,0,64,[8]); CA(2,3,0)"), o, &dag);
  EXPECT_EQ(row(ca, 2, 20)[18], 8.0f);
  EXPECT_EQ(row(ca, 2, 20)[19], 8.0f * 48 * 32);

  // Log scaling scales the extents and steps, not the flag or the twos.
  FeaturizerOptions log_o = o;
  log_o.scaling = FeatureScaling::Log;
  const std::vector<float> lm = featurize(s, log_o, &dag);
  EXPECT_EQ(lm[3 * 20 + 16], 1.0f);
  EXPECT_FLOAT_EQ(lm[3 * 20 + 17], float(std::log2(65.0)));
  EXPECT_FLOAT_EQ(lm[3 * 20 + 18], float(std::log2(385.0)));
  EXPECT_EQ(lm[3 * 20 + 19], 6.0f);

  // The values come from replaying the schedule on the operator, which is required.
  EXPECT_TRUE(o.needs_dag());
  EXPECT_THROW(featurize(s, o), std::invalid_argument);
}

TEST(TlpFeaturizer, NamedLoopsTellAStridedReadAndAVectorizedOutputChannel) {
  // conv[n, f, y, x] reads pad[n, rc, y*2 + ry, x*2 + rx]: a stride-2 convolution.
  ComputeDag dag = testing::conv_dag();
  dag.stages[3].accesses[0].dims[2] = {{"y", 2}, {"ry", 1}};
  dag.stages[3].accesses[0].dims[3] = {{"x", 2}, {"rx", 1}};
  FeaturizerOptions o = opts(2, 20);
  o.named_loops = true;
  const auto vectorized = [&](const std::string &loop_order, int loop) {
    const std::vector<float> m = featurize(
        Schedule::from_text("RE(3," + loop_order + "); AN(3," + std::to_string(loop) + ",vectorize)"), o, &dag);
    return std::vector<float>(m.begin() + 36, m.begin() + 40);
  };
  // x: the output's contiguous dimension, every other input element, 16 = 2^4.
  EXPECT_EQ(vectorized("[0,1,2,4,5,6,3]", 6), (std::vector<float>{1, 2, 16, 4}));
  // f: output elements a plane apart, and weight[f, ...] read a filter apart (a gather).
  EXPECT_EQ(vectorized("[0,2,3,4,5,6,1]", 6), (std::vector<float>{0, 64, 16, 4}));
}

TEST(TlpFeaturizer, EveryKindSetsItsOwnOneHotColumn) {
  const Schedule s = Schedule::from_text(
      "SP(1,0,8,[2]); FSP(1,1,0,1); RE(1,[1,0]); FU(1,[0,1]); AN(1,0,parallel); CA(1,2,0); CI(1); CR(1); "
      "CHW(1,local); CHR(0,1,shared); RF(1,2,0); PR(1,0,16)");
  const int emb = 22;
  const std::vector<float> m = featurize(s, opts(12, emb));
  for (int r = 0; r < 12; ++r) {
    for (int k = 0; k < kNumStepKinds; ++k) EXPECT_EQ(m[r * emb + k], k == r ? 1.0f : 0.0f) << "row " << r << " col " << k;
    // Then exactly the step's numeric fields, then zeros.
    const std::vector<double> fields = step_numeric_fields(s.steps[r]);
    for (int c = kNumStepKinds; c < emb; ++c) {
      const size_t f = size_t(c - kNumStepKinds);
      EXPECT_EQ(m[r * emb + c], f < fields.size() ? float(fields[f]) : 0.0f) << "row " << r << " col " << c;
    }
  }
}

TEST(TlpFeaturizer, KeepsOnlyTheFirstSeqLenSteps) {
  const Schedule s = Schedule::from_text("CI(1); CR(2); PR(3,0,16); CI(4)");
  const std::vector<float> m = featurize(s, opts(2, 14));
  ASSERT_EQ(m.size(), 28u);
  std::vector<float> ci(14, 0.0f), cr(14, 0.0f);
  ci[6] = 1, ci[12] = 1;
  cr[7] = 1, cr[12] = 2;
  EXPECT_EQ(row(m, 0, 14), ci);
  EXPECT_EQ(row(m, 1, 14), cr);
}

TEST(TlpFeaturizer, CutsFieldsBeyondEmbSize) {
  const Schedule s = Schedule::from_text("SP(2,0,64,[4,8])");
  const std::vector<float> m = featurize(s, opts(1, 14));
  const std::vector<float> expected = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0};
  EXPECT_EQ(m, expected);
  // Even smaller than the one-hot: the one-hot itself is cut.
  const std::vector<float> tiny = featurize(Schedule::from_text("PR(3,0,16)"), opts(1, 5));
  EXPECT_EQ(tiny, std::vector<float>(5, 0.0f));
  EXPECT_EQ(featurize(Schedule::from_text("SP(2,0,64,[4])"), opts(1, 5)), (std::vector<float>{1, 0, 0, 0, 0}));
}

TEST(TlpFeaturizer, EmptyScheduleIsAllZeros) {
  EXPECT_EQ(featurize(Schedule{}, opts(4, 20)), std::vector<float>(80, 0.0f));
}

TEST(TlpFeaturizer, LogModeMapsValuesToSignedLog2) {
  const Schedule s = Schedule::from_text("SP(2,0,64,[4,8]); AN(2,3,vectorize)");
  const std::vector<float> m = featurize(s, opts(3, 20, FeatureScaling::Log));
  ASSERT_EQ(m.size(), 60u);
  auto lg = [](double x) { return float(std::copysign(std::log2(1.0 + std::fabs(x)), x)); };
  EXPECT_FLOAT_EQ(m[0], 1.0f);  // the one-hot is not scaled
  for (int c = 1; c < 12; ++c) EXPECT_EQ(m[c], 0.0f);
  EXPECT_FLOAT_EQ(m[12], lg(2));
  EXPECT_FLOAT_EQ(m[13], 0.0f);  // log2(1 + 0) = 0
  EXPECT_FLOAT_EQ(m[14], float(std::log2(65.0)));
  EXPECT_FLOAT_EQ(m[15], float(std::log2(5.0)));
  EXPECT_FLOAT_EQ(m[16], float(std::log2(9.0)));
  EXPECT_FLOAT_EQ(m[12], float(std::log2(3.0)));
  for (int c = 17; c < 20; ++c) EXPECT_EQ(m[c], 0.0f);
  EXPECT_FLOAT_EQ(m[20 + 4], 1.0f);
  EXPECT_FLOAT_EQ(m[20 + 12], float(std::log2(3.0)));
  EXPECT_FLOAT_EQ(m[20 + 13], float(std::log2(4.0)));
  EXPECT_FLOAT_EQ(m[20 + 14], float(std::log2(3.0)));
  for (int c = 40; c < 60; ++c) EXPECT_EQ(m[c], 0.0f);
}

TEST(TlpFeaturizer, LogModeAgreesWithRawModeElementwise) {
  const Schedule s = Schedule::from_text("SP(5,2,1024,[16,32]); PR(5,0,512); RE(5,[3,1,0,2])");
  const std::vector<float> raw = featurize(s, opts(4, 22));
  const std::vector<float> log = featurize(s, opts(4, 22, FeatureScaling::Log));
  ASSERT_EQ(raw.size(), log.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    const size_t col = i % 22;
    const float expected = col < size_t(kNumStepKinds) ? raw[i] : float(std::log2(1.0 + std::fabs(double(raw[i]))));
    EXPECT_FLOAT_EQ(log[i], expected) << "element " << i;
  }
}

TEST(TlpFeaturizer, ScalingNamesRoundTrip) {
  EXPECT_EQ(std::string(feature_scaling_name(FeatureScaling::Raw)), "raw");
  EXPECT_EQ(std::string(feature_scaling_name(FeatureScaling::Log)), "log");
  for (FeatureScaling s : {FeatureScaling::Raw, FeatureScaling::Log})
    EXPECT_EQ(feature_scaling_from_name(feature_scaling_name(s)), s);
}

TEST(TlpFeaturizer, UnknownScalingNameThrows) {
  EXPECT_THROW(feature_scaling_from_name("linear"), std::invalid_argument);
  EXPECT_THROW(feature_scaling_from_name(""), std::invalid_argument);
  EXPECT_THROW(feature_scaling_from_name("Raw"), std::invalid_argument);
  try {
    feature_scaling_from_name("linear");
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("linear"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tlp
