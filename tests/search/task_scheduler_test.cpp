// The task scheduler: warm-up order, Ansor's gradient (chain rule × backward and
// forward terms), the epsilon-random picks, done tasks, and determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "search/task_scheduler.h"

namespace tlp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kTrials = 64;  // trials per round in the simulations

TaskSchedulerOptions no_random() {
  TaskSchedulerOptions o;
  o.eps_random = 0;
  return o;
}

// The latency a task's search would reach in its r-th round (r = 1, 2, ...).
using Curve = std::function<double(int)>;

// Runs `rounds` rounds (warm-up included) against the curves; returns the picks.
std::vector<int> simulate(TaskScheduler &s, const std::vector<Curve> &curves, int rounds) {
  std::vector<int> picks;
  for (int i = 0; i < rounds; ++i) {
    const int t = s.next_task();
    if (t < 0) break;
    picks.push_back(t);
    const double reached = curves[t](s.rounds_per_task()[t] + 1);
    s.report(t, std::min(s.best_latency(t), reached), kTrials);
  }
  return picks;
}

Curve flat(double v) {
  return [v](int) { return v; };
}
// Falls by `step` every round, down to `floor`.
Curve falling(double start, double step, double floor) {
  return [=](int r) { return std::max(floor, start - step * (r - 1)); };
}

TEST(TaskScheduler, WarmUpVisitsEachTaskOnceInOrderEvenWithRandomPicksOn) {
  TaskSchedulerOptions o;
  o.eps_random = 1.0;  // the warm-up ignores it
  TaskScheduler s({5, 1, 1, 3}, o);
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(s.next_task(), t);
    s.report(t, 1.0 + t, kTrials);
  }
  EXPECT_EQ(s.rounds_per_task(), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(s.trials_per_task(), (std::vector<int>{kTrials, kTrials, kTrials, kTrials}));
}

TEST(TaskScheduler, ATaskWithoutAValidResultIsPickedFirst) {
  TaskScheduler s({100, 1, 100}, no_random());
  s.report(s.next_task(), 1.0, kTrials);
  s.report(s.next_task(), kInf, kTrials);  // task 1: every candidate failed
  s.report(s.next_task(), 1.0, kTrials);
  EXPECT_EQ(s.gradient(1), -kInf);
  EXPECT_EQ(s.next_task(), 1);  // despite its small weight
  s.report(1, 2.0, kTrials);
  EXPECT_NE(s.next_task(), 1);
}

TEST(TaskScheduler, AmongTasksWithoutAValidResultTheOneWithFewerRoundsGoesFirst) {
  TaskScheduler s({1, 1}, no_random());
  s.report(s.next_task(), kInf, kTrials);
  s.report(s.next_task(), kInf, kTrials);
  s.report(0, kInf, kTrials);  // task 0 now has 2 rounds, task 1 has 1
  EXPECT_EQ(s.next_task(), 1);
}

TEST(TaskScheduler, GradientMatchesTheHandComputedAnsorFormula) {
  TaskScheduler s({2.0}, no_random());
  // Rounds of 64, 64, 32 and 64 trials.
  s.report(0, 1.0, 64);
  s.report(0, 0.8, 64);
  s.report(0, 0.6, 32);
  // Three rounds: no window of 3 behind the latest yet, so the forward term alone.
  EXPECT_DOUBLE_EQ(s.gradient(0), 2.0 * (0.8 * (-0.6 / 160)));
  s.report(0, 0.5, 64);
  // Backward: (0.5 − 1.0) over the trials of the last 3 rounds (64 + 32 + 64 = 160);
  // forward: −0.5 over all 224 trials.
  EXPECT_DOUBLE_EQ(s.gradient(0), 2.0 * (0.2 * (-0.5 / 160) + 0.8 * (-0.5 / 224)));
}

TEST(TaskScheduler, TheSimilarTaskBoundMatchesTheHandComputedFormula) {
  TaskScheduler s({1, 1}, no_random());
  s.set_similar_tasks({1e9, 1e9}, {"conv", "conv"});
  s.report(0, 0.01, 64);                        // 100 GFLOP/s: the group's throughput
  for (int i = 0; i < 4; ++i) s.report(1, 0.05, 64);  // 20 GFLOP/s, flat (backward 0)
  // min(0.05 − 0.05/4, 2 × 1e9 / 1e11) − 0.05 per round of 64 trials.
  EXPECT_DOUBLE_EQ(s.gradient(1), 0.8 * ((0.02 - 0.05) / 64));
  // The group's fastest task is within beta of itself: the first term alone.
  EXPECT_DOUBLE_EQ(s.gradient(0), 0.8 * (-0.01 / 64));
}

TEST(TaskScheduler, ATaskFarSlowerThanItsGroupGetsMoreRoundsWithTheSimilarTaskBound) {
  // Task 1 is small (a tenth of the FLOPs) and runs at a fifth of task 0's FLOP/s.
  const std::vector<Curve> curves = {flat(0.01), flat(0.005)};
  TaskScheduler plain({1, 1}, no_random()), similar({1, 1}, no_random()), apart({1, 1}, no_random());
  similar.set_similar_tasks({1e9, 1e8}, {"conv", "conv"});
  apart.set_similar_tasks({1e9, 1e8}, {"conv", "depthwise"});  // nothing to compare with
  for (TaskScheduler *s : {&plain, &similar, &apart}) simulate(*s, curves, 40);
  EXPECT_GT(similar.rounds_per_task()[1], plain.rounds_per_task()[1] + 10);
  EXPECT_EQ(apart.rounds_per_task(), plain.rounds_per_task());
}

TEST(TaskScheduler, SimilarTasksNeedAFlopCountAndAGroupPerTask) {
  TaskScheduler s({1, 1});
  EXPECT_THROW(s.set_similar_tasks({1e9}, {"a", "a"}), std::invalid_argument);
  EXPECT_THROW(s.set_similar_tasks({1e9, 1e9}, {"a"}), std::invalid_argument);
  EXPECT_THROW(s.set_similar_tasks({1e9, 0}, {"a", "a"}), std::invalid_argument);
}

TEST(TaskScheduler, PrefersTheImprovingTaskWhenLatencyWeightAndTrialsAreEqual) {
  TaskScheduler s({1, 1}, no_random());
  s.report(s.next_task(), 1.0, kTrials);
  s.report(s.next_task(), 0.7, kTrials);
  for (double b : {0.9, 0.8, 0.7}) s.report(0, b, kTrials);  // task 0 keeps falling
  for (int i = 0; i < 3; ++i) s.report(1, 0.7, kTrials);    // task 1 is flat
  // Same best (0.7), same trials: only the backward term differs.
  EXPECT_LT(s.gradient(0), s.gradient(1));
  EXPECT_EQ(s.next_task(), 0);
}

TEST(TaskScheduler, ABackwardTermGivesAnImprovingTaskMoreRoundsThanTheForwardTermAlone) {
  // Task 0 keeps falling; task 1 is flat at 0.6. With alpha = 0 only the forward
  // term (best / trials) counts.
  const std::vector<Curve> curves = {falling(1.0, 0.02, 0.3), flat(0.6)};
  TaskSchedulerOptions forward_only = no_random();
  forward_only.alpha = 0;
  for (int rounds : {22, 32, 42, 52, 62}) {
    SCOPED_TRACE(rounds);
    TaskScheduler with_backward({1, 1}, no_random());
    TaskScheduler without_backward({1, 1}, forward_only);
    simulate(with_backward, curves, rounds);
    simulate(without_backward, curves, rounds);
    EXPECT_GT(with_backward.rounds_per_task()[0], without_backward.rounds_per_task()[0]);
  }
}

TEST(TaskScheduler, AmongFlatTasksRoundsFollowWeightTimesLatency) {
  TaskScheduler s({1, 1}, no_random());
  simulate(s, {flat(2.0), flat(1.0)}, 90);
  const auto &r = s.rounds_per_task();
  EXPECT_EQ(r[0] + r[1], 90);
  EXPECT_NEAR(static_cast<double>(r[0]) / r[1], 2.0, 0.1);
}

TEST(TaskScheduler, ATaskWithAHugeWeightGetsMostRounds) {
  TaskScheduler s({100, 1}, no_random());
  const auto picks = simulate(s, {falling(1.0, 0.01, 0.5), falling(1.0, 0.01, 0.5)}, 60);
  EXPECT_EQ(picks.size(), 60u);
  EXPECT_GE(s.rounds_per_task()[0], 50);
  EXPECT_GE(s.rounds_per_task()[1], 1);  // the warm-up
}

TEST(TaskScheduler, EstimatedLatencyIsTheWeightedSumOfBestsAndInfiniteUntilEveryTaskHasOne) {
  TaskScheduler s({2, 3, 0.5}, no_random());
  EXPECT_EQ(s.estimated_latency(), kInf);
  s.report(0, 0.5, kTrials);
  s.report(1, 0.25, kTrials);
  EXPECT_EQ(s.estimated_latency(), kInf);
  s.report(2, kInf, kTrials);
  EXPECT_EQ(s.estimated_latency(), kInf);
  s.report(2, 4.0, kTrials);
  EXPECT_DOUBLE_EQ(s.estimated_latency(), 2 * 0.5 + 3 * 0.25 + 0.5 * 4.0);  // 3.75
  s.report(1, 0.125, kTrials);
  EXPECT_DOUBLE_EQ(s.estimated_latency(), 3.375);
}

TEST(TaskScheduler, RandomPicksReachEveryTask) {
  TaskSchedulerOptions o;
  o.eps_random = 1.0;
  TaskScheduler s({1000, 1, 1, 1}, o);
  simulate(s, {flat(1), flat(1), flat(1), flat(1)}, 404);
  for (int t = 0; t < 4; ++t) EXPECT_GE(s.rounds_per_task()[t], 60) << "task " << t;
}

TEST(TaskScheduler, IsDeterministicForASeed) {
  const std::vector<Curve> curves = {falling(1.0, 0.05, 0.2), flat(0.5), falling(3.0, 0.1, 1.0)};
  TaskSchedulerOptions o;
  o.eps_random = 0.3;
  auto run = [&](uint64_t seed) {
    o.seed = seed;
    TaskScheduler s({1, 2, 1}, o);
    return simulate(s, curves, 100);
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

TEST(TaskScheduler, ATaskWhoseRoundMeasuredNothingIsDoneAndMinusOneMeansAllAreDone) {
  TaskScheduler s({1, 1}, no_random());
  s.report(s.next_task(), 1.0, kTrials);
  s.report(s.next_task(), 1.0, 0);  // task 1's space is used up
  EXPECT_TRUE(s.done(1));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(s.next_task(), 0);
    s.report(0, 1.0, kTrials);
  }
  s.report(0, 1.0, 0);
  EXPECT_EQ(s.next_task(), -1);
}

TEST(TaskScheduler, ATaskWithNoValidResultAfterMaxInvalidRoundsIsGivenUp) {
  TaskSchedulerOptions o = no_random();
  o.max_invalid_rounds = 3;
  TaskScheduler s({1, 1}, o);
  simulate(s, {flat(kInf), flat(1.0)}, 20);
  EXPECT_EQ(s.rounds_per_task()[0], 3);
  EXPECT_TRUE(s.done(0));
  EXPECT_EQ(s.rounds_per_task()[1], 17);
  EXPECT_EQ(s.estimated_latency(), kInf);

  o.max_invalid_rounds = 0;  // never give up: the failing task takes every round
  TaskScheduler keep({1, 1}, o);
  simulate(keep, {flat(kInf), flat(1.0)}, 20);
  EXPECT_EQ(keep.rounds_per_task()[0], 19);
}

TEST(TaskScheduler, RefusesBadWeightsOptionsAndReports) {
  EXPECT_THROW(TaskScheduler({}), std::invalid_argument);
  EXPECT_THROW(TaskScheduler({1, 0}), std::invalid_argument);
  EXPECT_THROW(TaskScheduler({1, -2}), std::invalid_argument);
  EXPECT_THROW(TaskScheduler({kInf}), std::invalid_argument);
  TaskSchedulerOptions o;
  o.backward_window = 0;
  EXPECT_THROW(TaskScheduler({1}, o), std::invalid_argument);
  o = {};
  o.alpha = 1.5;
  EXPECT_THROW(TaskScheduler({1}, o), std::invalid_argument);

  TaskScheduler s({1, 1});
  EXPECT_THROW(s.report(2, 1.0, 1), std::invalid_argument);
  EXPECT_THROW(s.report(-1, 1.0, 1), std::invalid_argument);
  EXPECT_THROW(s.report(0, 0.0, 1), std::invalid_argument);
  EXPECT_THROW(s.report(0, std::nan(""), 1), std::invalid_argument);
  EXPECT_THROW(s.report(0, 1.0, -1), std::invalid_argument);
  s.report(0, 1.0, 1);
  try {
    s.report(0, 2.0, 1);  // a best so far cannot rise
    FAIL() << "accepted a rising best";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("above the best reported before"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tlp
