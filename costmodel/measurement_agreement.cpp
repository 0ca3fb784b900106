#include "costmodel/measurement_agreement.h"

#include <cmath>
#include <map>

#include "costmodel/tlp_dataset.h"

namespace tlp {

AgreementTasks measurement_agreement_tasks(const std::vector<MeasureRecord> &records, const std::string &platform) {
  // workload -> per schedule (in first-seen order, so ties rank as the log does)
  // its valid measurements in log order; `index` finds a schedule's slot.
  std::map<std::string, std::vector<std::vector<double>>> by_workload;
  std::map<std::string, std::map<std::string, size_t>> index;
  for (const MeasureRecord &r : records) {
    if (r.platform != platform || !r.ok() || !usable_cost(r.median_cost)) continue;
    auto &slots = by_workload[r.workload_key];
    const auto [it, added] = index[r.workload_key].try_emplace(r.schedule.to_text(), slots.size());
    if (added) slots.emplace_back();
    slots[it->second].push_back(r.median_cost);
  }
  AgreementTasks out;
  for (const auto &[workload, slots] : by_workload) {
    TopkTask t;
    for (const std::vector<double> &costs : slots) {
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
