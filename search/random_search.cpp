#include "search/random_search.h"

namespace tlp {

std::vector<Schedule> RandomSearch::propose(int n, const std::unordered_set<std::string> &measured) {
  std::vector<Schedule> out;
  std::unordered_set<std::string> taken;
  // Give up after many duplicates in a row: a small space can run dry.
  const int max_misses = 50 * n + 100;
  for (int misses = 0; int(out.size()) < n && misses < max_misses;) {
    Schedule s = space_.sample(rng_);
    std::string key = s.to_text();
    if (measured.count(key) || !taken.insert(key).second) {
      ++misses;
      continue;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace tlp
