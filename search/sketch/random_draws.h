// The random choices the sketch rules make: coins, picks from a list, and tile
// factors. Every draw goes through the one generator the caller passes, so a
// seed fixes the whole schedule; changing the order or the number of draws
// here changes every sampled schedule.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "search/schedule_space.h"

namespace tlp {

// True with probability p.
inline bool coin(double p, std::mt19937_64 &rng) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

// A uniformly chosen element of a non-empty list.
template <typename T>
const T &pick(const std::vector<T> &v, std::mt19937_64 &rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

// The divisors of n, in increasing order, that are at most cap.
std::vector<int64_t> divisors_up_to(int64_t n, int64_t cap);

// The sizes b <= cap whose whole blocks cover `extent` with at most `share` x
// extent to spare: the divisors (nothing to spare) first, in increasing order,
// then the others.
std::vector<int64_t> blocks_with_cheap_tails(int64_t extent, int64_t cap, double share);

// A divisor of `extent` no larger than `cap` (at least 1).
int64_t divisor_factor(int64_t extent, int64_t cap, std::mt19937_64 &rng);

// One factor for a loop of `extent`, at most `cap`: a divisor most of the time,
// any value otherwise (the lowering handles the tail).
int64_t random_factor(int64_t extent, int64_t cap, std::mt19937_64 &rng);

// The `levels - 1` inner factors (outermost first) of one spatial loop to be
// tiled on `levels` levels. For the innermost loop the last part is usually a
// multiple of the vector lanes, as it is what gets vectorized.
std::vector<int> spatial_factors(const SpaceOptions &options, int64_t extent, bool innermost, int levels,
                                 bool divisors_only, std::mt19937_64 &rng);

}  // namespace tlp
