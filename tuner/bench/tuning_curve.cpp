#include "tuner/bench/tuning_curve.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tlp {
namespace {

void check_point(const CurvePoint &p, int previous_trial, size_t index) {
  const std::string where = "tuning curve point " + std::to_string(index) + " (trial " + std::to_string(p.trial) + ")";
  if (p.trial < 1 || p.trial <= previous_trial)
    throw std::invalid_argument(where + ": trials must be >= 1 and strictly increasing (previous trial " +
                                std::to_string(previous_trial) + ")");
  if (!(p.gflops >= 0) || !std::isfinite(p.gflops))
    throw std::invalid_argument(where + ": gflops must be a finite number >= 0 (0 for a failed candidate)");
  if (!(p.seconds >= 0) || !std::isfinite(p.seconds))
    throw std::invalid_argument(where + ": seconds must be a finite number >= 0");
}

}  // namespace

TuningCurve::TuningCurve(std::vector<CurvePoint> points) : points_(std::move(points)) {
  int previous = 0;
  for (size_t i = 0; i < points_.size(); ++i) {
    check_point(points_[i], previous, i);
    previous = points_[i].trial;
  }
}

double TuningCurve::best() const {
  double best = 0;
  for (const auto &p : points_) best = std::max(best, p.gflops);
  return best;
}

std::vector<CurvePoint> TuningCurve::best_so_far() const {
  std::vector<CurvePoint> out;
  out.reserve(points_.size());
  double best = 0;
  for (const auto &p : points_) {
    best = std::max(best, p.gflops);
    out.push_back({p.trial, p.seconds, best});
  }
  return out;
}

std::optional<CurvePoint> TuningCurve::first_reaching(double gflops) const {
  double best = 0;
  for (const auto &p : points_) {
    best = std::max(best, p.gflops);
    if (best >= gflops) return CurvePoint{p.trial, p.seconds, best};
  }
  return std::nullopt;
}

nlohmann::json TuningCurve::to_json() const {
  nlohmann::json points = nlohmann::json::array();
  for (const auto &p : points_) points.push_back({p.trial, p.seconds, p.gflops});
  return {{"points", points}};
}

TuningCurve TuningCurve::from_json(const nlohmann::json &j) {
  if (!j.is_object() || !j.contains("points") || !j["points"].is_array())
    throw std::runtime_error("tuning curve: expected {\"points\": [[trial, seconds, gflops], ...]}, got " +
                             j.dump().substr(0, 80));
  std::vector<CurvePoint> points;
  const auto &array = j["points"];
  for (size_t i = 0; i < array.size(); ++i) {
    const auto &p = array[i];
    if (!p.is_array() || p.size() != 3 || !p[0].is_number_integer() || !p[1].is_number() || !p[2].is_number())
      throw std::runtime_error("tuning curve: points[" + std::to_string(i) +
                               "] must be [trial, seconds, gflops] with an integer trial, got " + p.dump());
    points.push_back({p[0].get<int>(), p[1].get<double>(), p[2].get<double>()});
  }
  try {
    return TuningCurve(std::move(points));
  } catch (const std::invalid_argument &e) {
    throw std::runtime_error(e.what());
  }
}

Speedup speedup_to_reach(const TuningCurve &candidate, const TuningCurve &baseline) {
  Speedup s;
  const double target = baseline.best();
  if (!(target > 0)) return s;
  const std::optional<CurvePoint> base = baseline.first_reaching(target);
  const std::optional<CurvePoint> cand = candidate.first_reaching(target);
  if (!base || !cand) return s;
  s.reached = true;
  s.trials = cand->trial;
  s.seconds = cand->seconds;
  s.trials_ratio = static_cast<double>(base->trial) / cand->trial;
  if (cand->seconds > 0)
    s.seconds_ratio = base->seconds / cand->seconds;
  else  // both at 0 s are equally fast
    s.seconds_ratio = base->seconds > 0 ? std::numeric_limits<double>::infinity() : 1.0;
  return s;
}

}  // namespace tlp
