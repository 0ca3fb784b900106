// tune and bench on an MPI fleet (3 ranks on this machine): the ranks measure,
// rank 0 logs, and the records are of the same kinds as one process's, the
// fastest kernels measured again side by side included.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/fleet/fleet_test_util.h"

namespace {

using namespace tlp::testing;

const std::string kSettings = " --min-seconds 0.02 --build-timeout 20 --run-timeout 10 --no-progress";

void expect_same_kinds(const std::string &fleet_log, const std::string &alone_log) {
  const auto f = read_json_lines(fleet_log), a = read_json_lines(alone_log);
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(f.empty()) << fleet_log;
  for (const auto &rec : f) {
    EXPECT_EQ(rec.at("platform"), a.front().at("platform")) << "the ranks measure on this machine";
    EXPECT_EQ(keys_of(rec), keys_of(a.front()));
    EXPECT_EQ(rec.at("error"), "none") << rec.dump();
  }
}

TEST(FleetTune, ThreeRanksTuneAndMeasureTheFastestAgainLikeOneProcess) {
  TempDir d;
  const std::string args = "tune --op matmul:M=64,N=64,K=64 --trials 6 --batch 3 --final-top 2 --final-rounds 2" +
                           kSettings + " --json '" + (d / "SUMMARY") + "' --log '" + (d / "LOG");
  auto with = [&](const std::string &name) {
    std::string a = args;
    for (const std::string key : {"SUMMARY", "LOG"}) a.replace(a.find(key), key.size(), name + "." + key);
    return a + "'";
  };
  ASSERT_EQ(tlptune(with("alone")).code, 0);
  const CliRun r = fleet_run(3, with("fleet"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("fleet: 2 of 2 ranks measure"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("measured again side by side"), std::string::npos) << r.output;
  expect_same_kinds(d / "fleet.LOG", d / "alone.LOG");
  // A kernel the measuring again lifts into the fastest 2 is measured again, too.
  const size_t again = read_json_lines(d / "fleet.LOG").size() - 6;
  EXPECT_GE(again, 2u * 2) << "trials, then at least 2 kernels x 2 rounds";
  EXPECT_EQ(again % 2, 0u) << "2 rounds of each kernel measured again";
  std::ifstream s(d / "fleet.SUMMARY");
  const auto summary = nlohmann::json::parse(s);
  EXPECT_EQ(summary.at("trials"), 6);
  EXPECT_GT(summary.at("best").at("cost_seconds").get<double>(), 0);
}

TEST(FleetBench, ThreeRanksBenchPoliciesAndMeasureTheirBestsAgainLikeOneProcess) {
  TempDir d;
  const std::string suite =
      d.write("tiny.json", R"({"format": 1, "name": "tiny", "operators": [{"op": "matmul:M=32,N=32,K=32"}]})");
  auto args = [&](const std::string &out) {
    return "bench --suite '" + suite + "' --policies random,evolutionary --trials 3 --final-top 2 --final-rounds 2" +
           kSettings + " --out '" + (d / out) + "'";
  };
  ASSERT_EQ(tlptune(args("alone")).code, 0);
  const CliRun r = fleet_run(3, args("fleet"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| evolutionary |"), std::string::npos) << r.output;
  for (const std::string run : {"random", "evolutionary"}) {
    const std::string log = "/logs/" + run + "-matmul_M_32_N_32_K_32-t3-s1.jsonl";
    expect_same_kinds(d / ("fleet" + log), d / ("alone" + log));
  }
  expect_same_kinds(d / "fleet/finals/remeasured.jsonl", d / "alone/finals/remeasured.jsonl");
  std::ifstream f(d / "fleet/report.json");
  const auto report = nlohmann::json::parse(f);
  ASSERT_EQ(report.at("runs").size(), 2u);
  for (const auto &run : report.at("runs")) EXPECT_GT(run.at("remeasured_gflops").get<double>(), 0) << run.dump();
}

}  // namespace
