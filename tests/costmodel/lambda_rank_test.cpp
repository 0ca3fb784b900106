// The training losses: LambdaRank (NDCG-weighted pairwise) and MSE, their values
// and their autograd gradients against finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "costmodel/lambda_rank.h"

namespace tlp {
namespace {

double softplus(double x) { return std::log1p(std::exp(x)); }

TEST(LambdaRank, TwoRecordLossMatchesTheFormula) {
  // Scores (1, 0), labels (1, 0): the better record is ranked first.
  // Gains: (2^1 - 1) / IDCG = 1 (IDCG = 1 / log2(2)), and 0. Discounts 1 and log2(3).
  const double w = 1.0 - 1.0 / std::log2(3.0);
  const LossAndGradient r = lambda_rank_loss_and_gradient({1.0, 0.0}, {1.0, 0.0});
  EXPECT_NEAR(r.loss, w * softplus(-1.0) / std::log(2.0), 1e-12);
  // d/ds0 = -w * sigmoid(-1) / ln 2, and the opposite for s1.
  const double g = -w * (1.0 / (1.0 + std::exp(1.0))) / std::log(2.0);
  ASSERT_EQ(r.gradient.size(), 2u);
  EXPECT_NEAR(r.gradient[0], g, 1e-12);
  EXPECT_NEAR(r.gradient[1], -g, 1e-12);
}

TEST(LambdaRank, SigmaScalesTheScoreDifference) {
  const double w = 1.0 - 1.0 / std::log2(3.0);
  const LossAndGradient r = lambda_rank_loss_and_gradient({1.0, 0.0}, {1.0, 0.0}, 2.0);
  EXPECT_NEAR(r.loss, w * softplus(-2.0) / std::log(2.0), 1e-12);
}

TEST(LambdaRank, WrongOrderCostsMoreThanRightOrder) {
  const double right = lambda_rank_loss_and_gradient({2.0, 1.0, 0.0}, {1.0, 0.5, 0.2}).loss;
  const double wrong = lambda_rank_loss_and_gradient({0.0, 1.0, 2.0}, {1.0, 0.5, 0.2}).loss;
  EXPECT_GT(wrong, right);
  EXPECT_GT(right, 0.0);
}

TEST(LambdaRank, EqualLabelsGiveNoLossAndNoGradient) {
  const LossAndGradient r = lambda_rank_loss_and_gradient({0.3, -1.0, 2.0}, {0.5, 0.5, 0.5});
  EXPECT_EQ(r.loss, 0.0);
  for (double g : r.gradient) EXPECT_EQ(g, 0.0);
}

TEST(LambdaRank, GradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 5; ++trial) {
    const size_t n = 6 + size_t(trial) * 3;
    std::vector<double> scores(n), labels(n);
    // Scores at least 0.1 apart, so the small steps below never swap two ranks
    // (the NDCG weights are piecewise constant in the scores).
    for (size_t i = 0; i < n; ++i) scores[i] = 0.1 * double((i * 7 + size_t(trial)) % n) + 0.01 * u(rng);
    for (size_t i = 0; i < n; ++i) labels[i] = (i % 4 == 3) ? labels[i - 1] : u(rng);  // with ties
    labels[n / 2] = 1.0;
    const LossAndGradient r = lambda_rank_loss_and_gradient(scores, labels);
    ASSERT_EQ(r.gradient.size(), n);
    const double h = 1e-6;
    double norm = 0;
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> up = scores, down = scores;
      up[i] += h;
      down[i] -= h;
      const double fd = (lambda_rank_loss_and_gradient(up, labels).loss -
                         lambda_rank_loss_and_gradient(down, labels).loss) / (2 * h);
      EXPECT_NEAR(r.gradient[i], fd, 1e-7 + 1e-5 * std::fabs(fd)) << "trial " << trial << " score " << i;
      norm += std::fabs(r.gradient[i]);
    }
    EXPECT_GT(norm, 1e-3) << "the check would be empty";
    // Pairwise: the gradients of one group sum to zero.
    double sum = 0;
    for (double g : r.gradient) sum += g;
    EXPECT_NEAR(sum, 0.0, 1e-12);
  }
}

TEST(LambdaRank, GradientPushesTheBetterRecordUp) {
  const LossAndGradient r = lambda_rank_loss_and_gradient({0.0, 0.0 + 1e-3, 0.5}, {1.0, 0.2, 0.1});
  EXPECT_LT(r.gradient[0], 0.0);  // gradient descent raises the best record's score
  EXPECT_GT(r.gradient[2], 0.0);  // and lowers the worst's
}

TEST(LambdaRank, MismatchedSizesAreRefused) {
  EXPECT_THROW(lambda_rank_loss_and_gradient({1.0, 2.0}, {1.0}), std::invalid_argument);
  EXPECT_THROW(mse_loss_and_gradient({1.0}, {1.0, 0.5}), std::invalid_argument);
  EXPECT_EQ(lambda_rank_loss_and_gradient({}, {}).loss, 0.0);
}

TEST(MseLoss, ValueAndGradient) {
  const LossAndGradient r = mse_loss_and_gradient({1.0, 0.0, 0.5}, {0.5, 0.5, 0.5});
  EXPECT_NEAR(r.loss, (0.25 + 0.25 + 0.0) / 3.0, 1e-12);
  ASSERT_EQ(r.gradient.size(), 3u);
  EXPECT_NEAR(r.gradient[0], 2.0 * 0.5 / 3.0, 1e-12);
  EXPECT_NEAR(r.gradient[1], -2.0 * 0.5 / 3.0, 1e-12);
  EXPECT_NEAR(r.gradient[2], 0.0, 1e-12);
}

TEST(MseLoss, GradientMatchesFiniteDifferences) {
  const std::vector<double> s = {0.3, -1.2, 2.0, 0.7, 0.0}, y = {1.0, 0.2, 0.4, 0.9, 0.1};
  const LossAndGradient r = mse_loss_and_gradient(s, y);
  const double h = 1e-6;
  for (size_t i = 0; i < s.size(); ++i) {
    std::vector<double> up = s, down = s;
    up[i] += h;
    down[i] -= h;
    const double fd = (mse_loss_and_gradient(up, y).loss - mse_loss_and_gradient(down, y).loss) / (2 * h);
    EXPECT_NEAR(r.gradient[i], fd, 1e-8);
  }
}

}  // namespace
}  // namespace tlp
