#include <algorithm>
#include <string>
#include <vector>

#include "search/sketch/gpu_thread_binding.h"
#include "search/sketch/loop_steps.h"
#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_rules.h"
#include "search/sketch/stage_queries.h"

namespace tlp {
namespace {

// Threads per row: divisors of the reduction loop (partials with a tail would
// need guards in an update), warp multiples when there are any, at most the
// block's limit and half the loop (each thread sums at least two values).
std::vector<int64_t> thread_choices(const GpuLimits &limits, int64_t extent) {
  std::vector<int64_t> warps, others;
  for (int64_t d = 8; d <= std::min<int64_t>(limits.max_threads_per_block, extent / 2); ++d) {
    if (extent % d) continue;
    (d % std::max(1, limits.warp_size) == 0 ? warps : others).push_back(d);
  }
  return warps.empty() ? others : warps;
}

// Worth it when each output reduces more values than there are outputs
// (Ansor's condition), or when a few thousand outputs each reduce a long row
// (BERT's softmax: 1536 rows of 128); the caller also asks for a row of at
// least two warps.
bool few_long_rows(const StageState &st) {
  const int64_t spatial = extent_product(st, IterKind::Spatial);
  const int64_t reduce = extent_product(st, IterKind::Reduce);
  return reduce >= spatial || (spatial <= 8192 && reduce >= 128);
}

void reduce_across_threads(SketchContext &ctx, int s, int loop, int64_t threads) {
  const std::string name = ctx.stage(s).name;
  const int n = ctx.stage(s).num_spatial_iters();
  split_loop(ctx, s, loop, {int(threads)});
  Step rf = Step::of(StepKind::RF);
  rf.stage = s;
  rf.iter = loop + 1;  // the inner part: one partial per thread
  rf.factor_iter = n;
  ctx.push(rf);
  // The stage now reduces the partials of a row: one block per row.
  const int out = ctx.index(name);
  fuse_loops(ctx, out, 0, n);
  annotate(ctx, out, 0, Annotation::GpuBlock);
  // The partial stage, computed in that block: the thread loop outside the chunk each thread sums.
  const int part = ctx.index(name + ".rf");
  Step ca = Step::of(StepKind::CA);
  ca.stage = part;
  ca.target_stage = out;
  ca.target_iter = 0;
  ctx.push(ca);
  const int loops = int(ctx.stage(part).iters.size());
  const int thread_loop = loop + 1;
  Step re = Step::of(StepKind::RE);
  re.stage = part;
  for (int i = 0; i < loops; ++i) {
    if (i == thread_loop) continue;
    if (i == loop) re.ids.push_back(thread_loop);
    re.ids.push_back(i);
  }
  ctx.push(re);
  annotate(ctx, part, loop, Annotation::GpuThread);
}

}  // namespace

void GpuCrossThreadReductionRule::apply(SketchContext &ctx) const {
  const GpuLimits &limits = gpu_limits(ctx);
  for (int s = 0; s < ctx.state().num_stages(); ++s) {
    const StageState &st = ctx.stage(s);
    if (st.placeholder || !st.has_reduction() || st.origin != StageOrigin::Dag || st.transformed ||
        st.location != ComputeLocation::Root || !few_long_rows(st))
      continue;
    const int loop = longest_reduction_loop(st);
    if (st.iters[loop].extent < 2 * limits.warp_size) continue;
    const std::vector<int64_t> choices = thread_choices(limits, st.iters[loop].extent);
    if (choices.empty() || !coin(ctx.options().gpu_cross_thread_probability, ctx.rng())) continue;
    reduce_across_threads(ctx, s, loop, pick(choices, ctx.rng()));
    s += 1;  // the partial stage was inserted before it
  }
}

}  // namespace tlp
