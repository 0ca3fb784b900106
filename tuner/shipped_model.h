// The TLP models that ship with tlptune (models/ in the source tree), so that a
// plain `tlptune tune` is guided by one. One was trained on an x86-64 AVX2 CPU,
// the other on an AVX-512 CPU; online fine-tuning adapts either to another
// x86-64 CPU, but they know nothing of GPU schedules or other architectures.
#pragma once

#include <string>

#include <Halide.h>

namespace tlp {

constexpr const char *kShippedAvx2ModelName = "tlp-cpu-avx2.tlpm";
constexpr const char *kShippedAvx512ModelName = "tlp-cpu-avx512.tlpm";

// The file name of the shipped model that fits `target` best: the AVX-512 one for a
// target with AVX-512 (its vectors are twice as wide, which changes which tiles
// win), else the AVX2 one.
std::string shipped_model_name(const Halide::Target &target);

// The shipped model's path for `target` (tuner/shipped_files.h); the AVX2 model
// stands in where the AVX-512 one is missing. Empty when the target is not an x86-64 CPU or no file is found.
std::string shipped_model_for(const Halide::Target &target);

}  // namespace tlp
