// What a plain `tlptune tune` runs: the evolutionary search guided by the
// shipped TLP model nearest to this machine, and nothing that needs
// measurements when only building.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "codegen/target.h"
#include "tuner/shipped_model.h"
#include "tuner/tuning_session.h"

namespace tlp {
namespace {

std::vector<ShippedModel> two_models() {
  return {{"a512.tlpm", "avx512", "amd", "zen5", "a Zen 5"}, {"a2.tlpm", "avx2", "amd", "zen1", "a Zen 1"}};
}

MachineIdentity machine(const std::string &vendor, const std::string &uarch) {
  MachineIdentity m;
  m.vendor = vendor;
  m.microarchitecture = uarch;
  m.family = 99;
  m.cores = 2;
  m.isa = "avx512";
  return m;
}

std::string found(const std::string &file) { return "/models/" + file; }

TEST(ShippedModelChoice, TheModelOfThisMicroarchitectureComesFirst) {
  const ShippedModelChoice c = choose_shipped_model(two_models(), "avx512", machine("amd", "zen5"), found);
  EXPECT_EQ(c.path, "/models/a512.tlpm");
  EXPECT_NE(c.reason.find("trained on this microarchitecture"), std::string::npos) << c.reason;
}

TEST(ShippedModelChoice, ThenTheSameVendorAndIsaThenTheSameIsaAndItSaysSo) {
  const ShippedModelChoice zen4 = choose_shipped_model(two_models(), "avx512", machine("amd", "zen4"), found);
  EXPECT_EQ(zen4.file, "a512.tlpm");
  EXPECT_NE(zen4.reason.find("none trained on zen4; nearest: same vendor and ISA, trained on zen5"), std::string::npos)
      << zen4.reason;
  const ShippedModelChoice emr = choose_shipped_model(two_models(), "avx512", machine("intel", "emeraldrapids"), found);
  EXPECT_EQ(emr.file, "a512.tlpm");
  EXPECT_NE(emr.reason.find("nearest: same ISA"), std::string::npos) << emr.reason;
  const ShippedModelChoice unknown = choose_shipped_model(two_models(), "avx2", machine("intel", ""), found);
  EXPECT_EQ(unknown.file, "a2.tlpm");
  EXPECT_NE(unknown.reason.find("none trained on intel-f99m0"), std::string::npos) << unknown.reason;
}

TEST(ShippedModelChoice, TheSameMicroarchitectureWithAnotherIsaIsNotAMatch) {
  // A Zen 5 tuning AVX2 kernels: the AVX2 model, not the Zen 5 one.
  const ShippedModelChoice c = choose_shipped_model(two_models(), "avx2", machine("amd", "zen5"), found);
  EXPECT_EQ(c.file, "a2.tlpm");
  EXPECT_NE(c.reason.find("same vendor and ISA"), std::string::npos) << c.reason;
}

TEST(ShippedModelChoice, TheAvx2ModelStandsInForAnotherIsaAndForAMissingFile) {
  const ShippedModelChoice sse = choose_shipped_model(two_models(), "sse41", machine("amd", "zen5"), found);
  EXPECT_EQ(sse.file, "a2.tlpm");
  EXPECT_NE(sse.reason.find("none trained for sse41 targets"), std::string::npos) << sse.reason;
  auto only_avx2 = [](const std::string &f) { return f == "a2.tlpm" ? "/m/a2.tlpm" : ""; };
  EXPECT_EQ(choose_shipped_model(two_models(), "avx512", machine("amd", "zen5"), only_avx2).path, "/m/a2.tlpm");
  EXPECT_EQ(choose_shipped_model(two_models(), "", machine("amd", "zen5"), found).path, "");
}

TEST(ShippedModelManifest, TheShippedManifestNamesFilesThatShip) {
  std::ifstream f(std::string(TLP_SOURCE_DIR) + "/models/models.json");
  std::stringstream text;
  text << f.rdbuf();
  const std::vector<ShippedModel> models = parse_model_manifest(text.str());
  ASSERT_GE(models.size(), 2u);
  for (const ShippedModel &m : models) {
    SCOPED_TRACE(m.file);
    EXPECT_TRUE(std::filesystem::is_regular_file(std::string(TLP_SOURCE_DIR) + "/models/" + m.file));
    EXPECT_FALSE(m.microarchitecture.empty());
  }
}

TEST(ShippedModelManifest, ANewerVersionOrAnotherFormatIsRefused) {
  EXPECT_THROW(parse_model_manifest(R"({"format":"tlptune-models","version":2,"models":[]})"), std::runtime_error);
  EXPECT_THROW(parse_model_manifest(R"({"format":"other","version":1,"models":[]})"), std::runtime_error);
  EXPECT_THROW(parse_model_manifest(R"({"format":"tlptune-models","version":1,"models":[{"file":"x"}]})"),
               std::runtime_error);
}

TEST(TuneDefaults, AnX86CpuGetsTheEvolutionarySearchWithAShippedModelAndTheReason) {
  for (const char *t : {"x86-64-linux-avx2", "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"}) {
    SCOPED_TRACE(t);
    const TuneOptions o = with_target_defaults(TuneOptions{}, parse_target(t));
    EXPECT_EQ(o.policy, "evolutionary");
    EXPECT_TRUE(std::filesystem::is_regular_file(o.model)) << o.model;
    EXPECT_EQ(std::filesystem::path(o.model).parent_path(), std::filesystem::path(TLP_SOURCE_DIR) / "models");
    EXPECT_NE(o.model_reason.find(std::filesystem::path(o.model).filename().string() + ": "), std::string::npos)
        << o.model_reason;
  }
  // One of the AVX2 models (which one depends on this machine's microarchitecture).
  const std::string avx2 =
      std::filesystem::path(with_target_defaults(TuneOptions{}, parse_target("x86-64-linux-avx2")).model).filename();
  EXPECT_EQ(avx2.rfind("tlp-cpu-avx2", 0), 0u) << avx2;
  EXPECT_EQ(avx2.find("h256"), std::string::npos) << avx2;
}

TEST(TuneDefaults, AGpuOrAnotherArchitectureLearnsOnlineFromScratch) {
  for (const char *t : {"x86-64-linux-avx2-cuda", "arm-64-linux"}) {
    SCOPED_TRACE(t);
    const TuneOptions o = with_target_defaults(TuneOptions{}, parse_target(t));
    EXPECT_EQ(o.policy, "evolutionary");
    EXPECT_EQ(o.model, "none");
    EXPECT_NE(o.model_reason.find("no shipped model fits"), std::string::npos) << o.model_reason;
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
  EXPECT_EQ(o.model_reason, "");
}

}  // namespace
}  // namespace tlp
