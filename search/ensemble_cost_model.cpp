#include "search/ensemble_cost_model.h"

#include <cmath>
#include <stdexcept>

namespace tlp {
namespace {

// The mean and standard deviation of `scores` (0 and 0 when empty or constant).
void mean_and_sd(const std::vector<float> &scores, double &mean, double &sd) {
  mean = 0;
  double var = 0;
  for (float v : scores) mean += v / double(scores.size());
  for (float v : scores) var += (v - mean) * (v - mean) / double(scores.size());
  sd = var > 0 ? std::sqrt(var) : 0.0;
}

}  // namespace

EnsembleCostModel::EnsembleCostModel(std::vector<std::unique_ptr<CostModel>> members) : members_(std::move(members)) {
  if (members_.empty()) throw std::invalid_argument("an ensemble needs at least one cost model");
  for (const auto &m : members_)
    if (!m) throw std::invalid_argument("an ensemble's cost model is missing (null)");
}

std::vector<float> EnsembleCostModel::predict(const std::string &task_key, const std::vector<Schedule> &schedules) {
  if (members_.size() == 1) return members_.front()->predict(task_key, schedules);
  std::vector<Scale> &scales = scales_[task_key];
  scales.resize(members_.size());
  std::vector<double> sum(schedules.size(), 0.0);
  for (size_t m = 0; m < members_.size(); ++m) {
    const std::vector<float> scores = members_[m]->predict(task_key, schedules);
    if (scores.size() != schedules.size())
      throw std::logic_error("cost model " + members_[m]->name() + " returned " + std::to_string(scores.size()) +
                             " scores for " + std::to_string(schedules.size()) + " schedules");
    Scale &sc = scales[m];
    if (!(sc.sd > 0)) mean_and_sd(scores, sc.mean, sc.sd);  // the first call that tells a spread fixes it
    if (!(sc.sd > 0)) continue;
    for (size_t i = 0; i < scores.size(); ++i) sum[i] += (scores[i] - sc.mean) / sc.sd;
  }
  std::vector<float> out(sum.size());
  for (size_t i = 0; i < sum.size(); ++i) out[i] = float(sum[i] / double(members_.size()));
  return out;
}

void EnsembleCostModel::update(const std::string &task_key, const std::vector<Schedule> &schedules,
                               const std::vector<double> &costs) {
  for (const auto &m : members_) m->update(task_key, schedules, costs);
  scales_.clear();  // every task's scores may have moved: the members share their weights across tasks
}

std::string EnsembleCostModel::name() const {
  if (members_.size() == 1) return members_.front()->name();
  return "ensemble of " + std::to_string(members_.size()) + " " + members_.front()->name();
}

void add_standardized(const std::vector<float> &scores, std::vector<double> &sum) {
  if (scores.size() != sum.size()) throw std::invalid_argument("add_standardized: scores and sum differ in length");
  double mean = 0, sd = 0;
  mean_and_sd(scores, mean, sd);
  if (!(sd > 0)) return;  // a constant model adds nothing
  for (size_t i = 0; i < scores.size(); ++i) sum[i] += (scores[i] - mean) / sd;
}

}  // namespace tlp
