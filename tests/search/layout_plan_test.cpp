// The layout plan: one network layout, with detours where an operator is faster
// elsewhere by more than its conversions cost, priced only where they could win.
#include "search/layout_plan.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>

namespace tlp {
namespace {

LayoutPlanTask task(std::map<std::string, double> latency, double weight = 1) {
  LayoutPlanTask t;
  t.latency = std::move(latency);
  t.weight = weight;
  return t;
}

TEST(LayoutPlan, TheNetworkRunsInTheLayoutThatIsFastestOverall) {
  const std::vector<LayoutPlanTask> tasks = {task({{"NCHW", 3}, {"NCHW16c", 1}}), task({{"NCHW", 2}, {"NCHW16c", 1}}, 2)};
  const LayoutPlan p = best_layout_plan(tasks, {"NCHW", "NCHW16c"}, [](size_t, int, const std::string &,
                                                                       const std::string &) { return 10.0; });
  ASSERT_TRUE(p.found);
  EXPECT_EQ(p.network_layout, "NCHW16c");
  EXPECT_DOUBLE_EQ(p.latency, 1 + 2 * 1);
  EXPECT_DOUBLE_EQ(p.conversion_latency, 0);
}

TEST(LayoutPlan, AnOperatorDetoursWhenItsGainBeatsBothConversions) {
  // Task 1 is 5 s faster in NHWC; converting there and back costs 0.5 + 0.5.
  const std::vector<LayoutPlanTask> tasks = {task({{"NCHW16c", 1}}), task({{"NCHW16c", 6}, {"NHWC", 1}}, 2)};
  std::vector<std::string> asked;
  const LayoutPlan p = best_layout_plan(tasks, {"NCHW16c"}, [&](size_t t, int side, const std::string &from,
                                                                const std::string &to) {
    asked.push_back(std::to_string(t) + ":" + std::to_string(side) + ":" + from + "->" + to);
    return 0.5;
  });
  ASSERT_TRUE(p.found);
  EXPECT_EQ(p.steps[1].layout, "NHWC");
  EXPECT_DOUBLE_EQ(p.steps[1].conversions, 1.0);
  EXPECT_DOUBLE_EQ(p.latency, 1 + 2 * (1 + 1.0));
  EXPECT_DOUBLE_EQ(p.conversion_latency, 2.0);
  EXPECT_EQ(asked, (std::vector<std::string>{"1:0:NCHW16c->NHWC", "1:1:NHWC->NCHW16c"}))
      << "task 0 has nothing faster than the network's layout: no conversion is priced for it";
}

TEST(LayoutPlan, ADetourThatCostsMoreThanItGainsIsNotTaken) {
  const std::vector<LayoutPlanTask> tasks = {task({{"NCHW16c", 2}, {"NHWC", 1.5}})};
  const LayoutPlan p = best_layout_plan(tasks, {"NCHW16c"}, [](size_t, int, const std::string &, const std::string &) {
    return 1.0;
  });
  EXPECT_EQ(p.steps[0].layout, "NCHW16c");
  EXPECT_DOUBLE_EQ(p.latency, 2);
}

TEST(LayoutPlan, TheNetworkInputIsConvertedFromItsOwnLayout) {
  LayoutPlanTask stem = task({{"NCHW", 4}, {"NHWC", 3}});
  stem.input_layout = "NCHW";
  const std::vector<LayoutPlanTask> tasks = {stem, task({{"NCHW16c", 1}})};
  const LayoutPlan p = best_layout_plan(tasks, {"NCHW16c"}, [](size_t, int side, const std::string &,
                                                               const std::string &) { return side == 0 ? 0.25 : 0.5; });
  ASSERT_TRUE(p.found);
  // The stem has no NCHW16c kernel: NCHW costs 4 + 0.5 out; NHWC 3 + 0.25 in + 0.5 out.
  EXPECT_EQ(p.steps[0].layout, "NHWC");
  EXPECT_DOUBLE_EQ(p.steps[0].conversions, 0.75);
  EXPECT_DOUBLE_EQ(p.latency, 3.75 + 1);
}

TEST(LayoutPlan, TasksWithoutLayoutsCountTheirOwnLatency) {
  LayoutPlanTask classifier;
  classifier.fixed = 0.5;
  const LayoutPlan p = best_layout_plan({task({{"NCHW", 1}}), classifier}, {"NCHW"},
                                        [](size_t, int, const std::string &, const std::string &) { return 1.0; });
  EXPECT_DOUBLE_EQ(p.latency, 1.5);
  EXPECT_EQ(p.steps[1].layout, "");
}

TEST(LayoutPlan, ATaskWithNoKernelAtAllLeavesNoPlan) {
  const LayoutPlan p = best_layout_plan({task({{"NCHW", std::numeric_limits<double>::infinity()}})}, {"NCHW"},
                                        [](size_t, int, const std::string &, const std::string &) { return 1.0; });
  EXPECT_FALSE(p.found);
}

TEST(LayoutPlan, OnlyTheMostPromisingNetworkLayoutsArePriced) {
  // Ranked by the latency with free conversions: NCHW16c (2), NHWC (4), NCHW (6).
  const std::vector<LayoutPlanTask> tasks = {task({{"NCHW", 3}, {"NHWC", 2}, {"NCHW16c", 1}}),
                                             task({{"NCHW", 3}, {"NHWC", 2}, {"NCHW16c", 1}})};
  std::set<std::string> priced_for;
  const LayoutPlan p = best_layout_plan(tasks, {"NCHW", "NHWC", "NCHW16c"},
                                        [&](size_t, int, const std::string &, const std::string &to) {
                                          priced_for.insert(to);
                                          return 0.1;
                                        },
                                        2);
  EXPECT_EQ(p.network_layout, "NCHW16c");
  // Under NHWC, detours to NCHW16c convert into NCHW16c and back into NHWC; NCHW is never the network's layout.
  EXPECT_EQ(priced_for, (std::set<std::string>{"NCHW16c", "NHWC"}));
}

// A network of 24 channels between two blocked-friendly operators: no activation
// of it can be in NCHW16c or NCHW32c (no conversion exists), though both rank first.
TEST(LayoutPlan, ANetworkLayoutWithoutAPlanTakesNoPricingSlot) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<LayoutPlanTask> tasks = {task({{"NCHW", 3}, {"NHWC", 2}, {"NCHW16c", 1}, {"NCHW32c", 1}}),
                                             task({{"NCHW", 3}, {"NHWC", 2.5}})};
  const ConversionCost cost = [&](size_t, int, const std::string &from, const std::string &to) {
    const bool blocked = from.find('c') != std::string::npos || to.find('c') != std::string::npos;
    return blocked ? inf : 0.1;
  };
  const LayoutPlan p = best_layout_plan(tasks, {"NCHW", "NHWC", "NCHW16c", "NCHW32c"}, cost, 2);
  ASSERT_TRUE(p.found);
  EXPECT_EQ(p.network_layout, "NHWC");
  EXPECT_DOUBLE_EQ(p.latency, 4.5);
  ASSERT_EQ(p.steps.size(), 2u);
}

TEST(LayoutPlan, NoNetworkLayoutWithAPlanLeavesNoSteps) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<LayoutPlanTask> tasks = {task({{"NCHW16c", 1}}), task({{"NHWC", 2}})};
  const LayoutPlan p = best_layout_plan(tasks, {"NHWC", "NCHW16c"},
                                        [&](size_t, int, const std::string &, const std::string &) { return inf; });
  EXPECT_FALSE(p.found);
  EXPECT_TRUE(p.steps.empty());
  EXPECT_EQ(p.latency, inf);
}

}  // namespace
}  // namespace tlp
