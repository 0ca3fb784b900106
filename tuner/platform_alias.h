// `--platform-alias OLD=NEW`: says that records naming machine OLD were
// measured on machine NEW. Logs written before records named machines carry
// the CPU's brand string ("AMD EPYC"), the same for a Zen 1 and a Zen 5;
// tlptune never guesses which one it was, so their records stay apart from a
// named machine's (in resume, training, eval) until the user says so.
#pragma once

#include <string>
#include <vector>

#include "measure/measure_record.h"

namespace tlp {

struct PlatformAlias {
  std::string from;  // the machine part of a platform, as logged
  std::string to;    // the machine it stands for
};

// "AMD EPYC=zen5-epyc-2c-avx512"; NEW "host" names this machine. Throws
// std::runtime_error with an example when there is no '=' or a side is empty.
PlatformAlias parse_platform_alias(const std::string &text);
std::vector<PlatformAlias> parse_platform_aliases(const std::vector<std::string> &texts);

// The platform with its machine renamed by the first alias whose `from` it names.
std::string aliased_platform(const std::string &platform, const std::vector<PlatformAlias> &aliases);

// Renames the platform of every record an alias names; returns how many changed.
size_t apply_platform_aliases(std::vector<MeasureRecord> &records, const std::vector<PlatformAlias> &aliases);

// The help text of every --platform-alias option.
constexpr char kPlatformAliasHelp[] =
    "OLD=NEW: read records of machine OLD (the part after cpu/ in their platform, e.g. 'AMD EPYC' in logs "
    "that predate machine names) as measured on NEW (e.g. zen5-epyc-2c-avx512; host: this machine). "
    "'tlptune show LOG' lists the machines a log holds";

}  // namespace tlp
