#include <algorithm>
#include <string>
#include <vector>

#include "search/sketch/gpu_thread_binding.h"
#include "search/sketch/loop_steps.h"
#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {
namespace {

// A reduction-free stage to tile, and the reductions only it reads, point for
// point (Ansor's elementwise match). Unlike on CPU, a reduction over rows that
// a larger consumer broadcasts (softmax's sum) is not fused: every thread of
// the row would repeat the whole reduction.
struct FusedGroup {
  std::string consumer;
  std::vector<std::string> producers;
};

int64_t spatial_points(const StageState &st) {
  int64_t p = 1;
  for (const LoopIter &it : st.iters)
    if (it.kind == IterKind::Spatial) p *= it.extent;
  return p;
}

std::vector<FusedGroup> fused_groups(const LoopState &state) {
  std::vector<FusedGroup> out;
  for (int s = 0; s < state.num_stages(); ++s) {
    const StageState &st = state.stage(s);
    if (st.placeholder || st.has_reduction() || st.location != ComputeLocation::Root || st.num_spatial_iters() == 0)
      continue;
    FusedGroup group{st.name, {}};
    for (int p = 0; p < state.num_stages(); ++p) {
      const StageState &ps = state.stage(p);
      if (ps.placeholder || !ps.has_reduction() || ps.location != ComputeLocation::Root || ps.transformed) continue;
      const std::vector<int> consumers = state.live_consumers(p);
      if (consumers.size() == 1 && consumers[0] == s && spatial_points(ps) == spatial_points(st))
        group.producers.push_back(ps.name);
    }
    out.push_back(group);
  }
  return out;
}

// The reduction computed in one thread: reduction loops split in two and
// ordered R R S, the spatial loops (the thread's accumulator tile) innermost
// and unrolled when the tile is small.
void tile_in_thread(SketchContext &ctx, int s) {
  const int n = ctx.stage(s).num_spatial_iters();
  const int reductions = int(ctx.stage(s).iters.size()) - n;
  split_loops_in_two(ctx, s, n);
  Step re = Step::of(StepKind::RE);
  re.stage = s;
  for (int k = 0; k < reductions; ++k) re.ids.push_back(n + 2 * k);
  for (int k = 0; k < reductions; ++k) re.ids.push_back(n + 2 * k + 1);
  for (int d = 0; d < n; ++d) re.ids.push_back(d);
  ctx.push(re);
  int64_t tile = 1;
  for (int i = 2 * reductions; i < 2 * reductions + n; ++i) tile *= ctx.stage(s).iters[i].extent;
  if (tile > ctx.options().max_unroll_block || !coin(0.5, ctx.rng())) return;
  for (int i = 2 * reductions; i < 2 * reductions + n; ++i)
    if (ctx.stage(s).iters[i].extent >= 2) annotate(ctx, s, i, Annotation::Unroll);
}

void tile_group(SketchContext &ctx, const GpuLimits &limits, const FusedGroup &group) {
  const int s = ctx.index(group.consumer);
  const int n = ctx.stage(s).num_spatial_iters();
  tile_spatial(ctx, s, 3, block_tile_factors(ctx, limits, ctx.stage(s)));
  // Loops: n block, n thread, n inner. Fuse the outer ones of each level to fit the dimensions.
  const int blocks = std::min(n, std::max(1, limits.max_block_dims));
  const int threads = std::min(n, std::max(1, limits.max_thread_dims));
  fuse_loops(ctx, s, 0, n - blocks + 1);
  fuse_loops(ctx, s, blocks, n - threads + 1);
  for (int i = 0; i < blocks; ++i) annotate(ctx, s, i, Annotation::GpuBlock);
  for (int i = blocks; i < blocks + threads; ++i) annotate(ctx, s, i, Annotation::GpuThread);
  for (const std::string &p : group.producers) {
    Step ca = Step::of(StepKind::CA);
    ca.stage = ctx.index(p);
    ca.target_stage = ctx.index(group.consumer);
    ca.target_iter = blocks + threads - 1;
    ctx.push(ca);
    tile_in_thread(ctx, ctx.index(p));
  }
}

}  // namespace

void GpuTilingRule::apply(SketchContext &ctx) const {
  const GpuLimits &limits = gpu_limits(ctx);
  for (const FusedGroup &group : fused_groups(ctx.state())) tile_group(ctx, limits, group);
}

}  // namespace tlp
