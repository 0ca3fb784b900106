// Several cost models ranking as one. Each member's scores are standardized
// (members differ in scale and offset), then averaged. The mean and spread
// that standardize a member's scores of a task come from the first call for
// that task after the last update (the search's first population of a round)
// and stay fixed until the next update, so that scores of several calls
// compare (CostModel::predict). Every member learns from every update.
// Models trained with different seeds err on different schedules, so their
// mean ranks unseen operators better than a member does on average.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "search/cost_model.h"

namespace tlp {

class EnsembleCostModel final : public CostModel {
 public:
  // Throws std::invalid_argument when `members` is empty or holds a null.
  explicit EnsembleCostModel(std::vector<std::unique_ptr<CostModel>> members);

  std::vector<float> predict(const std::string &task_key, const std::vector<Schedule> &schedules) override;
  void update(const std::string &task_key, const std::vector<Schedule> &schedules,
              const std::vector<double> &costs) override;
  std::string name() const override;  // "ensemble of 3 tlp-attention"
  size_t size() const { return members_.size(); }

 private:
  struct Scale {
    double mean = 0, sd = 0;  // sd 0: not known yet (the member adds nothing)
  };
  std::vector<std::unique_ptr<CostModel>> members_;
  std::map<std::string, std::vector<Scale>> scales_;  // task -> one per member
};

// Adds the z-scores of `scores` ((v - mean) / standard deviation) to `sum`,
// which must be as long. A constant set of scores adds nothing.
void add_standardized(const std::vector<float> &scores, std::vector<double> &sum);

}  // namespace tlp
