// make_cost_model: the --model spec, including ensembles joined by '+'.
#include "tuner/cost_model_factory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "search/ensemble_cost_model.h"
#include "search/schedule.h"
#include "tests/temp_dir.h"

namespace tlp {
namespace {

const std::string kShipped = std::string(TLP_SOURCE_DIR) + "/models/tlp-cpu-avx2.tlpm";

TEST(CostModelFactory, ModelFilesJoinedByPlusRankAsOneEnsemble) {
  const auto m = make_cost_model(kShipped + "+" + kShipped, "", 1);
  auto *e = dynamic_cast<EnsembleCostModel *>(m.get());
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->size(), 2u);
  EXPECT_EQ(m->name(), "ensemble of 2 tlp-attention");
}

TEST(CostModelFactory, AnEnsembleOfTwoCopiesScoresTheStandardizedScoresOfOne) {
  const auto one = make_cost_model(kShipped, "", 1);
  const auto two = make_cost_model(kShipped + "+" + kShipped, "", 1);
  const std::vector<Schedule> schedules = {
      Schedule::from_text("CHW(2,local); SP(3,1,512,[4,16]); SP(3,0,512,[8,8]); AN(3,0,parallel)"),
      Schedule::from_text("CHW(2,local); SP(3,1,512,[64,8]); SP(3,0,512,[1,2]); AN(3,0,parallel)"),
      Schedule::from_text("SP(2,1,512,[8]); AN(2,2,vectorize)")};
  const std::string task = "matmul:M=512,N=512,K=512";
  const std::vector<float> single = one->predict(task, schedules), ensemble = two->predict(task, schedules);
  std::vector<double> z(single.size(), 0.0);
  add_standardized(single, z);
  ASSERT_EQ(ensemble.size(), z.size());
  for (size_t i = 0; i < z.size(); ++i) EXPECT_NEAR(ensemble[i], z[i], 1e-4) << i;
}

// The message of the error of type E that `spec` is refused with ("accepted" when none).
template <class E>
std::string refusal(const std::string &spec) {
  try {
    make_cost_model(spec, "", 1);
  } catch (const E &e) {
    return e.what();
  }
  return "accepted";
}

TEST(CostModelFactory, AnEnsembleWithAnEmptyMemberIsRefusedWithAnExample) {
  const std::string why = refusal<std::runtime_error>(kShipped + "+");
  EXPECT_NE(why.find("a.tlpm+b.tlpm"), std::string::npos) << why;
}

TEST(CostModelFactory, AMissingMemberFileIsNamed) {
  const std::string why = refusal<std::exception>(kShipped + "+/no/such/model.tlpm");
  EXPECT_NE(why.find("/no/such/model.tlpm"), std::string::npos) << why;
}

TEST(CostModelFactory, AModelFileWithAPlusInItsNameIsOneModel) {
  testing::TempDir d;
  const std::string plus = d / "wide+tuned.tlpm";
  std::filesystem::copy_file(kShipped, plus);
  EXPECT_EQ(make_cost_model(plus, "", 1)->name(), "tlp-attention");
}

TEST(CostModelFactory, RandomNeedsNoFileAloneOrInAnEnsemble) {
  EXPECT_EQ(make_cost_model("random", "", 1)->name(), "random");
  EXPECT_EQ(make_cost_model("random+random", "", 1)->name(), "ensemble of 2 random");
}

}  // namespace
}  // namespace tlp
