#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {

void CacheWriteRule::apply(SketchContext &ctx) const {
  const int out = ctx.index(ctx.dag().stages[ctx.dag().output()].name);
  // A cache write must come before any loop transformation; an output already
  // transformed here was rfactored.
  if (!ctx.stage(out).has_reduction() || ctx.stage(out).transformed ||
      !coin(ctx.options().cache_write_probability, ctx.rng()))
    return;
  Step chw = Step::of(StepKind::CHW);
  chw.stage = out;
  chw.scope = MemScope::Local;
  ctx.push(chw);
}

}  // namespace tlp
