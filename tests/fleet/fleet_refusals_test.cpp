// What a fleet refuses, each in one clear line with a non-zero exit, leaving the
// log as it was: a host that cannot be reached, a rank of another tlptune
// version, ranks without a runner, and what does not run on a fleet.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/fleet/fleet_test_util.h"

namespace {

using namespace tlp::testing;
namespace fs = std::filesystem;

std::string collect_args(const std::string &log) {
  return "collect --ops matmul:M=32,N=32,K=32 --per-task 2 --batch 2 --min-seconds 0.02 --no-progress --log '" + log +
         "'";
}

std::string contents(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A log that already holds a record (the first of a short collect).
std::string logged_before(const TempDir &d) {
  const std::string log = d / "kept.jsonl";
  EXPECT_EQ(tlptune(collect_args(log)).code, 0);
  return log;
}

// tlptune copied without the tlptune-runner it measures with.
std::string tlptune_without_runner(const TempDir &d) {
  const fs::path bin = fs::path(TLPTUNE_PATH).parent_path();
  fs::create_directories(d / "no-runner");
  for (const std::string p : {"tlptune", "tlptune-build-worker"}) fs::copy_file(bin / p, fs::path(d / "no-runner") / p);
  return d / "no-runner/tlptune";
}

TEST(FleetRefusals, AHostThatCannotBeReachedEndsTheLaunchBeforeAnythingIsLogged) {
  TempDir d;
  const std::string log = logged_before(d), before = contents(log);
  const std::string hosts = d.write("hosts", "localhost slots=1\ntlptune-no-such-host slots=1\n");
  const CliRun r = run_program("/bin/sh", "-c \"" + kMpirunNoRecovery + "--hostfile '" + hosts + "' -np 2 '" +
                                              TLPTUNE_PATH + "' " + collect_args(log) + "\"");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("tlptune-no-such-host"), std::string::npos) << r.output;
  EXPECT_EQ(contents(log), before);
}

TEST(FleetRefusals, ARankOfAnotherVersionIsRefusedByName) {
  TempDir d;
  const std::string log = logged_before(d), before = contents(log);
  const CliRun r = mixed_fleet(collect_args(log), {TLPTUNE_PATH, TLP_OTHER_VERSION_RANK_PATH});
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("fleet: rank 2 runs tlptune 0.0.1-other, rank 0 runs tlptune "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("install one tlptune on every host"), std::string::npos) << r.output;
  EXPECT_EQ(contents(log), before);
}

TEST(FleetRefusals, ARankWithoutARunnerIsLeftOutAndNoneWithOneIsAnError) {
  TempDir d;
  const std::string log = d / "c.jsonl", lame = tlptune_without_runner(d);
  const CliRun some = mixed_fleet(collect_args(log), {lame, TLPTUNE_PATH});
  ASSERT_EQ(some.code, 0) << some.output;
  EXPECT_NE(some.output.find("fleet: rank 1 cannot measure: tlptune's helper program tlptune-runner is missing"),
            std::string::npos)
      << some.output;
  EXPECT_EQ(read_json_lines(log).size(), 2u) << "rank 2 measured them";

  const std::string before = contents(log);
  const CliRun none = mixed_fleet(collect_args(log), {lame});
  EXPECT_NE(none.code, 0) << none.output;
  EXPECT_NE(none.output.find("fleet: no rank can measure"), std::string::npos) << none.output;
  EXPECT_EQ(contents(log), before);
}

TEST(FleetRefusals, TuneOnlyOnRanksOfItsPlatformAndNoneIsAnError) {
  TempDir d;
  const std::string log = d / "t.jsonl";
  const CliRun r = mixed_fleet("tune --op matmul:M=32,N=32,K=32 --trials 2 --no-progress --log '" + log + "'",
                               {TLP_OTHER_MACHINE_RANK_PATH});
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("fleet: no rank measures cpu/"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(the ranks measure cpu/othermachine/"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(log)) << "a refused tune leaves no log behind";
}

TEST(FleetRefusals, WhatDoesNotRunOnAFleetIsRefusedInOneLine) {
  TempDir d;
  const std::string log = " --log '" + (d / "t.jsonl") + "'";
  const CliRun show = fleet_run(2, "ops", kMpirunNoRecovery);
  EXPECT_NE(show.code, 0);
  EXPECT_NE(show.output.find("'ops' measures nothing to share out: run it without mpirun"), std::string::npos)
      << show.output;
  const CliRun peers = fleet_run(2, "tune --network x.json --peers onednn --trials 2" + log, kMpirunNoRecovery);
  EXPECT_NE(peers.code, 0);
  EXPECT_NE(peers.output.find("--peers run on rank 0's machine"), std::string::npos) << peers.output;
  const CliRun runner =
      fleet_run(2, "tune --op matmul:M=32,N=32,K=32 --trials 2 --runner 'ssh gpu tlptune-runner'" + log, kMpirunNoRecovery);
  EXPECT_NE(runner.code, 0);
  EXPECT_NE(runner.output.find("drop --runner"), std::string::npos) << runner.output;
  EXPECT_FALSE(fs::exists(d / "t.jsonl"));
}

}  // namespace
