#include "measure/microarchitecture.h"

#include <algorithm>
#include <cctype>

namespace tlp {

namespace {

// One row per model range of a family; a stepping range splits a model that
// Intel reused (model 85: Skylake-SP, Cascade Lake, Cooper Lake).
struct UarchRow {
  const char *vendor;
  int family;
  int model_lo, model_hi;
  int stepping_lo, stepping_hi;
  const char *name;
};

constexpr UarchRow kUarchTable[] = {
    // AMD: family 23 (0x17) is Zen 1/Zen+ and Zen 2, 25 (0x19) Zen 3 and Zen 4, 26 (0x1a) Zen 5.
    {"amd", 23, 0x00, 0x2f, 0, 255, "zen1"},
    {"amd", 23, 0x30, 0xff, 0, 255, "zen2"},
    {"amd", 25, 0x00, 0x0f, 0, 255, "zen3"},
    {"amd", 25, 0x10, 0x1f, 0, 255, "zen4"},
    {"amd", 25, 0x20, 0x5f, 0, 255, "zen3"},
    {"amd", 25, 0x60, 0xaf, 0, 255, "zen4"},
    {"amd", 26, 0x00, 0xff, 0, 255, "zen5"},
    // Intel family 6.
    {"intel", 6, 60, 60, 0, 255, "haswell"},
    {"intel", 6, 63, 63, 0, 255, "haswell"},
    {"intel", 6, 69, 70, 0, 255, "haswell"},
    {"intel", 6, 61, 61, 0, 255, "broadwell"},
    {"intel", 6, 71, 71, 0, 255, "broadwell"},
    {"intel", 6, 79, 79, 0, 255, "broadwell"},
    {"intel", 6, 86, 86, 0, 255, "broadwell"},
    {"intel", 6, 78, 78, 0, 255, "skylake"},
    {"intel", 6, 94, 94, 0, 255, "skylake"},
    {"intel", 6, 142, 142, 0, 255, "kabylake"},
    {"intel", 6, 158, 158, 0, 255, "kabylake"},
    {"intel", 6, 165, 166, 0, 255, "cometlake"},
    {"intel", 6, 85, 85, 0, 4, "skylakex"},
    {"intel", 6, 85, 85, 5, 7, "cascadelake"},
    {"intel", 6, 85, 85, 10, 11, "cooperlake"},
    {"intel", 6, 106, 106, 0, 255, "icelakex"},
    {"intel", 6, 108, 108, 0, 255, "icelakex"},
    {"intel", 6, 125, 126, 0, 255, "icelake"},
    {"intel", 6, 140, 141, 0, 255, "tigerlake"},
    {"intel", 6, 151, 151, 0, 255, "alderlake"},
    {"intel", 6, 154, 154, 0, 255, "alderlake"},
    {"intel", 6, 183, 183, 0, 255, "raptorlake"},
    {"intel", 6, 186, 186, 0, 255, "raptorlake"},
    {"intel", 6, 191, 191, 0, 255, "raptorlake"},
    {"intel", 6, 170, 170, 0, 255, "meteorlake"},
    {"intel", 6, 143, 143, 0, 255, "sapphirerapids"},
    {"intel", 6, 207, 207, 0, 255, "emeraldrapids"},
    {"intel", 6, 173, 174, 0, 255, "graniterapids"},
};

}  // namespace

std::string cpu_vendor_short(const std::string &vendor_id) {
  if (vendor_id == "AuthenticAMD") return "amd";
  if (vendor_id == "GenuineIntel") return "intel";
  std::string out = vendor_id;
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

std::string microarchitecture_name(const std::string &vendor, int family, int model, int stepping) {
  for (const UarchRow &r : kUarchTable) {
    if (vendor == r.vendor && family == r.family && model >= r.model_lo && model <= r.model_hi &&
        stepping >= r.stepping_lo && stepping <= r.stepping_hi)
      return r.name;
  }
  return "";
}

}  // namespace tlp
