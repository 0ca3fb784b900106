// Shared by the report's renderers: the runs grouped by operator and policy, and
// the median (which the bench's re-measurement of best kernels uses too).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tuner/bench/bench_report.h"

namespace tlp::bench_detail {

struct PolicyRuns {
  std::string policy;
  std::vector<const PolicyResult *> seeds;  // point into the report
};

struct OperatorRuns {
  std::string op, label;
  std::vector<PolicyRuns> policies;  // in order of first appearance
};

// The report's runs by operator (op and label) and then by policy, each in order
// of first appearance.
std::vector<OperatorRuns> group_by_operator(const BenchReport &r);

// The median of `values` (the mean of the middle two for an even count); infinite
// values sort last. NaN for an empty list.
double median(std::vector<double> values);

}  // namespace tlp::bench_detail
