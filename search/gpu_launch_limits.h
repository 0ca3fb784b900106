// The launch limits of a CUDA GPU, and the check that a schedule's GPU
// bindings respect them.
//
// Every stage computed at root is one kernel (or host code, with no GPU loops).
// Its gpu_block loops are the grid, its gpu_thread loops the block; a stage
// computed inside another's loops joins that kernel. The checker works on the
// LoopState alone, so it runs before anything is compiled: the space uses it
// to reject samples, the builder to refuse schedules (such as mutants) that
// no device could launch.
#pragma once

#include <string>

#include "search/loop_state.h"

namespace tlp {

struct GpuLimits {
  int max_threads_per_block = 1024;
  int max_shared_bytes_per_block = 48 * 1024;
  int warp_size = 32;
  int max_block_dims = 3;   // gpu_block loops per kernel (grid x, y, z)
  int max_thread_dims = 3;  // gpu_thread loops per kernel (block x, y, z)
};

// "" when every stage of `state` respects `limits`; otherwise a sentence naming
// the first stage that does not and the limit it breaks:
//   - more gpu_block or gpu_thread loops than the dimensions allow;
//   - threads per block (product of a stage's gpu_thread extents) over the limit;
//   - a gpu_thread loop outside every gpu_block loop, or a gpu_block loop
//     inside a gpu_thread loop (in the stage or the stages it is computed in);
//   - a gpu_block loop in a stage computed inside another kernel (a nested launch);
//   - a stage computed at a loop outside some of its host's gpu_block loops;
//   - shared-memory stages of one kernel that together hold more than the
//     shared memory of a block (their loop extents are the search's estimate of
//     their regions, in 4-byte elements).
std::string gpu_launch_limit_violation(const LoopState &state, const GpuLimits &limits);

}  // namespace tlp
