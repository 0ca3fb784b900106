// The model that ships in models/ loads, and scores real schedules with finite,
// not all equal, numbers: a corrupt or stale file fails here, not in a user's run.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "costmodel/tlp_cost_model.h"

namespace tlp {
namespace {

TEST(ShippedModel, LoadsAndScoresSchedulesWithFiniteDistinctScores) {
  auto model = make_tlp_cost_model(TLP_SHIPPED_MODEL, "");
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

}  // namespace
}  // namespace tlp
