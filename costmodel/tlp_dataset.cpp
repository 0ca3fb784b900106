#include "costmodel/tlp_dataset.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "measure/kernel_cost_table.h"

namespace tlp {

double TlpTask::min_cost() const {
  double m = std::numeric_limits<double>::infinity();
  for (double c : costs) m = std::min(m, c);
  return m;
}

bool usable_cost(double cost) { return std::isfinite(cost) && cost > 0; }

void compute_labels(TlpTask &task) {
  const double best = task.min_cost();
  task.labels.resize(task.costs.size());
  for (size_t i = 0; i < task.costs.size(); ++i) task.labels[i] = float(best / task.costs[i]);
}

std::vector<TlpTask> build_tasks(const std::vector<MeasureRecord> &records, DatasetBuildStats *stats) {
  DatasetBuildStats st;
  st.records = records.size();
  struct Group {
    TlpTask task;
    std::vector<std::string> keys;  // per schedule, its text
    KernelCostTable costs;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  for (const MeasureRecord &r : records) {
    if (!r.ok() || !usable_cost(r.median_cost)) {
      ++st.failed_records;
      continue;
    }
    Group &g = groups[{r.workload_key, r.platform}];
    const std::string key = r.schedule.to_text();
    if (g.costs.measurements(key) == 0) {
      g.task.schedules.push_back(r.schedule);
      g.keys.push_back(key);
    } else {
      ++st.repeated_records;
    }
    g.costs.add(key, r.median_cost, r.timed_on_busy_machine());
  }
  std::vector<TlpTask> tasks;
  for (auto &[task_key, g] : groups) {
    TlpTask &t = g.task;
    t.workload_key = task_key.first;
    t.platform = task_key.second;
    for (const std::string &key : g.keys) t.costs.push_back(g.costs.cost(key));
    if (t.size() < 2) {
      ++st.small_tasks;
      st.small_task_records += t.size();
      continue;
    }
    compute_labels(t);
    st.kept_records += t.size();
    tasks.push_back(std::move(t));
  }
  st.tasks = tasks.size();
  if (stats) *stats = st;
  return tasks;
}

void featurize_tasks(std::vector<TlpTask> &tasks, const FeaturizerOptions &options, const DagLookup &dags) {
  for (TlpTask &t : tasks)
    t.features = featurize_all(t.schedules, options, dag_for_features(options, dags, t.workload_key));
}

namespace {

// splitmix64: a small, fully specified generator, so a split is the same on
// every standard library.
uint64_t next_random(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

size_t share(double fraction, size_t n) {
  if (fraction <= 0 || n == 0) return 0;
  return std::max<size_t>(1, size_t(std::llround(fraction * double(n))));
}

void check_fraction(double f, const char *what) {
  if (!(f >= 0 && f <= 1))
    throw std::invalid_argument(std::string("dataset split: ") + what + " fraction must be in [0, 1], got " +
                                std::to_string(f));
}

}  // namespace

DatasetSplit split_by_workload(std::vector<TlpTask> tasks, const SplitOptions &o) {
  check_fraction(o.test_fraction, "test");
  check_fraction(o.val_fraction, "validation");
  if (o.test_fraction + o.val_fraction > 1.0 + 1e-12)
    throw std::invalid_argument("dataset split: test and validation fractions sum to more than 1 (" +
                                std::to_string(o.test_fraction + o.val_fraction) + ")");

  std::set<std::string> present;
  for (const TlpTask &t : tasks) present.insert(t.workload_key);
  const std::set<std::string> forced(o.test_workloads.begin(), o.test_workloads.end());

  DatasetSplit out;
  for (const std::string &w : forced)
    if (!present.count(w)) out.unmatched_test_workloads.push_back(w);

  std::vector<std::string> rest;  // sorted (std::set order), then shuffled by the seed
  for (const std::string &w : present)
    if (!forced.count(w)) rest.push_back(w);
  uint64_t state = o.seed;
  for (size_t i = rest.size(); i > 1; --i) std::swap(rest[i - 1], rest[next_random(state) % i]);

  // Counts, keeping at least one workload for training when the fractions allow.
  const size_t n = rest.size();
  size_t n_test = share(o.test_fraction, n);
  size_t n_val = share(o.val_fraction, n);
  const bool nothing_for_training = o.test_fraction + o.val_fraction >= 1.0 - 1e-12;
  const size_t cap = nothing_for_training ? n : (n > 0 ? n - 1 : 0);
  while (n_test + n_val > cap) {
    if (n_val >= n_test) --n_val;  // shrink the larger share first, validation on a tie
    else --n_test;
  }

  enum Part { Train, Val, Test };
  std::map<std::string, Part> part;
  for (const std::string &w : forced) part[w] = Test;
  for (size_t i = 0; i < n; ++i) part[rest[i]] = i < n_test ? Test : (i < n_test + n_val ? Val : Train);

  for (TlpTask &t : tasks) {
    switch (part.at(t.workload_key)) {
      case Train: out.train.push_back(std::move(t)); break;
      case Val: out.val.push_back(std::move(t)); break;
      case Test: out.test.push_back(std::move(t)); break;
    }
  }
  return out;
}

TlpDataset make_tlp_dataset(const std::vector<MeasureRecord> &records, const SplitOptions &split,
                            const FeaturizerOptions &featurizer, const DagLookup &dags) {
  TlpDataset d;
  d.featurizer = featurizer;
  d.split = split_by_workload(build_tasks(records, &d.stats), split);
  featurize_tasks(d.split.train, featurizer, dags);
  featurize_tasks(d.split.val, featurizer, dags);
  featurize_tasks(d.split.test, featurizer, dags);
  return d;
}

}  // namespace tlp
