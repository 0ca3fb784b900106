// Task data that travels as a seed instead of as files: inputs generated on the
// machine that runs the kernels, and a reference output checked at positions
// drawn from a seed. A bundle for a GPU machine (tlptune bundle) would otherwise
// carry hundreds of megabytes of random floats for a 4096^3 matmul.
//
// Header-only and dependency-free: the writer (tlptune, which computes the
// reference) and the runner (which links no tlptune library) must produce the
// same numbers bit for bit, so both use this one integer generator rather than
// <random>'s distributions, whose results are the standard library's choice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tlp {

// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, a full-period sequence.
inline uint64_t splitmix64_next(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Input `index` of a task seeded `seed`: magnitudes in [0.1, 1) with random signs,
// so no element is zero (a kernel that skips work cannot match by accident).
inline void generate_task_input(uint64_t seed, int index, float *out, size_t n) {
  uint64_t state = seed * 0x100000001B3ull + uint64_t(index) + 1;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = splitmix64_next(state);
    const float unit = float(r >> 40) * (1.0f / 16777216.0f);  // 24 bits: [0, 1)
    const float magnitude = 0.1f + 0.9f * unit;
    out[i] = (r & 1) ? -magnitude : magnitude;
  }
}

// `count` flat output positions in [0, n), drawn by `seed` (repeats possible),
// at which a sampled reference holds its values, in this order.
inline std::vector<size_t> reference_sample_positions(uint64_t seed, size_t count, size_t n) {
  std::vector<size_t> positions(count);
  uint64_t state = seed ^ 0xA0761D6478BD642Full;
  for (size_t &p : positions) p = size_t(splitmix64_next(state) % uint64_t(n));
  return positions;
}

}  // namespace tlp
