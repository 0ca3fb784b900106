#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {

void InlineElementwiseRule::apply(SketchContext &ctx) const {
  for (int s = 0; s < ctx.state().num_stages(); ++s) {
    const StageState &st = ctx.stage(s);
    // A stage not inlined stays at root and is tiled on its own (padding, for
    // one, is cheaper materialized once than re-evaluated as a select in every load).
    if (ctx.dag().is_inlinable(st.dag_stage) && st.origin == StageOrigin::Dag &&
        coin(ctx.options().inline_probability, ctx.rng())) {
      Step ci = Step::of(StepKind::CI);
      ci.stage = s;
      ctx.push(ci);
    }
  }
}

}  // namespace tlp
