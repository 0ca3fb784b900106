#include "search/sketch/random_draws.h"

#include <algorithm>

namespace tlp {

std::vector<int64_t> divisors_up_to(int64_t n, int64_t cap) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= std::min(n, cap); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::vector<int64_t> blocks_with_cheap_tails(int64_t extent, int64_t cap, double share) {
  std::vector<int64_t> out = divisors_up_to(extent, cap);
  for (int64_t b = 1; b <= std::min(extent, cap); ++b) {
    const int64_t spare = (extent + b - 1) / b * b - extent;
    if (spare > 0 && double(spare) <= share * double(extent)) out.push_back(b);
  }
  return out;
}

int64_t divisor_factor(int64_t extent, int64_t cap, std::mt19937_64 &rng) {
  return pick(divisors_up_to(extent, std::max<int64_t>(1, cap)), rng);
}

int64_t random_factor(int64_t extent, int64_t cap, std::mt19937_64 &rng) {
  cap = std::max<int64_t>(1, std::min(cap, extent));
  if (coin(0.8, rng)) return pick(divisors_up_to(extent, cap), rng);
  return std::uniform_int_distribution<int64_t>(1, cap)(rng);
}

// Stages with a reduction ask for divisors only: their tails would need guards,
// and Halide 14 miscompiles some guarded, vectorized update tails (see lower_test).
std::vector<int> spatial_factors(const SpaceOptions &options, int64_t extent, bool innermost, int levels,
                                 bool divisors_only, std::mt19937_64 &rng) {
  std::vector<int> f(levels - 1, 1);
  int64_t rest = extent;
  for (int l = levels - 2; l >= 0; --l) {
    const bool last_part = l == levels - 2;
    const int64_t cap = last_part ? options.max_innermost_factor : 16;
    int64_t v;
    if (last_part && innermost && rest >= options.vector_lanes && coin(0.8, rng)) {
      std::vector<int64_t> lane_multiples;
      for (int64_t m = options.vector_lanes; m <= std::min<int64_t>(rest, cap); m += options.vector_lanes)
        if (!divisors_only || rest % m == 0) lane_multiples.push_back(m);
      if (lane_multiples.empty()) lane_multiples.push_back(divisor_factor(rest, cap, rng));
      v = pick(lane_multiples, rng);
    } else {
      v = divisors_only ? divisor_factor(rest, cap, rng) : random_factor(rest, cap, rng);
    }
    f[l] = int(v);
    rest = std::max<int64_t>(1, rest / v);
  }
  return f;
}

}  // namespace tlp
