// A platform, as a user names it on the command line (--platform, in every
// command): a compile target and a thread count, "TARGET@THREADS" ("host@2",
// "x86-64-linux-sse41@1"; "host" alone runs with every hardware thread).
// Records carry the platform's full name (measure/platform.h), which is what
// cost models key on; commands that read records also take that name, or a
// part of exactly one.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace tlp {

struct PlatformSpec {
  std::string target;  // resolved Halide target string
  int threads = 1;

  std::string name() const;  // the record's platform string
};

// Throws std::runtime_error naming the problem: an unknown target, one this CPU
// cannot run, or a thread count outside 1..hardware threads.
PlatformSpec parse_platform_spec(const std::string &text);

// The platforms of one target: one build serves them all.
struct TargetPlatforms {
  std::string target;
  std::vector<int> threads;
};

// Groups platforms by target, in the order targets first appear; a platform
// named twice is refused (std::runtime_error).
std::vector<TargetPlatforms> group_by_target(const std::vector<PlatformSpec> &platforms);

// The help line of every --platform option.
constexpr char kPlatformHelp[] =
    "TARGET@THREADS (host@2, x86-64-linux-sse41@1; host: every thread), or the platform name records carry "
    "(or a unique part of one)";

// The full name of a platform named by `text` among the `known` ones (e.g. the
// platforms of some logs): a known name, TARGET@THREADS of this machine, or a
// part of exactly one known name. Throws std::runtime_error listing them.
std::string resolve_platform(const std::string &text, const std::set<std::string> &known);

}  // namespace tlp
