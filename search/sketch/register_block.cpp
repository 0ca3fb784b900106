#include "search/sketch/register_block.h"

#include <algorithm>
#include <numeric>

#include "search/sketch/loop_steps.h"
#include "search/sketch/random_draws.h"

namespace tlp {
namespace {

// The block's factor of loop d, at most `cap`. Blocks divide the tile exactly
// (a guarded tail inside a block costs more than it saves, and Halide 14
// miscompiles some guarded update tails) unless the loop's tail may be rounded
// up: then sometimes any size (a 56-wide image has no divisor 3 or 6, the
// widths that fill twelve accumulators with two or four vectors), otherwise one
// whose tail costs little (196 pixels in blocks of 6 compute 198).
int64_t block_factor(SketchContext &ctx, int s, int d, int64_t cap) {
  const int64_t extent = ctx.stage(s).iters[d].extent;
  cap = std::max<int64_t>(1, std::min(cap, extent));
  if (!ctx.state().can_round_up(s, d)) return divisor_factor(extent, cap, ctx.rng());
  const SpaceOptions &o = ctx.options();
  if (coin(o.rounded_block_probability, ctx.rng())) return std::uniform_int_distribution<int64_t>(1, cap)(ctx.rng());
  return pick(blocks_with_cheap_tails(extent, cap, o.cheap_tail_share), ctx.rng());
}

// The inner factors of each spatial loop: one for the outer loops, {middle,
// vector} for the innermost.
std::vector<std::vector<int>> block_factors(SketchContext &ctx, int s) {
  const StageState &st = ctx.stage(s);
  const SpaceOptions &o = ctx.options();
  const int n = st.num_spatial_iters();
  // Most blocks are sized to fit the vector registers: a budget of accumulator
  // vectors is shared out among the loops; the rest are drawn freely.
  const bool fit = coin(o.register_budget_probability, ctx.rng());
  int64_t budget = fit ? pick(o.register_budgets, ctx.rng()) : 0;
  std::vector<std::vector<int>> factors(n);
  const int64_t extent = st.iters[n - 1].extent;
  const int64_t lanes = divisors_up_to(extent, o.vector_lanes).back();
  const int64_t mid = divisor_factor(extent / lanes, fit ? std::max<int64_t>(1, budget) : 8, ctx.rng());
  factors[n - 1] = {int(mid), int(lanes)};
  if (fit) budget = std::max<int64_t>(1, budget / mid);
  std::vector<int> others(n > 0 ? n - 1 : 0);
  std::iota(others.begin(), others.end(), 0);
  std::shuffle(others.begin(), others.end(), ctx.rng());
  for (int d : others) {
    const int64_t f = block_factor(ctx, s, d, fit ? budget : 16);
    factors[d] = {int(f)};
    if (fit) budget = std::max<int64_t>(1, budget / f);
  }
  return factors;
}

// Whether spatial loop d of stage s (its loops untouched) indexes an operand
// that the block broadcasts: one its vector loop, the innermost, does not index.
bool indexes_a_broadcast_operand(const SketchContext &ctx, int s, int d) {
  const StageState &st = ctx.stage(s);
  if (st.dag_stage < 0) return true;
  const std::string &vector = st.iters[size_t(st.num_spatial_iters() - 1)].name;
  const std::string &loop = st.iters[size_t(d)].name;
  for (const DagAccess &a : ctx.state().dag().stages.at(size_t(st.dag_stage)).accesses)
    if (!a.uses(vector) && a.uses(loop)) return true;
  return false;
}

// Reorders the split loops (each spatial loop's parts in a row, then each
// reduction loop's two parts) into R S R S or R R S S, vector last. The middle
// parts of loops that index a broadcast operand come first: each broadcast is
// then used by the unrolled iterations right after it, not held in a register
// across the whole block (a channel-blocked output's block of channels, which
// its input does not index, is not next to its vector). Returns how many middle
// spatial parts precede the vector.
int order_block(SketchContext &ctx, int s, const std::vector<std::vector<int>> &factors,
                const std::vector<bool> &broadcast_indexed, int reductions) {
  const int n = int(factors.size());
  std::vector<int> s_outer, s_middle, s_middle_inner, reduce_outer, reduce_inner;
  int vec = -1;
  int pos = 0;
  for (int d = 0; d < n; ++d) {
    const int parts = int(factors[d].size()) + 1;
    s_outer.push_back(pos);
    for (int p = 1; p < parts; ++p) {
      if (d == n - 1 && p == parts - 1) vec = pos + p;
      else (broadcast_indexed[size_t(d)] ? s_middle : s_middle_inner).push_back(pos + p);
    }
    pos += parts;
  }
  s_middle.insert(s_middle.end(), s_middle_inner.begin(), s_middle_inner.end());
  for (int k = 0; k < reductions; ++k) {
    reduce_outer.push_back(pos + 2 * k);
    reduce_inner.push_back(pos + 2 * k + 1);
  }
  Step re = Step::of(StepKind::RE);
  re.stage = s;
  // Either R S R S (reduction split around the spatial outer parts) or R R S S.
  const bool rsrs = coin(0.5, ctx.rng());
  auto append = [&](const std::vector<int> &v) { re.ids.insert(re.ids.end(), v.begin(), v.end()); };
  append(reduce_outer);
  if (rsrs) append(s_outer);
  append(reduce_inner);
  if (!rsrs) append(s_outer);
  append(s_middle);
  re.ids.push_back(vec);
  ctx.push(re);
  return int(s_middle.size());
}

// Vectorizes the innermost loop, and unrolls the `middles` loops before it if
// the block is small enough.
void annotate_block(SketchContext &ctx, int s, int middles) {
  const int last = int(ctx.stage(s).iters.size()) - 1;
  if (ctx.stage(s).iters[last].extent >= 2) annotate(ctx, s, last, Annotation::Vectorize);
  int64_t block = 1;
  for (int i = last - 1; i >= last - middles; --i) block *= ctx.stage(s).iters[i].extent;
  if (block > ctx.options().max_unroll_block || !coin(0.8, ctx.rng())) return;
  for (int i = last - 1; i >= last - middles; --i)
    if (ctx.stage(s).iters[i].extent >= 2) annotate(ctx, s, i, Annotation::Unroll);
}

}  // namespace

void register_block(SketchContext &ctx, int s) {
  const int n = ctx.stage(s).num_spatial_iters();
  const int reductions = int(ctx.stage(s).iters.size()) - n;
  std::vector<bool> broadcast_indexed;
  for (int d = 0; d < n; ++d) broadcast_indexed.push_back(indexes_a_broadcast_operand(ctx, s, d));
  const std::vector<std::vector<int>> factors = block_factors(ctx, s);
  split_spatial_loops(ctx, s, factors);
  split_loops_in_two(ctx, s, int(ctx.stage(s).iters.size()) - reductions);
  annotate_block(ctx, s, order_block(ctx, s, factors, broadcast_indexed, reductions));
}

}  // namespace tlp
