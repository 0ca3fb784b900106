#include "measure/kernel_cost_table.h"

#include <gtest/gtest.h>

#include "record_fixtures.h"

namespace tlp {
namespace {

TEST(KernelCostTable, AKernelCostsTheMedianOfItsMeasurements) {
  KernelCostTable t;
  t.add("a", 3.0);
  t.add("a", 1.0);
  t.add("a", 2.0);
  EXPECT_EQ(t.cost("a"), 2.0);
  EXPECT_EQ(t.measurements("a"), 3);
  t.add("a", 5.0);
  EXPECT_EQ(t.cost("a"), 2.5) << "an even count averages the middle two";
  EXPECT_EQ(t.cost("never"), 0.0);
  EXPECT_EQ(t.measurements("never"), 0);
}

TEST(KernelCostTable, ALuckyMeasurementLosesOnceTheKernelIsMeasuredAgain) {
  KernelCostTable t;
  t.add("steady", 1.2);
  t.add("lucky", 1.0);
  EXPECT_EQ(t.best_key(), "lucky");
  t.add("lucky", 1.6);
  t.add("lucky", 1.5);
  EXPECT_EQ(t.best_key(), "steady");
  EXPECT_EQ(t.best_cost(), 1.2);
  t.add("lucky", 0.9);
  t.add("lucky", 0.9);
  EXPECT_EQ(t.best_key(), "lucky") << "median of 1.0, 1.6, 1.5, 0.9, 0.9 is 1.0";
}

TEST(KernelCostTable, TiesGoToTheKernelAddedFirst) {
  KernelCostTable t;
  t.add("first", 1.0);
  t.add("second", 1.0);
  EXPECT_EQ(t.best_key(), "first");
  EXPECT_EQ(t.cheapest(2), (std::vector<std::string>{"first", "second"}));
}

TEST(KernelCostTable, CheapestListsKernelsInOrderAndStopsAtTheCount) {
  KernelCostTable t;
  t.add("c", 3.0);
  t.add("a", 1.0);
  t.add("b", 2.0);
  EXPECT_EQ(t.cheapest(2), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.cheapest(10), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(KernelCostTable, AFailedRunRulesTheKernelOutButAFailedBuildDoesNot) {
  MeasureRecord fast = testing::sample_record(0.001);
  MeasureRecord slow = testing::sample_record(0.002);
  slow.schedule.steps.pop_back();
  KernelCostTable t;
  t.add(fast);
  t.add(slow);
  EXPECT_EQ(t.best_key(), fast.schedule.to_text());

  MeasureRecord timeout = fast;
  timeout.error = MeasureError::BuildTimeout;
  timeout.costs.clear();
  t.add(timeout);
  EXPECT_EQ(t.best_key(), fast.schedule.to_text()) << "a build timeout says nothing about the kernel";

  for (MeasureError e : {MeasureError::WrongAnswer, MeasureError::RuntimeError, MeasureError::RunTimeout}) {
    SCOPED_TRACE(measure_error_name(e));
    KernelCostTable u;
    u.add(fast);
    u.add(slow);
    MeasureRecord failed = fast;
    failed.error = e;
    failed.costs.clear();
    u.add(failed);
    EXPECT_TRUE(u.ruled_out(fast.schedule.to_text()));
    EXPECT_EQ(u.best_key(), slow.schedule.to_text());
    EXPECT_EQ(u.cheapest(5), std::vector<std::string>{slow.schedule.to_text()});
    u.add(fast);
    EXPECT_EQ(u.best_key(), slow.schedule.to_text()) << "a ruled-out kernel stays out";
  }
}

TEST(KernelCostTable, MeasurementsOnABusyMachineCountOnlyForAKernelWithNoOther) {
  KernelCostTable t;
  t.add("a", 2.0, /*busy=*/true);
  EXPECT_EQ(t.cost("a"), 2.0) << "all it has";
  t.add("b", 1.5);
  EXPECT_EQ(t.best_key(), "b");
  t.add("a", 1.0);
  EXPECT_EQ(t.cost("a"), 1.0) << "its quiet measurement alone, not the median with the busy one";
  EXPECT_EQ(t.measurements("a"), 2);
  EXPECT_EQ(t.best_key(), "a");
  t.add("a", 0.5, /*busy=*/true);
  EXPECT_EQ(t.cost("a"), 1.0) << "a busy machine's figure is ignored beside a quiet one, even a lower one";

  MeasureRecord busy = testing::sample_record(0.004);
  busy.cpu_wait = 0.5;
  MeasureRecord quiet = testing::sample_record(0.002);
  quiet.cpu_wait = 0.01;
  KernelCostTable u;
  u.add(busy);
  u.add(quiet);
  EXPECT_EQ(u.cost(quiet.schedule.to_text()), 0.002);
}

TEST(KernelCostTable, NoBestWhenEveryKernelIsRuledOut) {
  KernelCostTable t;
  EXPECT_FALSE(t.has_best());
  t.add("a", 1.0);
  EXPECT_TRUE(t.has_best());
  t.rule_out("a");
  EXPECT_FALSE(t.has_best());
  EXPECT_TRUE(t.cheapest(3).empty());
}

}  // namespace
}  // namespace tlp
