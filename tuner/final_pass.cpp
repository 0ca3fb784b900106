#include "tuner/final_pass.h"

#include <algorithm>

namespace tlp {

bool best_is_confirmed(const KernelCostTable &costs, int rounds) {
  return costs.has_best() && costs.measurements(costs.best_key()) >= 1 + rounds;
}

std::vector<std::string> kernels_due_again(const KernelCostTable &costs, int top, int rounds, int pass) {
  if (top <= 0 || rounds <= 0 || pass >= kMaxFinalPasses || !costs.has_best()) return {};
  if (pass >= kTopConfirmingPasses && best_is_confirmed(costs, rounds)) return {};
  std::vector<std::string> due;
  for (const std::string &key : costs.cheapest(size_t(top)))
    if (costs.measurements(key) < 1 + rounds) due.push_back(key);
  if (due.empty()) return due;
  const std::string &best = costs.best_key();
  if (std::find(due.begin(), due.end(), best) == due.end()) due.push_back(best);
  return due;
}

}  // namespace tlp
