#include "tuner/shipped_files.h"

#include <filesystem>

#include "measure/executable_path.h"

namespace tlp {

namespace fs = std::filesystem;

std::string shipped_file(const std::string &relative) {
  const fs::path installed =
      fs::path(sibling_executable("tlptune")).parent_path() / ".." / "share" / "tlptune" / relative;
  // The source tree keeps suites and networks under examples/.
  const fs::path source_root(TLP_SOURCE_DIR);
  const bool example = relative.rfind("suites", 0) == 0 || relative.rfind("networks", 0) == 0;
  const fs::path in_source = example ? source_root / "examples" / relative : source_root / relative;
  for (const fs::path &p : {installed, in_source}) {
    std::error_code ec;
    if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return "";
}

}  // namespace tlp
