#include "measure/executable_path.h"

#include <climits>
#include <stdexcept>
#include <unistd.h>

namespace tlp {

std::string sibling_executable(const std::string &name) {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return name;
  std::string exe(buf, static_cast<size_t>(n));
  return exe.substr(0, exe.rfind('/') + 1) + name;
}

std::string helper_executable(const std::string &name) {
  const std::string path = sibling_executable(name);
  if (path.find('/') == std::string::npos || ::access(path.c_str(), X_OK) == 0) return path;
  const std::string dir = path.substr(0, path.rfind('/') + 1);
  throw std::runtime_error("tlptune's helper program " + name + " is missing from " + dir +
                           ": tlptune, tlptune-build-worker and tlptune-runner work together and must stay in one "
                           "folder; run tlptune from the build's bin/ folder, or install it (cmake --install)");
}

}  // namespace tlp
