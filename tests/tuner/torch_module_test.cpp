// LibTorch is a module tlptune loads when it first makes a network
// (costmodel/torch_module.h): commands that need no model never load it, and a
// tlptune whose module is missing says so in one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/tuner/cli_test_util.h"

namespace {

using tlp::testing::CliRun;
using tlp::testing::TempDir;

namespace fs = std::filesystem;

// Runs tlptune with the dynamic loader reporting every library it opens.
CliRun tlptune_reporting_libraries(const std::string &args) {
  return tlp::testing::run_program("env", std::string("LD_DEBUG=files '") + TLPTUNE_PATH + "' " + args);
}

bool loaded_libtorch(const CliRun &r) { return r.output.find("file=libtorch_cpu.so") != std::string::npos; }

TEST(TorchModule, CommandsThatMakeNoNetworkNeverLoadLibTorch) {
  TempDir d;
  const std::string random_tune =
      "tune --op matmul:M=8,N=8,K=8 --policy random --trials 2 --no-progress --log '" + (d / "r.jsonl") + "'";
  for (const std::string &args : std::vector<std::string>{"--help", "ops", random_tune}) {
    SCOPED_TRACE(args);
    const CliRun r = tlptune_reporting_libraries(args);
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_FALSE(loaded_libtorch(r));
  }
  // The check above can fail: tuning with the shipped model does load it.
  const CliRun model = tlptune_reporting_libraries("tune --op matmul:M=8,N=8,K=8 --trials 2 --no-progress --log '" +
                                                   (d / "m.jsonl") + "'");
  EXPECT_EQ(model.code, 0) << model.output.substr(model.output.size() - std::min<size_t>(model.output.size(), 2000));
  EXPECT_TRUE(loaded_libtorch(model));
}

TEST(TorchModule, ATlptuneWithoutItsModuleSaysSoWhenItNeedsAModel) {
  TempDir d;
  const fs::path bin = fs::path(TLPTUNE_PATH).parent_path();
  for (const char *program : {"tlptune", "tlptune-build-worker", "tlptune-runner"})
    fs::copy_file(bin / program, d / program);
  const std::string log = "'" + (d / "l.jsonl") + "'";
  const std::string lone = d / "tlptune";
  const CliRun random = tlp::testing::run_program(
      lone, "tune --op matmul:M=8,N=8,K=8 --policy random --trials 1 --no-progress --log " + log);
  EXPECT_EQ(random.code, 0) << "random search needs no module: " << random.output;
  const CliRun model =
      tlp::testing::run_program(lone, "tune --op matmul:M=8,N=8,K=8 --trials 1 --no-progress --log " + log);
  EXPECT_EQ(model.code, 1) << "1 is an error exit; 134 would be an abort: " << model.output;
  EXPECT_NE(model.output.find("libtlptune-torch.so is missing"), std::string::npos) << model.output;
  EXPECT_NE(model.output.find(d.path()), std::string::npos) << "names where it looked: " << model.output;
}

}  // namespace
