// Datasets for TLP, built from measurement records.
//
// A task is one (workload_key, platform) pair: the records of one operator on one
// machine. Only successful records count (MeasureRecord::ok() with a finite,
// positive median cost); a task needs at least 2 of them to say anything about
// ranking, so smaller tasks are dropped. A record's label is its normalized
// throughput: min cost in its task / its cost, in (0, 1], 1 for the fastest.
// A schedule measured more than once in a task (tune measures its fastest again)
// is one sample costing the median of its measurements, those timed on a quiet
// machine when it has any (measure/kernel_cost_table.h).
//
// Splits are by workload: every task of a workload (on any platform) lands in
// exactly one of train, validation and test, so nothing of a test operator is
// ever trained on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/tlp_featurizer.h"
#include "measure/measure_record.h"
#include "search/schedule.h"

namespace tlp {

struct TlpTask {
  std::string workload_key;
  std::string platform;
  std::vector<Schedule> schedules;  // the task's measured schedules, each once, in log order
  std::vector<double> costs;        // their costs (seconds): as KernelCostTable::cost
  std::vector<float> labels;        // min(costs) / cost
  std::vector<float> features;      // after featurize_tasks: size() * seq_len * emb_size

  size_t size() const { return schedules.size(); }
  double min_cost() const;  // +infinity when empty
};

// Sets labels from costs (min cost / cost).
void compute_labels(TlpTask &task);

// A cost a label can be computed from: finite and positive.
bool usable_cost(double cost);

struct DatasetBuildStats {
  size_t records = 0;             // records given
  size_t failed_records = 0;      // dropped: not ok(), or no finite positive median cost
  size_t repeated_records = 0;    // measured a schedule its task already had: folded into one sample
  size_t small_tasks = 0;         // tasks dropped for having fewer than 2 usable schedules
  size_t small_task_records = 0;  // the samples (distinct schedules) in them
  size_t tasks = 0;               // tasks kept
  size_t kept_records = 0;        // samples (distinct schedules) in the tasks kept
};

// Groups records into tasks (sorted by workload key, then platform), drops
// failed records and tasks with fewer than 2 usable records, and labels them.
// Features are left empty (see featurize_tasks).
std::vector<TlpTask> build_tasks(const std::vector<MeasureRecord> &records, DatasetBuildStats *stats = nullptr);

// Fills every task's features.
// Fills every task's features. `dags` gives the operators when the options
// need them (tlp_featurizer.h).
void featurize_tasks(std::vector<TlpTask> &tasks, const FeaturizerOptions &options, const DagLookup &dags = {});

struct SplitOptions {
  // Workloads that always go to test (e.g. the operators of held-out networks).
  std::vector<std::string> test_workloads;
  // Of the remaining workloads, the fractions that go to test and validation
  // (rounded to the nearest count; a non-zero fraction gets at least one workload
  // as long as one is left for training). The rest is training.
  double test_fraction = 0.0;
  double val_fraction = 0.1;
  uint64_t seed = 0;  // the same seed and workloads give the same split
};

struct DatasetSplit {
  std::vector<TlpTask> train, val, test;
  // Names in SplitOptions::test_workloads that no record carries.
  std::vector<std::string> unmatched_test_workloads;
};

// Throws std::invalid_argument when a fraction is outside [0, 1] or they sum
// to more than 1.
DatasetSplit split_by_workload(std::vector<TlpTask> tasks, const SplitOptions &options);

// The whole pipeline: build_tasks, split_by_workload, featurize_tasks.
struct TlpDataset {
  DatasetSplit split;
  DatasetBuildStats stats;
  FeaturizerOptions featurizer;
};
TlpDataset make_tlp_dataset(const std::vector<MeasureRecord> &records, const SplitOptions &split,
                            const FeaturizerOptions &featurizer, const DagLookup &dags = {});

}  // namespace tlp
