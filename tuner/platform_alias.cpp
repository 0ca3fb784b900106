#include "tuner/platform_alias.h"

#include <stdexcept>

#include "measure/machine_identity.h"
#include "measure/platform.h"

namespace tlp {

PlatformAlias parse_platform_alias(const std::string &text) {
  const size_t eq = text.find('=');
  PlatformAlias a;
  if (eq != std::string::npos) {
    a.from = text.substr(0, eq);
    a.to = text.substr(eq + 1);
  }
  if (a.from.empty() || a.to.empty())
    throw std::runtime_error("--platform-alias '" + text +
                             "' should be OLD=NEW, e.g. --platform-alias 'AMD EPYC=zen5-epyc-2c-avx512' "
                             "(NEW 'host': this machine)");
  if (a.to.find('/') != std::string::npos)
    throw std::runtime_error("--platform-alias '" + text + "': NEW names a machine, without '/' (e.g. " +
                             this_machine().short_name() + ")");
  if (a.to == "host") a.to = this_machine().short_name();
  return a;
}

std::vector<PlatformAlias> parse_platform_aliases(const std::vector<std::string> &texts) {
  std::vector<PlatformAlias> out;
  for (const std::string &t : texts) out.push_back(parse_platform_alias(t));
  return out;
}

std::string aliased_platform(const std::string &platform, const std::vector<PlatformAlias> &aliases) {
  const std::string machine = platform_machine(platform);
  if (machine.empty()) return platform;
  for (const PlatformAlias &a : aliases)
    if (a.from == machine) return with_platform_machine(platform, a.to);
  return platform;
}

size_t apply_platform_aliases(std::vector<MeasureRecord> &records, const std::vector<PlatformAlias> &aliases) {
  if (aliases.empty()) return 0;
  size_t changed = 0;
  for (MeasureRecord &r : records) {
    std::string p = aliased_platform(r.platform, aliases);
    if (p == r.platform) continue;
    r.platform = std::move(p);
    ++changed;
  }
  return changed;
}

}  // namespace tlp
