// Compile targets: "host", or any Halide target string such as
// "x86-64-linux-avx2" or "x86-64-linux-avx512_skylake". For NVIDIA GPUs, "cuda"
// is this CPU with CUDA for compute capability 8.0 (PTX for sm_80 also runs on
// newer GPUs through the driver's JIT), and "cuda_capability_NN" picks another
// capability Halide 14 knows (30, 32, 35, 50, 61, 70, 75, 80, 86).
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

// True when code for `t` can run on this machine (its ISA features are a subset of
// the host's). A GPU target never does: whether a GPU is present is the runner's
// business.
bool target_runs_here(const Halide::Target &t);

// A CUDA target's compute capability as a number (80 for 8.0); 0 for others.
int cuda_capability(const Halide::Target &t);

// The native vector width in float32 lanes (4 for SSE, 8 for AVX2, 16 for AVX-512).
int vector_lanes_f32(const Halide::Target &t);

}  // namespace tlp
