#include "search/sketch/loop_steps.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {

// An rfactored reduction left at root (not fused into a consumer) still
// deserves its cores: it reduces only the partial results, over its rows.
void RfactoredParallelRule::apply(SketchContext &ctx) const {
  for (const std::string &name : ctx.rfactored()) {
    const int s = ctx.index(name);
    const StageState &st = ctx.stage(s);
    if (st.location != ComputeLocation::Root || st.iters.empty() || st.iters[0].kind != IterKind::Spatial ||
        st.iters[0].extent < 2 || st.iters[0].annotation != Annotation::None)
      continue;
    annotate(ctx, s, 0, Annotation::Parallel);
  }
}

}  // namespace tlp
