#include "search/sketch/gpu_thread_binding.h"
#include "search/sketch/loop_steps.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {

// Ansor's InitThreadBind for stages it did not tile: all spatial loops fused
// and split in two, the outer part the grid, the inner the block. A long
// reduction over few rows (softmax, layernorm) gets little parallelism this
// way; a cross-thread reduction (rfactor onto threads) would get more.
void GpuRootReductionRule::apply(SketchContext &ctx) const {
  const GpuLimits &limits = gpu_limits(ctx);
  for (int s = 0; s < ctx.state().num_stages(); ++s) {
    const StageState &st = ctx.stage(s);
    if (st.placeholder || !st.has_reduction() || st.location != ComputeLocation::Root || st.transformed) continue;
    const int n = st.num_spatial_iters();
    if (n == 0) continue;
    fuse_loops(ctx, s, 0, n);
    const int64_t extent = ctx.stage(s).iters[0].extent;
    split_loop(ctx, s, 0, thread_factors(limits, {extent}, ctx.rng()));
    annotate(ctx, s, 0, Annotation::GpuBlock);
    annotate(ctx, s, 1, Annotation::GpuThread);
  }
}

}  // namespace tlp
