#include "search/schedule.h"

#include <nlohmann/json.hpp>

namespace tlp {

std::string Schedule::to_text() const {
  std::string out;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i) out += "; ";
    out += steps[i].to_text();
  }
  return out;
}

Schedule Schedule::from_text(const std::string &text) {
  Schedule s;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(start, end - start);
    if (part.find_first_not_of(" \t\n") != std::string::npos) {
      try {
        s.steps.push_back(Step::from_text(part));
      } catch (const ScheduleError &e) {
        throw ScheduleError("schedule step " + std::to_string(s.steps.size()) + ": " + e.what());
      }
    }
    start = end + 1;
  }
  return s;
}

nlohmann::json Schedule::to_json() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto &st : steps) j.push_back(st.to_json());
  return j;
}

Schedule Schedule::from_json(const nlohmann::json &j) {
  if (!j.is_array()) throw ScheduleError("a schedule must be a JSON array of steps");
  Schedule s;
  for (const auto &e : j) {
    try {
      s.steps.push_back(Step::from_json(e));
    } catch (const ScheduleError &err) {
      throw ScheduleError("schedule step " + std::to_string(s.steps.size()) + ": " + err.what());
    }
  }
  return s;
}

}  // namespace tlp
