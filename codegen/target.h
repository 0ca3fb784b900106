// Compile targets: "host", or any Halide target string such as
// "x86-64-linux-avx2" or "x86-64-linux-avx512_skylake".
#pragma once

#include <stdexcept>
#include <string>

#include "Halide.h"

namespace tlp {

class TargetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws TargetError with the accepted forms when the string is not a target.
Halide::Target parse_target(const std::string &spec);

// True when code for `t` can run on this machine (its ISA features are a subset of the host's).
bool target_runs_here(const Halide::Target &t);

// The native vector width in float32 lanes (4 for SSE, 8 for AVX2, 16 for AVX-512).
int vector_lanes_f32(const Halide::Target &t);

}  // namespace tlp
