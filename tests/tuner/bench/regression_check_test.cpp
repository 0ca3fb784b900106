// The CI regression gate on synthetic numbers: slowdowns beyond the tolerance and
// missing entries fail, noise within it passes, trials are compared only when
// both runs know them, best_of keeps the better figures, and baseline files
// round-trip and refuse malformed input.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "tests/temp_dir.h"
#include "tuner/bench/regression_check.h"

namespace tlp {

using testing::read_text_file;
using testing::TempDir;
namespace {

const std::string kKey = "tlp|matmul:M=512,N=512,K=512";

BenchBaseline one(double gflops, int trials = -1, const std::string &key = kKey) {
  BenchBaseline b;
  b.entries[key] = {gflops, trials};
  return b;
}

TEST(FindRegressions, ThirtyPercentSlowdownFailsAtFifteenPercent) {
  const auto found = find_regressions(one(100), one(70), 0.15);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, Regression::Kind::kSlower);
  EXPECT_EQ(found[0].key, kKey);
  EXPECT_DOUBLE_EQ(found[0].baseline_value, 100);
  EXPECT_DOUBLE_EQ(found[0].current_value, 70);
  EXPECT_NE(found[0].message.find(kKey), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("70.00"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("100.00"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("-30.0%"), std::string::npos) << found[0].message;
}

TEST(FindRegressions, SameNumbersPass) { EXPECT_TRUE(find_regressions(one(100, 40), one(100, 40), 0.15).empty()); }

TEST(FindRegressions, TenPercentSlowdownPasses) { EXPECT_TRUE(find_regressions(one(100), one(90), 0.15).empty()); }

TEST(FindRegressions, FasterPasses) { EXPECT_TRUE(find_regressions(one(100, 40), one(150, 10), 0.15).empty()); }

TEST(FindRegressions, MissingEntryFails) {
  const auto found = find_regressions(one(100), one(100, -1, "random|matmul"), 0.15);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, Regression::Kind::kMissing);
  EXPECT_NE(found[0].message.find(kKey), std::string::npos);
  EXPECT_NE(found[0].message.find("missing"), std::string::npos);
}

TEST(FindRegressions, NewEntriesAreNotRegressions) {
  BenchBaseline current = one(100);
  current.entries["random|softmax"] = {5, 3};
  EXPECT_TRUE(find_regressions(one(100), current, 0.15).empty());
}

TEST(FindRegressions, MoreTrialsBeyondToleranceFails) {
  const auto found = find_regressions(one(100, 40), one(100, 60), 0.15);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, Regression::Kind::kMoreTrials);
  EXPECT_NE(found[0].message.find("60 trials"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("baseline 40"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("+50.0%"), std::string::npos) << found[0].message;
  EXPECT_TRUE(find_regressions(one(100, 40), one(100, 46), 0.15).empty());  // +15% is within
}

TEST(FindRegressions, TrialsComparedOnlyWhenBothKnown) {
  EXPECT_TRUE(find_regressions(one(100, -1), one(100, 500), 0.15).empty());
  EXPECT_TRUE(find_regressions(one(100, 10), one(100, -1), 0.15).empty());
}

TEST(FindRegressions, SlowerAndMoreTrialsAreBothReported) {
  EXPECT_EQ(find_regressions(one(100, 10), one(50, 20), 0.15).size(), 2u);
}

TEST(FindRegressions, ZeroToleranceFlagsAnySlowdown) {
  EXPECT_EQ(find_regressions(one(100), one(99.9), 0).size(), 1u);
  EXPECT_THROW(find_regressions(one(100), one(100), -0.1), std::invalid_argument);
}

TEST(BestOf, KeepsTheBetterOfEachFigure) {
  BenchBaseline a = one(100, 50);
  a.entries["only-a"] = {1, 2};
  BenchBaseline b = one(80, 30);
  b.entries["only-b"] = {3, -1};
  const BenchBaseline m = best_of(a, b);
  ASSERT_EQ(m.entries.size(), 3u);
  EXPECT_DOUBLE_EQ(m.entries.at(kKey).best_gflops, 100);
  EXPECT_EQ(m.entries.at(kKey).trials_to_target, 30);
  EXPECT_EQ(m.entries.at("only-a").trials_to_target, 2);
  EXPECT_DOUBLE_EQ(m.entries.at("only-b").best_gflops, 3);
}

TEST(BestOf, KnownTrialsBeatUnknown) {
  EXPECT_EQ(best_of(one(1, -1), one(1, 7)).entries.at(kKey).trials_to_target, 7);
  EXPECT_EQ(best_of(one(1, 7), one(1, -1)).entries.at(kKey).trials_to_target, 7);
}

TEST(BestOf, RemeasurementClearsANoisyRegression) {
  const BenchBaseline baseline = one(100, 40);
  const BenchBaseline noisy = one(70, 40), remeasured = one(98, 38);
  EXPECT_FALSE(find_regressions(baseline, noisy, 0.15).empty());
  EXPECT_TRUE(find_regressions(baseline, best_of(noisy, remeasured), 0.15).empty());
}

TEST(BestOf, RefusesToMixRemeasuredAndSearchBests) {
  BenchBaseline remeasured = one(100);
  remeasured.bests_measured_again = true;
  EXPECT_THROW(best_of(remeasured, one(100)), std::invalid_argument);
  EXPECT_TRUE(best_of(remeasured, remeasured).bests_measured_again);
}

TEST(BaselineKey, JoinsPolicyOpAndLabel) {
  EXPECT_EQ(baseline_key("tlp", "matmul:M=1"), "tlp|matmul:M=1");
  EXPECT_EQ(baseline_key("tlp", "matmul:M=1", "qkv"), "tlp|matmul:M=1|qkv");
}

TEST(BaselineFile, RoundTrips) {
  TempDir dir;
  BenchBaseline b = one(123.456, 17);
  b.entries["random|softmax:M=4,N=4"] = {0.5, -1};
  const std::string path = dir.path() + "/baseline.json";
  write_baseline(b, path);
  const BenchBaseline back = read_baseline(path);
  ASSERT_EQ(back.entries.size(), 2u);
  EXPECT_DOUBLE_EQ(back.entries.at(kKey).best_gflops, 123.456);
  EXPECT_EQ(back.entries.at(kKey).trials_to_target, 17);
  EXPECT_EQ(back.entries.at("random|softmax:M=4,N=4").trials_to_target, -1);
  // Only the file itself remains: the temporary was renamed over it.
  int files = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(BaselineFile, KeepsWhetherTheBestsWereMeasuredAgainAndReadsFormat1AsSearchBests) {
  TempDir dir;
  BenchBaseline b = one(10);
  b.bests_measured_again = true;
  write_baseline(b, dir.path() + "/again.json");
  EXPECT_TRUE(read_baseline(dir.path() + "/again.json").bests_measured_again);
  b.bests_measured_again = false;
  write_baseline(b, dir.path() + "/search.json");
  EXPECT_FALSE(read_baseline(dir.path() + "/search.json").bests_measured_again);
  const std::string v1 = dir.write("v1.json", R"({"format": 1, "entries": {"tlp|m": {"best_gflops": 2}}})");
  EXPECT_FALSE(read_baseline(v1).bests_measured_again);
}

TEST(BaselineFile, WriteReplacesAnOldFile) {
  TempDir dir;
  const std::string path = dir.write("baseline.json", "old and not JSON");
  write_baseline(one(5), path);
  EXPECT_DOUBLE_EQ(read_baseline(path).entries.at(kKey).best_gflops, 5);
}

TEST(BaselineFile, WriteToMissingFolderFailsClearly) {
  TempDir dir;
  EXPECT_THROW(write_baseline(one(5), dir.path() + "/no/such/dir/baseline.json"), std::runtime_error);
}

std::string read_error(const std::string &text) {
  TempDir dir;
  const std::string path = dir.write("base.json", text);
  try {
    read_baseline(path);
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "no error";
}

TEST(BaselineFile, RefusesMalformedFiles) {
  const std::string key = R"("tlp|matmul")";
  auto contains = [](const std::string &m, const std::string &part) { return m.find(part) != std::string::npos; };
  EXPECT_TRUE(contains(read_error("{"), "invalid JSON"));
  EXPECT_TRUE(contains(read_error(R"({"entries": {}})"), "missing \"format\""));
  EXPECT_TRUE(contains(read_error(R"({"format": 9, "entries": {}})"), "newer"));
  EXPECT_TRUE(contains(read_error(R"({"format": 1})"), "missing \"entries\""));
  EXPECT_TRUE(contains(read_error(R"({"format": 1, "entries": [], "x": 1})"), "unknown key \"x\""));
  const std::string bad_gflops = read_error(R"({"format": 1, "entries": {)" + key + R"(: {"best_gflops": "1"}}})");
  EXPECT_TRUE(contains(bad_gflops, "tlp|matmul") && contains(bad_gflops, "best_gflops")) << bad_gflops;
  EXPECT_TRUE(contains(read_error(R"({"format": 1, "entries": {)" + key + R"(: {"trials_to_target": 3}}})"),
                       "no \"best_gflops\""));
  EXPECT_TRUE(contains(read_error(R"({"format": 1, "entries": {)" + key +
                                  R"(: {"best_gflops": 1, "trials_to_target": 0}}})"),
                       "trials_to_target"));
  EXPECT_TRUE(contains(read_error(R"({"format": 1, "entries": {)" + key + R"(: {"best_gflops": 1, "trials": 3}}})"),
                       "unknown key \"trials\""));
  EXPECT_TRUE(contains(read_error(R"({"format": 2, "bests_measured_again": 1, "entries": {}})"),
                       "\"bests_measured_again\" must be true or false"));
  EXPECT_TRUE(contains(read_error(R"({"format": 1, "entries": {}})"), "no error"));
  TempDir dir;
  EXPECT_THROW(read_baseline(dir.path() + "/missing.json"), std::runtime_error);
}

// ---------------------------------------------------------------------------
// baseline_from_report: the figures a baseline keeps, drawn from a bench report.

PolicyResult run_of(const std::string &policy, int seed, std::vector<double> gflops) {
  std::vector<CurvePoint> points;
  for (size_t i = 0; i < gflops.size(); ++i) points.push_back({int(i) + 1, double(i), gflops[i]});
  PolicyResult r;
  r.policy = policy;
  r.op = "matmul:M=8,N=8,K=8";
  r.seed = seed;
  r.curve = TuningCurve(points);
  return r;
}

TEST(BenchBaselineFigures, MediansOverSeedsAndTrialsToTheOperatorsBest) {
  BenchReport r;
  r.runs = {run_of("random", 1, {10, 20, 30, 40}), run_of("random", 2, {10, 50, 0, 0}),
            run_of("random", 3, {5, 5, 5, 45}), run_of("tlp", 1, {30, 100, 0, 0})};
  const BenchBaseline b = baseline_from_report(r, 0.4, nullptr, false);  // target: 0.4 x 100 = 40
  const auto &random = b.entries.at("random|matmul:M=8,N=8,K=8");
  EXPECT_DOUBLE_EQ(random.best_gflops, 45);     // median of 40, 50, 45
  EXPECT_EQ(random.trials_to_target, 4);        // median of 4, 2, 4
  EXPECT_EQ(b.entries.at("tlp|matmul:M=8,N=8,K=8").trials_to_target, 2);
}

TEST(BenchBaselineFigures, TheTargetComesFromTheStoredBaselineAndMissingItCountsAsBudgetPlusOne) {
  BenchReport r;
  r.runs = {run_of("random", 1, {10, 20, 30})};
  BenchBaseline stored;
  stored.entries["tlp|matmul:M=8,N=8,K=8"] = {100, 2};
  const BenchBaseline b = baseline_from_report(r, 0.5, &stored, false);  // target 50: never reached
  EXPECT_EQ(b.entries.at("random|matmul:M=8,N=8,K=8").trials_to_target, 4);
}

TEST(BenchBaselineFigures, MeasuredAgainTheBestsAreTheRemeasuredFiguresAndSetTheTarget) {
  BenchReport r;
  r.runs = {run_of("random", 1, {10, 20, 30, 40}), run_of("tlp", 1, {30, 100, 0, 0})};
  r.runs[0].remeasured_gflops = 35;
  r.runs[1].remeasured_gflops = 70;  // its lucky 100 was really 70
  const BenchBaseline b = baseline_from_report(r, 0.5, nullptr, true);  // target: 0.5 x 70 = 35
  EXPECT_TRUE(b.bests_measured_again);
  const auto &random = b.entries.at("random|matmul:M=8,N=8,K=8");
  EXPECT_DOUBLE_EQ(random.best_gflops, 35);
  EXPECT_EQ(random.trials_to_target, 4);  // 40 at trial 4 is the first record of 35 or more
  EXPECT_DOUBLE_EQ(b.entries.at("tlp|matmul:M=8,N=8,K=8").best_gflops, 70);
  // A run whose best kernel failed when measured again counts 0, not its lucky record.
  r.runs[1].remeasured_gflops = 0;
  EXPECT_DOUBLE_EQ(baseline_from_report(r, 0.5, nullptr, true).entries.at("tlp|matmul:M=8,N=8,K=8").best_gflops, 0);
}

}  // namespace
}  // namespace tlp
