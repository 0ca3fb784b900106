// tlptune collect across platforms: every sampled schedule is measured on every
// platform named, a rerun measures only what an interrupted run left out, and a
// platform that cannot be measured here is refused with a clear line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/tuner/cli_test_util.h"
#include "tuner/platform_spec.h"

namespace {

using tlp::testing::CliRun;
using tlp::testing::TempDir;
using tlp::testing::tlptune;

// platform -> the schedules measured on it (as JSON text), and the record count.
struct ByPlatform {
  std::map<std::string, std::multiset<std::string>> schedules;
  size_t records = 0;
};

ByPlatform read_by_platform(const std::string &path) {
  ByPlatform b;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    b.schedules[j.at("platform").get<std::string>()].insert(j.at("schedule").dump());
    ++b.records;
  }
  return b;
}

// Two thread counts of the host target where the machine has them, and SSE4.1.
std::string platforms_flag() {
  const bool two = std::thread::hardware_concurrency() >= 2;
  return std::string("--platforms host@1 x86-64-linux-sse41@1") + (two ? " host@2" : "");
}

size_t platform_count() { return std::thread::hardware_concurrency() >= 2 ? 3 : 2; }

const char *kCollect = "collect --ops matmul:M=32,N=32,K=16 --batch 2 --min-seconds 0.005 --no-progress --seed 3 ";

TEST(Collect, MeasuresEverySampledScheduleOnEveryPlatform) {
  TempDir d;
  const std::string log = d / "c.jsonl";
  CliRun r = tlptune(std::string(kCollect) + "--per-task 3 " + platforms_flag() + " --log " + log);
  ASSERT_EQ(r.code, 0) << r.output;
  const ByPlatform b = read_by_platform(log);
  ASSERT_EQ(b.schedules.size(), platform_count()) << r.output;
  const auto &first = b.schedules.begin()->second;
  EXPECT_EQ(first.size(), 3u);
  EXPECT_EQ(std::set<std::string>(first.begin(), first.end()).size(), 3u) << "a schedule was measured twice";
  for (const auto &[platform, schedules] : b.schedules) EXPECT_EQ(schedules, first) << platform;
  EXPECT_EQ(b.records, 3 * platform_count());
}

TEST(Collect, RerunMeasuresWhatAnInterruptedRunLeftOnTheOtherPlatforms) {
  TempDir d;
  const std::string full = d / "full.jsonl", partial = d / "partial.jsonl";
  ASSERT_EQ(tlptune(std::string(kCollect) + "--per-task 2 " + platforms_flag() + " --log " + full).code, 0);
  // What a stop right after the first platform's runs leaves: only host@1 lines.
  {
    std::ifstream in(full);
    std::ofstream out(partial);
    std::string line;
    while (std::getline(in, line))
      if (line.find("/threads=1\"") != std::string::npos && line.find("x86-64-linux-sse41/") == std::string::npos)
        out << line << "\n";
  }
  ASSERT_EQ(read_by_platform(partial).records, 2u);
  CliRun r = tlptune(std::string(kCollect) + "--per-task 3 " + platforms_flag() + " --log " + partial);
  ASSERT_EQ(r.code, 0) << r.output;
  const ByPlatform b = read_by_platform(partial);
  ASSERT_EQ(b.schedules.size(), platform_count());
  const auto &first = b.schedules.begin()->second;
  EXPECT_EQ(std::set<std::string>(first.begin(), first.end()).size(), 3u);
  for (const auto &[platform, schedules] : b.schedules) EXPECT_EQ(schedules, first) << platform;
  EXPECT_EQ(b.records, 3 * platform_count()) << "something was measured twice on a platform";
}

TEST(Collect, PlatformThatCannotBeMeasuredHereIsRefused) {
  TempDir d;
  const std::string log = d / "c.jsonl";
  for (const std::string bad : {"host@0", "host@two", "host@100000", "nonsense-target@1"}) {
    CliRun r = tlptune(std::string(kCollect) + "--per-task 1 --platforms " + bad + " --log " + log);
    EXPECT_NE(r.code, 0) << bad;
    EXPECT_NE(r.output.find(bad.substr(0, bad.find('@'))), std::string::npos) << r.output;
  }
  CliRun twice = tlptune(std::string(kCollect) + "--per-task 1 --platforms host@1 host@1 --log " + log);
  EXPECT_NE(twice.code, 0);
  EXPECT_NE(twice.output.find("named twice"), std::string::npos) << twice.output;
}

TEST(Collect, LayoutsAnyCollectsEveryLayoutTheTunerSearches) {
  TempDir d;
  const std::string log = d / "c.jsonl";
  CliRun r = tlptune("collect --ops depthwise_conv2d:C=16,H=8,W=8 --layouts any --per-task 1 --batch 1 "
                     "--target x86-64-linux-avx-avx2-f16c-fma-sse41 --min-seconds 0.005 --no-progress --log " + log);
  ASSERT_EQ(r.code, 0) << r.output;
  std::set<std::string> workloads;
  std::ifstream f(log);
  for (std::string line; std::getline(f, line);)
    if (!line.empty()) workloads.insert(nlohmann::json::parse(line).at("workload").get<std::string>());
  // NCHW, NHWC, NCHW8c and NCHW16c on AVX2 (8 floats a vector), one schedule each.
  EXPECT_EQ(workloads.size(), 4u) << r.output;
  EXPECT_TRUE(workloads.count("depthwise_conv2d:N=1,C=16,H=8,W=8,R=3,S=3,stride=1,pad=1,layout=NCHW8c")) << r.output;
}

// (workload, schedule) of every record of a log, as JSON text.
std::multiset<std::string> task_schedules(const std::string &path) {
  std::multiset<std::string> out;
  for (const auto &j : tlp::testing::read_json_lines(path))
    out.insert(j.at("workload").dump() + j.at("schedule").dump());
  return out;
}

const char *kThreeOps =
    "collect --ops matmul:M=32,N=32,K=16 softmax:M=8,N=64 matmul:M=16,N=48,K=8 --per-task 3 --batch 3 "
    "--min-seconds 0.005 --no-progress --seed 5 ";

TEST(Collect, ShardsMergedHoldExactlyTheSchedulesOfOneUnshardedCollect) {
  TempDir d;
  const std::string whole = d / "whole.jsonl", s1 = d / "s1.jsonl", s2 = d / "s2.jsonl", merged = d / "m.jsonl";
  ASSERT_EQ(tlptune(std::string(kThreeOps) + "--log " + whole).code, 0);
  CliRun first = tlptune(std::string(kThreeOps) + "--shard 1/2 --log " + s1);
  ASSERT_EQ(first.code, 0) << first.output;
  EXPECT_NE(first.output.find("for 2 operators"), std::string::npos) << "tasks 1 and 3: " << first.output;
  ASSERT_EQ(tlptune(std::string(kThreeOps) + "--shard 2/2 --log " + s2).code, 0);
  const auto s1_before = task_schedules(s1);

  CliRun m = tlptune("merge " + s1 + " " + s2 + " --out " + merged);
  ASSERT_EQ(m.code, 0) << m.output;
  EXPECT_EQ(task_schedules(merged), task_schedules(whole));
  EXPECT_EQ(task_schedules(s1), s1_before) << "an input was changed";

  // Merging again adds nothing: every record is already there.
  CliRun again = tlptune("merge " + s1 + " " + s2 + " " + whole + " --out " + merged);
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("merged 0 records"), std::string::npos) << again.output;
  EXPECT_EQ(task_schedules(merged), task_schedules(whole));
}

TEST(Collect, BadShardsAndMergesAreOneLineAndWriteNothing) {
  TempDir d;
  for (const char *spec : {"3/2", "0/2", "2", "a/b", "1/0"}) {
    CliRun r = tlptune(std::string(kCollect) + "--per-task 1 --shard " + spec + " --log " + (d / "x.jsonl"));
    EXPECT_EQ(r.code, 1) << spec << ": " << r.output;
    EXPECT_NE(r.output.find(std::string("--shard ") + spec + ": give I/N with 1 <= I <= N"), std::string::npos)
        << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(d / "x.jsonl"));

  const std::string a = d / "a.jsonl";
  ASSERT_EQ(tlptune(std::string(kCollect) + "--per-task 2 --log " + a).code, 0);
  const std::string before = tlp::testing::read_json_lines(a).front().dump();
  CliRun same = tlptune("merge " + a + " --out " + a);
  EXPECT_EQ(same.code, 1);
  EXPECT_NE(same.output.find("is also an input"), std::string::npos) << same.output;

  // An older format beside a newer one.
  std::string old_lines;
  for (nlohmann::json r : tlp::testing::read_json_lines(a)) {
    r.erase("machine");
    r["v"] = 2;
    old_lines += r.dump() + "\n";
  }
  const std::string old = d.write("old.jsonl", old_lines);
  CliRun mixed = tlptune("merge " + a + " " + old + " --out " + (d / "m.jsonl"));
  EXPECT_EQ(mixed.code, 1) << mixed.output;
  EXPECT_NE(mixed.output.find("records of different formats"), std::string::npos) << mixed.output;
  EXPECT_FALSE(std::filesystem::exists(d / "m.jsonl")) << "nothing is written when the merge is refused";

  const std::string not_log = d.write("n.jsonl", "{\"hello\": 1}\n");
  CliRun bad = tlptune("merge " + a + " " + not_log + " --out " + (d / "m.jsonl"));
  EXPECT_EQ(bad.code, 1) << bad.output;
  EXPECT_NE(bad.output.find("n.jsonl"), std::string::npos) << bad.output;
  EXPECT_EQ(tlp::testing::read_json_lines(a).front().dump(), before);
}

TEST(PlatformSpec, GroupsThreadCountsUnderTheirTarget) {
  std::vector<tlp::PlatformSpec> p = {{"x86-64-linux-avx2", 2}, {"x86-64-linux-sse41", 1}, {"x86-64-linux-avx2", 1}};
  const auto g = tlp::group_by_target(p);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].target, "x86-64-linux-avx2");
  EXPECT_EQ(g[0].threads, (std::vector<int>{2, 1}));
  EXPECT_EQ(g[1].threads, (std::vector<int>{1}));
  EXPECT_NE(p[0].name().find("/x86-64-linux-avx2/threads=2"), std::string::npos) << p[0].name();
}

}  // namespace
