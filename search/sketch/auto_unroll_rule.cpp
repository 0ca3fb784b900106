#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {

void AutoUnrollRule::apply(SketchContext &ctx) const {
  for (int s = 0; s < ctx.state().num_stages(); ++s) {
    const StageState &st = ctx.stage(s);
    if (st.placeholder || st.location == ComputeLocation::Inline || st.iters.empty()) continue;
    const int limit = pick(ctx.options().auto_unroll_values, ctx.rng());
    if (limit == 0) continue;
    Step pr = Step::of(StepKind::PR);
    pr.stage = s;
    pr.iter = 0;
    pr.value = limit;
    ctx.push(pr);
  }
}

}  // namespace tlp
