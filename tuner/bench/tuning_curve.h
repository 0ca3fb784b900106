// The progress of one tuning run: what each measured candidate scored, in
// measurement order, and the best-so-far curve that benchmarks compare. Time to
// a target is read off the best-so-far curve, in trials and in seconds.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace tlp {

struct CurvePoint {
  int trial;       // 1-based measurement index
  double seconds;  // since the run's start, when this candidate's measurement finished
  double gflops;   // the candidate's GFLOP/s; 0 for a failed candidate
};

class TuningCurve {
 public:
  TuningCurve() = default;
  // `points` in measurement order. Throws std::invalid_argument when trials are
  // not >= 1 and strictly increasing, or a gflops or seconds value is negative or
  // not finite. Failed candidates (gflops 0) may come anywhere.
  explicit TuningCurve(std::vector<CurvePoint> points);

  const std::vector<CurvePoint> &points() const { return points_; }
  bool empty() const { return points_.empty(); }

  // The highest GFLOP/s measured; 0 when the curve is empty or every candidate failed.
  double best() const;
  // One point per measured trial, with gflops replaced by the best up to and
  // including it: monotone non-decreasing.
  std::vector<CurvePoint> best_so_far() const;
  // The first point whose best-so-far is >= `gflops`, with its trial and seconds
  // and that best-so-far value; nullopt when the curve never gets there.
  std::optional<CurvePoint> first_reaching(double gflops) const;

  // {"points": [[trial, seconds, gflops], ...]}: arrays keep long curves compact.
  nlohmann::json to_json() const;
  // Throws std::runtime_error naming the fault when `j` is not what to_json writes.
  static TuningCurve from_json(const nlohmann::json &j);

 private:
  std::vector<CurvePoint> points_;
};

// How much sooner a candidate run reaches the final best of a baseline run.
struct Speedup {
  bool reached = false;        // the candidate reached the baseline's final best
  double trials_ratio = 0;     // baseline's trials to its final best / candidate's; > 1 is faster
  double seconds_ratio = 0;    // the same in seconds; infinity when only the candidate took 0 s
  int trials = 0;              // the candidate's trials to the target (when reached)
  double seconds = 0;          // the candidate's seconds to the target (when reached)
};

// The target is `baseline.best()`, and the baseline's own cost is its first
// trial at that best. reached is false when the candidate never gets there, and
// also when the baseline has no valid measurement (there is nothing to reach).
Speedup speedup_to_reach(const TuningCurve &candidate, const TuningCurve &baseline);

}  // namespace tlp
