#include "search/ensemble_cost_model.h"

#include <cmath>
#include <stdexcept>

namespace tlp {

EnsembleCostModel::EnsembleCostModel(std::vector<std::unique_ptr<CostModel>> members) : members_(std::move(members)) {
  if (members_.empty()) throw std::invalid_argument("an ensemble needs at least one cost model");
  for (const auto &m : members_)
    if (!m) throw std::invalid_argument("an ensemble's cost model is missing (null)");
}

std::vector<float> EnsembleCostModel::predict(const std::string &task_key, const std::vector<Schedule> &schedules) {
  if (members_.size() == 1) return members_.front()->predict(task_key, schedules);
  std::vector<double> sum(schedules.size(), 0.0);
  for (const auto &m : members_) {
    const std::vector<float> scores = m->predict(task_key, schedules);
    if (scores.size() != schedules.size())
      throw std::logic_error("cost model " + m->name() + " returned " + std::to_string(scores.size()) +
                             " scores for " + std::to_string(schedules.size()) + " schedules");
    add_standardized(scores, sum);
  }
  std::vector<float> out(sum.size());
  for (size_t i = 0; i < sum.size(); ++i) out[i] = float(sum[i] / double(members_.size()));
  return out;
}

void EnsembleCostModel::update(const std::string &task_key, const std::vector<Schedule> &schedules,
                               const std::vector<double> &costs) {
  for (const auto &m : members_) m->update(task_key, schedules, costs);
}

std::string EnsembleCostModel::name() const {
  if (members_.size() == 1) return members_.front()->name();
  return "ensemble of " + std::to_string(members_.size()) + " " + members_.front()->name();
}

void add_standardized(const std::vector<float> &scores, std::vector<double> &sum) {
  if (scores.size() != sum.size()) throw std::invalid_argument("add_standardized: scores and sum differ in length");
  if (scores.empty()) return;
  double mean = 0, var = 0;
  for (float v : scores) mean += v / double(scores.size());
  for (float v : scores) var += (v - mean) * (v - mean) / double(scores.size());
  if (!(var > 0)) return;  // a constant model adds nothing
  const double sd = std::sqrt(var);
  for (size_t i = 0; i < scores.size(); ++i) sum[i] += (scores[i] - mean) / sd;
}

}  // namespace tlp
