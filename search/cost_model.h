// What the search asks of a cost model: scores for schedules (higher means
// faster), and measurements to learn from. TLP, MTL-TLP, the random model and
// test oracles all sit behind this interface; the search sees nothing else.
#pragma once

#include <string>
#include <vector>

#include "search/schedule.h"

namespace tlp {

class CostModel {
 public:
  virtual ~CostModel() = default;

  // One score per schedule of the task `task_key` (a workload key). Only the
  // order matters, but across calls too: the search ranks schedules scored in
  // several calls together, so a task's scores must compare from one call to
  // the next until the next update().
  virtual std::vector<float> predict(const std::string &task_key, const std::vector<Schedule> &schedules) = 0;

  // Measured costs in seconds; +infinity marks a failed candidate.
  virtual void update(const std::string &task_key, const std::vector<Schedule> &schedules,
                      const std::vector<double> &costs) = 0;

  virtual std::string name() const = 0;
};

}  // namespace tlp
