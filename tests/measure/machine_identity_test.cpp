#include "measure/machine_identity.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "measure/microarchitecture.h"
#include "measure/platform.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

std::string cpuinfo(const std::string &vendor, int family, int model, int stepping, const std::string &name,
                    const std::string &flags) {
  std::string one = "processor\t: 0\nvendor_id\t: " + vendor + "\ncpu family\t: " + std::to_string(family) +
                    "\nmodel\t\t: " + std::to_string(model) + "\nmodel name\t: " + name +
                    "\nstepping\t: " + std::to_string(stepping) + "\nflags\t\t: " + flags + "\n\n";
  // A second processor that differs: only the first describes the machine.
  return one + "processor\t: 1\nvendor_id\t: Other\ncpu family\t: 99\nmodel\t\t: 1\n";
}

TEST(Microarchitecture, FamilyAndModelTellZenGenerationsApart) {
  EXPECT_EQ(microarchitecture_name("amd", 23, 1, 2), "zen1");
  EXPECT_EQ(microarchitecture_name("amd", 23, 0x31, 0), "zen2");
  EXPECT_EQ(microarchitecture_name("amd", 25, 0x01, 1), "zen3");
  EXPECT_EQ(microarchitecture_name("amd", 25, 0x11, 1), "zen4");
  EXPECT_EQ(microarchitecture_name("amd", 25, 0xa0, 2), "zen4");
  EXPECT_EQ(microarchitecture_name("amd", 26, 0x02, 1), "zen5");
}

TEST(Microarchitecture, SteppingSplitsAnIntelModelThatWasReused) {
  EXPECT_EQ(microarchitecture_name("intel", 6, 85, 4), "skylakex");
  EXPECT_EQ(microarchitecture_name("intel", 6, 85, 7), "cascadelake");
  EXPECT_EQ(microarchitecture_name("intel", 6, 207, 2), "emeraldrapids");
  EXPECT_EQ(microarchitecture_name("intel", 6, 143, 8), "sapphirerapids");
}

TEST(Microarchitecture, AnUnknownCpuHasNoName) {
  EXPECT_EQ(microarchitecture_name("amd", 27, 3, 0), "");
  EXPECT_EQ(microarchitecture_name("intel", 25, 1, 0), "");
  EXPECT_EQ(cpu_vendor_short("AuthenticAMD"), "amd");
  EXPECT_EQ(cpu_vendor_short("GenuineIntel"), "intel");
  EXPECT_EQ(cpu_vendor_short("HygonGenuine"), "hygongenuine");
}

TEST(MachineIdentity, ParsesTheFirstProcessorOfCpuinfo) {
  const MachineIdentity m = parse_machine_identity(
      cpuinfo("AuthenticAMD", 25, 17, 1, "AMD EPYC 9R14 96-Core Processor", "fpu sse4_1 avx2 avx512f avx512bw"), "", 2);
  EXPECT_EQ(m.vendor, "amd");
  EXPECT_EQ(m.family, 25);
  EXPECT_EQ(m.model, 17);
  EXPECT_EQ(m.stepping, 1);
  EXPECT_EQ(m.microarchitecture, "zen4");
  EXPECT_EQ(m.cpu_name, "AMD EPYC 9R14 96-Core Processor");
  EXPECT_EQ(m.isa, "avx512");
  EXPECT_EQ(m.cores, 2);
  EXPECT_EQ(m.short_name(), "zen4-epyc-2c-avx512");
}

TEST(MachineIdentity, TheWidestIsaNamesTheMachine) {
  EXPECT_EQ(parse_machine_identity(cpuinfo("AuthenticAMD", 23, 1, 2, "AMD EPYC 7571", "sse4_1 avx avx2 fma"), "", 2)
                .short_name(),
            "zen1-epyc-2c-avx2");
  EXPECT_EQ(parse_machine_identity(cpuinfo("GenuineIntel", 6, 207, 2, "Intel(R) Xeon(R) Processor", "sse4_1"), "", 4)
                .short_name(),
            "emeraldrapids-xeon-4c-sse41");
}

TEST(MachineIdentity, AnUnknownMicroarchitectureIsNamedByFamilyAndModel) {
  const MachineIdentity m =
      parse_machine_identity(cpuinfo("AuthenticAMD", 27, 3, 0, "AMD EPYC 9999", "sse4_1 avx2 avx512f"), "", 4);
  EXPECT_EQ(m.microarchitecture, "");
  EXPECT_EQ(m.short_name(), "amd-f27m3-epyc-4c-avx512");
  EXPECT_NE(m.description().find("unknown (amd family 27 model 3"), std::string::npos) << m.description();
}

TEST(MachineIdentity, CachesComeFromTheSysfsFolder) {
  const fs::path dir = fs::path(::testing::TempDir()) / "tlp_cache_test";
  fs::remove_all(dir);
  auto write_index = [&](const std::string &index, const char *level, const char *type, const char *size) {
    fs::create_directories(dir / index);
    std::ofstream(dir / index / "level") << level << "\n";
    std::ofstream(dir / index / "type") << type << "\n";
    std::ofstream(dir / index / "size") << size << "\n";
  };
  write_index("index0", "1", "Data", "48K");
  write_index("index1", "1", "Instruction", "32K");
  write_index("index2", "2", "Unified", "2048K");
  write_index("index3", "3", "Unified", "260M");
  const MachineIdentity m = parse_machine_identity(cpuinfo("GenuineIntel", 6, 207, 2, "Xeon", "avx2"), dir.string(), 2);
  EXPECT_EQ(m.l1d_kib, 48);
  EXPECT_EQ(m.l2_kib, 2048);
  EXPECT_EQ(m.l3_kib, 260 * 1024);
  fs::remove_all(dir);
}

TEST(MachineIdentity, RoundTripsThroughJsonWithItsNameForReaders) {
  MachineIdentity m = parse_machine_identity(cpuinfo("AuthenticAMD", 26, 2, 1, "AMD EPYC 9B45", "avx2 avx512f"), "", 2);
  m.l2_kib = 1024;
  const nlohmann::json j = m.to_json();
  EXPECT_EQ(j["name"], "zen5-epyc-2c-avx512");
  EXPECT_EQ(MachineIdentity::from_json(j), m);
  nlohmann::json bad = j;
  bad.erase("stepping");
  EXPECT_THROW(MachineIdentity::from_json(bad), std::runtime_error);
}

TEST(Platform, TheMachinePartIsReadAndReplaced) {
  const std::string p = "cpu/AMD EPYC/x86-64-linux-avx-avx2-f16c-fma-sse41/threads=2";
  EXPECT_EQ(platform_machine(p), "AMD EPYC");
  EXPECT_EQ(with_platform_machine(p, "zen1-epyc-2c-avx2"), "cpu/zen1-epyc-2c-avx2/x86-64-linux-avx-avx2-f16c-fma-sse41/threads=2");
  EXPECT_EQ(platform_machine("cuda/NVIDIA H100/sm_90"), "");
  EXPECT_EQ(with_platform_machine("cuda/NVIDIA H100/sm_90", "x"), "cuda/NVIDIA H100/sm_90");
}

TEST(Platform, ThisMachinesPlatformNamesItsMachine) {
  const std::string p = cpu_platform("x86-64-linux-sse41", 2);
  EXPECT_EQ(platform_machine(p), this_machine().short_name());
  EXPECT_EQ(p, "cpu/" + this_machine().short_name() + "/x86-64-linux-sse41/threads=2");
}

}  // namespace
}  // namespace tlp
