// Tuning curves: best-so-far is monotone with failures anywhere, time to a target
// is read off it, speedups compare two runs, and curves round-trip through JSON.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tuner/bench/tuning_curve.h"

namespace tlp {
namespace {

// gflops per trial, with trial i finishing at i * 2 seconds.
TuningCurve curve_of(const std::vector<double> &gflops) {
  std::vector<CurvePoint> points;
  for (size_t i = 0; i < gflops.size(); ++i) points.push_back({int(i) + 1, 2.0 * (i + 1), gflops[i]});
  return TuningCurve(points);
}

TEST(TuningCurve, BestIsTheHighestMeasurement) {
  EXPECT_DOUBLE_EQ(curve_of({0, 5, 3, 9, 0, 7}).best(), 9);
  EXPECT_DOUBLE_EQ(curve_of({0, 0}).best(), 0);
  EXPECT_DOUBLE_EQ(TuningCurve().best(), 0);
}

TEST(TuningCurve, BestSoFarIsMonotoneWithOnePointPerTrial) {
  const auto bsf = curve_of({0, 5, 0, 3, 9, 0}).best_so_far();
  ASSERT_EQ(bsf.size(), 6u);
  const double expected[] = {0, 5, 5, 5, 9, 9};
  for (size_t i = 0; i < bsf.size(); ++i) {
    EXPECT_EQ(bsf[i].trial, int(i) + 1);
    EXPECT_DOUBLE_EQ(bsf[i].seconds, 2.0 * (i + 1));
    EXPECT_DOUBLE_EQ(bsf[i].gflops, expected[i]);
  }
}

TEST(TuningCurve, FirstReachingReturnsTrialAndSeconds) {
  const TuningCurve c = curve_of({0, 5, 3, 9, 0, 10});
  auto hit = c.first_reaching(4);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->trial, 2);
  EXPECT_DOUBLE_EQ(hit->seconds, 4);
  EXPECT_DOUBLE_EQ(hit->gflops, 5);
  EXPECT_EQ(c.first_reaching(9)->trial, 4);  // reaching exactly counts
  EXPECT_EQ(c.first_reaching(10)->trial, 6);
  EXPECT_FALSE(c.first_reaching(10.5));
  EXPECT_FALSE(TuningCurve().first_reaching(1));
}

TEST(TuningCurve, RefusesBadPoints) {
  EXPECT_THROW(TuningCurve({{0, 1, 1}}), std::invalid_argument);
  EXPECT_THROW(TuningCurve({{2, 1, 1}, {2, 2, 1}}), std::invalid_argument);
  EXPECT_THROW(TuningCurve({{1, 1, -1}}), std::invalid_argument);
  EXPECT_THROW(TuningCurve({{1, 1, NAN}}), std::invalid_argument);
  EXPECT_THROW(TuningCurve({{1, -1, 1}}), std::invalid_argument);
  EXPECT_NO_THROW(TuningCurve({{3, 1, 1}, {7, 2, 0}}));  // gaps are fine (a resumed run)
}

TEST(TuningCurve, JsonRoundTrip) {
  const TuningCurve c({{1, 0.5, 0}, {2, 1.25, 17.5}, {4, 3, 12}});
  const TuningCurve back = TuningCurve::from_json(nlohmann::json::parse(c.to_json().dump()));
  ASSERT_EQ(back.points().size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.points()[i].trial, c.points()[i].trial);
    EXPECT_DOUBLE_EQ(back.points()[i].seconds, c.points()[i].seconds);
    EXPECT_DOUBLE_EQ(back.points()[i].gflops, c.points()[i].gflops);
  }
}

TEST(TuningCurve, FromJsonRefusesMalformedInput) {
  EXPECT_THROW(TuningCurve::from_json(nlohmann::json::parse("[]")), std::runtime_error);
  EXPECT_THROW(TuningCurve::from_json(nlohmann::json::parse(R"({"points": [[1, 2]]})")), std::runtime_error);
  EXPECT_THROW(TuningCurve::from_json(nlohmann::json::parse(R"({"points": [[1.5, 2, 3]]})")), std::runtime_error);
  EXPECT_THROW(TuningCurve::from_json(nlohmann::json::parse(R"({"points": [[2, 1, 1], [1, 2, 3]]})")),
               std::runtime_error);
}

TEST(Speedup, CandidateReachingSoonerHasRatioAboveOne) {
  // Baseline reaches its final best 10 at trial 8 (16 s); the candidate at trial 2 (4 s).
  const TuningCurve baseline = curve_of({1, 2, 3, 4, 5, 6, 7, 10});
  const TuningCurve candidate = curve_of({0, 12, 12});
  const Speedup s = speedup_to_reach(candidate, baseline);
  EXPECT_TRUE(s.reached);
  EXPECT_EQ(s.trials, 2);
  EXPECT_DOUBLE_EQ(s.seconds, 4);
  EXPECT_DOUBLE_EQ(s.trials_ratio, 4);
  EXPECT_DOUBLE_EQ(s.seconds_ratio, 4);
}

TEST(Speedup, SecondsRatioUsesTimestamps) {
  const TuningCurve baseline({{1, 10, 1}, {2, 30, 5}});
  const TuningCurve candidate({{1, 3, 5}});
  const Speedup s = speedup_to_reach(candidate, baseline);
  EXPECT_DOUBLE_EQ(s.trials_ratio, 2);
  EXPECT_DOUBLE_EQ(s.seconds_ratio, 10);
}

TEST(Speedup, NotReachedWhenCandidateFallsShort) {
  const Speedup s = speedup_to_reach(curve_of({1, 2, 9.99}), curve_of({10}));
  EXPECT_FALSE(s.reached);
}

TEST(Speedup, NotReachedWhenBaselineHasNothing) {
  EXPECT_FALSE(speedup_to_reach(curve_of({5}), curve_of({0, 0})).reached);
  EXPECT_FALSE(speedup_to_reach(curve_of({5}), TuningCurve()).reached);
}

TEST(Speedup, SameCurveIsOne) {
  const TuningCurve c = curve_of({0, 3, 2, 8});
  const Speedup s = speedup_to_reach(c, c);
  EXPECT_TRUE(s.reached);
  EXPECT_DOUBLE_EQ(s.trials_ratio, 1);
  EXPECT_DOUBLE_EQ(s.seconds_ratio, 1);
}

}  // namespace
}  // namespace tlp
