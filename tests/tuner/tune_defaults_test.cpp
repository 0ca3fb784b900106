// What a plain `tlptune tune` runs: the evolutionary search guided by the
// shipped TLP model where it fits, and nothing that needs measurements when
// only building.
#include <filesystem>

#include <gtest/gtest.h>

#include "codegen/target.h"
#include "tuner/shipped_model.h"
#include "tuner/tuning_session.h"

namespace tlp {
namespace {

TEST(TuneDefaults, AnX86CpuGetsTheEvolutionarySearchWithTheShippedModel) {
  const TuneOptions o = with_target_defaults(TuneOptions{}, parse_target("x86-64-linux-avx2"));
  EXPECT_EQ(o.policy, "evolutionary");
  EXPECT_EQ(std::filesystem::path(o.model).filename(), kShippedAvx2ModelName);
  EXPECT_TRUE(std::filesystem::equivalent(o.model, std::string(TLP_SOURCE_DIR) + "/models/" + kShippedAvx2ModelName));
}

TEST(TuneDefaults, AnAvx512CpuGetsTheModelTrainedOnAnAvx512Cpu) {
  const TuneOptions o = with_target_defaults(TuneOptions{}, parse_target("x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"));
  EXPECT_EQ(o.policy, "evolutionary");
  EXPECT_TRUE(std::filesystem::equivalent(o.model, std::string(TLP_SOURCE_DIR) + "/models/" + kShippedAvx512ModelName));
}

TEST(TuneDefaults, AnAvx2OrOlderCpuGetsTheAvx2Model) {
  for (const char *t : {"x86-64-linux-avx-avx2-f16c-fma-sse41", "x86-64-linux-sse41"}) {
    SCOPED_TRACE(t);
    EXPECT_EQ(shipped_model_name(parse_target(t)), kShippedAvx2ModelName);
  }
}

TEST(TuneDefaults, AGpuOrAnotherArchitectureLearnsOnlineFromScratch) {
  for (const char *t : {"x86-64-linux-avx2-cuda", "arm-64-linux"}) {
    SCOPED_TRACE(t);
    const TuneOptions o = with_target_defaults(TuneOptions{}, parse_target(t));
    EXPECT_EQ(o.policy, "evolutionary");
    EXPECT_EQ(o.model, "none");
  }
}

TEST(TuneDefaults, OnlyBuildingSearchesRandomlyForThereIsNothingToLearnFrom) {
  TuneOptions given;
  given.build_only = true;
  EXPECT_EQ(with_target_defaults(given, parse_target("x86-64-linux-avx2-cuda")).policy, "random");
}

TEST(TuneDefaults, WhatTheUserGaveIsKept) {
  TuneOptions given;
  given.policy = "random";
  given.model = "my.tlpm";
  const TuneOptions o = with_target_defaults(given, parse_target("x86-64-linux-avx2"));
  EXPECT_EQ(o.policy, "random");
  EXPECT_EQ(o.model, "my.tlpm");
}

}  // namespace
}  // namespace tlp
