// The CI performance gate: a stored baseline of benchmark results, and the check
// that a new run is no worse than it beyond a tolerance. Tuning is noisy, so the
// command re-measures the flagged entries and keeps the better of the two runs
// (best_of) before it fails a build.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tuner/bench/bench_report.h"

namespace tlp {

struct BenchBaseline {
  struct Entry {
    double best_gflops = 0;     // the best GFLOP/s the run found (see bests_measured_again)
    int trials_to_target = -1;  // trials it needed to reach the suite's target; -1 unknown
  };
  std::map<std::string, Entry> entries;  // by baseline_key()
  // true: each best_gflops is the run's best kernel measured again after all runs,
  // side by side (bench --final-rounds); false: the search's own best record. The
  // two are not comparable (a search's best is its luckiest measurement), so a
  // check refuses to mix them.
  bool bests_measured_again = false;
};

// The newest baseline file format this reader understands. Format 1 had no
// "bests_measured_again" and always held the search's own bests.
constexpr int kBenchBaselineFormat = 2;

// The key of one policy's result on one operator: "policy|op", or
// "policy|op|label" when the operator has a label.
std::string baseline_key(const std::string &policy, const std::string &op, const std::string &label = "");

// Reads a baseline file:
//   {"format": 2, "bests_measured_again": true,
//    "entries": {"KEY": {"best_gflops": 12.5, "trials_to_target": 40}, ...}}
// "trials_to_target" is optional (-1 when absent); "bests_measured_again" is
// optional (false when absent, as in format 1). Throws std::runtime_error
// naming the file, the entry and the fault for an unreadable file, invalid JSON,
// a missing or unknown format, unknown keys, and values of the wrong type or range.
BenchBaseline read_baseline(const std::string &path);

// Writes `baseline` to a temporary file beside `path` and renames it over `path`,
// so an interrupted write never leaves a half-written baseline. Throws
// std::runtime_error when it cannot.
void write_baseline(const BenchBaseline &baseline, const std::string &path);

struct Regression {
  enum class Kind { kSlower, kMoreTrials, kMissing };
  Kind kind;
  std::string key;
  double baseline_value = 0;  // GFLOP/s or trials; 0 for kMissing
  double current_value = 0;
  std::string message;        // one line for people: the entry, both values, the change in percent
};

// The entries of `current` that are worse than `baseline` beyond `tolerance` (a
// fraction, e.g. 0.15 for 15%):
// - kSlower: current best_gflops < baseline best_gflops x (1 - tolerance);
// - kMoreTrials: current trials_to_target > baseline x (1 + tolerance), only when
//   both are known (>= 0);
// - kMissing: a baseline entry that `current` lacks.
// Entries only in `current` are new, not regressions. In key order. Throws
// std::invalid_argument for a tolerance that is negative or not finite.
std::vector<Regression> find_regressions(const BenchBaseline &baseline, const BenchBaseline &current,
                                         double tolerance);

// Every entry of either, and for an entry in both, the better of each figure:
// the higher best_gflops and the fewer known trials_to_target. Throws
// std::invalid_argument when one holds re-measured bests and the other not.
BenchBaseline best_of(const BenchBaseline &a, const BenchBaseline &b);

// The figures a CI baseline keeps, per policy and operator (medians over seeds):
// the best GFLOP/s, and the trials to reach `fraction` of the best GFLOP/s any
// policy reached on the operator in `reference` (in `r` itself when null). A run
// that never reaches it counts as budget + 1 trials. The best GFLOP/s is each
// run's remeasured_gflops when `measured_again` (0 for a run whose best kernel
// failed then), else the search's own best.
BenchBaseline baseline_from_report(const BenchReport &r, double fraction, const BenchBaseline *reference,
                                   bool measured_again);


}  // namespace tlp
