// TLP's featurization: one row per step, the kind's one-hot then the layout's fields.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/tlp_featurizer.h"
#include "search/schedule.h"

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
