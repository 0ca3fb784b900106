#include "tuner/shipped_model.h"

#include "tuner/shipped_files.h"

namespace tlp {
namespace {

std::string find_shipped_file(const std::string &name) { return shipped_file("models/" + name); }

}  // namespace

std::string shipped_model_name(const Halide::Target &target) {
  return target.has_feature(Halide::Target::AVX512) ? kShippedAvx512ModelName : kShippedAvx2ModelName;
}

std::string shipped_model_for(const Halide::Target &target) {
  if (target.arch != Halide::Target::X86 || target.bits != 64 || target.has_gpu_feature()) return "";
  const std::string best = find_shipped_file(shipped_model_name(target));
  return best.empty() ? find_shipped_file(kShippedAvx2ModelName) : best;
}

}  // namespace tlp
