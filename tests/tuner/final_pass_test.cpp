#include "tuner/final_pass.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tlp {
namespace {

// Runs the passes on a table whose kernels read `first` once each, and `again`
// every later time: the winner's curse at its plainest. Returns the passes run.
int run_passes(KernelCostTable &costs, int top, int rounds, double again) {
  int pass = 0;
  for (;; ++pass) {
    const std::vector<std::string> due = kernels_due_again(costs, top, rounds, pass);
    if (due.empty()) return pass;
    for (const std::string &key : due)
      for (int r = 0; r < rounds; ++r) costs.add(key, again);
  }
}

KernelCostTable lucky_first_readings(int kernels) {
  KernelCostTable costs;
  for (int i = 0; i < kernels; ++i) costs.add("k" + std::to_string(i), 1.0 + 0.01 * i);
  return costs;
}

TEST(FinalPass, GoesOnPastThreePassesUntilTheBestIsConfirmed) {
  KernelCostTable costs = lucky_first_readings(5);
  // Each pass confirms the top kernel at 2.0, which lets the next lucky one in.
  EXPECT_EQ(run_passes(costs, 1, 2, 2.0), 5);
  EXPECT_TRUE(best_is_confirmed(costs, 2));
  EXPECT_EQ(costs.best_key(), "k0") << "all read 2.0 again; ties go to the first added";
}

TEST(FinalPass, StopsAfterTheMostPassesEvenIfTheBestIsUnconfirmed) {
  KernelCostTable costs = lucky_first_readings(kMaxFinalPasses + 5);
  EXPECT_EQ(run_passes(costs, 1, 2, 2.0), kMaxFinalPasses);
  EXPECT_FALSE(best_is_confirmed(costs, 2));
}

TEST(FinalPass, MeasuresTheUnconfirmedTopBesideTheBest) {
  KernelCostTable costs;
  costs.add("best", 1.0);
  costs.add("best", 1.0);
  costs.add("best", 1.0);
  costs.add("second", 1.5);
  costs.add("third", 1.6);
  costs.add("fourth", 1.7);
  EXPECT_EQ(kernels_due_again(costs, 3, 2, 0), (std::vector<std::string>{"second", "third", "best"}));
}

TEST(FinalPass, AfterThreePassesOnlyAnUnconfirmedBestIsWorthAnotherPass) {
  KernelCostTable costs;
  for (int i = 0; i < 3; ++i) costs.add("best", 1.0);
  costs.add("second", 1.5);
  EXPECT_FALSE(kernels_due_again(costs, 2, 2, kTopConfirmingPasses - 1).empty());
  EXPECT_TRUE(kernels_due_again(costs, 2, 2, kTopConfirmingPasses).empty());
  costs.add("newcomer", 0.5);
  EXPECT_EQ(kernels_due_again(costs, 2, 2, kTopConfirmingPasses), (std::vector<std::string>{"newcomer"}));
}

TEST(FinalPass, NothingIsDueWithoutTopRoundsOrKernels) {
  KernelCostTable costs = lucky_first_readings(3);
  EXPECT_TRUE(kernels_due_again(costs, 0, 2, 0).empty());
  EXPECT_TRUE(kernels_due_again(costs, 2, 0, 0).empty());
  EXPECT_TRUE(kernels_due_again(KernelCostTable{}, 2, 2, 0).empty());
}

}  // namespace
}  // namespace tlp
