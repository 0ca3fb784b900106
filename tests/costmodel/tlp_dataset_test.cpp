// Datasets from records: grouping into tasks, dropping failures, labels, and the
// split by workload.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/tlp_dataset.h"
#include "costmodel_fixtures.h"

namespace tlp {
namespace {

using testing::make_record;
using testing::synthetic_records;

Schedule sched(int f) { return Schedule::from_text("SP(2,0,64,[" + std::to_string(f) + "])"); }

std::set<std::string> workloads(const std::vector<TlpTask> &tasks) {
  std::set<std::string> out;
  for (const TlpTask &t : tasks) out.insert(t.workload_key);
  return out;
}

TEST(TlpDataset, LabelIsTheTasksMinCostOverTheRecordsCost) {
  const std::vector<MeasureRecord> records = {make_record("w", "p", sched(1), 2.0),
                                              make_record("w", "p", sched(2), 1.0),
                                              make_record("w", "p", sched(4), 4.0)};
  const std::vector<TlpTask> tasks = build_tasks(records);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].costs, (std::vector<double>{2.0, 1.0, 4.0}));
  EXPECT_EQ(tasks[0].labels, (std::vector<float>{0.5f, 1.0f, 0.25f}));
  EXPECT_EQ(tasks[0].schedules[2], sched(4));
  EXPECT_DOUBLE_EQ(tasks[0].min_cost(), 1.0);
}

TEST(TlpDataset, FailedRecordsAreDropped) {
  std::vector<MeasureRecord> records = {make_record("w", "p", sched(1), 2.0),
                                        make_record("w", "p", sched(2), 0, MeasureError::CompileError),
                                        make_record("w", "p", sched(3), 0, MeasureError::RunTimeout),
                                        make_record("w", "p", sched(4), 0, MeasureError::WrongAnswer),
                                        make_record("w", "p", sched(8), 1.0)};
  MeasureRecord no_costs = make_record("w", "p", sched(16), 0.5);
  no_costs.costs.clear();  // not ok() although error is none
  records.push_back(no_costs);
  records.push_back(make_record("w", "p", sched(32), std::numeric_limits<double>::quiet_NaN()));
  records.push_back(make_record("w", "p", sched(64), std::numeric_limits<double>::infinity()));
  records.push_back(make_record("w", "p", sched(5), 0.0));

  DatasetBuildStats stats;
  const std::vector<TlpTask> tasks = build_tasks(records, &stats);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].schedules, (std::vector<Schedule>{sched(1), sched(8)}));
  EXPECT_EQ(tasks[0].labels, (std::vector<float>{0.5f, 1.0f}));  // the failures do not set the minimum
  EXPECT_EQ(stats.records, 9u);
  EXPECT_EQ(stats.failed_records, 7u);
  EXPECT_EQ(stats.kept_records, 2u);
  EXPECT_EQ(stats.tasks, 1u);
}

TEST(TlpDataset, ASchedulesRepeatedMeasurementsAreOneSampleAtTheirMedian) {
  const std::vector<MeasureRecord> records = {
      make_record("w", "p", sched(1), 1.0), make_record("w", "p", sched(2), 4.0),
      make_record("w", "p", sched(1), 3.0), make_record("w", "p", sched(1), 2.0),
      make_record("w", "p", sched(1), 0, MeasureError::WrongAnswer),  // dropped like any failure
      make_record("w", "q", sched(1), 8.0), make_record("w", "q", sched(2), 8.0)};  // another platform's own
  DatasetBuildStats stats;
  const std::vector<TlpTask> tasks = build_tasks(records, &stats);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].schedules, (std::vector<Schedule>{sched(1), sched(2)}));
  EXPECT_EQ(tasks[0].costs, (std::vector<double>{2.0, 4.0}));
  EXPECT_EQ(tasks[0].labels, (std::vector<float>{1.0f, 0.5f}));
  EXPECT_EQ(tasks[1].costs, (std::vector<double>{8.0, 8.0}));
  EXPECT_EQ(stats.repeated_records, 2u);
  EXPECT_EQ(stats.failed_records, 1u);
  EXPECT_EQ(stats.kept_records, 4u);
}

TEST(TlpDataset, AScheduleMeasuredOnAQuietMachineCostsWhatTheQuietMeasurementsSay) {
  std::vector<MeasureRecord> records = {make_record("w", "p", sched(1), 4.0), make_record("w", "p", sched(2), 3.0),
                                        make_record("w", "p", sched(1), 2.0), make_record("w", "p", sched(2), 6.0)};
  records[0].cpu_wait = 0.5;  // sched(1) first timed beside other work
  records[1].cpu_wait = 0.4;  // sched(2) was never timed on a quiet machine
  records[3].cpu_wait = 0.6;
  records[2].cpu_wait = 0.0;
  const std::vector<TlpTask> tasks = build_tasks(records);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].costs, (std::vector<double>{2.0, 4.5}));
}

TEST(TlpDataset, TasksWithFewerThanTwoUsableRecordsAreDropped) {
  const std::vector<MeasureRecord> records = {
      make_record("a", "p", sched(1), 1.0),  // alone
      make_record("b", "p", sched(1), 1.0), make_record("b", "p", sched(2), 0, MeasureError::CompileError),
      make_record("c", "p", sched(1), 1.0), make_record("c", "p", sched(2), 3.0)};
  DatasetBuildStats stats;
  const std::vector<TlpTask> tasks = build_tasks(records, &stats);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].workload_key, "c");
  EXPECT_EQ(stats.small_tasks, 2u);
  EXPECT_EQ(stats.small_task_records, 2u);
  EXPECT_EQ(stats.failed_records, 1u);
}

TEST(TlpDataset, TasksAreGroupedByWorkloadAndPlatform) {
  const std::vector<MeasureRecord> records = {
      make_record("w2", "p1", sched(1), 1.0), make_record("w1", "p2", sched(1), 5.0),
      make_record("w1", "p1", sched(1), 1.0), make_record("w1", "p2", sched(2), 10.0),
      make_record("w1", "p1", sched(2), 2.0), make_record("w2", "p1", sched(2), 4.0)};
  const std::vector<TlpTask> tasks = build_tasks(records);
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[0].workload_key, "w1");
  EXPECT_EQ(tasks[0].platform, "p1");
  EXPECT_EQ(tasks[0].labels, (std::vector<float>{1.0f, 0.5f}));
  EXPECT_EQ(tasks[1].workload_key, "w1");
  EXPECT_EQ(tasks[1].platform, "p2");
  EXPECT_EQ(tasks[1].labels, (std::vector<float>{1.0f, 0.5f}));  // labels are per platform
  EXPECT_EQ(tasks[2].workload_key, "w2");
  EXPECT_EQ(tasks[2].labels, (std::vector<float>{1.0f, 0.25f}));
}

// Each workload is measured on two platforms, so a per-task split would leak.
std::vector<TlpTask> two_platform_tasks(int n) {
  std::vector<MeasureRecord> records = synthetic_records(n, 3, 1, "w", "cpu/a");
  const std::vector<MeasureRecord> more = synthetic_records(n, 3, 2, "w", "cpu/b");
  records.insert(records.end(), more.begin(), more.end());
  return build_tasks(records);
}

TEST(TlpDataset, SplitNeverPutsAWorkloadInTwoSplits) {
  const std::vector<TlpTask> tasks = two_platform_tasks(40);
  ASSERT_EQ(tasks.size(), 80u);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    SplitOptions o;
    o.seed = seed;
    o.val_fraction = 0.1 + 0.02 * double(seed % 5);
    o.test_fraction = 0.05 * double(seed % 4);
    o.test_workloads = {"w:3", "w:17"};
    const DatasetSplit s = split_by_workload(tasks, o);
    const auto tr = workloads(s.train), va = workloads(s.val), te = workloads(s.test);
    for (const std::string &w : tr) {
      EXPECT_FALSE(va.count(w)) << w << " in train and validation, seed " << seed;
      EXPECT_FALSE(te.count(w)) << w << " in train and test, seed " << seed;
    }
    for (const std::string &w : va) EXPECT_FALSE(te.count(w)) << w << " in validation and test, seed " << seed;
    EXPECT_TRUE(te.count("w:3") && te.count("w:17"));
    EXPECT_EQ(s.train.size() + s.val.size() + s.test.size(), tasks.size()) << "a task was lost";
    EXPECT_EQ(tr.size() + va.size() + te.size(), 40u);
  }
}

TEST(TlpDataset, ExplicitTestWorkloadsNeverReachTraining) {
  const std::vector<TlpTask> tasks = two_platform_tasks(10);
  SplitOptions o;
  o.val_fraction = 0.0;
  o.test_workloads = {"w:0", "w:5", "w:9"};
  const DatasetSplit s = split_by_workload(tasks, o);
  EXPECT_EQ(workloads(s.test), (std::set<std::string>{"w:0", "w:5", "w:9"}));
  EXPECT_EQ(s.test.size(), 6u);  // both platforms of each
  for (const TlpTask &t : s.train) EXPECT_TRUE(t.workload_key != "w:0" && t.workload_key != "w:5" && t.workload_key != "w:9");
  EXPECT_TRUE(s.val.empty());
  EXPECT_EQ(s.train.size(), 14u);
}

TEST(TlpDataset, SplitFractionsGiveTheirShareOfWorkloads) {
  const std::vector<TlpTask> tasks = two_platform_tasks(100);
  SplitOptions o;
  o.val_fraction = 0.1;
  o.test_fraction = 0.2;
  o.seed = 3;
  const DatasetSplit s = split_by_workload(tasks, o);
  EXPECT_EQ(workloads(s.val).size(), 10u);
  EXPECT_EQ(workloads(s.test).size(), 20u);
  EXPECT_EQ(workloads(s.train).size(), 70u);
}

TEST(TlpDataset, SmallNonZeroFractionStillGetsOneWorkloadButTrainingKeepsOne) {
  const std::vector<TlpTask> tasks = two_platform_tasks(3);
  SplitOptions o;
  o.val_fraction = 0.1;  // 0.3 workloads rounds to 0: one is given anyway
  EXPECT_EQ(workloads(split_by_workload(tasks, o).val).size(), 1u);
  o.val_fraction = 0.5;
  o.test_fraction = 0.5;  // everything asked for: nothing left to train on
  const DatasetSplit all = split_by_workload(tasks, o);
  EXPECT_TRUE(all.train.empty());
  o.val_fraction = 0.6;
  o.test_fraction = 0.3;  // rounds to 2 + 1 of 3, but 10% is meant for training
  const DatasetSplit most = split_by_workload(tasks, o);
  EXPECT_EQ(workloads(most.train).size(), 1u);
}

TEST(TlpDataset, SplitIsDeterministicForASeedAndVariesAcrossSeeds) {
  const std::vector<TlpTask> tasks = two_platform_tasks(30);
  SplitOptions o;
  o.val_fraction = 0.2;
  o.seed = 11;
  const auto a = workloads(split_by_workload(tasks, o).val);
  const auto b = workloads(split_by_workload(tasks, o).val);
  EXPECT_EQ(a, b);
  bool differs = false;
  for (uint64_t seed = 12; seed < 20 && !differs; ++seed) {
    o.seed = seed;
    differs = workloads(split_by_workload(tasks, o).val) != a;
  }
  EXPECT_TRUE(differs);
  // The order of the input tasks does not matter.
  std::vector<TlpTask> reversed(tasks.rbegin(), tasks.rend());
  o.seed = 11;
  EXPECT_EQ(workloads(split_by_workload(reversed, o).val), a);
}

TEST(TlpDataset, UnknownTestWorkloadsAreReported) {
  SplitOptions o;
  o.test_workloads = {"w:1", "resnet50:conv9"};
  const DatasetSplit s = split_by_workload(two_platform_tasks(4), o);
  EXPECT_EQ(s.unmatched_test_workloads, (std::vector<std::string>{"resnet50:conv9"}));
}

TEST(TlpDataset, BadFractionsAreRefused) {
  SplitOptions o;
  o.val_fraction = -0.1;
  EXPECT_THROW(split_by_workload({}, o), std::invalid_argument);
  o.val_fraction = 0.7;
  o.test_fraction = 0.4;
  EXPECT_THROW(split_by_workload({}, o), std::invalid_argument);
  o.test_fraction = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(split_by_workload({}, o), std::invalid_argument);
}

TEST(TlpDataset, MakeDatasetFeaturizesEverySplitWithTheGivenOptions) {
  const std::vector<MeasureRecord> records = synthetic_records(20, 5, 4);
  FeaturizerOptions f;
  f.seq_len = 6;
  f.emb_size = 20;
  f.scaling = FeatureScaling::Log;
  SplitOptions o;
  o.val_fraction = 0.2;
  o.test_fraction = 0.2;
  const TlpDataset d = make_tlp_dataset(records, o, f);
  EXPECT_EQ(d.stats.kept_records, 100u);
  for (const auto *part : {&d.split.train, &d.split.val, &d.split.test}) {
    ASSERT_FALSE(part->empty());
    for (const TlpTask &t : *part) {
      ASSERT_EQ(t.features.size(), t.size() * 6 * 20);
      const std::vector<float> first = featurize(t.schedules[0], f);
      EXPECT_TRUE(std::equal(first.begin(), first.end(), t.features.begin()));
    }
  }
}

}  // namespace
}  // namespace tlp
