// Names a CPU's microarchitecture from what cpuid reports (vendor, family,
// model, stepping). The vendor's brand string says "AMD EPYC" on Zen 1 and on
// Zen 5 alike; family and model tell them apart, and machines that differ there
// rank schedules differently, so their records must not mix.
#pragma once

#include <string>

namespace tlp {

// "amd", "intel", or the cpuid vendor string lower-cased ("" when unknown).
std::string cpu_vendor_short(const std::string &vendor_id);

// "zen4", "emeraldrapids", ...; "" when the table does not know the CPU.
std::string microarchitecture_name(const std::string &vendor, int family, int model, int stepping);

}  // namespace tlp
