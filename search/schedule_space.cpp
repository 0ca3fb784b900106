#include "search/schedule_space.h"

#include <algorithm>
#include <memory>

#include "search/loop_state.h"
#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_context.h"
#include "search/sketch/sketch_rules.h"

namespace tlp {
namespace {

// There are strong dependencies among the rules below: inlining decides which
// stages the fused tiling tiles, rfactor and cache write must come before any
// tiling of the stage they change, and root tiling takes what fused tiling left.
const std::vector<std::unique_ptr<SketchRule>> &cpu_sketch_rules() {
  static const std::vector<std::unique_ptr<SketchRule>> rules = [] {
    std::vector<std::unique_ptr<SketchRule>> r;
    r.push_back(std::make_unique<InlineElementwiseRule>());
    r.push_back(std::make_unique<RfactorRule>());
    r.push_back(std::make_unique<CacheWriteRule>());
    r.push_back(std::make_unique<FusedTilingRule>());
    r.push_back(std::make_unique<RootTilingRule>());
    r.push_back(std::make_unique<RfactoredParallelRule>());
    r.push_back(std::make_unique<AutoUnrollRule>());
    return r;
  }();
  return rules;
}

}  // namespace

std::vector<int> random_factors(int64_t extent, int levels, int cap, std::mt19937_64 &rng) {
  std::vector<int> f(levels, 1);
  int64_t rest = extent;
  for (int l = levels - 1; l >= 0; --l) {
    f[l] = int(random_factor(rest, cap, rng));
    rest = std::max<int64_t>(1, rest / f[l]);
  }
  return f;
}

ScheduleSpace::ScheduleSpace(ComputeDag dag, SpaceOptions options) : dag_(std::move(dag)), options_(std::move(options)) {}

Schedule ScheduleSpace::sample(std::mt19937_64 &rng) const {
  SketchContext ctx(dag_, options_, rng);
  for (const auto &rule : cpu_sketch_rules()) rule->apply(ctx);
  Schedule s = ctx.schedule();
  LoopState::replay(dag_, s);  // the promise in the header: it replays
  return s;
}

}  // namespace tlp
