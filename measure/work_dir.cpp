#include "measure/work_dir.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace tlp {

namespace fs = std::filesystem;

WorkDir::WorkDir(const std::string &requested, const std::string &prefix) {
  if (!requested.empty()) {
    path_ = requested;
    fs::create_directories(path_);
    return;
  }
  std::string tmpl = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data()))
    throw std::runtime_error("cannot create a temporary folder in " + fs::temp_directory_path().string());
  path_ = tmpl;
  owned_ = true;
}

WorkDir::~WorkDir() {
  std::error_code ec;
  if (owned_) fs::remove_all(path_, ec);
}

std::string WorkDir::operator/(const std::string &name) const { return (fs::path(path_) / name).string(); }

}  // namespace tlp
