// Measures a few finished kernels again, side by side: round after round, each
// kernel once per round, the order rotating. A tuning run's best figure is the
// fastest of hundreds of noisy measurements, taken whenever the run happened; on
// a shared machine that drifts by tens of percent within an hour. Measuring the
// runs' best kernels again under the same conditions compares what each run
// actually delivers.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "fleet/fleet.h"
#include "search/schedule.h"
#include "measure/timing_protocol.h"

namespace tlp {

struct RemeasureKernel {
  std::string op;  // KIND:P=V,...
  Schedule schedule;
};

struct RemeasureOptions {
  int rounds = 5;
  std::string target = "host";
  int threads = 0;           // kernel threads (0: every hardware thread)
  double min_seconds = kDefaultMinSeconds;  // timed seconds per measurement, at least
  std::string log_path;      // every measurement is appended here
  FleetRank fleet;           // on rank 0 of an MPI fleet, one of the other ranks measures
};

// Per kernel, the GFLOP/s of its fastest clean round (each round's figure is the
// runner's median over its repeats); 0 when it never measured cleanly. On a
// shared machine interference only ever slows a kernel down, so the fastest round
// is the nearest to the kernel's own speed; the peers are timed the same way
// (PeerOptions::rounds), so the two figures compare. Round r starts with kernel r
// (mod the count), so no kernel always runs first; `after_round` (may be empty)
// runs after each round's kernels, for what must be timed in the same rounds.
// Returns early, with what it has, when `stop` turns true.
std::vector<double> remeasure_side_by_side(const std::vector<RemeasureKernel> &kernels, const RemeasureOptions &o,
                                           const std::atomic<bool> &stop,
                                           const std::function<void(int round)> &after_round = {});

}  // namespace tlp
