// tlptune bench: the policy names, and the command end to end on a tiny suite (report files, the best kernels
// measured again side by side, resume, --check passing on a re-run and failing on a stored baseline 30% faster
// than reality).
#include "tuner/bench_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "measure/record_log.h"
#include "tests/tuner/cli_test_util.h"

namespace tlp {
namespace {

using testing::TempDir;
using testing::tlptune;

TEST(BenchPolicies, NamesMapToPolicyAndModel) {
  const auto p = parse_bench_policies("random, tlp,tlp-online,random", "m.tlpm");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].policy, "random");
  EXPECT_EQ(p[1].policy, "evolutionary");
  EXPECT_EQ(p[1].model, "m.tlpm");
  EXPECT_EQ(p[2].model, "none");
}

TEST(BenchPolicies, TlpFrozenIsThePretrainedModelNeverFineTuned) {
  const auto p = parse_bench_policies("tlp,tlp-frozen", "m.tlpm");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].update_epochs, -1);
  EXPECT_EQ(p[1].model, "m.tlpm");
  EXPECT_EQ(p[1].policy, "evolutionary");
  EXPECT_EQ(p[1].update_epochs, 0);
}

TEST(BenchPolicies, LabelEqualsFileIsTheSearchGuidedByThatModel) {
  const auto p = parse_bench_policies("random,mtl=models/mtl.tlpm,tlp7=/tmp/a=b.tlpm", "m.tlpm");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[1].name, "mtl");
  EXPECT_EQ(p[1].policy, "evolutionary");
  EXPECT_EQ(p[1].model, "models/mtl.tlpm");
  EXPECT_EQ(p[2].model, "/tmp/a=b.tlpm");
  EXPECT_THROW(parse_bench_policies("=m.tlpm", "m.tlpm"), std::runtime_error);
  EXPECT_THROW(parse_bench_policies("mtl=", "m.tlpm"), std::runtime_error);
}

TEST(BenchPolicies, BaselineIsRandomWhenItRunsElseTheFirstPolicy) {
  EXPECT_EQ(bench_baseline_policy(parse_bench_policies("tlp,random", "m.tlpm")), "random");
  EXPECT_EQ(bench_baseline_policy(parse_bench_policies("old=a.tlpm,new=b.tlpm", "m.tlpm")), "old");
}

TEST(BenchPolicies, UnknownNameListsTheKnownOnes) {
  try {
    parse_bench_policies("random,ansor", "m.tlpm");
    FAIL() << "ansor accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("unknown policy 'ansor'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tlp-online"), std::string::npos) << e.what();
  }
}

// The whole command on two tiny operators: about half a minute.
TEST(BenchCommand, WritesTheReportResumesAndChecksAgainstABaseline) {
  TempDir dir;
  {
    std::ofstream suite(dir / "tiny.json");
    suite << R"({"format": 1, "name": "tiny", "operators": [{"op": "matmul:M=32,N=32,K=32"},
              {"op": "softmax:M=8,N=64", "label": "sm"}]})";
  }
  const std::string base = "bench --suite " + (dir / "tiny.json") + " --policies random,evolutionary --trials 3 --out " +
                           (dir / "out") + " --no-progress --min-seconds 0.01 --final-rounds 2 --final-top 2";
  const auto first = tlptune(base + " --check " + (dir / "baseline.json") + " --update-baseline");
  ASSERT_EQ(first.code, 0) << first.output;
  for (const std::string f : {"out/report.md", "out/report.json", "baseline.json"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  EXPECT_TRUE(std::filesystem::exists(dir / "out/plots/softmax_M_8_N_64-sm-trials.svg"));
  EXPECT_NE(first.output.find("| random |"), std::string::npos) << first.output;

  // Each run's two fastest kernels were measured again, after all runs, once per round (--final-rounds 2).
  nlohmann::json report;
  std::ifstream(dir / "out/report.json") >> report;
  ASSERT_EQ(report["runs"].size(), 4u);
  for (const auto &run : report["runs"]) EXPECT_GT(run["remeasured_gflops"].get<double>(), 0) << run.dump();
  EXPECT_NE(first.output.find("best re-measured"), std::string::npos) << first.output;
  auto lines_of = [&](const std::string &f) {
    std::ifstream in(dir / f);
    int n = 0;
    for (std::string line; std::getline(in, line);) n += !line.empty();
    return n;
  };
  // 4 runs x 2 kernels x 2 rounds; round 2 starts with the second kernel and ends with the first.
  std::vector<nlohmann::json> finals;
  std::ifstream in(dir / "out/finals/remeasured.jsonl");
  for (std::string line; std::getline(in, line);) finals.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(finals.size(), 8u * 2);
  EXPECT_EQ(finals[0]["workload"], finals[1]["workload"]);  // one run's two kernels
  EXPECT_NE(finals[0]["schedule"], finals[1]["schedule"]);
  EXPECT_EQ(finals[8]["schedule"], finals[1]["schedule"]);
  EXPECT_EQ(finals[15]["schedule"], finals[0]["schedule"]);
  EXPECT_EQ(finals[15]["workload"], finals[0]["workload"]);
  // A run's figure is its kernels' fastest round, as a peer's is: the matmul's faster run holds the
  // fastest matmul timing of all rounds.
  double fastest_matmul = 0, best_matmul_run = 0;
  for (const auto &f : finals)
    if (f["workload"].get<std::string>().rfind("matmul:", 0) == 0 && f["error"] == "none")
      fastest_matmul = std::max(fastest_matmul, 2.0 * 32 * 32 * 32 / f["median"].get<double>() / 1e9);
  for (const auto &run : report["runs"])
    if (run["op"].get<std::string>().rfind("matmul:", 0) == 0)
      best_matmul_run = std::max(best_matmul_run, run["remeasured_gflops"].get<double>());
  EXPECT_NEAR(best_matmul_run, fastest_matmul, 1e-6 * fastest_matmul);

  // A re-run resumes every finished run (nothing is measured again) and matches its own baseline.
  auto log_size = [&] { return std::filesystem::file_size(dir / "out/logs/random-matmul_M_32_N_32_K_32-t3-s1.jsonl"); };
  const auto size_before = log_size();
  const auto again = tlptune(base + " --check " + (dir / "baseline.json"));
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("no regression"), std::string::npos) << again.output;
  EXPECT_EQ(log_size(), size_before);
  EXPECT_EQ(lines_of("out/finals/remeasured.jsonl"), 8 * 2);

  // A baseline 1/0.7 times faster than what this build measures: a 30% slowdown.
  nlohmann::json b;
  std::ifstream(dir / "baseline.json") >> b;
  for (auto &[key, entry] : b["entries"].items()) entry["best_gflops"] = entry["best_gflops"].get<double>() / 0.7;
  std::ofstream(dir / "faster.json") << b.dump();
  const auto slow = tlptune(base + " --check " + (dir / "faster.json") + " --tolerance 0.15");
  EXPECT_EQ(slow.code, 3) << slow.output;
  EXPECT_NE(slow.output.find("measuring them again"), std::string::npos) << slow.output;
  EXPECT_NE(slow.output.find("REGRESSION"), std::string::npos) << slow.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "out/finals/remeasured.json"));  // the rerun's are beside it
  int recheck_finals = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir / "out"))
    recheck_finals += e.path().filename().string().rfind("finals-recheck", 0) == 0;
  EXPECT_EQ(recheck_finals, 1);

  // The baseline holds bests measured again; a run that does not measure them is refused before any tuning.
  std::string without_finals = base;
  without_finals.replace(without_finals.find("--final-rounds 2"), 16, "--final-rounds 0");
  const auto mixed = tlptune(without_finals + " --check " + (dir / "baseline.json"));
  EXPECT_EQ(mixed.code, 1) << mixed.output;
  EXPECT_NE(mixed.output.find("holds best kernels measured again"), std::string::npos) << mixed.output;
  EXPECT_NE(mixed.output.find("--final-rounds"), std::string::npos) << mixed.output;
  EXPECT_NE(mixed.output.find("--update-baseline"), std::string::npos) << mixed.output;
}

// The cheapest valid kernel of a log's first `trials` records (0: all); its schedule's text.
std::string cheapest_of(const std::string &log, size_t trials) {
  const auto records = read_record_log(log).records;
  std::string best;
  double best_cost = 0;
  for (size_t i = 0; i < records.size() && (trials == 0 || i < trials); ++i)
    if (records[i].ok() && (best.empty() || records[i].median_cost < best_cost)) {
      best = records[i].schedule.to_text();
      best_cost = records[i].median_cost;
    }
  return best;
}

// A suite file of the one small matmul; returns its path.
std::string matmul_suite(const TempDir &dir) {
  return dir.write("tiny.json", R"({"format": 1, "name": "tiny", "operators": [{"op": "matmul:M=32,N=32,K=32"}]})");
}

TEST(BenchCommand, FinalEarlyMeasuresTheBestOfTheFirstTrialsAgainInTheSameRounds) {
  TempDir dir;
  const std::string base = "bench --suite " + matmul_suite(dir) + " --policies random --trials 4 --out " +
                           (dir / "out") + " --no-progress --min-seconds 0.01 --final-top 1 --final-early 0.5";
  const auto refused = tlptune(base + " --final-rounds 0");
  EXPECT_EQ(refused.code, 1) << refused.output;
  EXPECT_NE(refused.output.find("--final-rounds"), std::string::npos) << refused.output;

  const auto done = tlptune(base + " --final-rounds 2");
  ASSERT_EQ(done.code, 0) << done.output;
  EXPECT_NE(done.output.find("first 2: "), std::string::npos) << done.output;
  nlohmann::json report;
  std::ifstream(dir / "out/report.json") >> report;
  ASSERT_EQ(report["runs"].size(), 1u);
  EXPECT_EQ(report["runs"][0]["early_trials"], 2);  // half of 4 trials
  EXPECT_GT(report["runs"][0]["remeasured_early_gflops"].get<double>(), 0);

  // The best of all 4 trials and the best of the first 2, each measured once per round
  // (once in all when they are the same kernel).
  const std::string log = dir / "out/logs/random-matmul_M_32_N_32_K_32-t4-s1.jsonl";
  const std::string all = cheapest_of(log, 0), early = cheapest_of(log, 2);
  std::vector<std::string> measured;
  std::ifstream in(dir / "out/finals/remeasured.jsonl");
  for (std::string line; std::getline(in, line);)
    measured.push_back(Schedule::from_json(nlohmann::json::parse(line)["schedule"]).to_text());
  const size_t kernels = all == early ? 1 : 2;
  ASSERT_EQ(measured.size(), kernels * 2) << "all: " << all << "\nearly: " << early;
  EXPECT_NE(std::find(measured.begin(), measured.end(), all), measured.end());
  EXPECT_NE(std::find(measured.begin(), measured.end(), early), measured.end());

  // Resumed with the same settings, nothing is measured again.
  const auto again = tlptune(base + " --final-rounds 2");
  ASSERT_EQ(again.code, 0) << again.output;
  std::ifstream in2(dir / "out/finals/remeasured.jsonl");
  size_t lines = 0;
  for (std::string line; std::getline(in2, line);) lines += !line.empty();
  EXPECT_EQ(lines, kernels * 2);

  // Figures of the older statistic (format 1: each kernel's median round) are measured again.
  nlohmann::json stored;
  std::ifstream(dir / "out/finals/remeasured.json") >> stored;
  stored["format"] = 1;
  std::ofstream(dir / "out/finals/remeasured.json") << stored.dump();
  ASSERT_EQ(tlptune(base + " --final-rounds 2").code, 0);
  std::ifstream in3(dir / "out/finals/remeasured.jsonl");
  lines = 0;
  for (std::string line; std::getline(in3, line);) lines += !line.empty();
  EXPECT_EQ(lines, kernels * 4);
}

TEST(BenchCommand, PeersAreTimedInsideTheRemeasureRoundsAsOftenAsARunsKernels) {
  TempDir dir;
  const std::string suite = dir.write("tiny.json", R"({"format": 1, "name": "tiny", "operators": [
      {"op": "matmul:M=32,N=32,K=32"}, {"op": "softmax:M=8,N=64"}]})");
  const std::string command = "bench --suite " + suite + " --policies random --trials 2 --out " + (dir / "out") +
                              " --no-progress --min-seconds 0.01 --final-rounds 2 --final-top 2 --peers openblas";
  const auto done = tlptune(command);
  ASSERT_EQ(done.code, 0) << done.output;  // no peer applies to the softmax: skipped, not refused
  // Each round: the runs' kernels, then the peers.
  const size_t second_round = done.output.find("round 2 of 2 done, peers included");
  ASSERT_NE(second_round, std::string::npos) << done.output;
  EXPECT_LT(done.output.find("round 1 of 2 done, peers included"), second_round);
  nlohmann::json peers;
  std::ifstream(dir / "out/peers/matmul_M_32_N_32_K_32.json") >> peers;
  ASSERT_EQ(peers["peers"].size(), 1u) << peers.dump();
  const auto &openblas = peers["peers"][0];
  EXPECT_GT(openblas["gflops"].get<double>(), 0) << openblas.dump();
  // 2 rounds x 2 timings, as many as the run's 2 kernels get in 2 rounds; the figure is the fastest.
  const auto medians = openblas["round_medians"].get<std::vector<double>>();
  ASSERT_EQ(medians.size(), 4u) << openblas.dump();
  const double fastest = *std::min_element(medians.begin(), medians.end());
  const double expected = 2.0 * 32 * 32 * 32 / fastest / 1e9;
  EXPECT_NEAR(openblas["gflops"].get<double>(), expected, 1e-9 * expected);
  const std::string report = testing::read_text_file(dir / "out/report.md");
  EXPECT_NE(report.find("random re-measured / peer (geomean)"), std::string::npos) << report;

  // Resumed: the stored peers are read back, nothing is timed again.
  const auto again = tlptune(command);
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_EQ(again.output.find("peers included"), std::string::npos) << again.output;
  EXPECT_EQ(again.output.find("measuring openblas"), std::string::npos) << again.output;

  // Kernels measured again: their peers are timed again beside them, the stored ones replaced.
  std::filesystem::remove(dir / "out/finals/remeasured.json");
  const auto remeasured = tlptune(command);
  ASSERT_EQ(remeasured.code, 0) << remeasured.output;
  EXPECT_NE(remeasured.output.find("round 2 of 2 done, peers included"), std::string::npos) << remeasured.output;
  std::ifstream(dir / "out/peers/matmul_M_32_N_32_K_32.json") >> peers;
  EXPECT_NE(peers["peers"][0]["round_medians"].get<std::vector<double>>(), medians) << peers.dump();
}

TEST(BenchCommand, OnlineUpdateSettingsReachTheTlpPolicies) {
  TempDir dir;
  const std::string base = "bench --suite " + matmul_suite(dir) + " --policies tlp-online --trials 4 --out " +
                           (dir / "out") + " --no-progress --min-seconds 0.01";
  const auto bad = tlptune(base + " --update-epochs -1");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.output.find("--update-epochs"), std::string::npos) << bad.output;
  const auto ok = tlptune(base + " --update-epochs 1 --update-records 8");
  ASSERT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("| tlp-online |"), std::string::npos) << ok.output;
}

TEST(BenchCommand, AnUnknownSuiteNameListsTheSuites) {
  TempDir dir;
  const auto r = tlptune("bench --suite nosuch --suites-dir " + std::string(TLP_SOURCE_DIR) +
                         "/examples/suites --out " + (dir / "out"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("quick"), std::string::npos) << r.output;
}

TEST(BenchCommand, TheTlpPolicyIsRefusedBeforeAnyTuningWhenNoModelFitsTheTarget) {
  TempDir dir;
  const auto r = tlptune("bench --suite quick --suites-dir " + std::string(TLP_SOURCE_DIR) +
                         "/examples/suites --policies random,tlp --target arm-64-linux --out " + (dir / "out"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("give --model FILE"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out/runs")) << "nothing ran";
}

}  // namespace
}  // namespace tlp
