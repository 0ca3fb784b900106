#include "search/sketch/loop_steps.h"

#include <utility>

#include "search/sketch/random_draws.h"

namespace tlp {

void annotate(SketchContext &ctx, int s, int iter, Annotation annotation) {
  Step an = Step::of(StepKind::AN);
  an.stage = s;
  an.iter = iter;
  an.annotation = annotation;
  ctx.push(an);
}

void split_loop(SketchContext &ctx, int s, int iter, std::vector<int> factors) {
  Step sp = Step::of(StepKind::SP);
  sp.stage = s;
  sp.iter = iter;
  sp.extent = ctx.stage(s).iters[iter].extent;
  sp.factors = std::move(factors);
  ctx.push(sp);
}

void split_spatial_loops(SketchContext &ctx, int s, const std::vector<std::vector<int>> &factors) {
  for (int d = int(factors.size()) - 1; d >= 0; --d) {
    split_loop(ctx, s, d, factors[d]);
  }
}

void split_loops_in_two(SketchContext &ctx, int s, int first) {
  for (int i = int(ctx.stage(s).iters.size()) - 1; i >= first; --i) {
    const int64_t extent = ctx.stage(s).iters[i].extent;
    split_loop(ctx, s, i, {int(random_factor(extent, ctx.options().max_innermost_factor, ctx.rng()))});
  }
}

void tile_spatial(SketchContext &ctx, int s, int levels, const std::vector<std::vector<int>> &factors) {
  const int n = ctx.stage(s).num_spatial_iters();
  split_spatial_loops(ctx, s, factors);
  // Now loops are d0_0..d0_{L-1}, d1_0.., then the reduction loops: interleave by level.
  Step re = Step::of(StepKind::RE);
  re.stage = s;
  for (int l = 0; l < levels; ++l)
    for (int d = 0; d < n; ++d) re.ids.push_back(d * levels + l);
  for (int r = n * levels; r < int(ctx.stage(s).iters.size()); ++r) re.ids.push_back(r);
  ctx.push(re);
}

int fuse_and_parallelize(SketchContext &ctx, int s, int n) {
  int count = n;
  if (n >= 2) {
    // Fuse enough outer loops to give every core work, as Ansor's Parallel rule does.
    count = std::uniform_int_distribution<int>(1, n)(ctx.rng());
    if (count >= 2) {
      Step fu = Step::of(StepKind::FU);
      fu.stage = s;
      for (int i = 0; i < count; ++i) fu.ids.push_back(i);
      ctx.push(fu);
    }
  }
  annotate(ctx, s, 0, Annotation::Parallel);
  return count;
}

void vectorize_innermost_spatial(SketchContext &ctx, int s) {
  const StageState &st = ctx.stage(s);
  const int last = int(st.iters.size()) - 1;
  if (last < 0 || st.iters[last].kind != IterKind::Spatial || st.iters[last].extent < 2 ||
      st.iters[last].extent > 64 || st.iters[last].annotation != Annotation::None)
    return;
  annotate(ctx, s, last, Annotation::Vectorize);
}

}  // namespace tlp
