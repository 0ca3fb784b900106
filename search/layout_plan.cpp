#include "search/layout_plan.h"

#include <limits>

namespace tlp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Task t's cheapest way to run in a network whose activations are in `net`.
LayoutPlanStep best_step(const LayoutPlanTask &t, size_t index, const std::string &net, const ConversionCost &cost) {
  LayoutPlanStep best;
  if (t.latency.empty()) {
    best.kernel = t.fixed;
    return best;
  }
  const std::string in = t.input_layout.empty() ? net : t.input_layout;
  auto total = [](const LayoutPlanStep &s) { return s.kernel + s.conversions; };
  best.kernel = kInf;
  const auto native = t.latency.find(net);
  for (const auto &[layout, seconds] : t.latency) {
    // A detour is priced only where it could win: faster than running in `net`.
    if (native != t.latency.end() && layout != net && seconds >= native->second) continue;
    LayoutPlanStep s{layout, seconds, 0};
    if (layout != in) s.conversions += cost(index, 0, in, layout);
    if (layout != net) s.conversions += cost(index, 1, layout, net);
    if (total(s) < total(best)) best = s;
  }
  return best;
}

}  // namespace

LayoutPlan best_layout_plan(const std::vector<LayoutPlanTask> &tasks, const std::vector<std::string> &network_layouts,
                            const ConversionCost &conversion) {
  LayoutPlan best;
  best.latency = kInf;
  for (const std::string &net : network_layouts) {
    LayoutPlan plan;
    plan.network_layout = net;
    plan.found = true;
    for (size_t i = 0; i < tasks.size(); ++i) {
      const LayoutPlanStep s = best_step(tasks[i], i, net, conversion);
      plan.found = plan.found && s.kernel < kInf;
      plan.latency += tasks[i].weight * (s.kernel + s.conversions);
      plan.conversion_latency += tasks[i].weight * s.conversions;
      plan.steps.push_back(s);
    }
    if (plan.found && plan.latency < best.latency) best = plan;
  }
  if (!best.found) best.latency = kInf;
  return best;
}

}  // namespace tlp
