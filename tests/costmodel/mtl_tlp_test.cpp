// MTL-TLP: labels per platform with missing ones truly ignored, the target
// platform's small share, one head per platform (selection, model files), and a
// tiny joint training run in which each head learns its own platform's ranking.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

#include "costmodel/lambda_rank.h"
#include "costmodel/model_file.h"
#include "costmodel/mtl_dataset.h"
#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_trainer.h"
#include "costmodel_fixtures.h"
#include "tests/temp_dir.h"

namespace tlp {
namespace {

using testing::featurizer_for;
using testing::make_record;
using testing::pairwise_accuracy;
using testing::small_config;
using testing::synthetic_schedule;

// ---------------------------------------------------------------- the loss

TEST(MtlLoss, RecordWithoutALabelIsIgnoredNotTreatedAsLabelZero) {
  // 4 records x 2 heads; record 3 has no label on head 0, record 0 none on head 1.
  const std::vector<double> scores = {0.3, 9.0, -0.2, 0.5, 1.1, 0.1, 2.0, -1.0};
  const std::vector<double> labels = {1.0, 0.0, 0.4, 0.9, 0.7, 1.0, 0.0, 0.5};
  const std::vector<bool> labeled = {true, false, true, true, true, true, false, true};
  const LossAndGradient mtl = multi_head_rank_loss_and_gradient(scores, labels, labeled, 2);

  // The same as each head's LambdaRank over its labeled records alone.
  const LossAndGradient head0 = lambda_rank_loss_and_gradient({0.3, -0.2, 1.1}, {1.0, 0.4, 0.7});
  const LossAndGradient head1 = lambda_rank_loss_and_gradient({0.5, 0.1, -1.0}, {0.9, 1.0, 0.5});
  EXPECT_NEAR(mtl.loss, head0.loss + head1.loss, 1e-12);
  const std::vector<double> want = {head0.gradient[0], 0.0, head0.gradient[1], head1.gradient[0],
                                    head0.gradient[2], head1.gradient[1], 0.0, head1.gradient[2]};
  ASSERT_EQ(mtl.gradient.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(mtl.gradient[i], want[i], 1e-12) << "entry " << i;
  EXPECT_NE(head0.gradient[0], 0.0);

  // Reading the missing labels as 0 would give another loss.
  const LossAndGradient as_zero = multi_head_rank_loss_and_gradient(scores, labels, std::vector<bool>(8, true), 2);
  EXPECT_GT(std::fabs(as_zero.loss - mtl.loss), 1e-3);
}

TEST(MtlLoss, HeadWithFewerThanTwoLabelsAddsNothing) {
  const std::vector<double> scores = {0.3, 1.0, -0.2, 2.0};
  const std::vector<double> labels = {1.0, 0.2, 0.4, 0.0};
  const LossAndGradient one_label = multi_head_rank_loss_and_gradient(scores, labels, {true, true, true, false}, 2);
  const LossAndGradient head0 = lambda_rank_loss_and_gradient({0.3, -0.2}, {1.0, 0.4});
  EXPECT_NEAR(one_label.loss, head0.loss, 1e-12);
  EXPECT_EQ(one_label.gradient[1], 0.0);
  EXPECT_EQ(one_label.gradient[3], 0.0);
  const LossAndGradient none = multi_head_rank_loss_and_gradient(scores, labels, {false, false, false, false}, 2);
  EXPECT_EQ(none.loss, 0.0);
  EXPECT_EQ(none.gradient, std::vector<double>(4, 0.0));
  EXPECT_THROW(multi_head_rank_loss_and_gradient(scores, labels, {true, true, true}, 2), std::invalid_argument);
}

// ---------------------------------------------------------------- the data

Schedule split_schedule(int inner) {
  return Schedule::from_text("SP(2,0,64,[2," + std::to_string(inner) + "])");
}

TEST(MtlDataset, MergesPlatformsBySchedulesWithLabelsOnlyWhereMeasured) {
  std::vector<MeasureRecord> r = {
      make_record("w", "A", split_schedule(1), 4.0), make_record("w", "A", split_schedule(2), 2.0),
      make_record("w", "A", split_schedule(4), 1.0), make_record("w", "B", split_schedule(2), 3.0),
      make_record("w", "B", split_schedule(4), 6.0), make_record("w", "B", split_schedule(8), 3.0),
      make_record("w", "C", split_schedule(1), 1.0), make_record("w", "C", split_schedule(16), 1.0)};
  const std::vector<MtlTask> tasks = merge_platform_tasks(build_tasks(r), {"B", "A"});
  ASSERT_EQ(tasks.size(), 1u);
  const MtlTask &t = tasks[0];
  EXPECT_EQ(t.platforms, 2u);
  ASSERT_EQ(t.size(), 4u) << "platform C's schedules are not part of it";
  std::map<std::string, size_t> row;
  for (size_t i = 0; i < t.size(); ++i) row[t.schedules[i].to_text()] = i;
  auto label = [&](int inner, int head) { return t.labels[row.at(split_schedule(inner).to_text()) * 2 + size_t(head)]; };
  auto has = [&](int inner, int head) { return t.labeled[row.at(split_schedule(inner).to_text()) * 2 + size_t(head)]; };
  // Head 0 is B (min cost 3), head 1 is A (min cost 1).
  EXPECT_FLOAT_EQ(label(2, 0), 1.0f);
  EXPECT_FLOAT_EQ(label(4, 0), 0.5f);
  EXPECT_FLOAT_EQ(label(8, 0), 1.0f);
  EXPECT_FALSE(has(1, 0));
  EXPECT_FLOAT_EQ(label(1, 1), 0.25f);
  EXPECT_FLOAT_EQ(label(2, 1), 0.5f);
  EXPECT_FLOAT_EQ(label(4, 1), 1.0f);
  EXPECT_FALSE(has(8, 1));
  EXPECT_EQ(t.labels_of(0), 3u);
  EXPECT_EQ(t.labels_of(1), 3u);
}

TEST(MtlDataset, TargetShareKeepsAFewRecordsPerWorkloadAndAllOfHeldOutOnes) {
  std::vector<MeasureRecord> r;
  for (const std::string w : {"w1", "w2", "held-out"})
    for (int i = 0; i < 40; ++i) {
      r.push_back(make_record(w, "target", split_schedule(1 + i), 1.0 + i));
      r.push_back(make_record(w, "source", split_schedule(1 + i), 2.0 + i));
    }
  r.push_back(make_record("w1", "target", split_schedule(99), 1.0, MeasureError::RuntimeError));
  const auto kept = keep_platform_share(r, "target", 0.07, 5, {"held-out"});
  std::map<std::pair<std::string, std::string>, int> n;
  for (const auto &x : kept) n[{x.workload_key, x.platform}] += x.ok();
  EXPECT_EQ((n[{"w1", "target"}]), 3) << "ceil(0.07 x 40)";
  EXPECT_EQ((n[{"w2", "target"}]), 3);
  EXPECT_EQ((n[{"held-out", "target"}]), 40);
  EXPECT_EQ((n[{"w1", "source"}]), 40);
  // The same seed picks the same records; another seed others.
  const auto again = keep_platform_share(r, "target", 0.07, 5, {"held-out"});
  ASSERT_EQ(again.size(), kept.size());
  for (size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(again[i].schedule.to_text(), kept[i].schedule.to_text());
  // A tiny share still leaves two records to rank.
  for (const auto &x : keep_platform_share(r, "target", 0.001, 5))
    if (x.platform == "target" && x.ok()) ++n[{x.workload_key, "tiny"}];
  EXPECT_EQ((n[{"w1", "tiny"}]), 2);
  EXPECT_THROW(keep_platform_share(r, "target", 0.0, 5), std::invalid_argument);
  EXPECT_THROW(keep_platform_share(r, "target", 1.5, 5), std::invalid_argument);
}

// ---------------------------------------------------------------- heads

TEST(MtlNetwork, SingleHeadCarriesTheSharedWeightsAndThatHeadsDecoder) {
  TlpNetworkConfig c = small_config();
  c.output_heads = 3;
  TlpNetwork net(c, 11);
  const std::vector<float> x = testing::random_features(c, 20, 3);
  const std::vector<float> multi = net.predict(x);
  TlpNetwork h0 = net.single_head(0), h2 = net.single_head(2);
  EXPECT_EQ(h0.config().output_heads, 1);
  const std::vector<float> s0 = h0.predict(x), s2 = h2.predict(x);
  ASSERT_EQ(s0.size(), multi.size());
  for (size_t i = 0; i < s0.size(); ++i) EXPECT_NEAR(s0[i], multi[i], 1e-5) << "a multi-head network scores with head 0";
  double differ = 0;
  for (size_t i = 0; i < s0.size(); ++i) differ += std::fabs(s0[i] - s2[i]);
  EXPECT_GT(differ, 1e-3) << "head 2 has its own decoder";
  EXPECT_THROW(net.single_head(3), std::out_of_range);
  EXPECT_GT(net.num_parameters(), h0.num_parameters());
}

TEST(MtlModelFile, RecordsItsPlatformsAndLoadsTheHeadOfThePlatformNamed) {
  testing::TempDir d;
  TlpNetworkConfig c = small_config();
  c.output_heads = 2;
  TlpNetwork net(c, 5);
  TlpModelInfo info;
  info.network = c;
  info.featurizer = featurizer_for(c);
  info.platform = "cpu/x/sse41";
  info.platforms = {"cpu/x/sse41", "cpu/x/avx2"};
  const std::string path = d / "mtl.tlpm";
  save_tlp_model(path, net, info);

  EXPECT_EQ(read_tlp_model_info(path).platforms, info.platforms);
  const std::vector<float> x = testing::random_features(c, 8, 4);
  LoadedTlpModel avx2 = load_tlp_model(path, "cpu/x/avx2");
  EXPECT_EQ(avx2.info.platform, "cpu/x/avx2");
  EXPECT_EQ(avx2.network.config().output_heads, 1);
  const std::vector<float> want = net.single_head(1).predict(x), got = avx2.network.predict(x);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]);

  try {
    load_tlp_model(path, "cpu/y/neon");
    FAIL() << "an unknown platform was accepted";
  } catch (const ModelFileError &e) {
    EXPECT_NE(std::string(e.what()).find("no head for platform 'cpu/y/neon'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cpu/x/avx2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_tlp_model(path), ModelFileError) << "an MTL model needs a platform";

  info.platforms = {"only-one"};  // heads and platforms must agree
  EXPECT_THROW(save_tlp_model(d / "bad.tlpm", net, info), ModelFileError);
}

// ---------------------------------------------------------------- training

// Two platforms that disagree: A is fastest at inner = 16, B at inner = 2.
std::vector<MeasureRecord> two_platform_records(int workloads, int per_task, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<MeasureRecord> out;
  for (int w = 0; w < workloads; ++w)
    for (int i = 0; i < per_task; ++i) {
      int inner = 1;
      const Schedule s = synthetic_schedule(rng, &inner);
      const std::string key = "synth:" + std::to_string(w);
      out.push_back(make_record(key, "A", s, 1.0 + std::fabs(std::log2(double(inner)) - 4.0)));
      out.push_back(make_record(key, "B", s, 1.0 + std::fabs(std::log2(double(inner)) - 1.0)));
    }
  return out;
}

TEST(MtlTraining, EachHeadLearnsItsOwnPlatformsRanking) {
  const TlpNetworkConfig base = small_config();
  const FeaturizerOptions f = featurizer_for(base);
  SplitOptions so;
  so.val_fraction = 0.25;
  so.seed = 1;
  TlpDataset data = make_tlp_dataset(two_platform_records(32, 20, 42), so, f);
  std::vector<MtlTask> train = merge_platform_tasks(data.split.train, {"B", "A"});
  featurize_mtl_tasks(train, f);
  std::vector<TlpTask> val_b, val_a;
  for (const auto &t : data.split.val) (t.platform == "B" ? val_b : val_a).push_back(t);

  TlpNetworkConfig c = base;
  c.output_heads = 2;
  TlpNetwork net(c, 7);
  TrainOptions o;
  o.epochs = 12;
  o.batch = 96;
  o.lr = 3e-3;
  o.featurizer = f;
  o.seed = 7;
  o.threads = 1;
  std::vector<MtlTask> val_all = merge_platform_tasks(data.split.val, {"B", "A"});
  featurize_mtl_tasks(val_all, f);
  const TrainResult r = train_mtl(net, train, val_all, val_b, 0, o);
  EXPECT_EQ(r.train_tasks, train.size());

  auto quality = [](TlpNetwork head, const std::vector<TlpTask> &tasks) {
    double sum = 0;
    for (const TlpTask &t : tasks) sum += pairwise_accuracy(t.costs, head.predict(t.features));
    return sum / double(tasks.size());
  };
  EXPECT_GT(quality(net.single_head(0), val_b), 0.85) << "head B on B";
  EXPECT_GT(quality(net.single_head(1), val_a), 0.85) << "head A on A";
  EXPECT_LT(quality(net.single_head(0), val_a), 0.7) << "head B should not rank A's records well: they disagree";
}

TEST(MtlTraining, HeadWithoutLabelsIsLeftUntouched) {
  const TlpNetworkConfig base = small_config();
  const FeaturizerOptions f = featurizer_for(base);
  std::vector<MtlTask> train =
      merge_platform_tasks(build_tasks(testing::synthetic_records(6, 10, 3, "synth", "A")), {"A", "never-measured"});
  featurize_mtl_tasks(train, f);
  ASSERT_EQ(train[0].labels_of(1), 0u);
  TlpNetworkConfig c = base;
  c.output_heads = 2;
  TlpNetwork net(c, 9);
  const TlpNetwork initial = net.clone();
  TrainOptions o;
  o.epochs = 2;
  o.batch = 32;
  o.weight_decay = 0;  // Adam's weight decay would move even weights without a gradient
  o.featurizer = f;
  o.threads = 1;
  train_mtl(net, train, {}, {}, 0, o);
  for (const std::string name : {"dec0.weight", "enc0.weight", "res1.bias"})
    EXPECT_NE(net.parameter(name), initial.parameter(name)) << name << " should have learned";
  for (int i = 0; i < 4; ++i)
    for (const std::string part : {"weight", "bias"}) {
      const std::string name = "head1_dec" + std::to_string(i) + "." + part;
      EXPECT_EQ(net.parameter(name), initial.parameter(name)) << name << " moved without a label";
    }
  EXPECT_THROW(net.parameter("no-such"), std::out_of_range);
}

}  // namespace
}  // namespace tlp
