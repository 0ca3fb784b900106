// What the GPU sketch rules share: drawing thread counts within the launch
// limits, and fusing a run of loops into one so a kernel keeps at most three
// block and three thread dimensions.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "search/gpu_launch_limits.h"
#include "search/sketch/sketch_context.h"

namespace tlp {

// The GPU limits of the context's options; throws ScheduleError if unset.
const GpuLimits &gpu_limits(const SketchContext &ctx);

// Threads per block for loops of these extents (outermost first): one divisor
// of each extent, their product at most a budget drawn from the warp multiples
// up to max_threads_per_block (so the product is a warp multiple whenever the
// extents allow). The innermost loop mostly gets the largest divisor that fits,
// so consecutive threads touch consecutive elements.
std::vector<int> thread_factors(const GpuLimits &limits, const std::vector<int64_t> &extents, std::mt19937_64 &rng);

// {threads, inner} for each spatial loop of `st` (outermost first): threads
// drawn by thread_factors, inner parts (what one thread computes) divisors of
// what is left, their product capped like a CPU register block (max_unroll_block).
std::vector<std::vector<int>> block_tile_factors(SketchContext &ctx, const GpuLimits &limits, const StageState &st);

// Fuses loops first..first+count-1 of stage s into one (nothing when count < 2).
void fuse_loops(SketchContext &ctx, int s, int first, int count);

}  // namespace tlp
