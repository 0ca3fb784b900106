// Which machine measured a record: the CPU as cpuid names it (vendor, family,
// model, stepping), the microarchitecture that implies, its cores, caches and
// widest vector ISA. Records carry it (measure_record.h) and the platform names
// it (platform.h), so data from a Zen 4 and a Zen 5 "AMD EPYC" never mix.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace tlp {

struct MachineIdentity {
  std::string vendor;             // "amd", "intel", ... ("" when unknown)
  int family = 0;
  int model = 0;
  int stepping = 0;
  std::string microarchitecture;  // "zen5", "emeraldrapids", ...; "" when the table does not know it
  std::string cpu_name;           // the brand string, e.g. "AMD EPYC 9B45"
  int cores = 0;                  // the threads the OS offers
  std::string isa;                // "avx512", "avx2", "sse41" or "" (the widest the CPU has)
  int l1d_kib = 0, l2_kib = 0, l3_kib = 0;  // per cache instance; 0 when unknown

  // "zen4-epyc-2c-avx512"; with the microarchitecture unknown, vendor, family and
  // model stand in: "amd-f27m3-epyc-2c-avx512". Safe in a platform string (no '/').
  std::string short_name() const;

  // "zen5 (amd family 26 model 2 stepping 1)", or "unknown (...)".
  std::string description() const;

  nlohmann::json to_json() const;
  // Throws std::runtime_error naming the field that is missing or of the wrong type.
  static MachineIdentity from_json(const nlohmann::json &j);

  bool operator==(const MachineIdentity &o) const;
  bool operator!=(const MachineIdentity &o) const { return !(*this == o); }
};

// From the text of /proc/cpuinfo (its first processor), a sysfs cache folder
// (/sys/devices/system/cpu/cpu0/cache; missing is fine) and the thread count.
MachineIdentity parse_machine_identity(const std::string &cpuinfo, const std::string &cache_dir, int cores);

// This machine, read once per call.
MachineIdentity this_machine();

}  // namespace tlp
