#include "search/loop_state.h"

#include <algorithm>
#include <sstream>

namespace tlp {
namespace {

// Loops that annotations can handle as constants; bigger ones are a user error.
constexpr int64_t kMaxVectorExtent = 64;
constexpr int64_t kMaxUnrollExtent = 512;

bool reads_stage(const StageState &st, int s) { return std::find(st.reads.begin(), st.reads.end(), s) != st.reads.end(); }

}  // namespace

int StageState::num_spatial_iters() const {
  int n = 0;
  for (const auto &it : iters) n += it.kind == IterKind::Spatial;
  return n;
}

bool StageState::has_reduction() const {
  for (const auto &it : iters)
    if (it.kind == IterKind::Reduce) return true;
  return false;
}

LoopState::LoopState(const ComputeDag &dag) : dag_(&dag) {
  for (size_t i = 0; i < dag.stages.size(); ++i) {
    const DagStage &d = dag.stages[i];
    StageState st;
    st.name = d.name;
    st.dag_stage = int(i);
    st.placeholder = d.placeholder;
    st.is_output = d.is_output;
    st.reads = d.reads;
    for (const auto &it : d.iters) st.iters.push_back({it.name, it.extent, it.kind, Annotation::None, {it.name}});
    stages_.push_back(std::move(st));
  }
}

LoopState LoopState::replay(const ComputeDag &dag, const Schedule &schedule) {
  LoopState state(dag);
  for (const auto &step : schedule.steps) state.apply(step);
  return state;
}

void LoopState::fail(const Step &step, const std::string &why) const {
  throw ScheduleError("step " + std::to_string(history_.size()) + " " + step.to_text() + ": " + why);
}

StageState &LoopState::checked_stage(const Step &step, int s) {
  if (s < 0 || s >= num_stages())
    fail(step, "stage " + std::to_string(s) + " does not exist (there are " + std::to_string(num_stages()) + ")");
  return stages_[s];
}

void LoopState::check_iter(const Step &step, const StageState &st, int iter) const {
  if (iter < 0 || iter >= int(st.iters.size()))
    fail(step, "stage " + st.name + " has " + std::to_string(st.iters.size()) + " loops, no loop " + std::to_string(iter));
}

std::vector<int> LoopState::attached_at(int s, int iter) const {
  std::vector<int> out;
  for (size_t i = 0; i < stages_.size(); ++i)
    if (stages_[i].location == ComputeLocation::At && stages_[i].attach_stage == s && stages_[i].attach_iter == iter)
      out.push_back(int(i));
  return out;
}

std::vector<int> LoopState::fsp_factors(const Step &fsp) const {
  if (fsp.src_step >= int(history_.size()) || history_[fsp.src_step].kind != StepKind::SP)
    throw ScheduleError("FSP source step " + std::to_string(fsp.src_step) + " is not an earlier SP step");
  const auto &f = history_[fsp.src_step].factors;
  if (fsp.n_split > int(f.size()))
    throw ScheduleError("FSP asks for " + std::to_string(fsp.n_split) + " factors; its source SP has " +
                        std::to_string(f.size()));
  return std::vector<int>(f.begin(), f.begin() + fsp.n_split);
}

void LoopState::apply(const Step &step) {
  try {
    step.validate_fields();
  } catch (const ScheduleError &e) {
    fail(step, e.what());
  }
  switch (step.kind) {
    case StepKind::SP: {
      StageState &st = checked_stage(step, step.stage);
      check_iter(step, st, step.iter);
      const LoopIter &it = st.iters[step.iter];
      if (it.extent != step.extent)
        fail(step, "loop " + it.name + " has extent " + std::to_string(it.extent) + ", the step says " +
                       std::to_string(step.extent));
      split(step, step.stage, step.iter, step.factors);
      break;
    }
    case StepKind::FSP: {
      StageState &st = checked_stage(step, step.stage);
      check_iter(step, st, step.iter);
      std::vector<int> factors;
      try {
        factors = fsp_factors(step);
      } catch (const ScheduleError &e) {
        fail(step, e.what());
      }
      split(step, step.stage, step.iter, factors);
      break;
    }
    case StepKind::RE: apply_reorder(step); break;
    case StepKind::FU: apply_fuse(step); break;
    case StepKind::AN: apply_annotation(step); break;
    case StepKind::CA: apply_compute_at(step); break;
    case StepKind::CI: {
      StageState &st = checked_stage(step, step.stage);
      if (st.placeholder) fail(step, st.name + " is an input; there is nothing to inline");
      if (st.is_output) fail(step, st.name + " is the output; it cannot be inlined");
      if (st.has_reduction()) fail(step, st.name + " has a reduction; only reduction-free stages can be inlined");
      for (size_t i = 0; i < stages_.size(); ++i)
        if (stages_[i].location == ComputeLocation::At && stages_[i].attach_stage == step.stage)
          fail(step, stages_[i].name + " is computed at a loop of " + st.name + "; an inlined stage has no loops");
      st.location = ComputeLocation::Inline;
      st.attach_stage = st.attach_iter = -1;
      break;
    }
    case StepKind::CR: {
      StageState &st = checked_stage(step, step.stage);
      if (st.placeholder) fail(step, st.name + " is an input; it has no compute location");
      st.location = ComputeLocation::Root;
      st.attach_stage = st.attach_iter = -1;
      break;
    }
    case StepKind::CHW: apply_cache_write(step); break;
    case StepKind::CHR: apply_cache_read(step); break;
    case StepKind::RF: apply_rfactor(step); break;
    case StepKind::PR: {
      StageState &st = checked_stage(step, step.stage);
      if (st.placeholder) fail(step, st.name + " is an input; it has no loops to unroll");
      check_iter(step, st, step.iter);
      st.auto_unroll = step.value;
      break;
    }
  }
  history_.push_back(step);
}

void LoopState::split(const Step &step, int s, int iter, const std::vector<int> &factors) {
  StageState &st = stages_[s];
  if (st.placeholder) fail(step, st.name + " is an input; it has no loops to split");
  if (st.location == ComputeLocation::Inline) fail(step, st.name + " is inlined; it has no loops to split");
  if (!attached_at(s, iter).empty())
    fail(step, "stage " + stages_[attached_at(s, iter)[0]].name + " is computed at loop " + st.iters[iter].name +
                   "; split before the compute_at");
  LoopIter old = st.iters[iter];
  if (old.annotation != Annotation::None) fail(step, "loop " + old.name + " is already annotated");
  int64_t inner = 1;
  for (int f : factors) inner *= f;
  if (inner > old.extent)
    fail(step, "factors multiply to " + std::to_string(inner) + ", more than loop " + old.name + "'s extent " +
                   std::to_string(old.extent));
  std::vector<LoopIter> parts;
  LoopIter outer = old;
  outer.name = old.name + "_0";
  outer.extent = (old.extent + inner - 1) / inner;
  parts.push_back(outer);
  for (size_t i = 0; i < factors.size(); ++i) {
    LoopIter p = old;
    p.name = old.name + "_" + std::to_string(i + 1);
    p.extent = factors[i];
    parts.push_back(p);
  }
  // Loops attached further in keep their positions relative to the new ones.
  for (auto &other : stages_)
    if (other.location == ComputeLocation::At && &stages_[other.attach_stage] == &st && other.attach_iter > iter)
      other.attach_iter += int(factors.size());
  st.iters.erase(st.iters.begin() + iter);
  st.iters.insert(st.iters.begin() + iter, parts.begin(), parts.end());
  st.transformed = true;
}

void LoopState::apply_reorder(const Step &step) {
  StageState &st = checked_stage(step, step.stage);
  if (st.placeholder || st.location == ComputeLocation::Inline) fail(step, st.name + " has no loops to reorder");
  std::vector<int> sorted = step.ids;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != int(i) || sorted.size() != st.iters.size())
      fail(step, "the order must list each of " + st.name + "'s " + std::to_string(st.iters.size()) + " loops once");
  for (size_t i = 0; i < st.iters.size(); ++i)
    if (!attached_at(step.stage, int(i)).empty() && step.ids[i] != int(i))
      fail(step, "a stage is computed at loop " + st.iters[i].name + "; reorder before the compute_at");
  std::vector<LoopIter> next;
  for (int id : step.ids) next.push_back(st.iters[id]);
  st.iters = next;
  st.transformed = true;
}

void LoopState::apply_fuse(const Step &step) {
  StageState &st = checked_stage(step, step.stage);
  if (st.placeholder || st.location == ComputeLocation::Inline) fail(step, st.name + " has no loops to fuse");
  for (size_t i = 0; i < step.ids.size(); ++i) {
    check_iter(step, st, step.ids[i]);
    if (i && step.ids[i] != step.ids[i - 1] + 1) fail(step, "only adjacent loops, outermost first, can be fused");
  }
  const int first = step.ids.front();
  LoopIter fused = st.iters[first];
  for (size_t i = 0; i < step.ids.size(); ++i) {
    const LoopIter &it = st.iters[step.ids[i]];
    if (it.kind != fused.kind) fail(step, "cannot fuse a spatial loop with a reduction loop");
    if (it.annotation != Annotation::None) fail(step, "loop " + it.name + " is already annotated");
    if (!attached_at(step.stage, step.ids[i]).empty())
      fail(step, "a stage is computed at loop " + it.name + "; fuse before the compute_at");
    if (i == 0) continue;
    fused.name += "_" + it.name;
    fused.extent *= it.extent;
    fused.origins.insert(it.origins.begin(), it.origins.end());
  }
  fused.name += "_f";
  const int n = int(step.ids.size());
  for (auto &other : stages_)
    if (other.location == ComputeLocation::At && &stages_[other.attach_stage] == &st && other.attach_iter > first)
      other.attach_iter -= n - 1;
  st.iters.erase(st.iters.begin() + first, st.iters.begin() + first + n);
  st.iters.insert(st.iters.begin() + first, fused);
  st.transformed = true;
}

void LoopState::apply_annotation(const Step &step) {
  StageState &st = checked_stage(step, step.stage);
  if (st.placeholder || st.location == ComputeLocation::Inline) fail(step, st.name + " has no loops to annotate");
  check_iter(step, st, step.iter);
  LoopIter &it = st.iters[step.iter];
  if (it.annotation != Annotation::None)
    fail(step, "loop " + it.name + " is already annotated " + annotation_name(it.annotation));
  switch (step.annotation) {
    case Annotation::Parallel:
      if (it.kind == IterKind::Reduce) fail(step, "a reduction loop cannot run in parallel (its iterations race)");
      break;
    case Annotation::Vectorize:
      if (it.kind == IterKind::Reduce) fail(step, "a reduction loop cannot be vectorized (its iterations race)");
      if (it.extent > kMaxVectorExtent)
        fail(step, "loop " + it.name + " has extent " + std::to_string(it.extent) + "; vectorize at most " +
                       std::to_string(kMaxVectorExtent) + " (split it first)");
      if (step.iter != int(st.iters.size()) - 1 && st.iters.back().kind == IterKind::Spatial &&
          st.iters.back().annotation == Annotation::Vectorize)
        fail(step, st.name + " already has a vectorized loop");
      break;
    case Annotation::Unroll:
      if (it.extent > kMaxUnrollExtent)
        fail(step, "loop " + it.name + " has extent " + std::to_string(it.extent) + "; unroll at most " +
                       std::to_string(kMaxUnrollExtent));
      break;
    case Annotation::GpuBlock:
    case Annotation::GpuThread:
      if (it.kind == IterKind::Reduce) fail(step, "a reduction loop cannot be bound to GPU blocks or threads");
      break;
    case Annotation::None: break;
  }
  it.annotation = step.annotation;
}

void LoopState::apply_compute_at(const Step &step) {
  StageState &st = checked_stage(step, step.stage);
  StageState &target = checked_stage(step, step.target_stage);
  if (st.placeholder) fail(step, st.name + " is an input; it has no compute location");
  if (st.is_output) fail(step, st.name + " is the output; it is always computed at root");
  check_iter(step, target, step.target_iter);
  if (target.location == ComputeLocation::Inline) fail(step, target.name + " is inlined; it has no loops");
  // The target must consume st, directly or through inlined stages.
  std::vector<int> frontier = {step.stage};
  bool consumes = false;
  for (size_t guard = 0; guard < stages_.size() && !frontier.empty() && !consumes; ++guard) {
    std::vector<int> next;
    for (size_t i = 0; i < stages_.size(); ++i)
      for (int f : frontier)
        if (reads_stage(stages_[i], f)) {
          if (int(i) == step.target_stage) consumes = true;
          if (stages_[i].location == ComputeLocation::Inline) next.push_back(int(i));
        }
    frontier = next;
  }
  if (!consumes) fail(step, target.name + " does not read " + st.name + "; compute a stage only inside a consumer");
  if (target.location == ComputeLocation::At && target.attach_stage == step.stage)
    fail(step, "the two stages would be computed inside each other");
  st.location = ComputeLocation::At;
  st.attach_stage = step.target_stage;
  st.attach_iter = step.target_iter;
  bound_attached_stage(step.stage);
}

namespace {

// How many values of the target's original loop `origin` one iteration of its
// loop `attach_iter` covers (the extents of the inner loops deriving from it),
// or -1 if no loop of the target derives from it.
int64_t inner_region(const StageState &target, int attach_iter, const std::string &origin) {
  bool found = false;
  int64_t region = 1;
  for (size_t j = 0; j < target.iters.size(); ++j) {
    if (!target.iters[j].origins.count(origin)) continue;
    found = true;
    if (int(j) > attach_iter) region *= target.iters[j].extent;
  }
  return found ? region : -1;
}

}  // namespace

// Shrinks an attached stage's loops to the region one iteration of the target's
// loop needs: the product of the target's inner loops deriving from the same
// original loop. Halide infers the real bounds; this is the search's estimate.
// Only whole original loops shrink: a loop already split or fused keeps the
// extents its step recorded. An rfactored or split stage's other loops still
// shrink, so later splits of them fit the region (a split wider than the
// region, guarded and vectorized, is what Halide 14 miscompiled in softmax).
void LoopState::bound_attached_stage(int s) {
  StageState &st = stages_[s];
  if (st.origin == StageOrigin::CacheRead) {
    if (!st.transformed) bound_attached_cache(s);
    return;
  }
  const StageState &target = stages_[st.attach_stage];
  for (auto &it : st.iters) {
    if (it.kind != IterKind::Spatial || !is_whole_original(it)) continue;
    const int64_t region = inner_region(target, st.attach_iter, it.name);
    if (region < 0 || region >= it.extent) continue;
    it.extent = region;
  }
}

// A cache's loops are its source's, indexed by the reader through the DAG's
// accesses: a dimension indexed by oh*2 + ry spans 2*(oh's region - 1) + ry's
// region values. A dimension indexed non-affinely keeps its full extent.
void LoopState::bound_attached_cache(int s) {
  StageState &st = stages_[s];
  const StageState &target = stages_[st.attach_stage];
  if (target.dag_stage < 0 || st.dag_stage < 0) return;
  const std::vector<const DagAccess *> sites = dag_->stages[target.dag_stage].accesses_of(st.dag_stage);
  if (sites.empty()) return;
  for (const DagAccess *site : sites)
    if (site->dims.size() != st.iters.size()) return;  // the access does not match the cache's loops: keep the estimate
  for (size_t d = 0; d < st.iters.size(); ++d) {
    int64_t widest = 0;
    for (const DagAccess *site : sites) {
      int64_t span = 1;
      for (const auto &[loop, coef] : site->dims[d]) {
        const int64_t region = inner_region(target, st.attach_iter, loop);
        if (coef == 0 || region < 0) span = st.iters[d].extent;
        else span += (coef < 0 ? -coef : coef) * (region - 1);
      }
      widest = std::max(widest, span);
    }
    st.iters[d].extent = std::min(st.iters[d].extent, widest);
  }
}

void LoopState::insert_stage(int at, StageState st) {
  for (auto &other : stages_) {
    for (int &r : other.reads)
      if (r >= at) ++r;
    if (other.attach_stage >= at) ++other.attach_stage;
  }
  stages_.insert(stages_.begin() + at, std::move(st));
}

bool LoopState::can_round_up(int s, int iter) const {
  const StageState &st = stage(s);
  if (st.is_output || st.placeholder) return false;
  if (st.origin != StageOrigin::Dag && st.origin != StageOrigin::CacheWriteLocal) return false;
  const LoopIter &it = st.iters.at(size_t(iter));
  if (it.kind != IterKind::Spatial || !is_whole_original(it)) return false;
  for (const DagIter &d : dag_->stages.at(size_t(st.dag_stage)).iters)
    if (d.name == it.name) return d.extendable;
  return false;
}

void LoopState::apply_cache_write(const Step &step) {
  StageState &st = checked_stage(step, step.stage);
  if (st.placeholder || !st.has_reduction())
    fail(step, st.name + " has no reduction; cache writes are for accumulating stages");
  if (st.transformed || st.origin != StageOrigin::Dag)
    fail(step, "cache-write " + st.name + " before transforming its loops");
  if (st.location == ComputeLocation::At) fail(step, "cache-write " + st.name + " before moving it");
  for (int i = 0; i < int(st.iters.size()); ++i)
    if (!attached_at(step.stage, i).empty())
      fail(step, stages_[attached_at(step.stage, i)[0]].name + " is computed at a loop of " + st.name +
                     "; cache-write before the compute_at");
  StageState local = st;
  local.name = st.name + ".local";
  local.origin = StageOrigin::CacheWriteLocal;
  local.is_output = false;
  local.scope = step.scope;
  // The original stage now only copies the accumulator out: spatial loops, reads .local.
  std::vector<LoopIter> spatial;
  for (const auto &it : st.iters)
    if (it.kind == IterKind::Spatial) spatial.push_back(it);
  st.iters = spatial;
  const int s = step.stage;
  insert_stage(s, local);
  stages_[s + 1].reads = {s};
}

void LoopState::apply_cache_read(const Step &step) {
  StageState &st = checked_stage(step, step.stage);
  checked_stage(step, step.target_stage);
  if (!reads_stage(stages_[step.target_stage], step.stage))
    fail(step, stages_[step.target_stage].name + " does not read " + st.name);
  StageState cache;
  cache.name = st.name + ".cache";
  cache.dag_stage = st.dag_stage;
  cache.origin = StageOrigin::CacheRead;
  cache.scope = step.scope;
  cache.reads = {step.stage};
  for (const auto &it : stages_[step.stage].iters)
    if (it.kind == IterKind::Spatial) cache.iters.push_back({it.name, it.extent, it.kind, Annotation::None, {it.name}});
  const int at = step.stage + 1;
  const int reader = step.target_stage >= at ? step.target_stage + 1 : step.target_stage;
  insert_stage(at, cache);
  for (int &r : stages_[reader].reads)
    if (r == step.stage) r = at;
}

void LoopState::apply_rfactor(const Step &step) {
  StageState &st = checked_stage(step, step.stage);
  check_iter(step, st, step.iter);
  const LoopIter factored = st.iters[step.iter];
  if (factored.kind != IterKind::Reduce) fail(step, "loop " + factored.name + " is not a reduction loop");
  if (st.location == ComputeLocation::At || st.origin != StageOrigin::Dag)
    fail(step, "rfactor " + st.name + " before moving it or caching it");
  StageState rf = st;
  rf.name = st.name + ".rf";
  rf.origin = StageOrigin::RFactor;
  rf.is_output = false;
  // As in Halide, the partial stage keeps the loop nest, the factored loop
  // turned spatial in place; factor_iter is where it sits among the pure args.
  if (step.factor_iter > st.num_spatial_iters())
    fail(step, "factor_iter " + std::to_string(step.factor_iter) + " is past the " +
                   std::to_string(st.num_spatial_iters()) + " spatial loops");
  rf.iters[step.iter].kind = IterKind::Spatial;
  rf.iters[step.iter].name = factored.name + "_v";
  // The original stage now reduces over the partial results only.
  std::vector<LoopIter> kept;
  for (const auto &it : st.iters)
    if (it.kind == IterKind::Spatial) kept.push_back(it);
  LoopIter over = factored;
  over.name = factored.name + "_v";
  over.annotation = Annotation::None;
  kept.push_back(over);
  st.iters = kept;
  st.transformed = true;
  const int s = step.stage;
  insert_stage(s, rf);
  stages_[s + 1].reads = {s};
}

std::vector<int> LoopState::live_consumers(int s) const {
  std::vector<int> out;
  for (int c = 0; c < num_stages(); ++c) {
    const auto &reads = stage(c).reads;
    if (std::find(reads.begin(), reads.end(), s) == reads.end()) continue;
    if (stage(c).location == ComputeLocation::Inline) {
      for (int cc : live_consumers(c)) out.push_back(cc);
    } else {
      out.push_back(c);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int LoopState::find_stage(const std::string &name) const {
  for (int s = 0; s < num_stages(); ++s)
    if (stages_[s].name == name) return s;
  return -1;
}

std::string LoopState::to_text() const {
  std::ostringstream os;
  for (size_t i = 0; i < stages_.size(); ++i) {
    const auto &st = stages_[i];
    if (st.placeholder) continue;
    os << i << " " << st.name << ": ";
    switch (st.location) {
      case ComputeLocation::Root: os << "root"; break;
      case ComputeLocation::Inline: os << "inline"; break;
      case ComputeLocation::At:
        os << "at " << stages_[st.attach_stage].name << "." << stages_[st.attach_stage].iters[st.attach_iter].name;
        break;
    }
    os << " |";
    for (const auto &it : st.iters) {
      os << " " << it.name << "(" << it.extent << (it.kind == IterKind::Reduce ? ",r" : "");
      if (it.annotation != Annotation::None) os << "," << annotation_name(it.annotation);
      os << ")";
    }
    if (st.auto_unroll) os << " auto_unroll=" << st.auto_unroll;
    os << "\n";
  }
  return os.str();
}

}  // namespace tlp
