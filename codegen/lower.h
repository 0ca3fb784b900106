// Lowering: applies a Schedule to a fresh Halide pipeline of an operator.
//
// The lowering walks the steps in order beside a LoopState, so each Halide call
// acts on exactly the loops the IR describes, and records the Halide C++ of every
// call it makes (users read that, and can paste it into their own generator).
#pragma once

#include <string>
#include <vector>

#include "Halide.h"
#include "codegen/operator.h"
#include "search/schedule.h"

namespace tlp {

struct LoweredKernel {
  Halide::Func output;
  std::vector<Halide::ImageParam> inputs;   // in the operator's order
  std::vector<Halide::Argument> arguments() const { return {inputs.begin(), inputs.end()}; }
  std::string schedule_source;              // the schedule as Halide C++
};

// Throws ScheduleError when the schedule does not fit the operator's DAG or the
// target (an invalid schedule), and lets Halide::Error through when Halide
// rejects a call (a compile error). Buffers are specialized to the operator's
// shapes: dense, zero-based, with constant strides.
LoweredKernel lower_schedule(const Operator &op, const ComputeDag &dag, const Schedule &schedule,
                             const Halide::Target &target);

// The Halide C++ alone, without building anything that needs a target.
std::string schedule_to_halide_source(const Operator &op, const ComputeDag &dag, const Schedule &schedule);

}  // namespace tlp
