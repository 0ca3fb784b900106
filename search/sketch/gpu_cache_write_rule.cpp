#include "search/sketch/sketch_rules.h"

namespace tlp {

// Unlike the CPU rule there is no coin: without the local stage the output's
// reduction would accumulate in global memory, and could not be computed per thread.
void GpuCacheWriteRule::apply(SketchContext &ctx) const {
  const int out = ctx.index(ctx.dag().stages[ctx.dag().output()].name);
  if (!ctx.stage(out).has_reduction() || ctx.stage(out).transformed) return;
  Step chw = Step::of(StepKind::CHW);
  chw.stage = out;
  chw.scope = MemScope::Local;
  ctx.push(chw);
}

}  // namespace tlp
