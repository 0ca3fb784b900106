#include "measure/measure_error.h"

#include <stdexcept>

namespace tlp {

namespace {

// Indexed by the enum's value; the enum is dense from 0 to 9.
constexpr const char *kNames[] = {
    "none",          "invalid_schedule", "compile_error", "build_timeout", "runtime_error",
    "wrong_answer",  "run_timeout",      "unknown",       "launch_limit",  "not_run",
};
constexpr int kNumErrors = sizeof(kNames) / sizeof(kNames[0]);

}  // namespace

const char *measure_error_name(MeasureError e) {
  const int i = static_cast<int>(e);
  if (i < 0 || i >= kNumErrors) return "unknown";
  return kNames[i];
}

MeasureError measure_error_from_name(const std::string &name) {
  for (int i = 0; i < kNumErrors; ++i) {
    if (name == kNames[i]) return static_cast<MeasureError>(i);
  }
  throw std::runtime_error("unknown measure error name '" + name +
                           "' (expected none, invalid_schedule, compile_error, "
                           "build_timeout, runtime_error, wrong_answer, "
                           "run_timeout, unknown, launch_limit or not_run)");
}

}  // namespace tlp
