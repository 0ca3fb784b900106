#include "search/sketch/loop_steps.h"
#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_rules.h"
#include "search/sketch/stage_queries.h"

namespace tlp {
namespace {

// The partial stage keeps the original loops with the factored one spatial:
// vector partials go innermost and are vectorized; parallel chunks go first
// and join the parallel loop.
void schedule_partials(SketchContext &ctx, const std::string &name, int spatial, int factored, bool vector_partials) {
  const int s = ctx.index(name);
  const int loops = int(ctx.stage(s).iters.size());
  Step re = Step::of(StepKind::RE);
  re.stage = s;
  if (!vector_partials) re.ids.push_back(factored);
  for (int i = 0; i < loops; ++i)
    if (i != factored) re.ids.push_back(i);
  if (vector_partials) re.ids.push_back(factored);
  ctx.push(re);
  const int outer = vector_partials ? spatial : spatial + 1;
  if (outer > 0) fuse_and_parallelize(ctx, s, outer);
  if (vector_partials) vectorize_innermost_spatial(ctx, s);
}

// Splits loop `loop` of stage s and rfactors one part. Returns false (emitting
// nothing) when the loop's extent has no factor to split by.
bool rfactor_stage(SketchContext &ctx, int s, int loop) {
  const SpaceOptions &o = ctx.options();
  const std::string name = ctx.stage(s).name;
  const int spatial = ctx.stage(s).num_spatial_iters();
  const int64_t extent = ctx.stage(s).iters[loop].extent;
  // Both parts are at least 2 long, and divide the loop: partial results
  // with a tail would need guards in an update (see lower_test).
  std::vector<int64_t> lanes_multiples, chunk_counts;
  for (int64_t d = 2; d <= extent / 2; ++d) {
    if (extent % d) continue;
    if (d % o.vector_lanes == 0 && d <= 4 * o.vector_lanes) lanes_multiples.push_back(d);
    if (d <= 64) chunk_counts.push_back(d);
  }
  if (chunk_counts.empty()) return false;  // a prime extent: nothing to factor
  const bool vector_partials = coin(0.5, ctx.rng());
  int64_t inner;
  if (vector_partials) {
    std::vector<int64_t> small;
    for (int64_t d : chunk_counts)
      if (d <= o.vector_lanes) small.push_back(d);
    inner = !lanes_multiples.empty() ? pick(lanes_multiples, ctx.rng())
            : small.empty()          ? chunk_counts.front()
                                     : small.back();
  } else {
    inner = extent / pick(chunk_counts, ctx.rng());
  }
  split_loop(ctx, s, loop, {int(inner)});
  // The factored loop is the split's inner part for vector partials, its outer part for chunks.
  const int factored = vector_partials ? loop + 1 : loop;
  Step rf = Step::of(StepKind::RF);
  rf.stage = s;
  rf.iter = factored;
  rf.factor_iter = spatial;
  ctx.push(rf);
  ctx.note_rfactored(name);
  schedule_partials(ctx, name + ".rf", spatial, factored, vector_partials);
  return true;
}

}  // namespace

void RfactorRule::apply(SketchContext &ctx) const {
  const SpaceOptions &o = ctx.options();
  for (int s = 0; s < ctx.state().num_stages(); ++s) {
    const StageState &st = ctx.stage(s);
    if (st.placeholder || !st.has_reduction() || st.origin != StageOrigin::Dag || st.transformed ||
        st.location != ComputeLocation::Root)
      continue;
    if (extent_product(st, IterKind::Reduce) < extent_product(st, IterKind::Spatial)) continue;
    const int longest = longest_reduction_loop(st);
    if (st.iters[longest].extent < 2 * o.vector_lanes || !coin(o.rfactor_probability, ctx.rng())) continue;
    if (rfactor_stage(ctx, s, longest)) s += 1;  // the partial stage was inserted before it
  }
}

}  // namespace tlp
