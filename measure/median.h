// The median the measurement protocol reports: a kernel's cost is the median of
// its timed runs, and a kernel measured several times costs the median of those.
// Header-only, so the runner and the peer bench, which link nothing of ours, share it.
#pragma once

#include <algorithm>
#include <vector>

namespace tlp {

// The middle value, or the mean of the middle two for an even count; infinite
// values sort last. 0 for an empty list: callers for whom "none" differs from 0
// check emptiness first.
inline double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace tlp
