#include "tuner/shipped_model.h"

#include <filesystem>

#include "measure/executable_path.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

std::string find_shipped_file(const std::string &name) {
  const fs::path exe_dir = fs::path(sibling_executable("tlptune")).parent_path();
  const fs::path candidates[] = {
      exe_dir / ".." / "share" / "tlptune" / "models" / name,
      fs::path(TLP_SOURCE_MODELS_DIR) / name,
  };
  for (const fs::path &p : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return "";
}

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
