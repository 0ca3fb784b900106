#include "search/layout_plan.h"

#include <algorithm>
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

// Σ weight × latency in `net` (the best anywhere where the task has none there).
double free_conversion_latency(const std::vector<LayoutPlanTask> &tasks, const std::string &net) {
  double total = 0;
  for (const LayoutPlanTask &t : tasks) {
    if (t.latency.empty()) continue;
    double best = kInf;
    for (const auto &l : t.latency) best = std::min(best, l.second);
    const auto it = t.latency.find(net);
    total += t.weight * (it != t.latency.end() ? it->second : best);
  }
  return total;
}

}  // namespace

LayoutPlan best_layout_plan(const std::vector<LayoutPlanTask> &tasks, const std::vector<std::string> &network_layouts,
                            const ConversionCost &conversion, size_t max_layouts) {
  std::vector<std::pair<double, std::string>> ranked;
  for (const std::string &net : network_layouts) ranked.emplace_back(free_conversion_latency(tasks, net), net);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  LayoutPlan best;
  best.latency = kInf;
  size_t priced = 0;
  for (const auto &[bound, net] : ranked) {
    if (priced == max_layouts) break;
    LayoutPlan plan;
    plan.network_layout = net;
    plan.found = true;
    for (size_t i = 0; i < tasks.size() && plan.found; ++i) {
      const LayoutPlanStep s = best_step(tasks[i], i, net, conversion);
      plan.found = s.kernel + s.conversions < kInf;
      plan.latency += tasks[i].weight * (s.kernel + s.conversions);
      plan.conversion_latency += tasks[i].weight * s.conversions;
      plan.steps.push_back(s);
    }
    if (!plan.found) continue;
    ++priced;
    if (plan.latency < best.latency) best = plan;
  }
  if (best.found) return best;
  LayoutPlan none;
  none.latency = kInf;
  return none;
}

}  // namespace tlp
