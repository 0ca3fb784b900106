// The models that ship in models/ (the AVX2 default, its paper-wide twin and the
// AVX-512 model) load, and
// score real schedules with finite, not all equal, numbers: a corrupt or stale
// file fails here, not in a user's run.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "costmodel/tlp_cost_model.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

class ShippedModel : public ::testing::TestWithParam<const char *> {};

TEST_P(ShippedModel, LoadsAndScoresSchedulesWithFiniteDistinctScores) {
  // The operator, for a model whose features replay the schedule on it (tune gets it from Halide).
  const ComputeDag dag = testing::matmul_dag(512, 512, 512);
  TlpCostModelOptions options;
  options.dags = [&dag](const std::string &) { return &dag; };
  auto model = make_tlp_cost_model(GetParam(), "", options);
  EXPECT_EQ(model->info().network.seq_len, model->info().featurizer.seq_len);
  const std::vector<Schedule> schedules = {
      Schedule::from_text("CHW(2,local); SP(3,1,512,[4,16]); SP(3,0,512,[8,8]); AN(3,0,parallel)"),
      Schedule::from_text("CHW(2,local); SP(3,1,512,[64,8]); SP(3,0,512,[1,2]); AN(3,0,parallel)"),
      Schedule::from_text("SP(2,1,512,[8]); AN(2,2,vectorize)")};
  const auto scores = model->predict("matmul:M=512,N=512,K=512", schedules);
  ASSERT_EQ(scores.size(), schedules.size());
  std::set<float> distinct;
  for (float s : scores) {
    EXPECT_TRUE(std::isfinite(s));
    distinct.insert(s);
  }
  EXPECT_GT(distinct.size(), 1u) << "every schedule scored the same: the weights look untrained";
}

std::string shipped_model_label(const ::testing::TestParamInfo<const char *> &i) {
  static const char *const kLabels[] = {"Default", "PaperWidth", "Avx512"};
  return kLabels[i.index];
}

INSTANTIATE_TEST_SUITE_P(Models, ShippedModel,
                         ::testing::Values(TLP_SHIPPED_MODEL, TLP_SHIPPED_WIDE_MODEL, TLP_SHIPPED_AVX512_MODEL),
                         shipped_model_label);

// The default is the width train builds by default; the other is the paper's.
TEST(ShippedModel, TheDefaultHasTrainsDefaultWidthAndTheOtherThePapersForTheSamePlatform) {
  auto narrow = make_tlp_cost_model(TLP_SHIPPED_MODEL, "");
  auto wide = make_tlp_cost_model(TLP_SHIPPED_WIDE_MODEL, "");
  EXPECT_EQ(narrow->info().network.hidden, TlpNetworkConfig{}.hidden);
  EXPECT_EQ(wide->info().network.hidden, 256);
  EXPECT_EQ(narrow->info().platform, wide->info().platform);
  EXPECT_EQ(narrow->info().featurizer.seq_len, wide->info().featurizer.seq_len);
}

// tune picks the AVX-512 model by the target's features (tuner/shipped_model.h), so
// it must have been trained on an AVX-512 platform, at the default width.
TEST(ShippedModel, TheAvx512ModelWasTrainedOnAnAvx512PlatformAtTheDefaultWidth) {
  auto avx512 = make_tlp_cost_model(TLP_SHIPPED_AVX512_MODEL, "");
  auto avx2 = make_tlp_cost_model(TLP_SHIPPED_MODEL, "");
  EXPECT_NE(avx512->info().platform.find("avx512"), std::string::npos) << avx512->info().platform;
  EXPECT_EQ(avx2->info().platform.find("avx512"), std::string::npos) << avx2->info().platform;
  EXPECT_EQ(avx512->info().network.hidden, TlpNetworkConfig{}.hidden);
}

// The AVX-512 recipe marks split tails, names loops and adds tile rows (README:
// "Named loops", "Tile rows"); tune featurizes with the model's own settings, so
// they must travel in the file.
TEST(ShippedModel, TheAvx512ModelMarksSplitTailsNamesLoopsAndHasTileRows) {
  const FeaturizerOptions f = make_tlp_cost_model(TLP_SHIPPED_AVX512_MODEL, "")->info().featurizer;
  EXPECT_TRUE(f.split_tails);
  EXPECT_TRUE(f.named_loops);
  EXPECT_EQ(f.tile_rows, 8);
  EXPECT_EQ(f.seq_len, 33);
}

}  // namespace
}  // namespace tlp
