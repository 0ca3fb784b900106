#include "search/sketch/gpu_thread_binding.h"

#include <algorithm>

#include "search/sketch/random_draws.h"

namespace tlp {

const GpuLimits &gpu_limits(const SketchContext &ctx) {
  if (!ctx.options().gpu) throw ScheduleError("internal: a GPU sketch rule ran without SpaceOptions::gpu");
  return *ctx.options().gpu;
}

std::vector<int> thread_factors(const GpuLimits &limits, const std::vector<int64_t> &extents, std::mt19937_64 &rng) {
  std::vector<int64_t> budgets;
  for (int64_t b = std::max(1, limits.warp_size); b <= limits.max_threads_per_block; b *= 2) budgets.push_back(b);
  if (budgets.empty()) budgets.push_back(std::max(1, limits.max_threads_per_block));
  int64_t rest = pick(budgets, rng);
  std::vector<int> f(extents.size(), 1);
  for (int d = int(extents.size()) - 1; d >= 0; --d) {
    const std::vector<int64_t> divs = divisors_up_to(extents[d], rest);
    const bool innermost = d == int(extents.size()) - 1;
    f[d] = int(coin(innermost ? 0.8 : 0.5, rng) ? divs.back() : pick(divs, rng));
    rest /= f[d];
  }
  return f;
}

std::vector<std::vector<int>> block_tile_factors(SketchContext &ctx, const GpuLimits &limits, const StageState &st) {
  const int n = st.num_spatial_iters();
  std::vector<int64_t> extents;
  for (int d = 0; d < n; ++d) extents.push_back(st.iters[d].extent);
  const std::vector<int> threads = thread_factors(limits, extents, ctx.rng());
  std::vector<std::vector<int>> factors(n);
  int64_t budget = std::max(1, ctx.options().max_unroll_block);
  for (int d = n - 1; d >= 0; --d) {
    const int64_t inner = pick(divisors_up_to(extents[d] / threads[d], budget), ctx.rng());
    budget = std::max<int64_t>(1, budget / inner);
    factors[d] = {threads[d], int(inner)};
  }
  return factors;
}

void fuse_loops(SketchContext &ctx, int s, int first, int count) {
  if (count < 2) return;
  Step fu = Step::of(StepKind::FU);
  fu.stage = s;
  for (int i = 0; i < count; ++i) fu.ids.push_back(first + i);
  ctx.push(fu);
}

}  // namespace tlp
