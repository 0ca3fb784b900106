// The platform a measurement was taken on: the machine, the ISA the kernel was
// compiled for, and the thread count. Records carry it so that data from
// different machines (or ISAs, or thread counts) is never mixed up.
//
// A CPU platform reads "cpu/<machine>/<Halide target>/threads=N", the machine
// being MachineIdentity::short_name() ("zen5-epyc-2c-avx512"). Logs written
// before machines were named hold the brand string there ("AMD EPYC"): their
// microarchitecture is unknown, and `--platform-alias` renames them.
#pragma once

#include <string>

namespace tlp {

std::string cpu_model_name();  // from /proc/cpuinfo, "unknown-cpu" if absent
int hardware_threads();        // at least 1

// "cpu/zen5-epyc-2c-avx512/x86-64-linux-avx-avx2-f16c-fma-sse41/threads=2"
std::string cpu_platform(const std::string &target_string, int threads);

// The machine part of a CPU platform ("zen5-epyc-2c-avx512", or "AMD EPYC" in
// an older log); "" for a platform of another form (a GPU's).
std::string platform_machine(const std::string &platform);

// The N of a CPU platform's "threads=N"; 0 (every hardware thread) when it names none.
int platform_threads(const std::string &platform);

// `platform` with its machine part replaced; other platforms come back unchanged.
std::string with_platform_machine(const std::string &platform, const std::string &machine);

}  // namespace tlp
