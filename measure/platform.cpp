#include "measure/platform.h"

#include <fstream>
#include <thread>

namespace tlp {

std::string cpu_model_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    std::string name = line.substr(colon + 1);
    const size_t start = name.find_first_not_of(" \t");
    return start == std::string::npos ? "unknown-cpu" : name.substr(start);
  }
  return "unknown-cpu";
}

int hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : int(n);
}

std::string cpu_platform(const std::string &target_string, int threads) {
  return "cpu/" + cpu_model_name() + "/" + target_string + "/threads=" + std::to_string(threads);
}

}  // namespace tlp
