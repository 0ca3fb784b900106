#include "tuner/network_kernels.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "codegen/layout_choice.h"
#include "codegen/workload.h"

namespace tlp {
namespace {

std::string join(const std::vector<std::string> &v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

std::string chosen_platform(const std::vector<TaskSummary> &summaries, const std::string &asked,
                            const std::string &log_path) {
  std::vector<std::string> names;
  for (const TaskSummary &t : summaries)
    if (t.best && std::find(names.begin(), names.end(), t.platform) == names.end()) names.push_back(t.platform);
  if (!asked.empty()) {
    if (std::find(names.begin(), names.end(), asked) == names.end())
      throw std::runtime_error(log_path + " has no valid record of platform '" + asked + "'; it has: " + join(names));
    return asked;
  }
  if (names.empty()) throw std::runtime_error(log_path + " holds no valid measurement; tune the network first");
  if (names.size() > 1)
    throw std::runtime_error(log_path + " holds several platforms (" + join(names) + "); choose one with --platform");
  return names[0];
}

// The keys of the kernels that may serve network op `spec`.
std::set<std::string> serving_keys(const std::string &spec, bool any_layout) {
  std::set<std::string> keys{parse_workload(spec).key()};
  if (any_layout || chooses_layout(spec))
    for (const std::string &k : every_layout_variant(spec)) keys.insert(k);
  return keys;
}

}  // namespace

NetworkKernels network_kernels(const NetworkSpec &spec, const std::vector<TaskSummary> &summaries,
                               const std::string &platform, bool any_layout, const std::string &log_path) {
  NetworkKernels out;
  out.platform = chosen_platform(summaries, platform, log_path);
  for (const NetworkTask &task : spec.tasks) {
    std::set<std::string> keys;
    try {
      keys = serving_keys(task.op, any_layout);
    } catch (const std::exception &e) {
      throw std::runtime_error("network '" + spec.name + "': op '" + task.op + "': " + e.what());
    }
    NetworkKernel k{&task, nullptr};
    for (const TaskSummary &s : summaries)
      if (s.best && s.platform == out.platform && keys.count(s.workload) && (!k.best || s.best_cost < k.best->best_cost))
        k.best = &s;
    if (k.best) out.latency += task.weight * k.best->best_cost;
    else ++out.missing;
    out.kernels.push_back(k);
  }
  return out;
}

}  // namespace tlp
