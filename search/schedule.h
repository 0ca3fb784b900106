// A schedule: the ordered steps applied to one ComputeDAG.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "search/step.h"

namespace tlp {

struct Schedule {
  std::vector<Step> steps;

  bool operator==(const Schedule &o) const { return steps == o.steps; }
  bool operator!=(const Schedule &o) const { return !(*this == o); }

  // Steps' text forms joined by "; ". The empty schedule prints as "".
  std::string to_text() const;
  static Schedule from_text(const std::string &text);  // throws ScheduleError

  nlohmann::json to_json() const;  // an array of step arrays
  static Schedule from_json(const nlohmann::json &j);
};

}  // namespace tlp
