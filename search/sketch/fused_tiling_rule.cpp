#include <algorithm>

#include "search/sketch/loop_steps.h"
#include "search/sketch/random_draws.h"
#include "search/sketch/register_block.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {
namespace {

// A reduction-free stage to tile, and the reductions only it reads.
struct FusedGroup {
  std::string consumer;
  std::vector<std::string> producers;
};

// Every computed, reduction-free, non-inlined stage with the reductions whose
// single live consumer it is. Found all at once, before any tiling moves a stage.
std::vector<FusedGroup> fused_groups(const LoopState &state) {
  std::vector<FusedGroup> out;
  for (int s = 0; s < state.num_stages(); ++s) {
    const StageState &st = state.stage(s);
    if (st.placeholder || st.has_reduction() || st.location == ComputeLocation::Inline) continue;
    FusedGroup group{st.name, {}};
    for (int p = 0; p < state.num_stages(); ++p) {
      const StageState &ps = state.stage(p);
      if (ps.placeholder || !ps.has_reduction()) continue;
      const std::vector<int> consumers = state.live_consumers(p);
      if (consumers.size() == 1 && consumers[0] == s) group.producers.push_back(ps.name);
    }
    out.push_back(group);
  }
  return out;
}

// Tiles the consumer S S S (outer loops fused and parallel, the innermost
// vectorized) and computes each producer inside the tile as a register block.
void tile_group(SketchContext &ctx, const FusedGroup &group) {
  const int s = ctx.index(group.consumer);
  const int n = ctx.stage(s).num_spatial_iters();
  std::vector<std::vector<int>> factors(n);
  for (int d = 0; d < n; ++d)
    factors[d] = spatial_factors(ctx.options(), ctx.stage(s).iters[d].extent, d == n - 1, 3, false, ctx.rng());
  tile_spatial(ctx, s, 3, factors);
  const int fused = fuse_and_parallelize(ctx, s, n);
  vectorize_innermost_spatial(ctx, s);
  // Loops now: the fused outer loop, the n - fused outer ones left, n middle, n inner.
  const int last_outer = n - fused;
  const int last_middle = last_outer + n;
  for (const std::string &p : group.producers) {
    Step ca = Step::of(StepKind::CA);
    ca.stage = ctx.index(p);
    ca.target_stage = ctx.index(group.consumer);
    // Mostly after the middle loops, a block the size of the inner tile; else one per outer iteration.
    ca.target_iter = coin(0.7, ctx.rng()) ? last_middle : last_outer;
    ctx.push(ca);
    register_block(ctx, ctx.index(p));
  }
}

}  // namespace

void FusedTilingRule::apply(SketchContext &ctx) const {
  for (const FusedGroup &group : fused_groups(ctx.state())) tile_group(ctx, group);
}

}  // namespace tlp
