// CUDA without a GPU: a candidate for --target cuda is built, its PTX validated
// by ptxas (registers kept in the record), and the runner, which links no CUDA,
// fails it cleanly when the machine has no GPU driver.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "measure/gpu_probe.h"
#include "measure/ptxas.h"
#include "tests/tuner/cli_test_util.h"

namespace {

using tlp::testing::CliRun;
using tlp::testing::TempDir;
using tlp::testing::tlptune;

bool gpu_here() {
  try {
    tlp::probe_gpu();
    return true;
  } catch (const std::exception &) {
    return false;
  }
}

// Matmul tiled 8 x 16 per block, one output element per thread, the accumulator local.
const char *kGpuMatmul =
    "CHW(2,local); SP(3,1,64,[16]); SP(3,0,64,[8]); RE(3,[0,2,1,3]); AN(3,0,gpu_block); AN(3,1,gpu_block); "
    "AN(3,2,gpu_thread); AN(3,3,gpu_thread); CA(2,3,3)";

TEST(GpuBuild, CudaCandidateIsBuiltAndValidatedByPtxasAndRunsOnlyWhereAGpuIs) {
  if (tlp::find_ptxas().empty()) GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine";
  TempDir d;
  const std::string log = d / "g.jsonl";
  CliRun r = tlptune("measure --op matmul:M=64,N=64,K=64 --target cuda --min-seconds 0.01 --log " + log +
                     " --schedule '" + kGpuMatmul + "'");
  std::ifstream f(log);
  std::string line;
  ASSERT_TRUE(std::getline(f, line)) << r.output;
  const auto rec = nlohmann::json::parse(line);
  ASSERT_TRUE(rec.contains("ptxas")) << line;
  EXPECT_EQ(rec["ptxas"]["kernels"], 1);
  EXPECT_GT(rec["ptxas"]["registers"].get<int>(), 0);
  EXPECT_NE(rec["target"].get<std::string>().find("cuda_capability_80"), std::string::npos);
  if (gpu_here()) {
    EXPECT_EQ(rec["error"], "none") << line;
  } else {
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(rec["error"], "runtime_error");
    EXPECT_NE(rec["message"].get<std::string>().find("cannot put the inputs on the CUDA device"), std::string::npos)
        << line;
  }
}

TEST(GpuBuild, ScheduleWithoutGpuLoopsIsACompileErrorNamingTheFix) {
  TempDir d;
  const std::string log = d / "g.jsonl";
  CliRun r = tlptune("measure --op matmul:M=64,N=64,K=64 --target cuda --log " + log +
                     " --schedule 'SP(2,0,64,[8])'");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("gpu_block and gpu_thread"), std::string::npos) << r.output;
}

TEST(GpuBuild, GpuTargetCannotBeTunedWithoutBuildOnlyHere) {
  if (gpu_here()) GTEST_SKIP() << "this machine has a GPU";
  CliRun r = tlptune("tune --op matmul:M=64,N=64,K=64 --target cuda --trials 1 --log /dev/null");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("--build-only"), std::string::npos) << r.output;
}

TEST(GpuBuild, UnknownCudaCapabilityIsRefusedWithTheKnownOnes) {
  CliRun r = tlptune("tune --op matmul:M=64,N=64,K=64 --target cuda_capability_99 --build-only --trials 1");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("cuda_capability_30"), std::string::npos) << r.output;
}

TEST(GpuBuild, RunnerProbeSaysWhenThereIsNoGpu) {
  if (gpu_here()) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_THROW(tlp::probe_gpu(), std::runtime_error);
}

}  // namespace
