// How a kernel is timed, for every program that times one (the runner, the
// library peers): warm-up runs, then timed runs until both min_repeats and
// min_seconds are met, or max_repeats is reached. Every measurement default of
// tlptune is here; the options structs of the layers above start from these.
#pragma once

#include <chrono>
#include <type_traits>
#include <vector>

namespace tlp {

// Untimed runs first: the first call pays for page faults and cold caches.
constexpr int kDefaultWarmup = 1;
constexpr int kDefaultMinRepeats = 3;
constexpr int kDefaultMaxRepeats = 50;
// Long enough for a kernel of a millisecond to be run about a hundred times.
constexpr double kDefaultMinSeconds = 0.1;
// The output check: |out - ref| <= rtol * (|ref| + mean|ref|) + kCheckAbsoluteFloor.
constexpr double kDefaultRtol = 1e-3;
constexpr double kCheckAbsoluteFloor = 1e-6;  // so an all-zero reference is checkable
// Seconds before a build or a run is abandoned (the candidate fails, the run goes on).
constexpr double kDefaultBuildTimeout = 60;
constexpr double kDefaultRunTimeout = 20;

struct TimingOptions {
  int warmup = kDefaultWarmup;
  int min_repeats = kDefaultMinRepeats;
  int max_repeats = kDefaultMaxRepeats;  // the hard limit, even below min_repeats
  double min_seconds = kDefaultMinSeconds;
};

struct TimedRuns {
  std::vector<double> costs;  // seconds per timed run
  int rc = 0;                 // the failing run's return code; 0 when none failed
  bool in_warmup = false;     // the failing run was a warm-up run
};

// Times `run` by the protocol. `run` returns an int (non-zero: it failed, and
// timing stops there) or nothing (it cannot fail). `on_timing_start` is called
// once, after the warm-up and before the first timed run.
template <typename Run, typename Start>
TimedRuns time_runs(Run &&run, const TimingOptions &o, Start &&on_timing_start) {
  using Clock = std::chrono::steady_clock;
  auto call = [&]() -> int {
    if constexpr (std::is_void_v<decltype(run())>) {
      run();
      return 0;
    } else {
      return run();
    }
  };
  TimedRuns t;
  for (int i = 0; i < o.warmup; ++i) {
    if ((t.rc = call()) != 0) {
      t.in_warmup = true;
      return t;
    }
  }
  on_timing_start();
  double total = 0;
  while (int(t.costs.size()) < o.max_repeats && (int(t.costs.size()) < o.min_repeats || total < o.min_seconds)) {
    const auto start = Clock::now();
    t.rc = call();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (t.rc != 0) return t;
    t.costs.push_back(seconds);
    total += seconds;
  }
  return t;
}

template <typename Run>
TimedRuns time_runs(Run &&run, const TimingOptions &o) {
  return time_runs(std::forward<Run>(run), o, [] {});
}

}  // namespace tlp
