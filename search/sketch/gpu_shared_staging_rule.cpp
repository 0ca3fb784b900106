#include <algorithm>
#include <string>
#include <vector>

#include "search/sketch/gpu_thread_binding.h"
#include "search/sketch/loop_steps.h"
#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {
namespace {

IterKind kind_of(const DagStage &d, const std::string &loop) {
  for (const DagIter &it : d.iters)
    if (it.name == loop) return it.kind;
  return IterKind::Spatial;
}

// Whether outputs of `d` share values of the producer `access` reads: its index
// leaves out one of d's spatial loops (matmul's A ignores j), or slides a window
// over one (a convolution's rows oh + ry: neighbouring rows read the same input).
bool has_reuse(const DagStage &d, const DagAccess &access) {
  for (const auto &dim : access.dims) {
    bool spatial = false, reduce = false;
    for (const auto &[loop, coef] : dim) {
      if (coef == 0) continue;
      (kind_of(d, loop) == IterKind::Spatial ? spatial : reduce) = true;
    }
    if (spatial && reduce) return true;
  }
  for (const DagIter &it : d.iters)
    if (it.kind == IterKind::Spatial && !access.uses(it.name)) return true;
  return false;
}

// The producers of stage s that its threads would share (has_reuse), by name, each once.
std::vector<std::string> shared_producers(const LoopState &state, const ComputeDag &dag, int s) {
  const DagStage &d = dag.stages[state.stage(s).dag_stage];
  std::vector<std::string> out;
  for (const DagAccess &access : d.accesses) {
    const std::string &name = dag.stages[access.producer].name;
    if (has_reuse(d, access) && state.find_stage(name) >= 0 && std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  }
  return out;
}

bool can_stage(const LoopState &state, const ComputeDag &dag, int s) {
  const StageState &st = state.stage(s);
  return !st.placeholder && st.has_reduction() && st.num_spatial_iters() > 0 && st.origin == StageOrigin::Dag &&
         st.location == ComputeLocation::Root && !st.transformed && st.dag_stage >= 0 &&
         !shared_producers(state, dag, s).empty();
}

// Splits each reduction loop (they follow the spatial ones) into a chunk
// loaded per step and the loop over it: their chunk sizes multiply to at most
// 32, so a block's caches stay small.
void split_reduction_chunks(SketchContext &ctx, int s, int first) {
  int64_t budget = 32;
  for (int i = int(ctx.stage(s).iters.size()) - 1; i >= first; --i) {
    const int64_t extent = ctx.stage(s).iters[i].extent;
    const int64_t chunk = pick(divisors_up_to(extent, budget), ctx.rng());
    budget = std::max<int64_t>(1, budget / chunk);
    split_loop(ctx, s, i, {int(chunk)});
  }
}

// The cache's loops fused into one and split so its threads have the block's
// shape (same count per dimension, innermost last): the whole block loads it.
void bind_cache_to_threads(SketchContext &ctx, int c, const std::vector<int64_t> &block_threads) {
  fuse_loops(ctx, c, 0, int(ctx.stage(c).iters.size()));
  const int64_t extent = ctx.stage(c).iters[0].extent;
  std::vector<int> factors(block_threads.size(), 1);
  int64_t rest = extent;
  for (int d = int(block_threads.size()) - 1; d >= 0; --d) {
    factors[d] = int(std::max<int64_t>(1, std::min(block_threads[d], rest)));
    rest = std::max<int64_t>(1, rest / factors[d]);
  }
  split_loop(ctx, c, 0, factors);
  for (int i = 1; i <= int(factors.size()); ++i) annotate(ctx, c, i, Annotation::GpuThread);
}

void stage_reduction(SketchContext &ctx, const GpuLimits &limits, const std::string &name) {
  const std::vector<std::string> producers = shared_producers(ctx.state(), ctx.dag(), ctx.index(name));
  int s = ctx.index(name);
  const int n = ctx.stage(s).num_spatial_iters();
  const int m = int(ctx.stage(s).iters.size()) - n;
  tile_spatial(ctx, s, 3, block_tile_factors(ctx, limits, ctx.stage(s)));
  split_reduction_chunks(ctx, s, 3 * n);
  // Loops: n block, n thread, n inner, then (outer, chunk) per reduction loop.
  // Order: blocks, reduction outers, threads, chunks, inners.
  Step re = Step::of(StepKind::RE);
  re.stage = s;
  for (int d = 0; d < n; ++d) re.ids.push_back(d);
  for (int k = 0; k < m; ++k) re.ids.push_back(3 * n + 2 * k);
  for (int d = 0; d < n; ++d) re.ids.push_back(n + d);
  for (int k = 0; k < m; ++k) re.ids.push_back(3 * n + 2 * k + 1);
  for (int d = 0; d < n; ++d) re.ids.push_back(2 * n + d);
  ctx.push(re);
  const int blocks = std::min(n, std::max(1, limits.max_block_dims));
  const int threads = std::min(n, std::max(1, limits.max_thread_dims));
  fuse_loops(ctx, s, 0, n - blocks + 1);
  fuse_loops(ctx, s, blocks + m, n - threads + 1);
  for (int i = 0; i < blocks; ++i) annotate(ctx, s, i, Annotation::GpuBlock);
  std::vector<int64_t> block_threads;
  for (int i = blocks + m; i < blocks + m + threads; ++i) {
    annotate(ctx, s, i, Annotation::GpuThread);
    block_threads.push_back(ctx.stage(s).iters[i].extent);
  }
  int64_t tile = 1;
  const int first_inner = blocks + 2 * m + threads;
  for (int i = first_inner; i < int(ctx.stage(s).iters.size()); ++i) tile *= ctx.stage(s).iters[i].extent;
  if (tile <= ctx.options().max_unroll_block && coin(0.5, ctx.rng()))
    for (int i = first_inner; i < int(ctx.stage(s).iters.size()); ++i)
      if (ctx.stage(s).iters[i].extent >= 2) annotate(ctx, s, i, Annotation::Unroll);
  for (const std::string &p : producers) {
    Step chr = Step::of(StepKind::CHR);
    chr.stage = ctx.index(p);
    chr.target_stage = ctx.index(name);
    chr.scope = MemScope::Shared;
    ctx.push(chr);
    const int c = chr.stage + 1;  // the cache, inserted after its source
    Step ca = Step::of(StepKind::CA);
    ca.stage = c;
    ca.target_stage = ctx.index(name);
    ca.target_iter = blocks + m - 1;  // the innermost reduction outer loop
    ctx.push(ca);
    bind_cache_to_threads(ctx, c, block_threads);
  }
}

}  // namespace

void GpuSharedStagingRule::apply(SketchContext &ctx) const {
  const GpuLimits &limits = gpu_limits(ctx);
  std::vector<std::string> chosen;
  for (int s = 0; s < ctx.state().num_stages(); ++s)
    if (can_stage(ctx.state(), ctx.dag(), s) && coin(ctx.options().gpu_shared_staging_probability, ctx.rng()))
      chosen.push_back(ctx.stage(s).name);
  for (const std::string &name : chosen) stage_reduction(ctx, limits, name);
}

}  // namespace tlp
