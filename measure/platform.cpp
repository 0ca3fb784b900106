#include "measure/platform.h"

#include <thread>

#include "measure/machine_identity.h"

namespace tlp {

namespace {

constexpr const char *kCpuPrefix = "cpu/";

// [begin, end) of the machine part, or false for a platform of another form.
bool machine_span(const std::string &platform, size_t &begin, size_t &end) {
  if (platform.rfind(kCpuPrefix, 0) != 0) return false;
  begin = std::string(kCpuPrefix).size();
  end = platform.find('/', begin);
  return end != std::string::npos;
}

}  // namespace

std::string cpu_model_name() {
  const std::string name = this_machine().cpu_name;
  return name.empty() ? "unknown-cpu" : name;
}

int hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : int(n);
}

std::string cpu_platform(const std::string &target_string, int threads) {
  return kCpuPrefix + this_machine().short_name() + "/" + target_string + "/threads=" + std::to_string(threads);
}

std::string platform_machine(const std::string &platform) {
  size_t begin = 0, end = 0;
  return machine_span(platform, begin, end) ? platform.substr(begin, end - begin) : "";
}

int platform_threads(const std::string &platform) {
  const std::string key = "/threads=";
  const size_t at = platform.rfind(key);
  if (at == std::string::npos) return 0;
  const std::string n = platform.substr(at + key.size());
  if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 6) return 0;
  return std::stoi(n);
}

std::string with_platform_machine(const std::string &platform, const std::string &machine) {
  size_t begin = 0, end = 0;
  if (!machine_span(platform, begin, end)) return platform;
  return platform.substr(0, begin) + machine + platform.substr(end);
}

}  // namespace tlp
