// What the tuning loop asks of a search policy: new schedules to measure, and
// the measurements back. Policies never see Halide or Torch.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "search/schedule.h"

namespace tlp {

class SearchPolicy {
 public:
  virtual ~SearchPolicy() = default;

  // Up to n schedules, distinct from each other and from every schedule whose
  // text is in `measured`. Fewer when the space seems exhausted.
  virtual std::vector<Schedule> propose(int n, const std::unordered_set<std::string> &measured) = 0;

  // Measured costs in seconds of schedules it proposed; +infinity for a failure.
  virtual void observe(const std::vector<Schedule> &schedules, const std::vector<double> &costs) = 0;

  virtual std::string name() const = 0;

  // Seconds spent in a cost model, for the time split users see; 0 without one.
  virtual double model_seconds() const { return 0; }
};

}  // namespace tlp
