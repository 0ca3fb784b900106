// The TLP model that ships with tlptune (models/ in the source tree), so that a
// plain `tlptune tune` is guided by it. It was trained on an x86-64 AVX2 CPU;
// online fine-tuning adapts it to another x86-64 CPU, but it knows nothing of
// GPU schedules or other architectures.
#pragma once

#include <string>

#include <Halide.h>

namespace tlp {

constexpr const char *kShippedModelName = "tlp-cpu-avx2.tlpm";

// The shipped model's path for `target`: looked up in <prefix>/share/tlptune/models
// beside the running executable (an install), then in the models/ folder of the
// source tree this build came from. Empty when the target is not an x86-64 CPU
// or the file is in neither place.
std::string shipped_model_for(const Halide::Target &target);

}  // namespace tlp
