#include "tuner/platform_spec.h"

#include <stdexcept>

#include "codegen/target.h"
#include "measure/platform.h"

namespace tlp {

std::string PlatformSpec::name() const { return cpu_platform(target, threads); }

PlatformSpec parse_platform_spec(const std::string &text) {
  const size_t at = text.rfind('@');
  const std::string target_text = at == std::string::npos ? text : text.substr(0, at);
  PlatformSpec p;
  p.threads = hardware_threads();
  if (at != std::string::npos) {
    const std::string n = text.substr(at + 1);
    size_t used = 0;
    int threads = 0;
    try {
      threads = std::stoi(n, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used == 0 || used != n.size())
      throw std::runtime_error("platform '" + text + "': '" + n +
                               "' is not a thread count; write TARGET@THREADS, e.g. host@2 or x86-64-linux-sse41@1");
    p.threads = threads;
  }
  if (p.threads < 1 || p.threads > hardware_threads())
    throw std::runtime_error("platform '" + text + "': thread count " + std::to_string(p.threads) +
                             " is outside 1.." + std::to_string(hardware_threads()) + " (this machine's threads)");
  const Halide::Target t = parse_target(target_text.empty() ? "host" : target_text);
  if (!target_runs_here(t))
    throw std::runtime_error("platform '" + text + "': target '" + t.to_string() + "' cannot run on this CPU");
  p.target = t.to_string();
  return p;
}

std::vector<TargetPlatforms> group_by_target(const std::vector<PlatformSpec> &platforms) {
  std::vector<TargetPlatforms> groups;
  for (const PlatformSpec &p : platforms) {
    TargetPlatforms *g = nullptr;
    for (auto &existing : groups)
      if (existing.target == p.target) g = &existing;
    if (!g) {
      groups.push_back({p.target, {}});
      g = &groups.back();
    }
    for (int t : g->threads)
      if (t == p.threads) throw std::runtime_error("platform " + p.name() + " is named twice");
    g->threads.push_back(p.threads);
  }
  return groups;
}

std::string resolve_platform(const std::string &text, const std::set<std::string> &known) {
  if (known.count(text)) return text;
  try {
    const std::string name = parse_platform_spec(text).name();
    if (known.count(name)) return name;
  } catch (const std::exception &) {
  }
  std::vector<std::string> matches;
  for (const auto &p : known)
    if (p.find(text) != std::string::npos) matches.push_back(p);
  if (matches.size() == 1) return matches[0];
  std::string list;
  for (const auto &p : known) list += "\n  " + p;
  throw std::runtime_error("platform '" + text + "' " + (matches.empty() ? "is not in the logs" : "is ambiguous") +
                           "; the logs hold records of:" + list);
}

}  // namespace tlp
