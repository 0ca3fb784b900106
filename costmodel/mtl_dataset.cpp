#include "costmodel/mtl_dataset.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace tlp {

size_t MtlTask::labels_of(size_t head) const {
  size_t n = 0;
  for (size_t i = 0; i < size(); ++i) n += labeled[i * platforms + head];
  return n;
}

std::vector<MtlTask> merge_platform_tasks(const std::vector<TlpTask> &tasks, const std::vector<std::string> &platforms) {
  const size_t P = platforms.size();
  std::vector<MtlTask> out;
  std::map<std::string, size_t> task_of;                            // workload -> index in out
  std::vector<std::unordered_map<std::string, size_t>> row_of;  // per task: schedule text -> row
  for (const TlpTask &t : tasks) {
    const auto head = std::find(platforms.begin(), platforms.end(), t.platform);
    if (head == platforms.end()) continue;
    const size_t k = size_t(head - platforms.begin());
    auto [it, fresh] = task_of.emplace(t.workload_key, out.size());
    if (fresh) {
      out.emplace_back();
      out.back().workload_key = t.workload_key;
      out.back().platforms = P;
      row_of.emplace_back();
    }
    MtlTask &m = out[it->second];
    auto &rows = row_of[it->second];
    for (size_t i = 0; i < t.size(); ++i) {
      auto [r, added] = rows.emplace(t.schedules[i].to_text(), m.size());
      if (added) {
        m.schedules.push_back(t.schedules[i]);
        m.labels.resize(m.labels.size() + P, 0.0f);
        m.labeled.resize(m.labeled.size() + P, 0);
      }
      // A schedule measured twice on a platform keeps its better label.
      float &label = m.labels[r->second * P + k];
      label = std::max(label, t.labels[i]);
      m.labeled[r->second * P + k] = 1;
    }
  }
  return out;
}

void featurize_mtl_tasks(std::vector<MtlTask> &tasks, const FeaturizerOptions &options, const DagLookup &dags) {
  for (MtlTask &t : tasks)
    t.features = featurize_all(t.schedules, options, dag_for_features(options, dags, t.workload_key));
}

std::vector<MeasureRecord> keep_platform_share(const std::vector<MeasureRecord> &records, const std::string &platform,
                                               double fraction, uint64_t seed,
                                               const std::vector<std::string> &keep_all_workloads) {
  if (!(fraction > 0 && fraction <= 1))
    throw std::invalid_argument("the share of the target platform's data must be in (0, 1], got " +
                                std::to_string(fraction));
  const std::set<std::string> keep_all(keep_all_workloads.begin(), keep_all_workloads.end());
  std::map<std::string, std::vector<size_t>> candidates;  // workload -> indices of its usable target records
  for (size_t i = 0; i < records.size(); ++i) {
    const MeasureRecord &r = records[i];
    if (r.platform == platform && r.ok() && usable_cost(r.median_cost) && !keep_all.count(r.workload_key))
      candidates[r.workload_key].push_back(i);
  }
  std::vector<uint8_t> drop(records.size(), 0);
  std::mt19937_64 rng(seed);
  for (auto &[workload, idx] : candidates) {
    const size_t n = idx.size();
    const size_t keep = std::min(n, std::max<size_t>(2, size_t(std::ceil(fraction * double(n) - 1e-9))));
    for (size_t i = n; i > 1; --i) std::swap(idx[i - 1], idx[rng() % i]);
    for (size_t i = keep; i < n; ++i) drop[idx[i]] = 1;
  }
  std::vector<MeasureRecord> out;
  for (size_t i = 0; i < records.size(); ++i)
    if (!drop[i]) out.push_back(records[i]);
  return out;
}

}  // namespace tlp
