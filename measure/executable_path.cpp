#include "measure/executable_path.h"

#include <climits>
#include <unistd.h>

namespace tlp {

std::string sibling_executable(const std::string &name) {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return name;
  std::string exe(buf, static_cast<size_t>(n));
  return exe.substr(0, exe.rfind('/') + 1) + name;
}

}  // namespace tlp
