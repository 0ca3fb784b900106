// A platform to measure on, as a user names it on the command line: a compile
// target and a thread count, "TARGET@THREADS" ("host@2", "x86-64-linux-sse41@1";
// "host" alone runs with every hardware thread). Records carry the platform's
// full name (measure/platform.h), which is what cost models key on.
#pragma once

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

}  // namespace tlp
