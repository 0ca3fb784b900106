#include "tuner/shipped_model.h"

#include <filesystem>

#include "measure/executable_path.h"

namespace tlp {

std::string shipped_model_for(const Halide::Target &target) {
  if (target.arch != Halide::Target::X86 || target.bits != 64 || target.has_gpu_feature()) return "";
  namespace fs = std::filesystem;
  const fs::path exe_dir = fs::path(sibling_executable("tlptune")).parent_path();
  const fs::path candidates[] = {
      exe_dir / ".." / "share" / "tlptune" / "models" / kShippedModelName,
      fs::path(TLP_SOURCE_MODELS_DIR) / kShippedModelName,
  };
  for (const fs::path &p : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return "";
}

}  // namespace tlp
