// The cost of each measured kernel (schedule) of one task, over all of its
// measurements. A kernel measured more than once (tune measures its fastest few
// again at the end, side by side) costs the median of its measurements' medians:
// on a shared machine one lucky measurement can make a slower kernel look fastest,
// and that kernel should not be the one handed to the user. A kernel that ran
// correctly once but crashed, hung or answered wrongly when run again (a race, for
// one) is ruled out. Measurements timed on a busy machine
// (MeasureRecord::timed_on_busy_machine) count only for a kernel that has no
// other: contention only ever slows a kernel down, so they say less.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "measure/measure_record.h"

namespace tlp {

class KernelCostTable {
 public:
  // Adds one valid measurement of the kernel named `key` (e.g. its schedule's
  // text): the median cost of one record, in seconds, and whether it was timed
  // on a busy machine.
  void add(const std::string &key, double median_cost, bool busy = false);

  // Adds a record under its schedule's text: a valid one's median cost; a run
  // that crashed, hung or answered wrongly rules its kernel out. Build failures
  // (a timeout on a busy machine) say nothing about the kernel and are ignored.
  void add(const MeasureRecord &record);
  // The same, under `key` (when one table holds kernels of several workloads).
  void add(const MeasureRecord &record, const std::string &key);

  // Rules the kernel out for good: it is never the best nor among the cheapest.
  void rule_out(const std::string &key);

  // Whether some kernel has a cost and is not ruled out.
  bool has_best() const;

  // The cheapest kernel not ruled out; ties go to the one added first. Undefined
  // unless has_best().
  const std::string &best_key() const;
  double best_cost() const { return cost(best_key()); }

  // A kernel's cost (the median of its measurements on a quiet machine, or of
  // all when none was quiet) and how often it was measured; 0 and 0 for a key
  // never added.
  double cost(const std::string &key) const;
  int measurements(const std::string &key) const;

  bool ruled_out(const std::string &key) const { return ruled_out_.count(key) > 0; }

  // The keys of the `n` cheapest kernels not ruled out, cheapest first.
  std::vector<std::string> cheapest(size_t n) const;

 private:
  struct Entry {
    std::vector<double> quiet, busy;  // the medians of its measurements
    double cost = 0;
    size_t order = 0;  // when first added
  };
  bool cheaper(const Entry &a, const Entry &b) const {
    return a.cost < b.cost || (a.cost == b.cost && a.order < b.order);
  }

  std::unordered_map<std::string, Entry> entries_;  // kernels not ruled out
  std::unordered_set<std::string> ruled_out_;
  size_t added_ = 0;
  mutable std::string best_;
  mutable bool best_stale_ = false;
};

}  // namespace tlp
