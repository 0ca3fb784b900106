// The tlptune executable as users meet it: each user error gives one clear line
// and a non-zero exit without touching their files; a small tuning run logs,
// resumes without re-measuring, survives Ctrl-C, and exports its best kernel.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "codegen/layout_choice.h"
#include "codegen/workload.h"
#include "measure/cpu_interference.h"
#include "measure/machine_identity.h"
#include "measure/platform.h"
#include "search/schedule.h"
#include "tests/tuner/cli_test_util.h"

namespace {

using tlp::testing::CliRun;
using tlp::testing::TempDir;
using tlp::testing::tlptune;

namespace fs = std::filesystem;

std::string quote(const std::string &s) { return "'" + s + "'"; }

std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<nlohmann::json> read_records(const std::string &path) { return tlp::testing::read_json_lines(path); }

void expect_error(const std::string &args, const std::string &needle) {
  SCOPED_TRACE(args);
  CliRun r = tlptune(args);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
}

TEST(Cli, UnknownOperatorNamesTheKnownOnes) {
  TempDir d;
  expect_error("tune --op matmal:M=4 --log " + quote(d / "l.jsonl"), "unknown operator 'matmal'");
}

TEST(Cli, UnknownParameterNamesTheParameters) {
  TempDir d;
  expect_error("tune --op matmul:Q=4 --log " + quote(d / "l.jsonl"), "has no parameter 'Q'");
}

TEST(Cli, ZeroOrNegativeShapeIsRejected) {
  TempDir d;
  expect_error("tune --op matmul:M=0 --log " + quote(d / "l.jsonl"), "M must be an integer >= 1");
  expect_error("tune --op matmul:M=-3 --log " + quote(d / "l.jsonl"), "M must be an integer >= 1");
}

TEST(Cli, ShapeTooLargeToAllocateIsRejected) {
  TempDir d;
  expect_error("tune --op matmul:M=100000,N=100000,K=100000 --log " + quote(d / "l.jsonl"), "too large");
}

TEST(Cli, UnknownTargetIsRejected) {
  TempDir d;
  expect_error("tune --op matmul:M=8,N=8,K=8 --target potato --log " + quote(d / "l.jsonl"), "unknown target 'potato'");
}

TEST(Cli, MissingLogOptionIsAUsageError) { expect_error("tune --op matmul", "--log is required"); }

TEST(Cli, LogThatIsNotATlptuneLogIsRefusedAndLeftAlone) {
  TempDir d;
  const std::string log = d / "notes.txt";
  std::ofstream(log) << "my precious notes\n";
  expect_error("tune --op matmul:M=8,N=8,K=8 --trials 1 --log " + quote(log), "not a tlptune log");
  EXPECT_EQ(read_file(log), "my precious notes\n");
  expect_error("show " + quote(log), "not a tlptune log");
}

TEST(Cli, LogInMissingFolderIsRefused) {
  TempDir d;
  expect_error("tune --op matmul:M=8,N=8,K=8 --trials 1 --log " + quote(d / "no/such/dir/l.jsonl"), "cannot write log");
}

TEST(Cli, ATlptuneCopiedAwayFromItsHelpersSaysWhichIsMissing) {
  TempDir d;
  const std::string lone = d / "tlptune";
  fs::copy_file(TLPTUNE_PATH, lone);
  fs::permissions(lone, fs::perms::owner_all);
  const CliRun r = tlp::testing::run_program(
      lone, "tune --op matmul:M=8,N=8,K=8 --policy random --trials 1 --no-progress --log " + quote(d / "l.jsonl"));
  EXPECT_EQ(r.code, 1) << "1 is an error exit; 134 would be an abort: " << r.output;
  EXPECT_NE(r.output.find("tlptune-build-worker is missing from " + d.path()), std::string::npos) << r.output;
}

TEST(Cli, ShowOfMissingLogSaysSo) {
  TempDir d;
  expect_error("show " + quote(d / "absent.jsonl"), "does not exist");
}

TEST(Cli, ReplayIntoAnUncreatableFolderIsRefused) {
  TempDir d;
  const std::string log = d / "l.jsonl";
  ASSERT_EQ(tlptune("tune --op matmul:M=16,N=16,K=16 --trials 2 --batch 2 --no-progress --log " + quote(log)).code, 0);
  std::ofstream(d / "file") << "x";
  expect_error("replay " + quote(log) + " --out " + quote(d / "file/sub"), "cannot create the output folder");
}

TEST(Cli, OpsListsEveryOperator) {
  CliRun r = tlptune("ops");
  EXPECT_EQ(r.code, 0);
  for (const char *k : {"matmul", "batch_matmul", "conv2d", "depthwise_conv2d", "dense_bias_relu", "conv2d_bias_relu",
                        "softmax", "layernorm", "max_pool2d"})
    EXPECT_NE(r.output.find(k), std::string::npos) << k;
}

TEST(Cli, TuneLogsEveryTrialResumesWithoutRemeasuringAndReplays) {
  TempDir d;
  const std::string log = d / "l.jsonl";
  // --final-top 0: this test counts trials; the next one covers measuring the fastest again.
  const std::string op =
      "--op matmul:M=64,N=48,K=32 --batch 3 --no-progress --min-seconds 0.01 --final-top 0 --log " + quote(log);
  CliRun first = tlptune("tune --trials 6 --json " + quote(d / "s.json") + " " + op);
  ASSERT_EQ(first.code, 0) << first.output;
  auto records = read_records(log);
  ASSERT_EQ(records.size(), 6u);
  int ok = 0;
  for (const auto &r : records) ok += r.at("error") == "none";
  EXPECT_GT(ok, 0) << first.output;
  const auto summary = nlohmann::json::parse(read_file(d / "s.json"));
  EXPECT_TRUE(summary.at("found").get<bool>());
  EXPECT_GT(summary.at("best").at("gflops").get<double>(), 0.0);

  const std::string before = read_file(log);
  CliRun resumed = tlptune("tune --trials 8 --resume " + op);
  ASSERT_EQ(resumed.code, 0) << resumed.output;
  const std::string after = read_file(log);
  EXPECT_EQ(after.substr(0, before.size()), before) << "the log was rewritten";
  records = read_records(log);
  ASSERT_EQ(records.size(), 8u) << "resume measured more than the 2 missing trials";
  std::set<std::string> schedules;
  for (const auto &r : records) schedules.insert(r.at("schedule").dump());
  EXPECT_EQ(schedules.size(), 8u) << "a schedule was measured twice";

  CliRun show = tlptune("show " + quote(log));
  EXPECT_EQ(show.code, 0);
  EXPECT_NE(show.output.find("records   8"), std::string::npos) << show.output;

  CliRun replay = tlptune("replay " + quote(log) + " --out " + quote(d / "out"));
  ASSERT_EQ(replay.code, 0) << replay.output;
  const std::string kdir = d / "out/matmul_M64_N48_K32";
  EXPECT_TRUE(fs::exists(kdir + "/matmul_M64_N48_K32.a"));
  EXPECT_TRUE(fs::exists(kdir + "/matmul_M64_N48_K32.h"));
  EXPECT_EQ(read_file(kdir + "/matmul_M64_N48_K32.h").find(std::string(d / "out")), std::string::npos)
      << "the header names the folder it was exported to";
  EXPECT_NE(read_file(kdir + "/schedule.cc").find(".parallel("), std::string::npos);
}

TEST(Cli, ALogOlderThanMachineNamesIsReusedOnlyOnceAliased) {
  TempDir d;
  const std::string log = d / "l.jsonl";
  const std::string op =
      "--op matmul:M=64,N=48,K=32 --batch 2 --no-progress --min-seconds 0.01 --final-top 0 --log " + quote(log);
  ASSERT_EQ(tlptune("tune --trials 4 " + op).code, 0);
  // Rewrite the log as a format-2 log would read: the brand string for the machine, no "machine".
  std::string old_lines;
  for (nlohmann::json r : read_records(log)) {
    EXPECT_TRUE(r.contains("machine"));
    r.erase("machine");
    r["v"] = 2;
    r["platform"] = tlp::with_platform_machine(r["platform"].get<std::string>(), "Old CPU");
    old_lines += r.dump() + "\n";
  }
  std::ofstream(log, std::ios::trunc) << old_lines;
  const std::string copy = d / "copy.jsonl";
  std::ofstream(copy) << old_lines;

  CliRun aliased = tlptune("tune --trials 4 --resume --platform-alias 'Old CPU=host' --op matmul:M=64,N=48,K=32 "
                           "--no-progress --final-top 0 --log " + quote(copy));
  ASSERT_EQ(aliased.code, 0) << aliased.output;
  EXPECT_EQ(read_records(copy).size(), 4u) << "aliased, the old records count toward --trials";
  EXPECT_NE(aliased.output.find("4 known from the log"), std::string::npos) << aliased.output;

  CliRun resumed = tlptune("tune --trials 4 --resume " + op);
  ASSERT_EQ(resumed.code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("holds records of other machines ('Old CPU': 4)"), std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("--platform-alias 'Old CPU=host'"), std::string::npos) << resumed.output;
  EXPECT_EQ(read_records(log).size(), 8u) << "the old records were taken for this machine's";

  CliRun show = tlptune("show " + quote(log));
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find("microarchitecture unknown"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("machine   " + tlp::this_machine().microarchitecture), std::string::npos) << show.output;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

TEST(Cli, TuneMeasuresItsFastestAgainSideBySideAndShowAgreesOnTheBest) {
  TempDir d;
  const std::string log = d / "l.jsonl";
  const std::string op = "--op matmul:M=64,N=48,K=32 --batch 3 --no-progress --min-seconds 0.01 --final-top 2 "
                         "--final-rounds 2 --log " + quote(log);
  CliRun first = tlptune("tune --trials 6 --json " + quote(d / "s.json") + " " + op);
  ASSERT_EQ(first.code, 0) << first.output;
  const auto records = read_records(log);
  ASSERT_GT(records.size(), 6u) << first.output;
  std::set<std::string> trials;
  for (size_t i = 0; i < 6; ++i) trials.insert(records[i].at("schedule").dump());
  ASSERT_EQ(trials.size(), 6u);
  std::map<std::string, std::vector<double>> medians;  // per schedule, its valid measurements
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string s = records[i].at("schedule").dump();
    if (i >= 6) EXPECT_TRUE(trials.count(s)) << "record " << i << " measured a new schedule after the trials";
    if (records[i].at("error") == "none") medians[s].push_back(records[i].at("median").get<double>());
  }
  // The two fastest by the median of their measurements were measured 1 + 2 times.
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto &[s, m] : medians) ranked.push_back({median_of(m), s});
  std::sort(ranked.begin(), ranked.end());
  for (size_t i = 0; i < std::min<size_t>(2, ranked.size()); ++i)
    EXPECT_GE(medians[ranked[i].second].size(), 3u) << "kernel " << i << " was not measured again";
  if (records.size() == 10) {  // one pass: round 0 runs kernels A, B; round 1 starts with B
    EXPECT_NE(records[6].at("schedule"), records[7].at("schedule"));
    EXPECT_EQ(records[7].at("schedule"), records[8].at("schedule"));
    EXPECT_EQ(records[6].at("schedule"), records[9].at("schedule"));
  }
  const auto summary = nlohmann::json::parse(read_file(d / "s.json"));
  EXPECT_NEAR(summary.at("best").at("cost_seconds").get<double>(), ranked.front().first, 1e-12);
  // Kernels whose medians tie (timer resolution on a tiny matmul) may be reported in either order.
  const std::string best_schedule = nlohmann::json(summary.at("best").at("schedule_json")).dump();
  ASSERT_TRUE(medians.count(best_schedule)) << "the summary's best is not in the log";
  EXPECT_NEAR(median_of(medians[best_schedule]), ranked.front().first, 1e-12) << best_schedule;
  ASSERT_FALSE(summary.at("finals").empty());
  EXPECT_EQ(summary.at("remeasured").get<size_t>(), records.size() - 6);
  EXPECT_NE(first.output.find("measured again side by side"), std::string::npos) << first.output;

  const std::string before = read_file(log);
  CliRun resumed = tlptune("tune --trials 6 --resume " + op);
  ASSERT_EQ(resumed.code, 0) << resumed.output;
  EXPECT_EQ(read_file(log), before) << "a finished run measured its fastest again on resume";

  CliRun show = tlptune("show " + quote(log) + " --json " + quote(d / "show.json"));
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find("(median of "), std::string::npos) << show.output;
  const auto shown = nlohmann::json::parse(read_file(d / "show.json"));
  EXPECT_NEAR(shown.at(0).at("best").at("cost_seconds").get<double>(), ranked.front().first, 1e-12);

  // More trials on resume: newcomers to the top are measured beside the best of the first run.
  CliRun more = tlptune("tune --trials 9 --resume --json " + quote(d / "more.json") + " " + op);
  ASSERT_EQ(more.code, 0) << more.output;
  std::set<std::string> kernels;
  for (const auto &r : read_records(log)) kernels.insert(r.at("schedule").dump());
  EXPECT_EQ(kernels.size(), 9u) << "3 more trials; every other record measures a known kernel again";
  EXPECT_TRUE(nlohmann::json::parse(read_file(d / "more.json")).at("found").get<bool>());
}

TEST(Cli, ShowAndReplayKeepEachPlatformOfAWorkloadApart) {
  TempDir d;
  const std::string log = d / "l.jsonl";
  const std::string op =
      "--op matmul:M=64,N=48,K=32 --trials 3 --no-progress --min-seconds 0.01 --final-top 0 --log " + quote(log);
  ASSERT_EQ(tlptune("tune --threads 1 " + op).code, 0);
  ASSERT_EQ(tlptune("tune --threads 2 " + op).code, 0);
  CliRun show = tlptune("show " + quote(log) + " --json " + quote(d / "s.json"));
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find("/threads=1\n"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("/threads=2\n"), std::string::npos) << show.output;
  const auto tasks = nlohmann::json::parse(read_file(d / "s.json"));
  ASSERT_EQ(tasks.size(), 2u) << "one task per platform, not one mixing both";
  EXPECT_EQ(tasks[0].at("records"), 3);
  EXPECT_EQ(tasks[1].at("records"), 3);

  CliRun replay = tlptune("replay " + quote(log) + " --out " + quote(d / "out"));
  ASSERT_EQ(replay.code, 0) << replay.output;
  for (const char *k : {"1", "2"}) {
    const std::string kdir = d / (std::string("out/matmul_M64_N48_K32_") + k);
    EXPECT_TRUE(fs::exists(kdir + "/kernel.json")) << replay.output;
    EXPECT_NE(read_file(kdir + "/kernel.json").find(std::string("threads=") + k), std::string::npos);
  }
}

TEST(Cli, KernelsTimedOnABusyMachineAreFlaggedWarnedAboutAndCountedByShow) {
  TempDir d;
  const std::string log = d / "l.jsonl";
  std::vector<pid_t> spinners;  // two per CPU: every CPU has a task waiting
  for (unsigned i = 0; i < 2 * std::thread::hardware_concurrency(); ++i) {
    const pid_t p = fork();
    if (p == 0)
      for (volatile unsigned long k = 0;; k = k + 1) {
      }
    if (p > 0) spinners.push_back(p);
  }
  // Kernels of several ms (50 runs at most) timed for 0.3 s: windows long enough to read.
  CliRun tune = tlptune("tune --op matmul:M=768,N=768,K=768 --trials 2 --no-progress --min-seconds 0.3 --final-top 0 "
                        "--log " + quote(log));
  for (pid_t p : spinners) kill(p, SIGKILL);
  for (pid_t p : spinners) waitpid(p, nullptr, 0);
  ASSERT_EQ(tune.code, 0) << tune.output;
  const auto records = read_records(log);
  ASSERT_FALSE(records.empty());
  if (!fs::exists("/proc/pressure/cpu")) GTEST_SKIP() << "no /proc/pressure/cpu here: contention is not known";
  int busy = 0, read = 0;
  for (const auto &r : records) {
    if (!r.contains("cpu_wait")) continue;
    ++read;
    busy += r.at("cpu_wait").get<double>() >= tlp::kBusyCpuWait;
  }
  ASSERT_GT(read, 0) << tune.output;
  EXPECT_EQ(busy, read) << tune.output;
  EXPECT_NE(tune.output.find("warning: the CPUs were busy"), std::string::npos) << tune.output;
  CliRun show = tlptune("show " + quote(log) + " --json " + quote(d / "s.json"));
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find(std::to_string(busy) + " timed on a busy machine"), std::string::npos) << show.output;
  EXPECT_EQ(nlohmann::json::parse(read_file(d / "s.json"))[0].at("busy"), busy);
}

TEST(Cli, InterruptStopsCleanlyWithEveryRecordOnDisk) {
  TempDir d;
  const std::string log = d / "l.jsonl";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execl(TLPTUNE_PATH, TLPTUNE_PATH, "tune", "--op", "matmul:M=64,N=64,K=64", "--trials", "500", "--batch", "2",
          "--no-progress", "--min-seconds", "0.01", "--log", log.c_str(), (char *)nullptr);
    _exit(127);
  }
  // Wait until some records are on disk, then press Ctrl-C.
  for (int i = 0; i < 600 && read_records(log).size() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const auto records = read_records(log);  // every line parses
  EXPECT_GE(records.size(), 2u);
  EXPECT_LT(records.size(), 500u);
}

TEST(Cli, NetworkTuningSpreadsTrialsAndReportsTheEstimatedLatency) {
  TempDir d;
  const std::string net = d / "tiny.json";
  std::ofstream(net) << R"({"format": 1, "name": "tiny", "tasks": [
    {"op": "matmul:M=32,N=32,K=32", "weight": 2},
    {"op": "softmax:M=16,N=64", "weight": 1}]})";
  const std::string log = d / "l.jsonl";
  CliRun r = tlptune("tune --network " + quote(net) + " --trials 8 --no-progress --min-seconds 0.01 --log " +
                     quote(log) + " --json " + quote(d / "s.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("estimated network latency"), std::string::npos) << r.output;
  const auto records = read_records(log);
  std::set<std::string> workloads, kernels;
  for (const auto &rec : records) {
    workloads.insert(rec.at("workload").get<std::string>());
    kernels.insert(rec.at("workload").dump() + rec.at("schedule").dump());
  }
  EXPECT_EQ(kernels.size(), 8u) << "8 trials; every other record measures one of them again";
  EXPECT_GT(records.size(), 8u) << "each task's fastest were measured again";
  EXPECT_EQ(workloads.size(), 2u) << "every task gets trials";
  const auto summary = nlohmann::json::parse(read_file(d / "s.json"));
  ASSERT_EQ(summary.at("tasks").size(), 2u);
  for (const auto &t : summary.at("tasks")) EXPECT_FALSE(t.at("finals").empty()) << t.dump();
  double expected = 0;
  for (const auto &t : summary.at("tasks")) expected += t.at("weight").get<double>() * t.at("best").at("cost_seconds").get<double>();
  EXPECT_NEAR(summary.at("estimated_latency_seconds").get<double>(), expected, 1e-12);
}

TEST(Cli, MeasureLogsAGivenScheduleRejectsAMalformedOneAndShowListsTheFailure) {
  TempDir d;
  const std::string log = d / "l.jsonl";
  CliRun ok = tlptune("measure --op matmul:M=32,N=32,K=32 --min-seconds 0.01 --log " + quote(log) +
                      " --schedule 'SP(2,1,32,[8]); AN(2,2,vectorize); AN(2,0,parallel)'");
  ASSERT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("GFLOP/s"), std::string::npos) << ok.output;
  EXPECT_EQ(read_records(log).size(), 1u);
  expect_error("measure --op matmul:M=32,N=32,K=32 --log " + quote(log) + " --schedule 'SP(2,1,32'", "SP(2,1,32");
  // A schedule that names a missing loop is measured as invalid, logged, and the exit is non-zero.
  CliRun bad = tlptune("measure --op matmul:M=32,N=32,K=32 --log " + quote(log) + " --schedule 'SP(2,9,32,[8])'");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.output.find("invalid_schedule"), std::string::npos) << bad.output;
  EXPECT_EQ(read_records(log).size(), 2u);

  // show --failures lists the failed one with its schedule, ready for measure --schedule.
  CliRun show = tlptune("show " + quote(log) + " --failures --json " + quote(d / "s.json"));
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find("failed    invalid_schedule: "), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("            SP(2,9,32,[8])\n"), std::string::npos) << show.output;
  const auto failures = nlohmann::json::parse(read_file(d / "s.json")).at(0).at("failures");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].at("schedule"), "SP(2,9,32,[8])");
  EXPECT_EQ(failures[0].at("error"), "invalid_schedule");
  EXPECT_EQ(tlptune("show " + quote(log)).output.find("failed    "), std::string::npos);  // only when asked
}

TEST(Cli, MeasureFromLogMeasuresEveryScheduleOfAnotherLogAgainAndResumes) {
  TempDir d;
  const std::string old_log = d / "old.jsonl", new_log = d / "new.jsonl";
  CliRun first = tlptune("measure --op matmul:M=32,N=32,K=32 --min-seconds 0.01 --log " + quote(old_log) +
                         " --schedule 'SP(2,1,32,[8])' --schedule 'SP(2,0,32,[4])' --schedule 'SP(2,1,32,[8])'");
  ASSERT_EQ(first.code, 0) << first.output;
  ASSERT_EQ(read_records(old_log).size(), 3u);

  // A network without the matmul selects nothing; the old log is never written to.
  const std::string net = d.write("net.json", R"({"format": 1, "tasks": [{"op": "softmax:M=8,N=64"}]})");
  const std::string refresh = "measure --from-log " + quote(old_log) + " --min-seconds 0.01 --log " + quote(new_log);
  CliRun none = tlptune(refresh + " --network " + quote(net));
  ASSERT_EQ(none.code, 0) << none.output;
  EXPECT_NE(none.output.find("nothing to measure"), std::string::npos) << none.output;

  CliRun again = tlptune(refresh);
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("2 measured, 0 failed"), std::string::npos) << again.output;  // distinct ones once
  const auto records = read_records(new_log);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(tlp::Schedule::from_json(records[0].at("schedule")).to_text(), "SP(2,1,32,[8])");
  EXPECT_EQ(tlp::Schedule::from_json(records[1].at("schedule")).to_text(), "SP(2,0,32,[4])");
  EXPECT_EQ(read_records(old_log).size(), 3u);

  CliRun resumed = tlptune(refresh);
  EXPECT_NE(resumed.output.find("nothing to measure"), std::string::npos) << resumed.output;
  EXPECT_EQ(read_records(new_log).size(), 2u);
  expect_error("measure --from-log " + quote(old_log) + " --log " + quote(d / "./old.jsonl"), "append-only");
  expect_error("measure --from-log " + quote(old_log), "--log");
}

TEST(Cli, MeasurePrintHalideShowsTheLoweredScheduleAndBuildsNothing) {
  CliRun ok = tlptune("measure --op matmul:M=32,N=32,K=32 --print-halide --schedule "
                      "'SP(2,1,32,[8]); AN(2,2,vectorize); AN(2,0,parallel)'");
  ASSERT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("C.update(0).split(n, n_0, n_1, 8"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("C.update(0).vectorize(n_1);"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("C.update(0).parallel(m);"), std::string::npos) << ok.output;
  EXPECT_EQ(ok.output.find("GFLOP/s"), std::string::npos) << ok.output;  // not run
  expect_error("measure --op matmul:M=32,N=32,K=32 --print-halide --schedule 'SP(2,9,32,[8])'", "no loop 9");
}

TEST(Cli, LayoutAnySearchesEveryLayoutAndReportsTheFastest) {
  TempDir d;
  const std::string log = d / "l.jsonl";
  CliRun r = tlptune("tune --op depthwise_conv2d:C=32,H=14,W=14,layout=any --trials 6 --batch 2 --no-progress "
                     "--min-seconds 0.01 --final-top 0 --log " + quote(log) + " --json " + quote(d / "s.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("layouts    NCHW "), std::string::npos) << r.output;
  std::set<std::string> layouts;
  for (const auto &rec : read_records(log)) layouts.insert(tlp::parse_workload(rec.at("workload").get<std::string>()).get_str("layout"));
  EXPECT_GE(layouts.size(), 2u) << "each layout gets its warm-up round";
  EXPECT_TRUE(layouts.count("NCHW"));
  const auto summary = nlohmann::json::parse(read_file(d / "s.json"));
  ASSERT_GE(summary.at("layout_variants").size(), 2u);
  EXPECT_EQ(summary.at("trials").get<int>(), 6);
  double fastest = 1e9;
  for (const auto &v : summary.at("layout_variants"))
    if (!v.at("cost_seconds").is_null()) fastest = std::min(fastest, v.at("cost_seconds").get<double>());
  EXPECT_DOUBLE_EQ(summary.at("best").at("cost_seconds").get<double>(), fastest);
}

TEST(Cli, LayoutAnyOnAnOperatorWithoutALayoutIsAnError) {
  TempDir d;
  expect_error("tune --op softmax:M=8,layout=any --trials 2 --log " + quote(d / "l.jsonl"), "softmax has no layout to choose");
}

TEST(Cli, NetworkWithLayoutsFreePlansThemCountingTheConversionsAndTunesTheFirstPlansLayouts) {
  TempDir d;
  const std::string net = d / "tiny.json";
  std::ofstream(net) << R"({"format": 1, "name": "tiny", "tasks": [
    {"op": "conv2d_bias_relu:C=16,H=8,W=8,K=16,R=3,S=3", "weight": 1},
    {"op": "max_pool2d:C=16,H=8,W=8", "weight": 1},
    {"op": "matmul:M=1,N=16,K=16", "weight": 1}]})";
  const std::string log = d / "l.jsonl";
  CliRun r = tlptune("tune --network " + quote(net) + " --layouts any --conversion-trials 2 --trials 20 --batch 2 "
                     "--plan-share 0.6 --no-progress --min-seconds 0.01 --final-top 0 --log " + quote(log) + " --json " +
                     quote(d / "s.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("layout plan: activations in "), std::string::npos) << r.output;
  const auto plan = nlohmann::json::parse(read_file(d / "s.json")).at("layout_plan");
  ASSERT_TRUE(plan.at("found").get<bool>()) << plan.dump();
  // The first plan came after 60% of the trials; after it, the conv and the pool
  // were tuned in its network layout or in their own detour of it, nothing else
  // (both have every layout here).
  ASSERT_TRUE(plan.contains("first_plan")) << plan.dump();
  EXPECT_EQ(plan.at("first_plan").at("after_trials").get<int>(), 12);
  const std::string first_layout = plan.at("first_plan").at("network_layout");
  const auto task_layouts = plan.at("first_plan").at("task_layouts");
  ASSERT_EQ(task_layouts.size(), 3u);
  bool after_first_plan = false;
  int tuned_after = 0;
  for (const auto &rec : read_records(log)) {
    const tlp::Workload w = tlp::parse_workload(rec.at("workload").get<std::string>());
    if (w.kind == "layout_convert") after_first_plan = true;
    if (!after_first_plan || w.kind == "layout_convert" || w.kind == "matmul") continue;
    const std::string detour = task_layouts.at(w.kind == "max_pool2d" ? 1 : 0);
    const std::string layout = tlp::activation_memory_layout(w.get_str("layout"));
    EXPECT_TRUE(layout == first_layout || layout == detour) << rec.at("workload") << " after a plan in " << first_layout;
    ++tuned_after;
  }
  EXPECT_GT(tuned_after, 0) << "the trials after the first plan went somewhere";
  ASSERT_EQ(plan.at("tasks").size(), 3u);
  EXPECT_EQ(plan.at("tasks")[2].at("layout"), "") << "the matmul has no layout";
  double total = 0, conversions = 0;
  for (const auto &t : plan.at("tasks")) {
    total += t.at("kernel_seconds").get<double>() + t.at("conversion_seconds").get<double>();
    conversions += t.at("conversion_seconds").get<double>();
  }
  EXPECT_NEAR(plan.at("latency_seconds").get<double>(), total, 1e-12);
  EXPECT_NEAR(plan.at("conversion_seconds").get<double>(), conversions, 1e-12);
  if (plan.at("network_layout") != "NCHW")
    EXPECT_GT(conversions, 0) << "the network's NCHW input is converted for its first operator";
  for (const auto &c : plan.at("conversions")) EXPECT_EQ(c.at("workload").get<std::string>().rfind("layout_convert:", 0), 0u);
}

TEST(Cli, NetworkFileWithABadOperatorNamesTheTask) {
  TempDir d;
  const std::string net = d / "bad.json";
  std::ofstream(net) << R"({"format": 1, "tasks": [{"op": "matmul:M=8"}, {"op": "convolution:C=3"}]})";
  expect_error("tune --network " + quote(net) + " --trials 4 --log " + quote(d / "l.jsonl"), "task 1");
}

}  // namespace
