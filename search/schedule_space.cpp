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

// The same dependencies hold on GPU: the cache write before any tiling, the
// fused tiling before the root reductions take what it left.
const std::vector<std::unique_ptr<SketchRule>> &gpu_sketch_rules() {
  static const std::vector<std::unique_ptr<SketchRule>> rules = [] {
    std::vector<std::unique_ptr<SketchRule>> r;
    r.push_back(std::make_unique<InlineElementwiseRule>());
    r.push_back(std::make_unique<GpuSharedStagingRule>());
    r.push_back(std::make_unique<GpuCrossThreadReductionRule>());
    r.push_back(std::make_unique<GpuCacheWriteRule>());
    r.push_back(std::make_unique<GpuTilingRule>());
    r.push_back(std::make_unique<GpuRootReductionRule>());
    r.push_back(std::make_unique<AutoUnrollRule>());
    return r;
  }();
  return rules;
}

// The GPU rules draw thread counts within the limits, so a rejected sample is
// rare (limits tighter than the rules' choices); this bounds the retries.
constexpr int kGpuSampleAttempts = 100;

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
  if (!options_.gpu) {
    SketchContext ctx(dag_, options_, rng);
    for (const auto &rule : cpu_sketch_rules()) rule->apply(ctx);
    Schedule s = ctx.schedule();
    LoopState::replay(dag_, s);  // the promise in the header: it replays
    return s;
  }
  std::string why;
  for (int attempt = 0; attempt < kGpuSampleAttempts; ++attempt) {
    SketchContext ctx(dag_, options_, rng);
    for (const auto &rule : gpu_sketch_rules()) rule->apply(ctx);
    Schedule s = ctx.schedule();
    why = gpu_launch_limit_violation(LoopState::replay(dag_, s), *options_.gpu);
    if (why.empty()) return s;
  }
  throw ScheduleError("no GPU schedule within the launch limits in " + std::to_string(kGpuSampleAttempts) +
                      " samples; the last: " + why);
}

}  // namespace tlp
