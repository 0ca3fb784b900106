// The layout plan of a network tuned with its layouts free: which layout the
// activations flow in between operators, and which operators run in another
// layout, paying to convert their input and output. Network files list each
// distinct operator once with a count, not the edges between them, so the plan is
// one network layout L with detours: every operator either runs in L, or
// converts L -> L' before and L' -> L after itself to run in L'. The network's
// input arrives in a fixed layout (NCHW) and is converted for its first operator.
//
// Conversions are priced by a callback, asked only where a detour could win (the
// operator is faster in L', or has no kernel in L), so a caller that measures
// conversion kernels on demand measures only those the plan needs.
//
// Standard library only.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tlp {

struct LayoutPlanTask {
  double weight = 1;                       // occurrences in one inference
  std::map<std::string, double> latency;   // seconds of its best kernel in each layout it has one in
  double fixed = 0;                        // a task without layouts (empty `latency`): its seconds
  std::string input_layout;                // the layout its input arrives in; empty: the network's layout
};

// Seconds to convert task `task`'s input (side 0) or output (side 1) between two layouts.
using ConversionCost = std::function<double(size_t task, int side, const std::string &from, const std::string &to)>;

struct LayoutPlanStep {
  std::string layout;         // what the task runs in ("" for a task without layouts)
  double kernel = 0;          // its kernel's seconds
  double conversions = 0;     // seconds converting its input and output, per occurrence
};

struct LayoutPlan {
  std::string network_layout;
  std::vector<LayoutPlanStep> steps;  // per task
  double latency = 0;                 // Σ weight × (kernel + conversions)
  double conversion_latency = 0;      // the conversions' part of it
  bool found = false;                 // false when no network layout has a plan (steps then empty)
};

// The plan of least latency over the `max_layouts` most promising of
// `network_layouts` that have a plan: ranked by Σ weight × the task's latency in
// that layout (its best anywhere where it has none), which is what the plan would
// cost if conversions were free. Pricing every layout would tune conversions for
// plans that cannot win. A layout some task can neither run in nor convert to and
// from (24 channels have no NCHW16c) has no plan and takes no pricing slot; its
// pricing stops at the first such task.
LayoutPlan best_layout_plan(const std::vector<LayoutPlanTask> &tasks, const std::vector<std::string> &network_layouts,
                            const ConversionCost &conversion, size_t max_layouts = 2);

}  // namespace tlp
