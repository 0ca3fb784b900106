// collect on an MPI fleet (mpirun on this machine, 3 ranks): rank 0 logs what
// ranks 1 and 2 measure, the same records a single process would make, on every
// platform asked for; a rank killed mid-run costs nothing (its job goes to
// another rank), no schedule is measured twice.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "tests/fleet/fleet_test_util.h"

namespace {

using namespace tlp::testing;

std::string collect_args(const std::string &log, int per_task) {
  return "collect --ops matmul:M=64,N=64,K=64 softmax:M=32,N=256 --per-task " + std::to_string(per_task) +
         " --batch 2 --min-seconds 0.02 --build-timeout 3 --run-timeout 3 --no-progress --seed 9 --log '" + log + "'";
}

TEST(FleetCollect, ThreeRanksLogTheRecordsOneProcessWouldWithTheSameSchedules) {
  TempDir d;
  const std::string alone = d / "alone.jsonl", fleet = d / "fleet.jsonl";
  ASSERT_EQ(tlptune(collect_args(alone, 3)).code, 0);
  CliRun r = fleet_run(3, collect_args(fleet, 3));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("fleet: 2 of 2 ranks measure"), std::string::npos) << r.output;
  EXPECT_EQ(measured(fleet), measured(alone));
  const auto a = read_json_lines(alone), f = read_json_lines(fleet);
  ASSERT_EQ(f.size(), 6u);
  for (const auto &rec : f) {
    EXPECT_EQ(rec.at("platform"), a.front().at("platform")) << "the ranks measure on this machine";
    EXPECT_EQ(keys_of(rec), keys_of(a.front()));
    EXPECT_EQ(rec.at("error"), "none");
  }
}

TEST(FleetCollect, EveryPlatformIsServedByTheRanksThatHaveItAsOneProcessServesThem) {
  TempDir d;
  const std::string alone = d / "alone.jsonl", fleet = d / "fleet.jsonl";
  const std::string two = " --platforms host@2 host@1";
  ASSERT_EQ(tlptune(collect_args(alone, 2) + two).code, 0);
  CliRun r = fleet_run(3, collect_args(fleet, 2) + two);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("/threads=1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("and 4 on the other 1 platforms"), std::string::npos) << r.output;
  EXPECT_EQ(measured(fleet), measured(alone));
  EXPECT_EQ(measured(fleet).size(), 8u) << "2 operators x 2 schedules x 2 platforms";
}

TEST(FleetCollect, EachKindOfMachineMeasuresTheSameSchedulesForItsOwnPlatform) {
  TempDir d;
  const std::string log = d / "fleet.jsonl";
  const CliRun r = mixed_fleet(collect_args(log, 2), {TLPTUNE_PATH, TLP_OTHER_MACHINE_RANK_PATH});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("fleet: 1 of 2 ranks measure cpu/othermachine/"), std::string::npos) << r.output;
  std::map<std::string, std::set<std::string>> schedules_of;  // platform -> workload + schedule
  for (const auto &rec : read_json_lines(log))
    schedules_of[rec.at("platform").get<std::string>()].insert(rec.at("workload").dump() + rec.at("schedule").dump());
  ASSERT_EQ(schedules_of.size(), 2u) << r.output;
  EXPECT_EQ(schedules_of.begin()->second, schedules_of.rbegin()->second);
  EXPECT_EQ(schedules_of.begin()->second.size(), 4u) << "2 operators x 2 schedules";
}

TEST(FleetCollect, ARankKilledMidRunLosesNothingAndNothingIsMeasuredTwice) {
  TempDir d;
  const std::string alone = d / "alone.jsonl", fleet = d / "fleet.jsonl", err = d / "err.txt";
  ASSERT_EQ(tlptune(collect_args(alone, 10)).code, 0);
  const pid_t launcher = fork();
  if (launcher == 0) {
    const std::string cmd = kMpirun + "-np 3 '" + TLPTUNE_PATH + "' " + collect_args(fleet, 10) + " > '" + err + "' 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  // Rank 1 says its pid when it starts; kill it once some records are in.
  pid_t victim = 0;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    std::ifstream f(err);
    for (std::string line; std::getline(f, line);) {
      const auto at = line.find("rank 1 of 3: serving measurement jobs (pid ");
      if (at != std::string::npos) victim = std::stoi(line.substr(line.find("(pid ") + 5));
    }
    if (victim > 0 && read_json_lines(fleet).size() >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(victim, 0) << "rank 1 never started";
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  int status = 0;
  waitpid(launcher, &status, 0);
  std::ifstream f(err);
  const std::string output((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_NE(output.find("fleet: rank 1 lost"), std::string::npos) << output;
  const auto m = measured(fleet);
  EXPECT_EQ(m, measured(alone)) << "every planned schedule, each once";
  for (const auto &[key, n] : m) EXPECT_EQ(n, 1) << key;
}

}  // namespace
