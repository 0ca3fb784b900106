#include "tuner/log_summary.h"

namespace tlp {

std::vector<TaskSummary> summarize_tasks(const std::vector<MeasureRecord> &records) {
  std::vector<TaskSummary> tasks;
  std::map<std::string, size_t> index;
  for (const auto &r : records) {
    const std::string key = r.workload_key + "|" + r.target + "|" + r.platform;
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, tasks.size()).first;
      tasks.push_back({r.workload_key, r.target, r.platform});
    }
    TaskSummary &t = tasks[it->second];
    ++t.records;
    if (!r.ok()) {
      ++t.errors[measure_error_name(r.error)];
      continue;
    }
    ++t.ok;
    if (!t.best || r.median_cost < t.best->median_cost) t.best = &r;
  }
  return tasks;
}

}  // namespace tlp
