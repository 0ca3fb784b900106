// Training: a tiny run learns a synthetic ranking on held-out workloads; the
// best validation weights are kept; history, early stopping and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_trainer.h"
#include "costmodel/topk_score.h"
#include "costmodel_fixtures.h"

namespace tlp {
namespace {

using testing::featurizer_for;
using testing::pairwise_accuracy;
using testing::small_config;
using testing::synthetic_records;

// Mean pairwise accuracy over the tasks.
double ranking_quality(TlpNetwork &net, const std::vector<TlpTask> &tasks) {
  double sum = 0;
  for (const TlpTask &t : tasks) sum += pairwise_accuracy(t.costs, net.predict(t.features));
  return sum / double(tasks.size());
}

struct Synthetic {
  TlpNetworkConfig config;
  FeaturizerOptions featurizer;
  DatasetSplit split;
};

Synthetic synthetic_dataset(TlpArch arch = TlpArch::Attention, int workloads = 40, int per_task = 24) {
  Synthetic s;
  s.config = small_config(arch);
  s.featurizer = featurizer_for(s.config);
  SplitOptions o;
  o.val_fraction = 0.25;
  o.seed = 1;
  s.split = make_tlp_dataset(synthetic_records(workloads, per_task, 99), o, s.featurizer).split;
  return s;
}

TrainOptions quick_options(const Synthetic &s, TlpLoss loss, int epochs) {
  TrainOptions o;
  o.arch = s.config.arch;
  o.loss = loss;
  o.epochs = epochs;
  o.batch = 96;
  o.lr = 3e-3;
  o.featurizer = s.featurizer;
  o.seed = 7;
  o.threads = 1;
  return o;
}

TEST(TlpTraining, LambdaRankLearnsASyntheticRankingOnHeldOutWorkloads) {
  Synthetic s = synthetic_dataset();
  ASSERT_EQ(s.split.val.size(), 10u);
  TlpNetwork net(s.config, 7);
  const double before = ranking_quality(net, s.split.val);
  const double top1_before = topk_score(predict_tasks(net, s.split.val), 1);

  std::vector<EpochReport> seen;
  TrainOptions o = quick_options(s, TlpLoss::Rank, 12);
  o.on_epoch = [&](const EpochReport &r) { seen.push_back(r); };
  const TrainResult r = train_tlp(net, s.split.train, s.split.val, o);

  const double after = ranking_quality(net, s.split.val);
  const double top1_after = topk_score(predict_tasks(net, s.split.val), 1);
  EXPECT_GT(after, 0.85) << "validation pairwise accuracy before " << before << ", after " << after;
  EXPECT_GT(after, before + 0.2) << "before " << before << ", after " << after;
  EXPECT_GT(top1_after, 0.9) << "top-1 before " << top1_before << ", after " << top1_after;
  EXPECT_GE(top1_after, top1_before);

  // One report per epoch, through the callback and in the result.
  ASSERT_EQ(r.history.size(), 12u);
  ASSERT_EQ(seen.size(), 12u);
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].epoch, int(i) + 1);
    EXPECT_TRUE(std::isfinite(seen[i].train_loss));
    EXPECT_TRUE(std::isfinite(seen[i].val_loss));
    EXPECT_GE(seen[i].seconds, 0.0);
  }
  EXPECT_LT(r.history.back().train_loss, r.history.front().train_loss);
  EXPECT_EQ(r.train_records, 30u * 24u);
  EXPECT_EQ(r.val_records, 10u * 24u);
  EXPECT_GT(r.wall_seconds, 0.0);
  EXPECT_FALSE(r.stopped_early);
}

TEST(TlpTraining, KeepsTheWeightsWithTheBestValidationLoss) {
  Synthetic s = synthetic_dataset(TlpArch::Attention, 20, 16);
  TlpNetwork net(s.config, 3);
  TrainOptions o = quick_options(s, TlpLoss::Rank, 6);
  o.lr = 2e-2;  // large steps: the validation loss goes up and down
  const TrainResult r = train_tlp(net, s.split.train, s.split.val, o);
  double best = r.history[0].val_loss;
  int best_epoch = 1;
  for (const EpochReport &e : r.history)
    if (e.val_loss < best) best = e.val_loss, best_epoch = e.epoch;
  EXPECT_EQ(r.best_epoch, best_epoch);
  EXPECT_DOUBLE_EQ(r.best_val_loss, best);
  EXPECT_TRUE(r.history[size_t(best_epoch - 1)].best);
  // The network now holds that epoch's weights.
  EXPECT_NEAR(evaluate_loss(net, s.split.val, TlpLoss::Rank, o.batch), best, 1e-5 * std::max(1.0, best));
}

// Trains a fresh network with a learning rate of 0 (the weights never move)
// under `averaging`, and expects it to score as before (up to rounding).
TrainResult expect_frozen_training_keeps_scores(const std::function<void(TrainOptions &)> &averaging) {
  Synthetic s = synthetic_dataset(TlpArch::Attention, 12, 8);
  TlpNetwork net(s.config, 3);
  const std::vector<float> before = net.predict(s.split.val[0].features);
  TrainOptions o = quick_options(s, TlpLoss::Rank, 4);
  o.lr = 0.0;
  averaging(o);
  const TrainResult r = train_tlp(net, s.split.train, s.split.val, o);
  const std::vector<float> after = net.predict(s.split.val[0].features);
  EXPECT_EQ(after.size(), before.size());
  for (size_t i = 0; i < std::min(after.size(), before.size()); ++i)
    EXPECT_NEAR(after[i], before[i], 1e-5 * std::max(1.0f, std::fabs(before[i])));
  return r;
}

TEST(TlpTraining, AMovingAverageIsWhatValidationJudgesAndIsKeptWhileTrainingStepsStayTheSame) {
  Synthetic s = synthetic_dataset(TlpArch::Attention, 20, 16);
  TlpNetwork plain(s.config, 3), averaged(s.config, 3);
  TrainOptions o = quick_options(s, TlpLoss::Rank, 5);
  o.lr = 2e-2;
  const TrainResult p = train_tlp(plain, s.split.train, s.split.val, o);
  o.ema_epochs = 2;
  const TrainResult a = train_tlp(averaged, s.split.train, s.split.val, o);
  ASSERT_EQ(p.history.size(), a.history.size());
  bool judged_differently = false;
  for (size_t i = 0; i < p.history.size(); ++i) {
    // The live weights train exactly as without the average: it is swapped in
    // for validation and swapped back out.
    EXPECT_DOUBLE_EQ(a.history[i].train_loss, p.history[i].train_loss) << "epoch " << i + 1;
    judged_differently |= a.history[i].val_loss != p.history[i].val_loss;
  }
  EXPECT_TRUE(judged_differently);
  // The network holds the average of the best epoch, the weights judged.
  EXPECT_NEAR(evaluate_loss(averaged, s.split.val, TlpLoss::Rank, o.batch), a.best_val_loss,
              1e-5 * std::max(1.0, a.best_val_loss));
}

TEST(TlpTraining, AMovingAverageOfUnchangedWeightsIsThoseWeights) {
  expect_frozen_training_keeps_scores([](TrainOptions &o) { o.ema_epochs = 1; });
}

TEST(TlpTraining, WithoutValidationDataTheMovingAverageIsKept) {
  Synthetic s = synthetic_dataset(TlpArch::Attention, 8, 8);
  TlpNetwork last(s.config, 3), averaged(s.config, 3);
  TrainOptions o = quick_options(s, TlpLoss::Rank, 3);
  o.lr = 1e-2;
  o.batch = 16;  // several steps an epoch, for the average to span
  train_tlp(last, s.split.train, {}, o);
  o.ema_epochs = 2;
  train_tlp(averaged, s.split.train, {}, o);
  EXPECT_NE(last.predict(s.split.train[0].features), averaged.predict(s.split.train[0].features));
}

TEST(TlpTraining, StopsEarlyWhenValidationStopsImproving) {
  Synthetic s = synthetic_dataset(TlpArch::Attention, 12, 8);
  TlpNetwork net(s.config, 3);
  TrainOptions o = quick_options(s, TlpLoss::Rank, 20);
  o.lr = 0.0;  // nothing changes, so nothing improves after epoch 1
  o.patience = 2;
  const TrainResult r = train_tlp(net, s.split.train, s.split.val, o);
  EXPECT_TRUE(r.stopped_early);
  EXPECT_EQ(r.history.size(), 3u);
  EXPECT_EQ(r.best_epoch, 1);
}

TEST(TlpTraining, MseLossTrainsToo) {
  Synthetic s = synthetic_dataset(TlpArch::Attention, 20, 16);
  TlpNetwork net(s.config, 3);
  const double before = evaluate_loss(net, s.split.val, TlpLoss::Mse);
  const TrainResult r = train_tlp(net, s.split.train, s.split.val, quick_options(s, TlpLoss::Mse, 6));
  EXPECT_LT(r.best_val_loss, before);
  EXPECT_LT(evaluate_loss(net, s.split.val, TlpLoss::Mse), before);
}

class ArchTrainingTest : public ::testing::TestWithParam<TlpArch> {};

// Every architecture trains, and after training our fast forward still equals
// LibTorch's (it rebuilds its copy of the weights).
TEST_P(ArchTrainingTest, TrainsAndTheFastForwardFollowsTheNewWeights) {
  Synthetic s = synthetic_dataset(GetParam(), 12, 12);
  TlpNetwork net(s.config, 5);
  const std::vector<float> before = net.predict(s.split.val[0].features);
  const TrainResult r = train_tlp(net, s.split.train, s.split.val, quick_options(s, TlpLoss::Rank, 2));
  ASSERT_EQ(r.history.size(), 2u);
  EXPECT_TRUE(std::isfinite(r.history.back().train_loss));
  InferenceOptions fast, torch;
  torch.path = InferencePath::Torch;
  const std::vector<float> f = net.predict(s.split.val[0].features, fast);
  const std::vector<float> t = net.predict(s.split.val[0].features, torch);
  EXPECT_NE(f, before);
  ASSERT_EQ(f.size(), t.size());
  for (size_t i = 0; i < f.size(); ++i) EXPECT_NEAR(f[i], t[i], 1e-4 * std::max(1.0f, std::fabs(t[i])));
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, ArchTrainingTest,
                         ::testing::Values(TlpArch::Attention, TlpArch::Lstm, TlpArch::Transformer),
                         [](const ::testing::TestParamInfo<TlpArch> &i) { return std::string(tlp_arch_name(i.param)); });

TEST(TlpTraining, WithoutValidationDataTheLastEpochIsKept) {
  Synthetic s = synthetic_dataset(TlpArch::Attention, 8, 8);
  TlpNetwork net(s.config, 3);
  const TrainResult r = train_tlp(net, s.split.train, {}, quick_options(s, TlpLoss::Rank, 3));
  EXPECT_EQ(r.best_epoch, 3);
  EXPECT_TRUE(std::isnan(r.history[0].val_loss));
}

TEST(TlpTraining, RefusesNoDataAndMismatchedFeatures) {
  Synthetic s = synthetic_dataset(TlpArch::Attention, 8, 8);
  TlpNetwork net(s.config, 3);
  const TrainOptions o = quick_options(s, TlpLoss::Rank, 1);
  EXPECT_THROW(train_tlp(net, {}, s.split.val, o), std::invalid_argument);
  TrainOptions other = o;
  other.featurizer.seq_len = 9;
  EXPECT_THROW(train_tlp(net, s.split.train, {}, other), std::invalid_argument);
  std::vector<TlpTask> unfeaturized = s.split.train;
  unfeaturized[0].features.clear();
  EXPECT_THROW(train_tlp(net, unfeaturized, {}, o), std::invalid_argument);
}

TEST(TlpTraining, LossNamesRoundTrip) {
  EXPECT_EQ(tlp_loss_from_name("rank"), TlpLoss::Rank);
  EXPECT_EQ(tlp_loss_from_name(tlp_loss_name(TlpLoss::Mse)), TlpLoss::Mse);
  EXPECT_THROW(tlp_loss_from_name("hinge"), std::invalid_argument);
}

}  // namespace
}  // namespace tlp
