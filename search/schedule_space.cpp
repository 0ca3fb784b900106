#include "search/schedule_space.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "search/loop_state.h"

namespace tlp {
namespace {

std::vector<int64_t> divisors_up_to(int64_t n, int64_t cap) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= std::min(n, cap); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

int64_t pick(const std::vector<int64_t> &v, std::mt19937_64 &rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

bool coin(double p, std::mt19937_64 &rng) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

// One factor for a loop of `extent`: a divisor most of the time, any value up
// to the cap otherwise (the tail is handled by the lowering).
int64_t divisor_factor(int64_t extent, int64_t cap, std::mt19937_64 &rng) {
  return pick(divisors_up_to(extent, std::max<int64_t>(1, cap)), rng);
}

int64_t random_factor(int64_t extent, int64_t cap, std::mt19937_64 &rng) {
  cap = std::max<int64_t>(1, std::min(cap, extent));
  if (coin(0.8, rng)) return pick(divisors_up_to(extent, cap), rng);
  return std::uniform_int_distribution<int64_t>(1, cap)(rng);
}

// Builds a schedule step by step on a live LoopState, so every index it emits
// is the one in force at that point.
class SketchBuilder {
 public:
  SketchBuilder(const ComputeDag &dag, const SpaceOptions &o, std::mt19937_64 &rng)
      : dag_(dag), o_(o), rng_(rng), state_(dag) {}

  Schedule build() {
    inline_elementwise();
    add_rfactor();
    cache_write_output();
    for (const std::string &c : elementwise_stages()) tile_consumer(c);
    for (int s = 0; s < state_.num_stages(); ++s) {
      const StageState &st = state_.stage(s);
      if (!st.placeholder && st.has_reduction() && st.location == ComputeLocation::Root && !st.transformed)
        tile_at_root(st.name);
    }
    for (const std::string &name : rfactored_) parallelize_if_at_root(name);
    for (int s = 0; s < state_.num_stages(); ++s) add_auto_unroll(s);
    return schedule_;
  }

 private:
  int index(const std::string &name) const {
    for (int s = 0; s < state_.num_stages(); ++s)
      if (state_.stage(s).name == name) return s;
    throw ScheduleError("internal: no stage " + name);
  }

  void push(Step step) {
    state_.apply(step);
    schedule_.steps.push_back(std::move(step));
  }

  void inline_elementwise() {
    for (int s = 0; s < state_.num_stages(); ++s)
      if (dag_.is_inlinable(state_.stage(s).dag_stage) && state_.stage(s).origin == StageOrigin::Dag &&
          coin(o_.inline_probability, rng_)) {
        // Not inlined: computed at root and tiled on its own (padding, for one, is
        // cheaper materialized once than re-evaluated as a select in every load).
        Step st = Step::of(StepKind::CI);
        st.stage = s;
        push(st);
      }
  }

  static int64_t extent_product(const StageState &st, IterKind kind) {
    int64_t p = 1;
    for (const LoopIter &it : st.iters)
      if (it.kind == kind) p *= it.extent;
    return p;
  }

  // Ansor's AddRfactor, for reductions at least as long as their spatial extent.
  void add_rfactor() {
    for (int s = 0; s < state_.num_stages(); ++s) {
      const StageState &st = state_.stage(s);
      if (st.placeholder || !st.has_reduction() || st.origin != StageOrigin::Dag || st.transformed ||
          st.location != ComputeLocation::Root)
        continue;
      if (extent_product(st, IterKind::Reduce) < extent_product(st, IterKind::Spatial)) continue;
      int longest = -1;
      for (int i = 0; i < int(st.iters.size()); ++i)
        if (st.iters[i].kind == IterKind::Reduce && (longest < 0 || st.iters[i].extent > st.iters[longest].extent))
          longest = i;
      if (st.iters[longest].extent < 2 * o_.vector_lanes || !coin(o_.rfactor_probability, rng_)) continue;
      if (rfactor_stage(s, longest)) s += 1;  // the partial stage was inserted before it
    }
  }

  bool rfactor_stage(int s, int loop) {
    const std::string name = state_.stage(s).name;
    const int spatial = state_.stage(s).num_spatial_iters();
    const int64_t extent = state_.stage(s).iters[loop].extent;
    // Both parts are at least 2 long, and divide the loop: partial results
    // with a tail would need guards in an update (see lower_test).
    std::vector<int64_t> lanes_multiples, chunk_counts;
    for (int64_t d = 2; d <= extent / 2; ++d) {
      if (extent % d) continue;
      if (d % o_.vector_lanes == 0 && d <= 4 * o_.vector_lanes) lanes_multiples.push_back(d);
      if (d <= 64) chunk_counts.push_back(d);
    }
    if (chunk_counts.empty()) return false;  // a prime extent: nothing to factor
    const bool vector_partials = coin(0.5, rng_);
    int64_t inner;
    if (vector_partials) {
      std::vector<int64_t> small;
      for (int64_t d : chunk_counts)
        if (d <= o_.vector_lanes) small.push_back(d);
      inner = !lanes_multiples.empty() ? pick(lanes_multiples, rng_) : small.empty() ? chunk_counts.front() : small.back();
    } else {
      inner = extent / pick(chunk_counts, rng_);
    }
    Step sp = Step::of(StepKind::SP);
    sp.stage = s;
    sp.iter = loop;
    sp.extent = extent;
    sp.factors = {int(inner)};
    push(sp);
    Step rf = Step::of(StepKind::RF);
    rf.stage = s;
    rf.iter = vector_partials ? loop + 1 : loop;
    rf.factor_iter = spatial;
    push(rf);
    rfactored_.push_back(name);
    schedule_partials(name + ".rf", spatial, vector_partials ? loop + 1 : loop, vector_partials);
    return true;
  }

  // The partial stage keeps the original loops with the factored one spatial:
  // vector partials go innermost and are vectorized; parallel chunks go first
  // and join the parallel loop.
  void schedule_partials(const std::string &name, int spatial, int factored, bool vector_partials) {
    const int s = index(name);
    const int loops = int(state_.stage(s).iters.size());
    Step re = Step::of(StepKind::RE);
    re.stage = s;
    if (!vector_partials) re.ids.push_back(factored);
    for (int i = 0; i < loops; ++i)
      if (i != factored) re.ids.push_back(i);
    if (vector_partials) re.ids.push_back(factored);
    push(re);
    const int outer = vector_partials ? spatial : spatial + 1;
    if (outer > 0) fuse_and_parallelize(name, outer);
    if (vector_partials) vectorize_innermost_spatial(name);
  }

  // An rfactored reduction left at root still deserves its cores.
  void parallelize_if_at_root(const std::string &name) {
    const int s = index(name);
    const StageState &st = state_.stage(s);
    if (st.location != ComputeLocation::Root || st.iters.empty() || st.iters[0].kind != IterKind::Spatial ||
        st.iters[0].extent < 2 || st.iters[0].annotation != Annotation::None)
      return;
    Step an = Step::of(StepKind::AN);
    an.stage = s;
    an.iter = 0;
    an.annotation = Annotation::Parallel;
    push(an);
  }

  void cache_write_output() {
    const int out = index(dag_.stages[dag_.output()].name);
    if (!state_.stage(out).has_reduction() || state_.stage(out).transformed ||
        !coin(o_.cache_write_probability, rng_))
      return;
    Step st = Step::of(StepKind::CHW);
    st.stage = out;
    st.scope = MemScope::Local;
    push(st);
  }

  // Non-inlined consumers of a stage, looking through inlined stages.
  std::vector<int> live_consumers(int s) const {
    std::vector<int> out;
    for (int c = 0; c < state_.num_stages(); ++c) {
      const auto &reads = state_.stage(c).reads;
      if (std::find(reads.begin(), reads.end(), s) == reads.end()) continue;
      if (state_.stage(c).location == ComputeLocation::Inline) {
        for (int cc : live_consumers(c)) out.push_back(cc);
      } else {
        out.push_back(c);
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // Reduction-free, non-inlined stages; notes the reductions that only they read.
  std::vector<std::string> elementwise_stages() {
    std::vector<std::string> out;
    for (int s = 0; s < state_.num_stages(); ++s) {
      const StageState &st = state_.stage(s);
      if (st.placeholder || st.has_reduction() || st.location == ComputeLocation::Inline) continue;
      std::vector<std::string> producers;
      for (int p = 0; p < state_.num_stages(); ++p) {
        const StageState &ps = state_.stage(p);
        if (ps.placeholder || !ps.has_reduction()) continue;
        auto cons = live_consumers(p);
        if (cons.size() == 1 && cons[0] == s) producers.push_back(ps.name);
      }
      fused_[st.name] = producers;
      out.push_back(st.name);
    }
    return out;
  }

  // Splits each spatial loop of `name` into `levels` parts and orders them level
  // by level (all outermost parts first). Returns the loop count per level.
  int tile_spatial(const std::string &name, int levels, const std::vector<std::vector<int>> &factors) {
    const int s = index(name);
    const int n = state_.stage(s).num_spatial_iters();
    for (int d = n - 1; d >= 0; --d) {
      const LoopIter &it = state_.stage(s).iters[d];
      Step sp = Step::of(StepKind::SP);
      sp.stage = s;
      sp.iter = d;
      sp.extent = it.extent;
      sp.factors = factors[d];
      push(sp);
    }
    // Now loops are d0_0..d0_{L-1}, d1_0.., then the reduction loops: interleave by level.
    Step re = Step::of(StepKind::RE);
    re.stage = s;
    for (int l = 0; l < levels; ++l)
      for (int d = 0; d < n; ++d) re.ids.push_back(d * levels + l);
    for (int r = n * levels; r < int(state_.stage(s).iters.size()); ++r) re.ids.push_back(r);
    push(re);
    return n;
  }

  void fuse_and_parallelize(const std::string &name, int n) {
    const int s = index(name);
    int count = n;
    if (n >= 2) {
      // Fuse enough outer loops to give every core work, as Ansor's Parallel rule does.
      count = std::uniform_int_distribution<int>(1, n)(rng_);
      if (count >= 2) {
        Step fu = Step::of(StepKind::FU);
        fu.stage = s;
        for (int i = 0; i < count; ++i) fu.ids.push_back(i);
        push(fu);
      }
    }
    Step an = Step::of(StepKind::AN);
    an.stage = s;
    an.iter = 0;
    an.annotation = Annotation::Parallel;
    push(an);
    fused_outer_[name] = count;
  }

  void vectorize_innermost_spatial(const std::string &name) {
    const int s = index(name);
    const StageState &st = state_.stage(s);
    const int last = int(st.iters.size()) - 1;
    if (last < 0 || st.iters[last].kind != IterKind::Spatial || st.iters[last].extent < 2 ||
        st.iters[last].extent > 64 || st.iters[last].annotation != Annotation::None)
      return;
    Step an = Step::of(StepKind::AN);
    an.stage = s;
    an.iter = last;
    an.annotation = Annotation::Vectorize;
    push(an);
  }

  // Stages with a reduction get divisors only: their tails would need guards, and
  // Halide 14 miscompiles some guarded, vectorized update tails (see lower_test).
  std::vector<int> spatial_factors(int64_t extent, bool innermost, int levels, bool divisors_only) {
    // The innermost part of the innermost loop is what gets vectorized: keep it a multiple of the lanes.
    std::vector<int> f(levels - 1, 1);
    int64_t rest = extent;
    for (int l = levels - 2; l >= 0; --l) {
      int64_t cap = (l == levels - 2) ? o_.max_innermost_factor : 16;
      int64_t v;
      if (l == levels - 2 && innermost && rest >= o_.vector_lanes && coin(0.8, rng_)) {
        std::vector<int64_t> options;
        for (int64_t m = o_.vector_lanes; m <= std::min<int64_t>(rest, cap); m += o_.vector_lanes)
          if (!divisors_only || rest % m == 0) options.push_back(m);
        if (options.empty()) options.push_back(divisor_factor(rest, cap, rng_));
        v = pick(options, rng_);
      } else {
        v = divisors_only ? divisor_factor(rest, cap, rng_) : random_factor(rest, cap, rng_);
      }
      f[l] = int(v);
      rest = std::max<int64_t>(1, rest / v);
    }
    return f;
  }

  void tile_consumer(const std::string &name) {
    const int s = index(name);
    const StageState &st = state_.stage(s);
    const int n = st.num_spatial_iters();
    std::vector<std::vector<int>> factors(n);
    for (int d = 0; d < n; ++d) factors[d] = spatial_factors(st.iters[d].extent, d == n - 1, 3, false);
    tile_spatial(name, 3, factors);
    fuse_and_parallelize(name, n);
    vectorize_innermost_spatial(name);
    // Compute the fused producers inside the tile: after the outer (parallel) or the middle loops.
    const int outer_levels = 1;
    const int middle_last = outer_levels + n - 1;  // loops: fused outer, then n middle, then n inner
    const int parallel_loop = 0;
    for (const std::string &p : fused_[name]) {
      Step ca = Step::of(StepKind::CA);
      ca.stage = index(p);
      ca.target_stage = index(name);
      const int fused = fused_outer_[name];
      // After fusing `fused` outer loops into one, the remaining outer loops sit before the middle ones.
      const int middle_end = (n - fused) + middle_last;
      ca.target_iter = coin(0.7, rng_) ? middle_end : parallel_loop + (n - fused);
      push(ca);
      register_block(p);
    }
  }

  // The reduction's own loops: R S R S, the innermost spatial loop split so its
  // last part is a vector, the middle parts unrolled into a register block.
  void register_block(const std::string &name) {
    const int s = index(name);
    const StageState &st = state_.stage(s);
    const int n = st.num_spatial_iters();
    const int r = int(st.iters.size()) - n;
    // Most blocks are sized to fit the vector registers: a budget of accumulator
    // vectors is shared out among the loops; the rest are drawn freely.
    const bool fit = coin(o_.register_budget_probability, rng_);
    int64_t budget = fit ? pick(std::vector<int64_t>(o_.register_budgets.begin(), o_.register_budgets.end()), rng_) : 0;
    std::vector<std::vector<int>> sf(n);
    {
      // Register blocks divide the tile exactly: a guarded tail inside a block costs
      // more than it saves, and Halide 14 miscompiles some guarded update tails.
      const int64_t e = st.iters[n - 1].extent;
      const int64_t lanes = divisors_up_to(e, o_.vector_lanes).back();
      const int64_t mid = divisor_factor(e / lanes, fit ? std::max<int64_t>(1, budget) : 8, rng_);
      sf[n - 1] = {int(mid), int(lanes)};
      if (fit) budget = std::max<int64_t>(1, budget / mid);
    }
    std::vector<int> others(n > 0 ? n - 1 : 0);
    std::iota(others.begin(), others.end(), 0);
    std::shuffle(others.begin(), others.end(), rng_);
    for (int d : others) {
      const int64_t f = divisor_factor(st.iters[d].extent, fit ? budget : 16, rng_);
      sf[d] = {int(f)};
      if (fit) budget = std::max<int64_t>(1, budget / f);
    }
    // Split spatial loops (innermost last so earlier indices stay valid).
    for (int d = n - 1; d >= 0; --d) {
      const LoopIter &it = state_.stage(s).iters[d];
      Step sp = Step::of(StepKind::SP);
      sp.stage = s;
      sp.iter = d;
      sp.extent = it.extent;
      sp.factors = sf[d];
      push(sp);
    }
    const int spatial_loops = int(state_.stage(s).iters.size()) - r;
    for (int k = r - 1; k >= 0; --k) {
      const LoopIter &it = state_.stage(s).iters[spatial_loops + k];
      Step sp = Step::of(StepKind::SP);
      sp.stage = s;
      sp.iter = spatial_loops + k;
      sp.extent = it.extent;
      sp.factors = {int(random_factor(it.extent, o_.max_innermost_factor, rng_))};
      push(sp);
    }
    // Positions: spatial d has parts at offsets; gather outer (part 0), middles, vector, reduce outer/inner.
    const StageState &now = state_.stage(s);
    std::vector<int> s_outer, s_middle, reduce_outer, reduce_inner;
    int vec = -1;
    int pos = 0;
    for (int d = 0; d < n; ++d) {
      const int parts = int(sf[d].size()) + 1;
      s_outer.push_back(pos);
      for (int p = 1; p < parts; ++p) {
        if (d == n - 1 && p == parts - 1) vec = pos + p;
        else s_middle.push_back(pos + p);
      }
      pos += parts;
    }
    for (int k = 0; k < r; ++k) {
      reduce_outer.push_back(pos + 2 * k);
      reduce_inner.push_back(pos + 2 * k + 1);
    }
    Step re = Step::of(StepKind::RE);
    re.stage = s;
    // Either R S R S (reduction split around the spatial outer parts) or R R S S.
    const bool rsrs = coin(0.5, rng_);
    auto append = [&](const std::vector<int> &v) { re.ids.insert(re.ids.end(), v.begin(), v.end()); };
    append(reduce_outer);
    if (rsrs) append(s_outer);
    append(reduce_inner);
    if (!rsrs) append(s_outer);
    append(s_middle);
    re.ids.push_back(vec);
    push(re);
    (void)now;
    // The vector is innermost now; unroll the middle parts if the block is small enough.
    const StageState &ordered = state_.stage(s);
    const int last = int(ordered.iters.size()) - 1;
    if (ordered.iters[last].extent >= 2) {
      Step an = Step::of(StepKind::AN);
      an.stage = s;
      an.iter = last;
      an.annotation = Annotation::Vectorize;
      push(an);
    }
    int64_t block = 1;
    for (int i = last - 1; i >= last - int(s_middle.size()); --i) block *= ordered.iters[i].extent;
    if (block <= o_.max_unroll_block && coin(0.8, rng_)) {
      for (int i = last - 1; i >= last - int(s_middle.size()); --i) {
        if (state_.stage(s).iters[i].extent < 2) continue;
        Step an = Step::of(StepKind::AN);
        an.stage = s;
        an.iter = i;
        an.annotation = Annotation::Unroll;
        push(an);
      }
    }
  }

  // S S R S R S on a stage computed at root.
  void tile_at_root(const std::string &name) {
    const int s = index(name);
    const StageState &st = state_.stage(s);
    const int n = st.num_spatial_iters();
    std::vector<std::vector<int>> factors(n);
    for (int d = 0; d < n; ++d) factors[d] = spatial_factors(st.iters[d].extent, d == n - 1, 3, true);
    tile_spatial(name, 3, factors);
    // Loops: n outer, n middle, n inner, then reduction loops; split each reduction loop in two.
    const int r = int(state_.stage(s).iters.size()) - 3 * n;
    for (int k = r - 1; k >= 0; --k) {
      const LoopIter &it = state_.stage(s).iters[3 * n + k];
      Step sp = Step::of(StepKind::SP);
      sp.stage = s;
      sp.iter = 3 * n + k;
      sp.extent = it.extent;
      sp.factors = {int(random_factor(it.extent, o_.max_innermost_factor, rng_))};
      push(sp);
    }
    Step re = Step::of(StepKind::RE);
    re.stage = s;
    // S S R R S: the innermost spatial part stays last so it can be a vector.
    for (int i = 0; i < 2 * n; ++i) re.ids.push_back(i);
    for (int k = 0; k < r; ++k) re.ids.push_back(3 * n + 2 * k);
    for (int k = 0; k < r; ++k) re.ids.push_back(3 * n + 2 * k + 1);
    for (int i = 2 * n; i < 3 * n; ++i) re.ids.push_back(i);
    push(re);
    fuse_and_parallelize(name, n);
    vectorize_innermost_spatial(name);
  }

  void add_auto_unroll(int s) {
    const StageState &st = state_.stage(s);
    if (st.placeholder || st.location == ComputeLocation::Inline || st.iters.empty()) return;
    std::vector<int64_t> values(o_.auto_unroll_values.begin(), o_.auto_unroll_values.end());
    const int64_t v = pick(values, rng_);
    if (v == 0) return;
    Step pr = Step::of(StepKind::PR);
    pr.stage = s;
    pr.iter = 0;
    pr.value = int(v);
    push(pr);
  }

  const ComputeDag &dag_;
  const SpaceOptions &o_;
  std::mt19937_64 &rng_;
  LoopState state_;
  Schedule schedule_;
  std::map<std::string, std::vector<std::string>> fused_;
  std::map<std::string, int> fused_outer_;
  std::vector<std::string> rfactored_;
};

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
  SketchBuilder builder(dag_, options_, rng);
  Schedule s = builder.build();
  LoopState::replay(dag_, s);  // the promise in the header: it replays
  return s;
}

}  // namespace tlp
