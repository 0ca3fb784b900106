#include "search/sketch/loop_steps.h"
#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {
namespace {

// S S R S R S, reordered S S R R S: the innermost spatial part stays last so it
// can be a vector.
void tile_at_root(SketchContext &ctx, int s) {
  const int n = ctx.stage(s).num_spatial_iters();
  std::vector<std::vector<int>> factors(n);
  for (int d = 0; d < n; ++d)
    factors[d] = spatial_factors(ctx.options(), ctx.stage(s).iters[d].extent, d == n - 1, 3, true, ctx.rng());
  tile_spatial(ctx, s, 3, factors);
  // Loops: n outer, n middle, n inner, then the reduction loops, each split in two.
  const int r = int(ctx.stage(s).iters.size()) - 3 * n;
  split_loops_in_two(ctx, s, 3 * n);
  Step re = Step::of(StepKind::RE);
  re.stage = s;
  for (int i = 0; i < 2 * n; ++i) re.ids.push_back(i);
  for (int k = 0; k < r; ++k) re.ids.push_back(3 * n + 2 * k);
  for (int k = 0; k < r; ++k) re.ids.push_back(3 * n + 2 * k + 1);
  for (int i = 2 * n; i < 3 * n; ++i) re.ids.push_back(i);
  ctx.push(re);
  fuse_and_parallelize(ctx, s, n);
  vectorize_innermost_spatial(ctx, s);
}

}  // namespace

// Reductions already transformed were fused into a consumer's tile or rfactored.
void RootTilingRule::apply(SketchContext &ctx) const {
  for (int s = 0; s < ctx.state().num_stages(); ++s) {
    const StageState &st = ctx.stage(s);
    if (!st.placeholder && st.has_reduction() && st.location == ComputeLocation::Root && !st.transformed)
      tile_at_root(ctx, s);
  }
}

}  // namespace tlp
