// A cost model that knows nothing: uniform random scores. It makes the
// evolutionary policy a model-free search, the baseline TLP must beat.
#pragma once

#include <random>

#include "search/cost_model.h"

namespace tlp {

class RandomModel : public CostModel {
 public:
  explicit RandomModel(uint64_t seed = 1) : rng_(seed) {}

  std::vector<float> predict(const std::string &, const std::vector<Schedule> &schedules) override {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> out(schedules.size());
    for (float &v : out) v = u(rng_);
    return out;
  }
  void update(const std::string &, const std::vector<Schedule> &, const std::vector<double> &) override {}
  std::string name() const override { return "random"; }

 private:
  std::mt19937_64 rng_;
};

}  // namespace tlp
