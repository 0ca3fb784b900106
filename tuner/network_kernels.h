// Which kernel of a log serves each task of a network: the best valid one of the
// chosen platform whose workload is the task's op, or, when the op frees its
// layout (layout=any) or `any_layout` is asked, the best in any of its layouts.
// Shared by `export` and `show --network`.
#pragma once

#include <string>
#include <vector>

#include "search/network_spec.h"
#include "tuner/log_summary.h"

namespace tlp {

struct NetworkKernel {
  const NetworkTask *task = nullptr;     // into the spec passed in
  const TaskSummary *best = nullptr;     // into the summaries passed in; null: no valid kernel
};

struct NetworkKernels {
  std::string platform;
  std::vector<NetworkKernel> kernels;  // per task, in the network file's order
  int missing = 0;
  double latency = 0;  // Σ weight × best median over the tasks that have a kernel
};

// `platform`: the one asked for, or empty for the log's only one. Throws
// std::runtime_error (naming `log_path` and the platforms it has) when the platform
// is not in the log or several are and none was asked for, and for an op the
// operator library refuses.
NetworkKernels network_kernels(const NetworkSpec &spec, const std::vector<TaskSummary> &summaries,
                               const std::string &platform, bool any_layout, const std::string &log_path);

}  // namespace tlp
