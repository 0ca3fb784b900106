// The top-k score (TenSet's definition) on hand-computed examples.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "costmodel/topk_score.h"

namespace tlp {
namespace {

TopkTask task(std::vector<double> latencies, std::vector<float> predictions, double weight = 1.0,
              std::string group = "") {
  TopkTask t;
  t.latencies = std::move(latencies);
  t.predictions = std::move(predictions);
  t.weight = weight;
  t.group = std::move(group);
  return t;
}

TEST(TopkScore, OneTaskRankedByPrediction) {
  // Predicted order: record 0 (3 ms), record 2 (2 ms), record 1 (1 ms, the best).
  const std::vector<TopkTask> t = {task({3, 1, 2}, {0.9f, 0.1f, 0.5f})};
  EXPECT_DOUBLE_EQ(topk_score(t, 1), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(topk_score(t, 2), 1.0 / 2.0);
  EXPECT_DOUBLE_EQ(topk_score(t, 3), 1.0);
}

TEST(TopkScore, PerfectPredictionScoresOne) {
  const std::vector<TopkTask> t = {task({5, 1, 2, 9}, {0.0f, 3.0f, 2.0f, -1.0f})};
  EXPECT_DOUBLE_EQ(topk_score(t, 1), 1.0);
  EXPECT_DOUBLE_EQ(topk_score(t, 5), 1.0);
}

TEST(TopkScore, KLargerThanTheTaskTakesAllItsRecords) {
  const std::vector<TopkTask> t = {task({3, 1, 2}, {0.9f, 0.1f, 0.5f})};
  EXPECT_DOUBLE_EQ(topk_score(t, 5), 1.0);
  EXPECT_DOUBLE_EQ(topk_score(t, 1000), 1.0);
}

TEST(TopkScore, TaskWeightsWeighTheLatencies) {
  // A (weight 2): top-1 is 3 ms, best 1 ms. B (weight 1): top-1 is 10 ms, the best.
  const std::vector<TopkTask> t = {task({3, 1, 2}, {0.9f, 0.1f, 0.5f}, 2.0), task({10, 20}, {1.0f, 0.0f}, 1.0)};
  // (2*1 + 1*10) / (2*3 + 1*10)
  EXPECT_DOUBLE_EQ(topk_score(t, 1), 12.0 / 16.0);
  // top-2: A's best of {3, 2} = 2; B's best of both = 10: (2 + 10) / (4 + 10)
  EXPECT_DOUBLE_EQ(topk_score(t, 2), 12.0 / 14.0);
  // A weight of zero leaves only B.
  const std::vector<TopkTask> u = {task({3, 1, 2}, {0.9f, 0.1f, 0.5f}, 0.0), task({10, 20}, {1.0f, 0.0f}, 1.0)};
  EXPECT_DOUBLE_EQ(topk_score(u, 1), 1.0);
}

TEST(TopkScore, LatenciesInSecondsAreComparedAcrossTasksByWeightNotByCount) {
  // The score is a ratio of weighted sums, not a mean of per-task ratios: a slow
  // task counts more.
  const std::vector<TopkTask> t = {task({1e-3, 2e-3}, {0.0f, 1.0f}), task({1.0, 4.0}, {1.0f, 0.0f})};
  EXPECT_DOUBLE_EQ(topk_score(t, 1), (1e-3 + 1.0) / (2e-3 + 1.0));
}

TEST(TopkScore, TiesInPredictionGoToTheEarlierRecord) {
  const std::vector<TopkTask> t = {task({4, 1, 2}, {0.5f, 0.5f, 0.5f})};
  EXPECT_DOUBLE_EQ(topk_score(t, 1), 1.0 / 4.0);
  EXPECT_DOUBLE_EQ(topk_score(t, 2), 1.0);
}

TEST(TopkScore, NanPredictionsRankLast) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<TopkTask> t = {task({1, 2, 3}, {nan, 0.0f, 1.0f})};
  EXPECT_DOUBLE_EQ(topk_score(t, 1), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(topk_score(t, 2), 1.0 / 2.0);
}

TEST(TopkScore, RankingOrderPutsTheBestPredictedFirstTiesInRecordOrderAndNanLast) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const TopkTask t = task({5, 4, 3, 2, 1}, {0.5f, nan, 2.0f, 0.5f, -1.0f});
  EXPECT_EQ(ranking_order(t), std::vector<size_t>({2, 0, 3, 4, 1}));
  EXPECT_DOUBLE_EQ(latency_at_k(t, 1), 3.0);
  EXPECT_DOUBLE_EQ(latency_at_k(t, 4), 1.0);  // record 4, ranked fourth
  EXPECT_DOUBLE_EQ(latency_at_k(t, 9), 1.0);
}

TEST(TopkScore, EmptyTasksAreIgnored) {
  EXPECT_DOUBLE_EQ(topk_score({}, 1), 0.0);
  const std::vector<TopkTask> t = {task({}, {}), task({2, 1}, {1.0f, 0.0f})};
  EXPECT_DOUBLE_EQ(topk_score(t, 1), 0.5);
}

TEST(TopkScore, GroupedScoresUseEachGroupsTasksOnly) {
  const std::vector<TopkTask> t = {task({3, 1, 2}, {0.9f, 0.1f, 0.5f}, 2.0, "resnet"),
                                   task({10, 20}, {1.0f, 0.0f}, 1.0, "bert"),
                                   task({2, 1}, {1.0f, 0.0f}, 1.0, "bert")};
  const auto top1 = topk_score_by_group(t, 1);
  ASSERT_EQ(top1.size(), 2u);
  EXPECT_DOUBLE_EQ(top1.at("resnet"), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(top1.at("bert"), 11.0 / 12.0);
  const TopkReport r = topk_report(t);
  EXPECT_DOUBLE_EQ(r.top1, (2.0 + 10.0 + 1.0) / (6.0 + 10.0 + 2.0));
  EXPECT_DOUBLE_EQ(r.top5, 1.0);
  EXPECT_DOUBLE_EQ(r.top1_by_group.at("bert"), 11.0 / 12.0);
  EXPECT_DOUBLE_EQ(r.top5_by_group.at("resnet"), 1.0);
}

TEST(TopkScore, InvalidInputsAreRefused) {
  const std::vector<TopkTask> ok = {task({1, 2}, {0.0f, 1.0f})};
  EXPECT_THROW(topk_score(ok, 0), std::invalid_argument);
  EXPECT_THROW(topk_score({task({1, 2}, {0.0f})}, 1), std::invalid_argument);
  EXPECT_THROW(topk_score({task({1, std::numeric_limits<double>::infinity()}, {0.0f, 1.0f})}, 1),
               std::invalid_argument);
  EXPECT_THROW(topk_score({task({1, 0}, {0.0f, 1.0f})}, 1), std::invalid_argument);
  EXPECT_THROW(topk_score({task({1, 2}, {0.0f, 1.0f}, -1.0)}, 1), std::invalid_argument);
}

TopkTask ranked(std::vector<float> predictions) {
  TopkTask t;
  t.latencies = {1.0, 2.0, 3.0};
  t.predictions = std::move(predictions);
  return t;
}

TEST(TopkScore, AnEnsembleSumsEachModelsStandardizedPredictions) {
  // Model a: mean 5, sd sqrt(50/3); model b: mean 5/3, sd sqrt(26/9). By hand:
  // a's z = (-1.2247, 1.2247, 0), b's z = (1.3728, -0.9806, -0.3922).
  const std::vector<TopkTask> e = ensemble_predictions({{ranked({0, 10, 5})}, {ranked({4, 0, 1})}});
  ASSERT_EQ(e.size(), 1u);
  ASSERT_EQ(e[0].predictions.size(), 3u);
  EXPECT_NEAR(e[0].predictions[0], 0.1481, 1e-3);
  EXPECT_NEAR(e[0].predictions[1], 0.2441, 1e-3);
  EXPECT_NEAR(e[0].predictions[2], -0.3922, 1e-3);
  EXPECT_EQ(e[0].latencies, std::vector<double>({1.0, 2.0, 3.0}));
  // A model's scale and offset do not matter.
  const std::vector<TopkTask> scaled = ensemble_predictions({{ranked({7, 10007, 5007})}, {ranked({4, 0, 1})}});
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(scaled[0].predictions[i], e[0].predictions[i], 1e-4);
}

TEST(TopkScore, AnEnsembleOfOneModelIsThatModel) {
  const std::vector<TopkTask> one = ensemble_predictions({{ranked({0.5f, 0.25f, 2.0f})}});
  EXPECT_EQ(one[0].predictions, std::vector<float>({0.5f, 0.25f, 2.0f}));
}

TEST(TopkScore, AnEnsembleOfModelsThatRankedDifferentTasksIsRefused) {
  EXPECT_THROW(ensemble_predictions({}), std::invalid_argument);
  EXPECT_THROW(ensemble_predictions({{ranked({0, 1, 2})}, {ranked({0, 1, 2}), ranked({0, 1, 2})}}), std::invalid_argument);
  TopkTask short_task = ranked({0, 1});
  short_task.latencies = {1.0, 2.0};
  EXPECT_THROW(ensemble_predictions({{ranked({0, 1, 2})}, {short_task}}), std::invalid_argument);
}

}  // namespace
}  // namespace tlp
