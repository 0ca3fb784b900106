// CUDA without a GPU: a candidate for --target cuda is built, its PTX validated
// by ptxas (registers kept in the record), and the runner, which links no CUDA,
// fails it cleanly when the machine has no GPU driver.
#include <gtest/gtest.h>

#include <filesystem>
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

TEST(GpuBuild, CudaCandidateIsBuiltAndValidatedByPtxas) {
  if (tlp::find_ptxas().empty()) GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine";
  CliRun r = tlptune(std::string("measure --op matmul:M=64,N=64,K=64 --target cuda --build-only --schedule '") +
                     kGpuMatmul + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("built: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" registers, 0 bytes spilled"), std::string::npos) << r.output;
}

TEST(GpuBuild, CudaCandidateOverTheLaunchLimitsIsRefusedBeforeCompiling) {
  // 64 x 32 = 2048 threads in a block: Halide would compile it; no GPU launches it.
  CliRun r = tlptune("measure --op matmul:M=64,N=64,K=64 --target cuda --build-only --schedule "
                     "'CHW(2,local); SP(3,1,64,[32]); SP(3,0,64,[64]); RE(3,[0,2,1,3]); AN(3,0,gpu_block); "
                     "AN(3,1,gpu_block); AN(3,2,gpu_thread); AN(3,3,gpu_thread); CA(2,3,3)'");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("launch_limit"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2048"), std::string::npos) << r.output;
}

TEST(GpuBuild, ScheduleWithoutGpuLoopsIsACompileErrorNamingTheFix) {
  TempDir d;
  const std::string log = d / "g.jsonl";
  CliRun r = tlptune("measure --op matmul:M=64,N=64,K=64 --target cuda --build-only --schedule 'SP(2,0,64,[8])'");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("gpu_block and gpu_thread"), std::string::npos) << r.output;
}

TEST(GpuBuild, GpuTargetCannotBeTunedWithoutBuildOnlyHere) {
  if (gpu_here()) GTEST_SKIP() << "this machine has a GPU";
  CliRun r = tlptune("tune --op matmul:M=64,N=64,K=64 --target cuda --trials 1 --log /dev/null");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("--build-only"), std::string::npos) << r.output;
}

TEST(GpuBuild, RunnerReachedThroughACommandMeasuresAsTheLocalOne) {
  TempDir d;
  const std::string runner = std::filesystem::path(TLPTUNE_PATH).parent_path() / "tlptune-runner";
  const std::string log = d / "r.jsonl";
  CliRun r = tlptune("tune --op matmul:M=32,N=32,K=16 --trials 2 --batch 2 --min-seconds 0.005 --no-progress --final-top 0 "
                     "--runner 'env TLP_VIA=wrapper " + runner + "' --log " + log);
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream f(log);
  std::string line;
  int ok = 0;
  while (std::getline(f, line)) ok += nlohmann::json::parse(line)["error"] == "none";
  EXPECT_EQ(ok, 2);
  CliRun broken = tlptune("tune --op matmul:M=32,N=32,K=16 --target cuda --trials 1 --runner /bin/false --log " +
                          (d / "g.jsonl"));
  EXPECT_NE(broken.code, 0);
  EXPECT_NE(broken.output.find("no GPU to measure"), std::string::npos) << broken.output;
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
