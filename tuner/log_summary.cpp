#include "tuner/log_summary.h"

#include <unordered_map>

#include "measure/kernel_cost_table.h"

namespace tlp {

std::vector<TaskSummary> summarize_tasks(const std::vector<MeasureRecord> &records) {
  std::vector<TaskSummary> tasks;
  std::vector<KernelCostTable> costs;
  std::vector<std::unordered_map<std::string, const MeasureRecord *>> record_of;  // per task: a valid record per kernel
  std::map<std::string, size_t> index;
  for (const auto &r : records) {
    const std::string key = r.workload_key + "|" + r.target + "|" + r.platform;
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, tasks.size()).first;
      tasks.push_back({r.workload_key, r.target, r.platform});
      costs.emplace_back();
      record_of.emplace_back();
    }
    TaskSummary &t = tasks[it->second];
    ++t.records;
    if (!t.machine && r.machine) t.machine = &*r.machine;
    costs[it->second].add(r);
    if (!r.ok()) {
      ++t.errors[measure_error_name(r.error)];
      t.failures.push_back(&r);
      continue;
    }
    ++t.ok;
    if (r.timed_on_busy_machine()) ++t.busy;
    record_of[it->second].try_emplace(r.schedule.to_text(), &r);
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!costs[i].has_best()) continue;
    const std::string &best = costs[i].best_key();
    tasks[i].best = record_of[i].at(best);
    tasks[i].best_cost = costs[i].best_cost();
    tasks[i].best_measurements = costs[i].measurements(best);
  }
  return tasks;
}

std::vector<PlatformGroup> group_by_platform(const std::vector<TaskSummary> &tasks) {
  std::vector<PlatformGroup> groups;
  std::map<std::string, size_t> index;
  for (const TaskSummary &t : tasks) {
    auto it = index.emplace(t.platform, groups.size()).first;
    if (it->second == groups.size()) groups.push_back({t.platform});
    PlatformGroup &g = groups[it->second];
    g.tasks.push_back(&t);
    g.records += t.records;
    if (!g.machine) g.machine = t.machine;
  }
  return groups;
}

}  // namespace tlp
