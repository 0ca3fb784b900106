#include "costmodel/measurement_agreement.h"

#include <cmath>
#include <map>

namespace tlp {

AgreementTasks measurement_agreement_tasks(const std::vector<MeasureRecord> &records, const std::string &platform) {
  // workload -> schedule text -> its valid measurements, in log order; schedules
  // kept in first-seen order so ties rank as the log does.
  std::map<std::string, std::vector<std::pair<std::string, std::vector<double>>>> by_workload;
  std::map<std::string, std::map<std::string, size_t>> index;
  for (const MeasureRecord &r : records) {
    if (r.platform != platform || !r.ok() || !std::isfinite(r.median_cost) || r.median_cost <= 0) continue;
    auto &list = by_workload[r.workload_key];
    const auto [it, added] = index[r.workload_key].try_emplace(r.schedule.to_text(), list.size());
    if (added) list.push_back({it->first, {}});
    list[it->second].second.push_back(r.median_cost);
  }
  AgreementTasks out;
  for (const auto &[workload, list] : by_workload) {
    TopkTask t;
    for (const auto &[text, costs] : list) {
      if (costs.size() < 2) continue;
      t.predictions.push_back(float(-std::log(costs[0])));  // higher = predicted faster
      t.latencies.push_back(costs[1]);
    }
    if (t.latencies.size() < 2) continue;
    out.schedules += t.latencies.size();
    out.tasks.push_back(std::move(t));
    out.workloads.push_back(workload);
  }
  return out;
}

}  // namespace tlp
