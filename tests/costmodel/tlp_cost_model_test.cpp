// TLP behind the search's CostModel interface: predicting from a model file,
// refusing another platform's, learning online from measurements.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/model_file.h"
#include "costmodel/tlp_cost_model.h"
#include "costmodel_fixtures.h"
#include "search/cost_model.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

using testing::featurizer_for;
using testing::pairwise_accuracy;
using testing::small_config;
using testing::synthetic_cost;
using testing::synthetic_schedule;

std::string temp_path(const std::string &name) {
  return ::testing::TempDir() + "tlp_cost_model_test_" + std::to_string(getpid()) + "_" + name;
}

std::vector<Schedule> schedules(size_t n, uint64_t seed, std::vector<double> *costs = nullptr) {
  std::mt19937_64 rng(seed);
  std::vector<Schedule> out;
  for (size_t i = 0; i < n; ++i) {
    int inner = 1;
    out.push_back(synthetic_schedule(rng, &inner));
    if (costs) costs->push_back(1e-3 * synthetic_cost(inner));
  }
  return out;
}

TEST(TlpCostModel, PredictsFromAModelFileLikeTheNetworkItHolds) {
  const TlpNetworkConfig c = small_config();
  TlpNetwork net(c, 4);
  TlpModelInfo info;
  info.network = c;
  info.featurizer = featurizer_for(c);
  info.platform = "cpu/test";
  const std::string path = temp_path("predict");
  save_tlp_model(path, net, info);

  std::unique_ptr<CostModel> model = make_tlp_cost_model(path, "cpu/test");
  const std::vector<Schedule> s = schedules(50, 1);
  const std::vector<float> got = model->predict("synth:0", s);
  std::vector<float> features;
  for (const Schedule &x : s) {
    const std::vector<float> m = featurize(x, info.featurizer);
    features.insert(features.end(), m.begin(), m.end());
  }
  EXPECT_EQ(got, net.predict(features));
  EXPECT_EQ(model->name(), "tlp-attention");
  EXPECT_TRUE(model->predict("synth:0", {}).empty());
  std::remove(path.c_str());
}

TEST(TlpCostModel, ATileRowsModelScoresWithTheTasksOperatorAndRefusesWithoutOne) {
  const TlpNetworkConfig c = small_config(TlpArch::Attention, 8, 34);
  TlpModelInfo info;
  info.network = c;
  info.featurizer = featurizer_for(c);
  info.featurizer.tile_rows = 4;
  info.platform = "cpu/test";
  TlpNetwork net(c, 5);
  const ComputeDag dag = testing::matmul_dag();
  const std::vector<Schedule> s = {Schedule::from_text("SP(2,1,48,[8]); AN(2,0,parallel)"),
                                   Schedule::from_text("SP(2,1,48,[16]); AN(2,0,parallel)")};
  std::vector<std::string> asked;
  TlpCostModelOptions options;
  options.dags = [&](const std::string &key) -> const ComputeDag * {
    asked.push_back(key);
    return key == "matmul:test" ? &dag : nullptr;
  };
  TlpCostModel model(TlpNetwork(net.config(), 5), info, options);
  const std::vector<float> got = model.predict("matmul:test", s);
  EXPECT_EQ(got, net.predict(featurize_all(s, info.featurizer, &dag)));
  EXPECT_EQ(asked, std::vector<std::string>{"matmul:test"});
  // The two schedules differ only in a split factor; the loop rows differ too.
  EXPECT_NE(featurize(s[0], info.featurizer, &dag), featurize(s[1], info.featurizer, &dag));
  EXPECT_THROW(model.predict("conv:unknown", s), std::invalid_argument);
  TlpCostModel blind(TlpNetwork(net.config(), 5), info, TlpCostModelOptions{});
  EXPECT_THROW(blind.predict("matmul:test", s), std::invalid_argument);
}

TEST(TlpCostModel, ModelFileForAnotherPlatformIsRefused) {
  const TlpNetworkConfig c = small_config();
  TlpModelInfo info;
  info.network = c;
  info.featurizer = featurizer_for(c);
  info.platform = "cpu/other";
  const std::string path = temp_path("platform");
  save_tlp_model(path, TlpNetwork(c, 1), info);
  EXPECT_THROW(make_tlp_cost_model(path, "cpu/test"), ModelFileError);
  std::remove(path.c_str());
}

TlpCostModelOptions quick_updates(int epochs) {
  TlpCostModelOptions o;
  o.max_update_records = 0;  // every record, unless a test caps it
  o.update.epochs = epochs;
  o.update.batch = 64;
  o.update.lr = 3e-3;
  o.update.threads = 1;
  return o;
}

TEST(TlpCostModel, UntrainedModelLearnsFromUpdates) {
  const TlpNetworkConfig c = small_config();
  auto model = make_untrained_tlp_cost_model(c, featurizer_for(c), "cpu/test", quick_updates(6), 2);
  std::vector<double> held_costs;
  const std::vector<Schedule> held_out = schedules(60, 1000, &held_costs);  // never measured
  const double before = pairwise_accuracy(held_costs, model->predict("synth:9", held_out));

  // Three rounds of 64 measurements on two tasks, as a tuning run would send them.
  for (int round = 0; round < 3; ++round) {
    for (int task = 0; task < 2; ++task) {
      std::vector<double> costs;
      const std::vector<Schedule> s = schedules(64, uint64_t(10 * round + task), &costs);
      for (double &x : costs) x *= double(task + 1);
      model->update("synth:" + std::to_string(task), s, costs);
    }
  }
  EXPECT_EQ(model->num_records(), 3u * 2u * 64u);
  EXPECT_EQ(model->last_update().train_records, 3u * 2u * 64u) << "trains on every record seen so far";
  EXPECT_EQ(model->last_update().history.size(), 6u);
  const double after = pairwise_accuracy(held_costs, model->predict("synth:9", held_out));
  EXPECT_GT(after, 0.8) << "before " << before << ", after " << after;
  EXPECT_GT(after, before + 0.15) << "before " << before << ", after " << after;
}

TEST(TlpCostModel, ABatchWithNothingToRankIsSkippedNotAnError) {
  // 65 records in batches of 64: the last batch holds one record, a group with no
  // pair to rank. Its loss has no gradient; a tuning run once died of it.
  const TlpNetworkConfig c = small_config();
  auto model = make_untrained_tlp_cost_model(c, featurizer_for(c), "cpu/test", quick_updates(2));
  std::vector<double> costs;
  const std::vector<Schedule> s = schedules(65, 21, &costs);
  EXPECT_NO_THROW(model->update("t", s, costs));
  EXPECT_EQ(model->last_update().train_records, 65u);
}

TEST(TlpCostModel, FailedMeasurementsAreKeptOutOfTraining) {
  const TlpNetworkConfig c = small_config();
  auto model = make_untrained_tlp_cost_model(c, featurizer_for(c), "cpu/test", quick_updates(1));
  std::vector<double> costs;
  const std::vector<Schedule> s = schedules(10, 3, &costs);
  costs[2] = std::numeric_limits<double>::infinity();
  costs[5] = std::numeric_limits<double>::quiet_NaN();
  costs[7] = 0.0;
  model->update("synth:0", s, costs);
  EXPECT_EQ(model->num_records(), 7u);
  EXPECT_EQ(model->last_update().train_records, 7u);
  // A round where everything failed trains on what was there before.
  model->update("synth:1", schedules(3, 4), std::vector<double>(3, std::numeric_limits<double>::infinity()));
  EXPECT_EQ(model->num_records(), 7u);
}

TEST(TlpCostModel, WithoutUpdateEpochsTheModelNeverChanges) {
  const TlpNetworkConfig c = small_config();
  auto model = make_untrained_tlp_cost_model(c, featurizer_for(c), "cpu/test", quick_updates(0));
  const std::vector<Schedule> probe = schedules(20, 5);
  const std::vector<float> before = model->predict("t", probe);
  std::vector<double> costs;
  const std::vector<Schedule> s = schedules(30, 6, &costs);
  model->update("t", s, costs);
  EXPECT_EQ(model->predict("t", probe), before);
  EXPECT_EQ(model->num_records(), 30u);
}

TEST(TlpCostModel, UpdateSampleKeepsTheNewestHalfAndDrawsTheRestFromOlderRecords) {
  const std::vector<uint64_t> all = detail::update_sample(30, 50, 1);
  ASSERT_EQ(all.size(), 30u) << "under the cap every record trains";
  EXPECT_EQ(detail::update_sample(30, 0, 1).size(), 30u) << "0 means no cap";

  const std::vector<uint64_t> s = detail::update_sample(1000, 100, 7);
  ASSERT_EQ(s.size(), 100u);
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(std::set<uint64_t>(s.begin(), s.end()).size(), 100u) << "no record twice";
  for (uint64_t a = 950; a < 1000; ++a) EXPECT_TRUE(std::binary_search(s.begin(), s.end(), a)) << a;
  EXPECT_EQ(std::count_if(s.begin(), s.end(), [](uint64_t a) { return a < 950; }), 50);
  EXPECT_EQ(detail::update_sample(1000, 100, 7), s) << "the same seed draws the same sample";
  EXPECT_NE(detail::update_sample(1000, 100, 8), s) << "the next update draws other older records";
}

TEST(TlpCostModel, CappedUpdatesTrainOnTheCapOnly) {
  const TlpNetworkConfig c = small_config();
  TlpCostModelOptions o = quick_updates(1);
  o.max_update_records = 50;
  auto model = make_untrained_tlp_cost_model(c, featurizer_for(c), "cpu/test", o);
  for (int round = 0; round < 3; ++round) {
    std::vector<double> costs;
    const std::vector<Schedule> s = schedules(40, uint64_t(round), &costs);
    model->update("t" + std::to_string(round % 2), s, costs);
  }
  EXPECT_EQ(model->num_records(), 120u);
  EXPECT_EQ(model->last_update().train_records, 50u);
}

TEST(TlpCostModel, SavedAfterUpdatesLoadsWithTheSamePredictions) {
  const TlpNetworkConfig c = small_config(TlpArch::Lstm);
  auto model = make_untrained_tlp_cost_model(c, featurizer_for(c), "cpu/test", quick_updates(2));
  std::vector<double> costs;
  const std::vector<Schedule> s = schedules(40, 8, &costs);
  model->update("t", s, costs);
  const std::string path = temp_path("saved");
  model->save(path);
  auto again = make_tlp_cost_model(path, "cpu/test");
  const std::vector<Schedule> probe = schedules(25, 9);
  EXPECT_EQ(again->predict("t", probe), model->predict("t", probe));
  EXPECT_EQ(again->info().training.records, 40);
  EXPECT_EQ(again->name(), "tlp-lstm");
  std::remove(path.c_str());
}

TEST(TlpCostModel, MismatchedUpdateIsRefused) {
  const TlpNetworkConfig c = small_config();
  auto model = make_untrained_tlp_cost_model(c, featurizer_for(c), "cpu/test", quick_updates(1));
  EXPECT_THROW(model->update("t", schedules(3, 1), {1.0, 2.0}), std::invalid_argument);
  FeaturizerOptions wrong = featurizer_for(c);
  wrong.seq_len = 7;
  EXPECT_THROW(make_untrained_tlp_cost_model(c, wrong, "cpu/test"), std::invalid_argument);
}

}  // namespace
}  // namespace tlp
