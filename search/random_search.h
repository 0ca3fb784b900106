// The random policy: samples the schedule space uniformly, with no model. It is
// the baseline every other policy is compared against.
#pragma once

#include <random>

#include "search/schedule_space.h"
#include "search/search_policy.h"

namespace tlp {

class RandomSearch : public SearchPolicy {
 public:
  RandomSearch(const ScheduleSpace &space, uint64_t seed) : space_(space), rng_(seed) {}

  std::vector<Schedule> propose(int n, const std::unordered_set<std::string> &measured) override;
  void observe(const std::vector<Schedule> &, const std::vector<double> &) override {}
  std::string name() const override { return "random"; }

 private:
  const ScheduleSpace &space_;
  std::mt19937_64 rng_;
};

}  // namespace tlp
