// EnsembleCostModel: members' scores standardized and averaged; every member learns.
#include "search/ensemble_cost_model.h"

#include <gtest/gtest.h>

namespace tlp {
namespace {

// A member that returns fixed scores and counts the records it was given.
class FixedModel : public CostModel {
 public:
  explicit FixedModel(std::vector<float> scores, size_t *updates = nullptr) : scores_(std::move(scores)), updates_(updates) {}
  std::vector<float> predict(const std::string &, const std::vector<Schedule> &) override { return scores_; }
  void update(const std::string &, const std::vector<Schedule> &s, const std::vector<double> &) override {
    if (updates_) *updates_ += s.size();
  }
  std::string name() const override { return "fixed"; }

 private:
  std::vector<float> scores_;
  size_t *updates_;
};

// A member that answers each call with the next of its prepared score lists.
class ScriptedModel : public CostModel {
 public:
  explicit ScriptedModel(std::vector<std::vector<float>> calls) : calls_(std::move(calls)) {}
  std::vector<float> predict(const std::string &, const std::vector<Schedule> &) override { return calls_.at(next_++); }
  void update(const std::string &, const std::vector<Schedule> &, const std::vector<double> &) override {}
  std::string name() const override { return "scripted"; }

 private:
  std::vector<std::vector<float>> calls_;
  size_t next_ = 0;
};

std::vector<std::unique_ptr<CostModel>> members(std::vector<std::vector<float>> scores) {
  std::vector<std::unique_ptr<CostModel>> out;
  for (auto &s : scores) out.push_back(std::make_unique<FixedModel>(std::move(s)));
  return out;
}

TEST(EnsembleCostModel, AveragesEachMembersStandardizedScores) {
  // Member 1: 0, 10, 5 -> z = -1.2247, 1.2247, 0. Member 2 (another scale): 4, 0, 1
  // -> mean 5/3, sd 1.6997 -> z = 1.3728, -0.9806, -0.3922.
  EnsembleCostModel e(members({{0, 10, 5}, {4000, 0, 1000}}));
  const std::vector<float> s = e.predict("task", std::vector<Schedule>(3));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s[0], (-1.224745 + 1.372813) / 2, 1e-4);
  EXPECT_NEAR(s[1], (1.224745 - 0.980581) / 2, 1e-4);
  EXPECT_NEAR(s[2], (0.0 - 0.392232) / 2, 1e-4);
  EXPECT_EQ(e.name(), "ensemble of 2 fixed");
}

TEST(EnsembleCostModel, AMemberScaledOrShiftedRanksTheSame) {
  EnsembleCostModel a(members({{1, 3, 2}, {2, 1, 3}}));
  EnsembleCostModel b(members({{1000, 3000, 2000}, {-8, -9, -7}}));
  const std::vector<Schedule> three(3);
  const std::vector<float> sa = a.predict("t", three), sb = b.predict("t", three);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(sa[i], sb[i], 1e-5);
}

TEST(EnsembleCostModel, AConstantMemberAddsNothing) {
  EnsembleCostModel e(members({{1, 3, 2}, {7, 7, 7}}));
  const std::vector<float> s = e.predict("t", std::vector<Schedule>(3));
  EXPECT_LT(s[0], s[2]);
  EXPECT_LT(s[2], s[1]);
  EXPECT_NEAR(s[0] + s[1] + s[2], 0.0, 1e-5);
}

TEST(EnsembleCostModel, ATasksScoresCompareAcrossCallsUntilTheNextUpdate) {
  std::vector<std::unique_ptr<CostModel>> m;
  // Member 1 scores three schedules 0, 10, 5, then one of them 10 again alone, then after an update 100, 200.
  m.push_back(std::make_unique<ScriptedModel>(std::vector<std::vector<float>>{{0, 10, 5}, {10}, {100, 200}}));
  m.push_back(std::make_unique<ScriptedModel>(std::vector<std::vector<float>>{{1, 3, 2}, {3}, {7, 8}}));
  EnsembleCostModel e(std::move(m));
  const std::vector<float> first = e.predict("t", std::vector<Schedule>(3));
  const std::vector<float> again = e.predict("t", std::vector<Schedule>(1));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_NEAR(again[0], first[1], 1e-5) << "the same scores in a later call must rank the same";
  e.update("t", std::vector<Schedule>(1), {1e-3});
  const std::vector<float> after = e.predict("t", std::vector<Schedule>(2));
  EXPECT_NEAR(after[0], -1.0, 1e-5) << "an update restandardizes: the members may have moved";
  EXPECT_NEAR(after[1], 1.0, 1e-5);
}

TEST(EnsembleCostModel, OneMemberIsThatModel) {
  EnsembleCostModel e(members({{0.5f, 0.25f, 2.0f}}));
  EXPECT_EQ(e.predict("t", std::vector<Schedule>(3)), (std::vector<float>{0.5f, 0.25f, 2.0f}));
  EXPECT_EQ(e.name(), "fixed");
}

TEST(EnsembleCostModel, EveryMemberLearnsFromEachUpdate) {
  size_t first = 0, second = 0;
  std::vector<std::unique_ptr<CostModel>> m;
  m.push_back(std::make_unique<FixedModel>(std::vector<float>{}, &first));
  m.push_back(std::make_unique<FixedModel>(std::vector<float>{}, &second));
  EnsembleCostModel e(std::move(m));
  e.update("t", std::vector<Schedule>(4), std::vector<double>(4, 1e-3));
  EXPECT_EQ(first, 4u);
  EXPECT_EQ(second, 4u);
}

TEST(EnsembleCostModel, AMemberWithTheWrongNumberOfScoresIsAnError) {
  EnsembleCostModel e(members({{1, 2, 3}, {1, 2}}));
  EXPECT_THROW(e.predict("t", std::vector<Schedule>(3)), std::logic_error);
}

TEST(EnsembleCostModel, NoMembersOrANullMemberIsRefused) {
  EXPECT_THROW(EnsembleCostModel({}), std::invalid_argument);
  std::vector<std::unique_ptr<CostModel>> m;
  m.push_back(nullptr);
  EXPECT_THROW(EnsembleCostModel(std::move(m)), std::invalid_argument);
}

}  // namespace
}  // namespace tlp
