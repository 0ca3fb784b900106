// Bundles end to end on this CPU: tlptune bundle builds, the bundle's run.sh runs
// it with nothing but its own runner, tlptune bundle-import logs the results. The
// same path carries CUDA kernels to a GPU machine; only the device differs.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/gpu_probe.h"
#include "measure/ptxas.h"
#include "measure/record_log.h"
#include "tests/tuner/cli_test_util.h"

namespace {

namespace fs = std::filesystem;
using tlp::testing::CliRun;
using tlp::testing::TempDir;
using tlp::testing::tlptune;

std::vector<nlohmann::json> json_lines(const std::string &path) { return tlp::testing::read_json_lines(path); }

int run_script(const std::string &bundle, const std::string &results, const std::string &env = "") {
  const std::string cmd = env + " sh " + bundle + "/run.sh " + results + " 2>/dev/null";
  return std::system(cmd.c_str());
}

// A fake kernel library that does `body` (C) when called, as a bundle's kernel would be.
void replace_kernel(const std::string &path, const std::string &body, const TempDir &tmp) {
  const std::string src = tmp.write(
      "fake.c", "#include <HalideRuntime.h>\nint tlp_kernel_argv(void **a) { (void)a; " + body + " return 0; }\n");
  ASSERT_EQ(std::system(("cc -shared -fPIC -O0 -I" TLP_HALIDE_RUNTIME_INCLUDE_DIR " -o " + path + " " + src).c_str()), 0);
}

// Two small operators, four candidates each, the matmul's output checked at 500
// sampled positions.
CliRun make_bundle(const TempDir &tmp, const std::string &extra = "") {
  return tlptune("bundle --target host --op matmul:M=48,N=40,K=32 --op softmax:M=16,N=30 --per-op 4 --seed 3 "
                 "--max-reference 500 --min-seconds 0 --no-progress --out " + tmp.file("b") + " " + extra);
}

TEST(Bundle, BuildsRunsAndImportsEveryCandidateAsARecord) {
  TempDir tmp;
  CliRun made = make_bundle(tmp);
  ASSERT_EQ(made.code, 0) << made.output;
  EXPECT_NE(made.output.find("8 candidates, 8 built"), std::string::npos) << made.output;
  const auto manifest = json_lines(tmp.file("b/manifest.jsonl"));
  const auto jobs = json_lines(tmp.file("b/jobs.jsonl"));
  ASSERT_EQ(manifest.size(), 8u);
  ASSERT_EQ(jobs.size(), 8u);
  for (const auto &j : jobs) {
    EXPECT_TRUE(fs::exists(tmp.file("b/" + j["artifact"].get<std::string>()))) << j.dump();
    EXPECT_EQ(j["artifact"].get<std::string>().front(), 'k') << "paths inside the bundle are relative";
  }
  struct stat st;
  ASSERT_EQ(::stat(tmp.file("b/bin/tlptune-runner").c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR);

  ASSERT_EQ(run_script(tmp.file("b"), tmp.file("r")), 0);
  EXPECT_EQ(json_lines(tmp.file("r/results.jsonl")).size(), 8u);
  CliRun imported = tlptune("bundle-import " + tmp.file("b") + " " + tmp.file("r") + " --log " + tmp.file("log.jsonl"));
  ASSERT_EQ(imported.code, 0) << imported.output;
  EXPECT_NE(imported.output.find("8 records appended"), std::string::npos) << imported.output;
  const auto records = tlp::read_record_log(tmp.file("log.jsonl")).records;
  ASSERT_EQ(records.size(), 8u);
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_TRUE(records[i].ok()) << records[i].error_message;
    EXPECT_EQ(records[i].schedule.to_text(),
              tlp::Schedule::from_json(manifest[i]["schedule"]).to_text()) << "the bundle's order is kept";
    EXPECT_EQ(records[i].platform.rfind("cpu/", 0), 0u) << records[i].platform;
  }

  // Importing again adds nothing: the log is append-only and never doubled.
  imported = tlptune("bundle-import " + tmp.file("b") + " " + tmp.file("r") + " --log " + tmp.file("log.jsonl"));
  EXPECT_NE(imported.output.find("0 records appended"), std::string::npos) << imported.output;
  EXPECT_EQ(tlp::read_record_log(tmp.file("log.jsonl")).records.size(), 8u);
}

TEST(Bundle, ACrashingOrHangingKernelCostsOneFailedRecordAndTheRestRun) {
  TempDir tmp;
  ASSERT_EQ(make_bundle(tmp).code, 0);
  const auto jobs = json_lines(tmp.file("b/jobs.jsonl"));
  replace_kernel(tmp.file("b/" + jobs[1]["artifact"].get<std::string>()), "*(volatile int *)0 = 1;", tmp);
  replace_kernel(tmp.file("b/" + jobs[2]["artifact"].get<std::string>()), "for (volatile int s = 1; s;) {}", tmp);
  ASSERT_EQ(run_script(tmp.file("b"), tmp.file("r"), "TLP_JOB_TIMEOUT=1"), 0);
  const auto results = json_lines(tmp.file("r/results.jsonl"));
  ASSERT_EQ(results.size(), 8u);
  EXPECT_EQ(results[0]["error"], "none");
  EXPECT_EQ(results[1]["error"], "runtime_error");
  EXPECT_EQ(results[1]["id"], jobs[1]["id"]);
  EXPECT_NE(results[1]["message"].get<std::string>().find("runner died"), std::string::npos);
  EXPECT_EQ(results[2]["error"], "run_timeout");
  EXPECT_EQ(results[3]["error"], "none");
  EXPECT_EQ(results[7]["error"], "none");
  CliRun imported = tlptune("bundle-import " + tmp.file("b") + " " + tmp.file("r") + " --log " + tmp.file("log.jsonl"));
  ASSERT_EQ(imported.code, 0) << imported.output;
  const auto records = tlp::read_record_log(tmp.file("log.jsonl")).records;
  ASSERT_EQ(records.size(), 8u);
  EXPECT_FALSE(records[1].ok());
  EXPECT_FALSE(records[2].ok());
  EXPECT_TRUE(records[3].ok());
}

TEST(Bundle, AWrongKernelIsCaughtByTheSampledReference) {
  TempDir tmp;
  ASSERT_EQ(make_bundle(tmp).code, 0);
  const auto jobs = json_lines(tmp.file("b/jobs.jsonl"));
  // Writes zeros over the whole output: wrong at every sampled position.
  replace_kernel(tmp.file("b/" + jobs[0]["artifact"].get<std::string>()),
                 "halide_buffer_t *o = a[2]; for (int i = 0; i < 48 * 40; ++i) ((float *)o->host)[i] = 0.0f;",
                 tmp);
  ASSERT_EQ(run_script(tmp.file("b"), tmp.file("r")), 0);
  const auto results = json_lines(tmp.file("r/results.jsonl"));
  ASSERT_EQ(results.size(), 8u);
  EXPECT_EQ(results[0]["error"], "wrong_answer") << results[0].dump();
  EXPECT_EQ(results[1]["error"], "none");
}

TEST(Bundle, AnExistingBundleIsNeverOverwritten) {
  TempDir tmp;
  ASSERT_EQ(make_bundle(tmp).code, 0);
  const std::string before = json_lines(tmp.file("b/manifest.jsonl")).front().dump();
  CliRun again = make_bundle(tmp);
  EXPECT_NE(again.code, 0);
  EXPECT_NE(again.output.find("holds a bundle already"), std::string::npos) << again.output;
  EXPECT_EQ(json_lines(tmp.file("b/manifest.jsonl")).front().dump(), before);
}

TEST(Bundle, ARerunOfRunShContinuesAfterTheResultsThere) {
  TempDir tmp;
  ASSERT_EQ(make_bundle(tmp).code, 0);
  ASSERT_EQ(run_script(tmp.file("b"), tmp.file("r")), 0);
  // Keep the first three results, as if the machine had been taken back.
  const auto results = json_lines(tmp.file("r/results.jsonl"));
  {
    std::ofstream f(tmp.file("r/results.jsonl"), std::ios::trunc);
    for (int i = 0; i < 3; ++i) f << results[size_t(i)].dump() << "\n";
  }
  CliRun partial = tlptune("bundle-import " + tmp.file("b") + " " + tmp.file("r") + " --log " + tmp.file("log.jsonl"));
  EXPECT_NE(partial.output.find("3 records appended"), std::string::npos) << partial.output;
  EXPECT_NE(partial.output.find("5 built but not measured"), std::string::npos) << partial.output;
  ASSERT_EQ(run_script(tmp.file("b"), tmp.file("r")), 0);
  const auto after = json_lines(tmp.file("r/results.jsonl"));
  ASSERT_EQ(after.size(), 8u);
  EXPECT_EQ(after[0].dump(), results[0].dump()) << "results already there are kept";
  CliRun rest = tlptune("bundle-import " + tmp.file("b") + " " + tmp.file("r") + " --log " + tmp.file("log.jsonl"));
  EXPECT_NE(rest.output.find("5 records appended"), std::string::npos) << rest.output;
}

TEST(Bundle, AModelKeepsItsBestRankedSamplesAndTheTableComparesThemWithRandom) {
  TempDir tmp;
  ASSERT_EQ(make_bundle(tmp).code, 0);
  CliRun made = tlptune("bundle --target host --op matmul:M=48,N=40,K=32 --per-op 3 --pool 40 --min-seconds 0 "
                        "--no-progress --model " TLP_SOURCE_DIR "/models/tlp-cpu-avx2.tlpm --out " + tmp.file("m"));
  ASSERT_EQ(made.code, 0) << made.output;
  const auto manifest = json_lines(tmp.file("m/manifest.jsonl"));
  ASSERT_EQ(manifest.size(), 3u);
  for (size_t i = 0; i < manifest.size(); ++i) {
    EXPECT_EQ(manifest[i]["pick"], "model");
    EXPECT_EQ(manifest[i]["rank"], int(i) + 1);
  }
  ASSERT_EQ(run_script(tmp.file("b"), tmp.file("r")), 0);
  ASSERT_EQ(run_script(tmp.file("m"), tmp.file("mr")), 0);
  CliRun imported = tlptune("bundle-import " + tmp.file("b") + " " + tmp.file("r") + " " + tmp.file("m") + " " +
                            tmp.file("mr") + " --log " + tmp.file("log.jsonl") + " --json " + tmp.file("c.json"));
  ASSERT_EQ(imported.code, 0) << imported.output;
  EXPECT_NE(imported.output.find("| matmul:M=48,N=40,K=32 | model | 3 |"), std::string::npos) << imported.output;
  const auto curves = nlohmann::json::parse(std::ifstream(tmp.file("c.json")))["curves"];
  ASSERT_EQ(curves.size(), 3u);  // matmul random, softmax random, matmul model
  EXPECT_EQ(curves[2]["best_so_far"].size(), 3u);
  EXPECT_EQ(tlp::read_record_log(tmp.file("log.jsonl")).records.size(), 11u);
}

TEST(Bundle, GpuBundleNeedsTheProbeOrAPlatformToImport) {
  if (tlp::find_ptxas().empty()) GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine";
  TempDir tmp;
  CliRun made = tlptune("bundle --target cuda --op matmul:M=64,N=64,K=64 --per-op 2 --no-progress --out " +
                        tmp.file("g"));
  ASSERT_EQ(made.code, 0) << made.output;
  for (const auto &j : json_lines(tmp.file("g/jobs.jsonl"))) EXPECT_EQ(j["device"], "cuda");
  for (const auto &m : json_lines(tmp.file("g/manifest.jsonl"))) EXPECT_TRUE(m.contains("ptxas")) << m.dump();
  fs::create_directories(tmp.file("r"));
  std::ofstream(tmp.file("r/results.jsonl")) << "";
  CliRun imported = tlptune("bundle-import " + tmp.file("g") + " " + tmp.file("r") + " --log " + tmp.file("l.jsonl"));
  EXPECT_NE(imported.code, 0);
  EXPECT_NE(imported.output.find("--platform"), std::string::npos) << imported.output;
}

}  // namespace
