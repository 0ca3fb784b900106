// The space of schedules for one ComputeDAG, and uniform-ish sampling from it.
//
// The structure is generic over the DAG (no per-operator templates). Sampling
// runs Ansor-style sketch rules in order (search/sketch/sketch_rules.h, one file
// per rule under search/sketch/):
//   - inline_elementwise: reduction-free intermediate stages are inlined, or
//     left at root to be tiled on their own;
//   - rfactor: a reduction longer than its spatial extent may be rfactored: its
//     longest reduction loop is split and one part becomes partial results,
//     either the inner part (a vector of partial sums over contiguous data) or
//     the outer part (chunks that run in parallel);
//   - cache_write: a reduction that is the output gets a cache-write
//     accumulator (usually);
//   - fused_tiling: a reduction with a single consumer is computed inside that
//     consumer's tile, and the consumer is tiled on three levels (outer loops
//     fused and parallel, the innermost vectorized); the reduction's own loops
//     form a register block (register_block.h): reduction loops split in two,
//     spatial loops split so that the innermost is a vector and the middle ones
//     can be unrolled (R S R S, with the outer S usually of extent 1);
//   - root_tiling: other reductions are computed at root and tiled S S R R S;
//   - rfactored_parallel: an rfactored reduction left at root is parallel;
//   - auto_unroll: each stage gets an auto-unroll limit.
// With SpaceOptions::gpu set (CUDA targets) it runs the GPU rules instead
// (Ansor's SSSRRSRS multi-level tiling, search/sketch/gpu_*):
//   - inline_elementwise, as on CPU;
//   - gpu_shared_staging: a reduction whose inputs are reused across outputs
//     (matmul, conv, depthwise conv, pooling) is sometimes tiled with the reduction split into chunks
//     outside the thread loops, each chunk of the reused inputs loaded into
//     shared memory by the whole block;
//   - gpu_cross_thread_reduction: a reduction with few outputs or long rows
//     (softmax, layernorm) is sometimes rfactored so a block of threads sums
//     each row, one partial per thread, then adds the partials;
//   - gpu_cache_write: a reduction that is the output always accumulates in a
//     local (per-thread) stage;
//   - gpu_tiling: every reduction-free stage at root is tiled block / thread /
//     inner per spatial loop, at most three block and three thread loops
//     (outer ones fused), bound to gpu_block and gpu_thread; each reduction it
//     alone consumes point for point is computed at its innermost thread loop
//     (one accumulator tile per thread), reduction loops split R R before the
//     spatial ones;
//   - gpu_root_reduction: other reductions stay at root, their spatial loops
//     fused and split block / thread, the reduction serial in each thread
//     (softmax and layernorm rows);
//   - auto_unroll, as on CPU.
// GPU samples respect SpaceOptions::gpu's launch limits (gpu_launch_limits.h).
// Random annotation picks tile sizes (divisors and non-divisors), the compute
// location, unrolling and the auto-unroll limit (search/sketch/random_draws.h).
#pragma once

#include <optional>
#include <random>
#include <vector>

#include "search/compute_dag.h"
#include "search/gpu_launch_limits.h"
#include "search/schedule.h"

namespace tlp {

struct SpaceOptions {
  int vector_lanes = 8;             // float32 lanes of the target's vectors
  int max_innermost_factor = 64;    // Ansor's limit on the innermost split
  int max_unroll_block = 64;        // unrolled register block, in vectors x rows
  // Accumulator vectors a register block may hold (16 vector registers on AVX2,
  // some needed for operands), and how often blocks are sized to such a budget.
  std::vector<int> register_budgets = {4, 6, 8, 12};
  double register_budget_probability = 0.8;
  // Of sizing a register block that may round its tail up (a padded image's
  // rows and columns) to any size instead of a divisor. Kept rare: such sizes
  // won none of a 300-trial suite's convolutions when drawn half the time.
  double rounded_block_probability = 0.1;
  // Otherwise such a block is drawn among the sizes whose rounded-up tail adds at
  // most this share to the loop: the divisors, and on a long loop (a 14x14
  // image's 196 pixels as one loop) the sizes that fill the registers (6, 12).
  double cheap_tail_share = 0.05;
  std::vector<int> auto_unroll_values = {0, 16, 64, 512};
  double cache_write_probability = 0.85;
  double inline_probability = 0.5;  // of each reduction-free intermediate stage
  // Of rfactoring a reduction whose reduction is at least as long as its
  // spatial extent (Ansor's AddRfactor condition): softmax rows, layernorm
  // rows, small-M matmuls.
  double rfactor_probability = 0.5;
  // GPU: of staging a reduction's reused inputs in shared memory.
  double gpu_shared_staging_probability = 0.5;
  // GPU: of reducing a long row across a block's threads.
  double gpu_cross_thread_probability = 0.5;
  // Set: sample with the GPU sketch rules (CUDA targets), within these limits.
  // Unset: the CPU rules; the fields above then describe the CPU.
  std::optional<GpuLimits> gpu;
};

class ScheduleSpace {
 public:
  ScheduleSpace(ComputeDag dag, SpaceOptions options);

  // A random schedule from the space. Every schedule it returns replays on the
  // DAG without a ScheduleError (checked before returning), and with
  // options.gpu set respects its launch limits (resampling until it does, a
  // bounded number of times, then throwing ScheduleError).
  Schedule sample(std::mt19937_64 &rng) const;

  const ComputeDag &dag() const { return dag_; }
  const SpaceOptions &options() const { return options_; }

 private:
  ComputeDag dag_;
  SpaceOptions options_;
};

// A random split of `extent` into `levels` inner factors (outermost first), each
// at most `cap`, preferring divisors. Exposed for tests and mutation.
std::vector<int> random_factors(int64_t extent, int levels, int cap, std::mt19937_64 &rng);

}  // namespace tlp
