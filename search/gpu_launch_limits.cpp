#include "search/gpu_launch_limits.h"

#include <cstdint>
#include <vector>

namespace tlp {
namespace {

constexpr int64_t kElementBytes = 4;  // every operator computes in float32

// The GPU loops around a stage from the stages it is computed in (not its own).
struct Enclosing {
  std::string block;   // name of an enclosing gpu_block loop, "" if none
  std::string thread;  // name of an enclosing gpu_thread loop, "" if none
};

Enclosing enclosing_gpu_loops(const LoopState &state, int s) {
  Enclosing e;
  // The guard bounds the walk should a malformed state attach stages in a cycle.
  for (int guard = 0; guard < state.num_stages() && state.stage(s).location == ComputeLocation::At; ++guard) {
    const StageState &st = state.stage(s);
    const StageState &host = state.stage(st.attach_stage);
    for (int i = 0; i <= st.attach_iter && i < int(host.iters.size()); ++i) {
      if (host.iters[i].annotation == Annotation::GpuBlock && e.block.empty()) e.block = host.name + "." + host.iters[i].name;
      if (host.iters[i].annotation == Annotation::GpuThread && e.thread.empty()) e.thread = host.name + "." + host.iters[i].name;
    }
    s = st.attach_stage;
  }
  return e;
}

std::string stage_violation(const LoopState &state, int s, const GpuLimits &limits) {
  const StageState &st = state.stage(s);
  std::vector<const LoopIter *> blocks, threads;
  int64_t thread_count = 1;
  for (const LoopIter &it : st.iters) {
    if (it.annotation == Annotation::GpuBlock) {
      if (!threads.empty())
        return "stage " + st.name + " binds loop " + it.name + " to gpu_block inside its gpu_thread loop " +
               threads.front()->name + "; block loops must enclose thread loops";
      blocks.push_back(&it);
    } else if (it.annotation == Annotation::GpuThread) {
      threads.push_back(&it);
      thread_count *= it.extent;
    }
  }
  if (int(blocks.size()) > limits.max_block_dims)
    return "stage " + st.name + " binds " + std::to_string(blocks.size()) + " loops to gpu_block; a kernel has at most " +
           std::to_string(limits.max_block_dims) + " block dimensions (fuse some first)";
  if (int(threads.size()) > limits.max_thread_dims)
    return "stage " + st.name + " binds " + std::to_string(threads.size()) +
           " loops to gpu_thread; a block has at most " + std::to_string(limits.max_thread_dims) +
           " thread dimensions (fuse some first)";
  if (thread_count > limits.max_threads_per_block)
    return "stage " + st.name + " runs " + std::to_string(thread_count) + " threads per block, over the limit of " +
           std::to_string(limits.max_threads_per_block);
  if (st.location == ComputeLocation::At) {
    // Halide allocates and computes a stage inside a kernel at or below its
    // innermost block loop; between two block loops it fails to compile.
    const StageState &host = state.stage(st.attach_stage);
    for (size_t j = size_t(st.attach_iter) + 1; j < host.iters.size(); ++j)
      if (host.iters[j].annotation == Annotation::GpuBlock)
        return "stage " + st.name + " is computed at loop " + host.iters[st.attach_iter].name + " of " + host.name +
               ", outside its gpu_block loop " + host.iters[j].name +
               "; compute it at the innermost block loop or inside it";
  }
  const Enclosing around = enclosing_gpu_loops(state, s);
  if (!blocks.empty() && !around.thread.empty())
    return "stage " + st.name + " binds loop " + blocks.front()->name + " to gpu_block but is computed inside gpu_thread loop " +
           around.thread + " (a nested kernel launch)";
  if (!blocks.empty() && !around.block.empty())
    return "stage " + st.name + " binds loop " + blocks.front()->name + " to gpu_block but is computed inside gpu_block loop " +
           around.block + " (a nested kernel launch)";
  if (!threads.empty() && !around.thread.empty())
    return "stage " + st.name + " binds loop " + threads.front()->name + " to gpu_thread but is computed inside gpu_thread loop " +
           around.thread + " (nested thread loops)";
  if (!threads.empty() && blocks.empty() && around.block.empty())
    return "stage " + st.name + " binds loop " + threads.front()->name + " to gpu_thread outside any gpu_block loop";
  return "";
}

// The stage computed at root whose kernel stage s runs in (s itself if at root).
int kernel_of(const LoopState &state, int s) {
  for (int guard = 0; guard < state.num_stages() && state.stage(s).location == ComputeLocation::At; ++guard)
    s = state.stage(s).attach_stage;
  return s;
}

int64_t shared_bytes(const StageState &st) {
  int64_t bytes = kElementBytes;
  for (const LoopIter &it : st.iters)
    if (it.kind == IterKind::Spatial) bytes *= it.extent;
  return bytes;
}

// Every shared-memory stage of a kernel lives in the same block at once.
std::string shared_memory_violation(const LoopState &state, const GpuLimits &limits) {
  std::vector<int64_t> per_kernel(state.num_stages(), 0);
  for (int s = 0; s < state.num_stages(); ++s) {
    const StageState &st = state.stage(s);
    if (st.placeholder || st.location == ComputeLocation::Inline || st.scope != MemScope::Shared) continue;
    per_kernel[kernel_of(state, s)] += shared_bytes(st);
  }
  for (int k = 0; k < state.num_stages(); ++k)
    if (per_kernel[k] > limits.max_shared_bytes_per_block)
      return "the kernel of stage " + state.stage(k).name + " keeps about " + std::to_string(per_kernel[k]) +
             " bytes in shared memory, over the limit of " + std::to_string(limits.max_shared_bytes_per_block) +
             " per block";
  return "";
}

}  // namespace

std::string gpu_launch_limit_violation(const LoopState &state, const GpuLimits &limits) {
  for (int s = 0; s < state.num_stages(); ++s) {
    const StageState &st = state.stage(s);
    if (st.placeholder || st.location == ComputeLocation::Inline) continue;
    std::string why = stage_violation(state, s, limits);
    if (!why.empty()) return why;
  }
  return shared_memory_violation(state, limits);
}

}  // namespace tlp
