#include "measure/machine_identity.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "measure/microarchitecture.h"
#include "measure/platform.h"

namespace tlp {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string trim(const std::string &s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

int to_int(const std::string &s) {
  try {
    return std::stoi(s);
  } catch (const std::exception &) {
    return 0;
  }
}

// The product line from the brand string: what a person calls the machine.
std::string brand_of(const std::string &cpu_name, const std::string &vendor) {
  const std::string n = lower(cpu_name);
  for (const char *b : {"epyc", "ryzen", "threadripper", "xeon", "core", "atom"})
    if (n.find(b) != std::string::npos) return b;
  return vendor.empty() ? "cpu" : vendor;
}

std::string isa_of(const std::string &flags) {
  std::istringstream in(flags);
  bool avx512 = false, avx2 = false, sse41 = false;
  for (std::string f; in >> f;) {
    avx512 = avx512 || f == "avx512f";
    avx2 = avx2 || f == "avx2";
    sse41 = sse41 || f == "sse4_1";
  }
  return avx512 ? "avx512" : avx2 ? "avx2" : sse41 ? "sse41" : "";
}

// "2048K" -> 2048; "32M" -> 32768.
int kib_of(const std::string &size) {
  const int n = to_int(size);
  if (!size.empty() && (size.back() == 'M' || size.back() == 'm')) return n * 1024;
  return n;
}

std::string read_trimmed(const fs::path &p) {
  std::ifstream f(p);
  std::string s;
  std::getline(f, s);
  return trim(s);
}

void read_caches(const std::string &cache_dir, MachineIdentity &m) {
  std::error_code ec;
  if (cache_dir.empty() || !fs::is_directory(cache_dir, ec)) return;
  for (const auto &entry : fs::directory_iterator(cache_dir, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const int level = to_int(read_trimmed(entry.path() / "level"));
    const std::string type = read_trimmed(entry.path() / "type");
    const int kib = kib_of(read_trimmed(entry.path() / "size"));
    if (level == 1 && type == "Data") m.l1d_kib = kib;
    if (level == 2) m.l2_kib = kib;
    if (level == 3) m.l3_kib = kib;
  }
}

}  // namespace

std::string MachineIdentity::short_name() const {
  std::string head = microarchitecture;
  if (head.empty())
    head = (vendor.empty() ? std::string("unknown") : vendor) + "-f" + std::to_string(family) + "m" + std::to_string(model);
  std::string name = head + "-" + brand_of(cpu_name, vendor) + "-" + std::to_string(cores) + "c";
  if (!isa.empty()) name += "-" + isa;
  return name;
}

std::string MachineIdentity::description() const {
  return (microarchitecture.empty() ? std::string("unknown") : microarchitecture) + " (" +
         (vendor.empty() ? std::string("unknown vendor") : vendor) + " family " + std::to_string(family) + " model " +
         std::to_string(model) + " stepping " + std::to_string(stepping) + ", \"" + cpu_name + "\", " +
         std::to_string(cores) + " cores)";
}

json MachineIdentity::to_json() const {
  return json{{"name", short_name()},
              {"vendor", vendor},
              {"family", family},
              {"model", model},
              {"stepping", stepping},
              {"microarchitecture", microarchitecture},
              {"cpu", cpu_name},
              {"cores", cores},
              {"isa", isa},
              {"cache_kib", {{"l1d", l1d_kib}, {"l2", l2_kib}, {"l3", l3_kib}}}};
}

MachineIdentity MachineIdentity::from_json(const json &j) {
  if (!j.is_object()) throw std::runtime_error("a machine must be a JSON object");
  auto str = [&](const char *k) {
    const auto it = j.find(k);
    if (it == j.end() || !it->is_string()) throw std::runtime_error(std::string("machine field '") + k + "' should be a string");
    return it->get<std::string>();
  };
  auto num = [&](const json &o, const char *k) {
    const auto it = o.find(k);
    if (it == o.end() || !it->is_number_integer())
      throw std::runtime_error(std::string("machine field '") + k + "' should be an integer");
    return it->get<int>();
  };
  MachineIdentity m;
  m.vendor = str("vendor");
  m.family = num(j, "family");
  m.model = num(j, "model");
  m.stepping = num(j, "stepping");
  m.microarchitecture = str("microarchitecture");
  m.cpu_name = str("cpu");
  m.cores = num(j, "cores");
  m.isa = str("isa");
  const auto caches = j.find("cache_kib");
  if (caches == j.end() || !caches->is_object()) throw std::runtime_error("machine field 'cache_kib' should be an object");
  m.l1d_kib = num(*caches, "l1d");
  m.l2_kib = num(*caches, "l2");
  m.l3_kib = num(*caches, "l3");
  return m;
}

bool MachineIdentity::operator==(const MachineIdentity &o) const {
  return vendor == o.vendor && family == o.family && model == o.model && stepping == o.stepping &&
         microarchitecture == o.microarchitecture && cpu_name == o.cpu_name && cores == o.cores && isa == o.isa &&
         l1d_kib == o.l1d_kib && l2_kib == o.l2_kib && l3_kib == o.l3_kib;
}

MachineIdentity parse_machine_identity(const std::string &cpuinfo, const std::string &cache_dir, int cores) {
  MachineIdentity m;
  m.cores = cores;
  std::istringstream in(cpuinfo);
  std::string vendor_id, flags;
  bool seen_processor = false;
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "processor") {
      if (seen_processor) break;  // the first processor describes the machine
      seen_processor = true;
    } else if (key == "vendor_id") {
      vendor_id = value;
    } else if (key == "cpu family") {
      m.family = to_int(value);
    } else if (key == "model") {
      m.model = to_int(value);
    } else if (key == "stepping") {
      m.stepping = to_int(value);
    } else if (key == "model name") {
      m.cpu_name = value;
    } else if (key == "flags") {
      flags = value;
    }
  }
  m.vendor = cpu_vendor_short(vendor_id);
  m.microarchitecture = microarchitecture_name(m.vendor, m.family, m.model, m.stepping);
  m.isa = isa_of(flags);
  read_caches(cache_dir, m);
  return m;
}

MachineIdentity this_machine() {
  std::ifstream f("/proc/cpuinfo");
  std::stringstream text;
  text << f.rdbuf();
  return parse_machine_identity(text.str(), "/sys/devices/system/cpu/cpu0/cache", hardware_threads());
}

}  // namespace tlp
