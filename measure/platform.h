// The platform a measurement was taken on: CPU model, the ISA the kernel was
// compiled for, and the thread count. Records carry it so that data from
// different machines (or ISAs, or thread counts) is never mixed up.
#pragma once

#include <string>

namespace tlp {

std::string cpu_model_name();  // from /proc/cpuinfo, "unknown-cpu" if absent
int hardware_threads();        // at least 1

// "cpu/AMD EPYC/x86-64-linux-avx-avx2-f16c-fma-sse41/threads=2"
std::string cpu_platform(const std::string &target_string, int threads);

}  // namespace tlp
