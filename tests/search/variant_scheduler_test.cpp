// The variant scheduler: every variant is tried, then rounds go to the variants
// that can still be the fastest, the least-tried first, trials weighted by how far
// a variant is behind the leader.
#include "search/variant_scheduler.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

namespace tlp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(VariantScheduler, EveryVariantGetsItsWarmUpRoundsFirstInOrder) {
  VariantScheduler s(3, {2, 1.2, 3});
  std::vector<int> order;
  for (int i = 0; i < 6; ++i) {
    const int v = s.next_variant();
    order.push_back(v);
    s.report(v, 1.0 + v, 8);
  }
  EXPECT_EQ(order, (std::vector<int>{0, 0, 1, 1, 2, 2}));
}

TEST(VariantScheduler, WarmingUpLastsUntilEveryLiveVariantHadItsWarmUpRounds) {
  VariantScheduler s(3, {2, 1.2, 3});
  for (int round = 0; round < 5; ++round) {
    EXPECT_TRUE(s.warming_up()) << "after " << round << " rounds";
    const int v = s.next_variant();
    // Variant 1's space is used up in its first round: done, it warms up no more.
    s.report(v, 1.0 + v, v == 1 ? 0 : 8);
  }
  EXPECT_FALSE(s.warming_up()) << "0 and 2 had two rounds each, 1 is done";
}

TEST(VariantScheduler, AVariantFarBehindTheBestGetsNoMoreRounds) {
  VariantScheduler s(3);
  s.report(s.next_variant(), 1.0, 8);  // 0: the best
  s.report(s.next_variant(), 1.1, 8);  // 1: within 1.2x
  s.report(s.next_variant(), 3.0, 8);  // 2: far behind
  for (int i = 0; i < 10; ++i) {
    const int v = s.next_variant();
    ASSERT_NE(v, 2);
    s.report(v, v == 0 ? 1.0 : 1.1, 8);
  }
  EXPECT_FALSE(s.contender(2));
  EXPECT_EQ(s.trials(2), 8);
  EXPECT_EQ(s.best_variant(), 0);
}

TEST(VariantScheduler, AmongContendersTheLeastTriedGoesNext) {
  VariantScheduler s(2);
  s.report(s.next_variant(), 1.0, 16);
  s.report(s.next_variant(), 1.05, 4);
  EXPECT_EQ(s.next_variant(), 1);
  s.report(1, 1.05, 16);  // now 20 trials against 16
  EXPECT_EQ(s.next_variant(), 0);
}

// Plays `rounds` rounds of 8 trials, each variant's best fixed at bests[v].
std::vector<int> play(VariantScheduler &s, const std::vector<double> &bests, int rounds) {
  std::vector<int> order;
  for (int i = 0; i < rounds; ++i) {
    const int v = s.next_variant();
    if (v < 0) break;
    order.push_back(v);
    s.report(v, bests[size_t(v)], 8);
  }
  return order;
}

TEST(VariantScheduler, AVariantHalfShareRatioBehindGetsAboutHalfTheLeadersTrials) {
  VariantScheduler s(2, {1, 1.3, 3, 1.1});
  play(s, {1.0, 1.1}, 60);
  EXPECT_NEAR(double(s.trials(1)) / s.trials(0), 0.5, 0.05);
}

TEST(VariantScheduler, NearlyEqualVariantsShareTheBudgetAndTheLeaderGetsMore) {
  VariantScheduler s(3);
  play(s, {1.0, 1.02, 1.05}, 60);
  EXPECT_GT(s.trials(0), s.trials(1));
  EXPECT_GT(s.trials(1), s.trials(2));
  EXPECT_GT(s.trials(2), 8 * 10);  // still a real share
}

TEST(VariantScheduler, AVariantALittleBehindAfterItsWarmUpGetsALateRound) {
  VariantScheduler s(2, {1, 1.3, 3, 1.1});
  const std::vector<int> order = play(s, {1.0, 1.25}, 16);
  // Warm-up 0, 1; then the leader until 8 * n > 8 * 1.25^(ln 2 / ln 1.1) = 8 * 5.1.
  const std::vector<int> expected{0, 1, 0, 0, 0, 0, 0, 1};
  ASSERT_GE(order.size(), expected.size());
  EXPECT_EQ(std::vector<int>(order.begin(), order.begin() + long(expected.size())), expected);
}

TEST(VariantScheduler, WithAnInfiniteHalfShareRatioContendersShareEvenly) {
  VariantScheduler s(2, {1, 1.3, 3, kInf});
  play(s, {1.0, 1.2}, 20);
  EXPECT_EQ(s.trials(0), s.trials(1));
}

TEST(VariantScheduler, UsedUpAndNeverValidVariantsAreDone) {
  VariantScheduler s(2, {1, 1.2, 2});
  s.report(s.next_variant(), 1.0, 0);  // its space is used up
  EXPECT_TRUE(s.done(0));
  s.report(s.next_variant(), kInf, 8);
  EXPECT_FALSE(s.done(1));
  EXPECT_EQ(s.next_variant(), 1);
  s.report(1, kInf, 8);
  EXPECT_TRUE(s.done(1));
  EXPECT_EQ(s.next_variant(), -1);
  EXPECT_EQ(s.best_variant(), 0);
}

TEST(VariantScheduler, BadArgumentsAreRefused) {
  EXPECT_THROW(VariantScheduler(0), std::invalid_argument);
  EXPECT_THROW(VariantScheduler(2, {1, 0.5, 3}), std::invalid_argument);
  EXPECT_THROW(VariantScheduler(2, {1, 1.3, 3, 1.0}), std::invalid_argument);
  VariantScheduler s(1);
  EXPECT_THROW(s.report(1, 1.0, 1), std::invalid_argument);
  EXPECT_THROW(s.report(0, 0.0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace tlp
