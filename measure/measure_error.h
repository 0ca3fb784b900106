// The ways a measurement can fail. The numeric values are stable: they may be
// stored by other tools, and the names below are what records carry.
#pragma once

#include <string>

namespace tlp {

enum class MeasureError {
  None = 0,
  InvalidSchedule = 1,  // the schedule does not apply to the DAG
  CompileError = 2,     // lowering or compiling the kernel failed
  BuildTimeout = 3,     // the build worker ran past its time limit
  RuntimeError = 4,     // the kernel failed, crashed, or could not be loaded
  WrongAnswer = 5,      // the kernel ran but its output differs from the reference
  RunTimeout = 6,       // the runner ran past its time limit
  Unknown = 7,          // anything else (e.g. a malformed reply from the runner)
  LaunchLimit = 8,      // a GPU kernel over the device's limits (threads, registers, shared memory)
  NotRun = 9,           // built and validated only (tune --build-only); never logged
};

// "none", "invalid_schedule", "compile_error", "build_timeout", "runtime_error",
// "wrong_answer", "run_timeout", "unknown", "launch_limit", "not_run".
const char *measure_error_name(MeasureError e);

// The inverse of measure_error_name; throws std::runtime_error on an unknown name.
MeasureError measure_error_from_name(const std::string &name);

}  // namespace tlp
