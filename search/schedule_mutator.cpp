#include "search/schedule_mutator.h"

#include <algorithm>

#include "search/gpu_launch_limits.h"
#include "search/loop_state.h"

namespace tlp {
namespace {

constexpr int kTries = 8;

int64_t product(const std::vector<int> &v) {
  int64_t p = 1;
  for (int x : v) p *= x;
  return p;
}

std::vector<int> divisors_above_one(int64_t n) {
  std::vector<int> out;
  for (int64_t d = 2; d <= n; ++d)
    if (n % d == 0) out.push_back(int(d));
  return out;
}

template <typename T>
const T &pick(const std::vector<T> &v, std::mt19937_64 &rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

std::vector<size_t> steps_of(const Schedule &s, StepKind k) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.steps.size(); ++i)
    if (s.steps[i].kind == k) out.push_back(i);
  return out;
}

// Two schedules share a structure when they differ only in the values mutation
// changes (factors, extents, unroll limits, compute-at loops).
bool same_structure(const Step &a, const Step &b) {
  if (a.kind != b.kind || a.stage != b.stage) return false;
  switch (a.kind) {
    case StepKind::SP: return a.iter == b.iter && a.factors.size() == b.factors.size();
    case StepKind::PR: return a.iter == b.iter;
    case StepKind::CA: return a.target_stage == b.target_stage;
    default: return a == b;
  }
}

bool uses(StepKind kind, StepField field) {
  const auto &layout = step_layout(kind);
  return std::find(layout.begin(), layout.end(), field) != layout.end();
}

// Loops of stage `s` that can join the parallel loop: the leading spatial,
// unannotated loops with nothing computed inside them.
int fusable_outer_loops(const LoopState &state, int s) {
  const StageState &st = state.stage(s);
  int n = 0;
  while (n < int(st.iters.size()) && st.iters[n].kind == IterKind::Spatial &&
         st.iters[n].annotation == Annotation::None && state.attached_at(s, n).empty())
    ++n;
  return n;
}

// Moves a later step's references to the loops of the re-fused stage: loop 0 is
// the parallel loop either way, loop i > 0 moves by `delta`. A compute-at that
// pointed into loops now fused moves to the parallel loop; any other reference
// to them has no counterpart, and the mutation is dropped.
bool shift_loop_refs(Step &step, int stage, int delta) {
  auto shift = [&](int &i) {
    if (i == 0) return true;
    i += delta;
    return i >= 1;
  };
  if (step.kind == StepKind::CA && step.target_stage == stage && !shift(step.target_iter)) step.target_iter = 0;
  if (step.stage != stage || step.kind == StepKind::CA) return true;
  if (step.kind == StepKind::RE || step.kind == StepKind::FU) return false;  // the loop set itself changed
  if (uses(step.kind, StepField::Iter)) return shift(step.iter);
  return true;
}

}  // namespace

ScheduleMutator::ScheduleMutator(const ComputeDag &dag, const SpaceOptions &options, MutationWeights weights)
    : dag_(dag), options_(options), weights_(weights) {}

std::optional<Schedule> ScheduleMutator::repair(Schedule s) const {
  LoopState state(dag_);
  try {
    for (Step &step : s.steps) {
      if (step.kind == StepKind::SP && step.stage < state.num_stages() &&
          step.iter < int(state.stage(step.stage).iters.size())) {
        step.extent = state.stage(step.stage).iters[step.iter].extent;
        // Shrink the largest factor until the split fits the loop again.
        while (product(step.factors) > step.extent) {
          auto it = std::max_element(step.factors.begin(), step.factors.end());
          *it = std::max(1, *it / 2);
        }
      }
      state.apply(step);
    }
  } catch (const ScheduleError &) {
    return std::nullopt;
  }
  // A GPU child no device could launch would cost a measurement to learn so.
  if (options_.gpu && !gpu_launch_limit_violation(state, *options_.gpu).empty()) return std::nullopt;
  return s;
}

std::optional<Schedule> ScheduleMutator::mutate_tile_size(Schedule s, std::mt19937_64 &rng) const {
  const auto sps = steps_of(s, StepKind::SP);
  if (sps.empty()) return std::nullopt;
  Step &sp = s.steps[pick(sps, rng)];
  // Lengths: the implicit outer part (index 0), then the factors.
  std::vector<int64_t> lengths = {(sp.extent + product(sp.factors) - 1) / product(sp.factors)};
  lengths.insert(lengths.end(), sp.factors.begin(), sp.factors.end());
  std::vector<size_t> sources;
  for (size_t i = 0; i < lengths.size(); ++i)
    if (lengths[i] > 1) sources.push_back(i);
  if (sources.empty()) return std::nullopt;
  const size_t src = pick(sources, rng);
  const int d = pick(divisors_above_one(lengths[src]), rng);
  size_t dst = std::uniform_int_distribution<size_t>(0, lengths.size() - 2)(rng);
  if (dst >= src) ++dst;
  if (src > 0) sp.factors[src - 1] /= d;
  if (dst > 0) sp.factors[dst - 1] *= d;
  if (sp.factors.back() > options_.max_innermost_factor) return std::nullopt;
  if (product(sp.factors) > sp.extent) return std::nullopt;
  return s;
}

std::optional<Schedule> ScheduleMutator::mutate_auto_unroll(Schedule s, std::mt19937_64 &rng) const {
  const auto prs = steps_of(s, StepKind::PR);
  if (prs.empty() || options_.auto_unroll_values.size() < 2) return std::nullopt;
  Step &pr = s.steps[pick(prs, rng)];
  std::vector<int> others;
  for (int v : options_.auto_unroll_values)
    if (v != pr.value && v > 0) others.push_back(v);
  if (others.empty()) return std::nullopt;
  pr.value = pick(others, rng);
  return s;
}

std::optional<Schedule> ScheduleMutator::mutate_compute_location(Schedule s, std::mt19937_64 &rng) const {
  const auto cas = steps_of(s, StepKind::CA);
  if (cas.empty()) return std::nullopt;
  const size_t at = pick(cas, rng);
  // How many loops the target has at that point decides the choices.
  LoopState state(dag_);
  try {
    for (size_t i = 0; i < at; ++i) state.apply(s.steps[i]);
  } catch (const ScheduleError &) {
    return std::nullopt;
  }
  Step &ca = s.steps[at];
  const int loops = int(state.stage(ca.target_stage).iters.size());
  if (loops < 2) return std::nullopt;
  int next = std::uniform_int_distribution<int>(0, loops - 2)(rng);
  if (next >= ca.target_iter) ++next;
  ca.target_iter = next;
  return s;
}

// Ansor's MutateParallel: fuse more or fewer outer loops into the parallel one
// (FU(0..c-1) then AN parallel on loop 0), keeping the rest of the schedule.
std::optional<Schedule> ScheduleMutator::mutate_parallel(const Schedule &s, std::mt19937_64 &rng) const {
  std::vector<size_t> parallels;
  for (size_t i = 0; i < s.steps.size(); ++i)
    if (s.steps[i].kind == StepKind::AN && s.steps[i].annotation == Annotation::Parallel && s.steps[i].iter == 0)
      parallels.push_back(i);
  if (parallels.empty()) return std::nullopt;
  const size_t an = pick(parallels, rng);
  const int stage = s.steps[an].stage;
  const bool had_fuse = an > 0 && s.steps[an - 1].kind == StepKind::FU && s.steps[an - 1].stage == stage &&
                        !s.steps[an - 1].ids.empty() && s.steps[an - 1].ids.front() == 0;
  const size_t first = had_fuse ? an - 1 : an;
  const int fused = had_fuse ? int(s.steps[an - 1].ids.size()) : 1;

  LoopState state(dag_);
  Schedule out;
  try {
    for (size_t i = 0; i < first; ++i) state.apply(s.steps[i]);
    const int limit = fusable_outer_loops(state, stage);
    if (limit < 2) return std::nullopt;
    int next = std::uniform_int_distribution<int>(1, limit - 1)(rng);
    if (next >= fused) ++next;  // any count in 1..limit but the current one
    out.steps.assign(s.steps.begin(), s.steps.begin() + first);
    if (next >= 2) {
      Step fu = Step::of(StepKind::FU);
      fu.stage = stage;
      for (int i = 0; i < next; ++i) fu.ids.push_back(i);
      out.steps.push_back(fu);
    }
    out.steps.push_back(s.steps[an]);
    for (size_t i = first; i < out.steps.size(); ++i) state.apply(out.steps[i]);
    const std::string name = state.stage(stage).name;
    for (size_t i = an + 1; i < s.steps.size(); ++i) {
      Step step = s.steps[i];
      if (!shift_loop_refs(step, state.find_stage(name), fused - next)) return std::nullopt;
      state.apply(step);
      out.steps.push_back(std::move(step));
    }
  } catch (const ScheduleError &) {
    return std::nullopt;
  }
  return out;
}

std::optional<Schedule> ScheduleMutator::mutate(const Schedule &s, std::mt19937_64 &rng) const {
  std::discrete_distribution<int> which(
      {weights_.tile_size, weights_.auto_unroll, weights_.compute_location, weights_.parallel});
  for (int t = 0; t < kTries; ++t) {
    std::optional<Schedule> m;
    switch (which(rng)) {
      case 0: m = mutate_tile_size(s, rng); break;
      case 1: m = mutate_auto_unroll(s, rng); break;
      case 2: m = mutate_compute_location(s, rng); break;
      default: m = mutate_parallel(s, rng); break;
    }
    if (!m) continue;
    if (auto fixed = repair(std::move(*m))) {
      if (*fixed != s) return fixed;
    }
  }
  return std::nullopt;
}

std::optional<Schedule> ScheduleMutator::crossover(const Schedule &a, const Schedule &b, std::mt19937_64 &rng) const {
  if (a.steps.size() != b.steps.size()) return std::nullopt;
  Schedule child = a;
  std::bernoulli_distribution from_b(0.5);
  for (size_t i = 0; i < a.steps.size(); ++i) {
    if (!same_structure(a.steps[i], b.steps[i])) return std::nullopt;
    if (from_b(rng)) child.steps[i] = b.steps[i];
  }
  return repair(std::move(child));
}

}  // namespace tlp
