#include "tuner/layout_choice_tuner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "measure/measurer.h"
#include "codegen/operator.h"

namespace tlp {
namespace {

const char *kOp = "conv2d:N=1,C=16,H=8,W=8,K=16,R=3,S=3,stride=1,pad=1,layout=any";
const char *kOp1x1 = "conv2d:N=1,C=16,H=8,W=8,K=16,R=1,S=1,stride=1,pad=0,layout=any";  // has the gemm forms too
const char *kTarget = "x86-64-linux-avx-avx2-f16c-fma-sse41";

// Every kernel of a layout takes that layout's seconds: no build, no run.
class LayoutTimedMeasurer : public MeasuringService {
 public:
  LayoutTimedMeasurer(std::map<std::string, double> seconds, const TuneOptions &o)
      : seconds_(std::move(seconds)),
        platforms_{measurement_platform(kTarget, o.threads, o.build_only, o.runner_command)} {}

  std::vector<MeasureRecord> measure(const Operator &op, const std::vector<Schedule> &schedules,
                                     const std::atomic<bool> &, const std::function<void(const MeasureRecord &)> &on_record,
                                     const std::unordered_set<std::string> *) override {
    std::vector<MeasureRecord> out;
    const std::string layout = op.workload().get_str("layout");
    for (const Schedule &s : schedules) {
      MeasureRecord r;
      r.workload_key = op.workload().key();
      r.target = kTarget;
      r.platform = platforms_[0];
      r.schedule = s;
      const double seconds = seconds_.at(layout);
      if (std::isfinite(seconds)) {
        r.costs = {seconds};
        r.median_cost = seconds;
      } else {
        r.error = MeasureError::RuntimeError;  // a layout whose every kernel fails
      }
      on_record(r);
      out.push_back(r);
    }
    return out;
  }
  void measure_side_by_side(const std::vector<const Operator *> &, const std::vector<Schedule> &, int,
                            const std::atomic<bool> &, const std::function<void(size_t, const MeasureRecord &)> &,
                            const std::function<void(int)> &) override {}
  const std::vector<std::string> &platforms() const override { return platforms_; }
  const MeasureTimes &times() const override { return times_; }
  int records_logged() const override { return 0; }

 private:
  std::map<std::string, double> seconds_;
  std::vector<std::string> platforms_;
  MeasureTimes times_;
};

TuneOptions random_search() {
  TuneOptions o;
  o.policy = "random";
  o.threads = 2;
  return o;
}

int trials_in(const LayoutChoiceTuner &t, const std::string &layout) {
  for (const auto &v : t.variants())
    if (v->op().workload().get_str("layout") == layout) return v->summary().trials_total;
  return -1;
}

// Every variant's warm-up round, then focused rounds; returns the tuner's state.
struct FocusRun {
  FocusRun(std::map<std::string, double> seconds, const std::string &detour, double conversions, int rounds = 6)
      : o(random_search()), measurer(std::move(seconds), o), tuner(kOp, Halide::Target(kTarget), o, 1, nullptr) {
    for (size_t i = 0; i < tuner.variants().size(); ++i) tuner.round(measurer, 4, stop, [] {});
    EXPECT_TRUE(tuner.focus("NHWC", detour, conversions));
    nhwc_before = trials_in(tuner, "NHWC");
    blocked_before = trials_in(tuner, "NCHW8c");
    for (int r = 0; r < rounds; ++r) tuner.round(measurer, 4, stop, [] {});
  }
  TuneOptions o;
  LayoutTimedMeasurer measurer;
  LayoutChoiceTuner tuner;
  std::atomic<bool> stop{false};
  int nhwc_before = 0, blocked_before = 0;
};

std::map<std::string, double> seconds_with_nhwc(double nhwc) {
  return {{"NCHW", 5e-3},     {"NHWC", nhwc},       {"NCHW8c", 1e-3},     {"NCHW16c", 4e-3},
          {"NCHWgemm", 5e-3}, {"NCHW8cgemm", 5e-3}, {"NCHW16cgemm", 5e-3}};
}

TEST(LayoutChoiceTunerFocus, ANetworkLayoutKernelFarBehindItsDetourLeavesTheRoundsToTheDetour) {
  ASSERT_GE(trials_in(LayoutChoiceTuner(kOp, Halide::Target(kTarget), random_search(), 1, nullptr), "NCHW8c"), 0);
  FocusRun run(seconds_with_nhwc(2e-3), "NCHW8c", 1e-4);
  EXPECT_EQ(trials_in(run.tuner, "NHWC"), run.nhwc_before);
  EXPECT_EQ(trials_in(run.tuner, "NCHW8c"), run.blocked_before + 24);
  EXPECT_DOUBLE_EQ(run.tuner.focus_cost(), 1.1e-3) << "the detour, its conversions counted";
  EXPECT_EQ(trials_in(run.tuner, "NCHW16c"), 4) << "other variants keep their warm-up only";
}

// 1.36x behind: its 4 trials weigh as ~38 of the detour's, so round 10 is its.
TEST(LayoutChoiceTunerFocus, ANetworkLayoutKernelFarBehindItsDetourStillGetsARoundNowAndThen) {
  FocusRun run(seconds_with_nhwc(1.5e-3), "NCHW8c", 1e-4, 12);
  EXPECT_EQ(trials_in(run.tuner, "NHWC"), run.nhwc_before + 4);
  EXPECT_EQ(trials_in(run.tuner, "NCHW8c"), run.blocked_before + 44);
}

TEST(LayoutChoiceTunerFocus, ANetworkLayoutKernelCloseToItsDetourSharesTheRounds) {
  FocusRun run(seconds_with_nhwc(1.05e-3), "NCHW8c", 1e-4);
  EXPECT_GT(trials_in(run.tuner, "NHWC"), run.nhwc_before);
  EXPECT_GT(trials_in(run.tuner, "NCHW8c"), run.blocked_before);
  EXPECT_DOUBLE_EQ(run.tuner.focus_cost(), 1.05e-3);
}

TEST(LayoutChoiceTunerFocus, WithoutADetourEveryRoundGoesToTheNetworkLayout) {
  FocusRun run(seconds_with_nhwc(2e-3), "NHWC", 0);
  EXPECT_EQ(trials_in(run.tuner, "NHWC"), run.nhwc_before + 24);
  EXPECT_EQ(trials_in(run.tuner, "NCHW8c"), run.blocked_before);
  EXPECT_EQ(run.tuner.focused()->op().workload().get_str("layout"), "NHWC");
}

TEST(LayoutChoiceTuner, WarmsUpEveryLayoutOnceEach) {
  const TuneOptions o = random_search();
  LayoutTimedMeasurer measurer(seconds_with_nhwc(2e-3), o);
  LayoutChoiceTuner t(kOp, Halide::Target(kTarget), o, 1, nullptr);
  std::atomic<bool> stop{false};
  ASSERT_GE(t.variants().size(), 4u);
  for (size_t i = 0; i < t.variants().size(); ++i) {
    EXPECT_TRUE(t.warming_up()) << i << " rounds";
    t.round(measurer, 4, stop, [] {});
  }
  EXPECT_FALSE(t.warming_up());
  for (const auto &v : t.variants()) EXPECT_EQ(v->summary().trials_total, 4) << v->op().workload().key();
}

TEST(LayoutChoiceTuner, ALayoutWithoutAValidKernelHasNoLatencyForAPlan) {
  const TuneOptions o = random_search();
  std::map<std::string, double> seconds = seconds_with_nhwc(2e-3);
  seconds["NCHW8c"] = std::numeric_limits<double>::infinity();
  seconds["NCHW8cgemm"] = std::numeric_limits<double>::infinity();
  seconds["NCHWgemm"] = 4.5e-3;
  seconds["NCHW16cgemm"] = 3e-3;
  LayoutTimedMeasurer measurer(seconds, o);
  LayoutChoiceTuner t(kOp1x1, Halide::Target(kTarget), o, 1, nullptr);
  ASSERT_GE(trials_in(t, "NCHWgemm"), 0);
  std::atomic<bool> stop{false};
  for (size_t i = 0; i < t.variants().size(); ++i) t.round(measurer, 4, stop, [] {});
  const std::map<std::string, double> latency = t.latency_by_layout();
  EXPECT_EQ(latency.count("NCHW8c"), 0u);
  EXPECT_EQ(latency.count("NCHWgemm"), 0u) << "NCHWgemm keeps activations in NCHW";
  EXPECT_DOUBLE_EQ(latency.at("NCHW"), 4.5e-3) << "the faster of NCHW and NCHWgemm";
  EXPECT_DOUBLE_EQ(latency.at("NHWC"), 2e-3);
  EXPECT_DOUBLE_EQ(latency.at("NCHW16c"), 3e-3) << "the faster of NCHW16c and NCHW16cgemm";
}

TEST(LayoutChoiceTunerFocus, ALayoutWithoutAVariantIsRefused) {
  LayoutChoiceTuner t(kOp, Halide::Target(kTarget), random_search(), 1, nullptr);
  EXPECT_FALSE(t.focus("NCHW4c"));
  EXPECT_EQ(t.focused(), nullptr);
}

}  // namespace
}  // namespace tlp
