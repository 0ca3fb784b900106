#include "codegen/lower.h"

#include <algorithm>

#include <cctype>
#include <set>
#include <sstream>

#include "search/loop_state.h"

namespace tlp {
namespace {

using Halide::VarOrRVar;

// One state stage as Halide sees it: the Func (or input), and its loops in the
// same order as the LoopState's iters.
struct HalideStage {
  Halide::Func func;                // undefined for inputs
  Halide::ImageParam param;         // defined for inputs
  bool input = false;
  bool update = false;              // schedule the update definition, not the pure one
  std::string src;                  // the C++ expression naming it in the emitted source
  std::vector<VarOrRVar> loops;
  bool guarded = false;             // an update split that does not divide its loop (a guarded tail)
  std::set<std::string> guarded_parts;  // an update's pure loops inside such a split's tail (see annotate)
  bool cache = false;               // a cache-read copy (its tails are guarded, see split)
  // A cache-write accumulator's extents, given to Halide once all splits are in
  // (see bound_local_tile): a rounded-up tail widens its loop's.
  std::vector<std::pair<Halide::Var, int64_t>> tile_bounds;
};

std::string cxx_name(const std::string &name) {
  std::string out = name;
  for (char &c : out)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return out;
}

VarOrRVar make_loop(const LoopIter &it) {
  if (it.kind == IterKind::Reduce) return Halide::RVar(it.name);
  return Halide::Var(it.name);
}

std::vector<VarOrRVar> pure_loops(const Halide::Func &f) {
  std::vector<VarOrRVar> loops;
  const auto args = f.args();
  for (auto it = args.rbegin(); it != args.rend(); ++it) loops.emplace_back(*it);
  return loops;
}

class Lowering {
 public:
  Lowering(const Operator &op, const ComputeDag &dag, const Halide::Target &target)
      : op_(op), dag_(dag), target_(target), state_(dag), alg_(op.build()) {
    for (size_t i = 0; i < alg_.inputs.size(); ++i) {
      HalideStage hs;
      hs.input = true;
      hs.param = alg_.inputs[i];
      hs.src = cxx_name(hs.param.name());
      stages_.push_back(hs);
    }
    for (auto &s : alg_.stages) {
      HalideStage hs;
      hs.func = s.func;
      hs.src = cxx_name(s.func.name());
      hs.update = s.func.num_update_definitions() > 0;
      hs.loops = pure_loops(s.func);
      if (hs.update) {
        const auto rvars = s.func.function().update(0).schedule().rvars();
        for (auto it = rvars.rbegin(); it != rvars.rend(); ++it) hs.loops.emplace_back(Halide::RVar(it->var));
      }
      stages_.push_back(hs);
    }
    output_ = alg_.stages.back().func;
  }

  void apply(const Step &step) {
    const LoopState before = state_;
    state_.apply(step);  // validates; throws ScheduleError naming the step
    switch (step.kind) {
      case StepKind::SP: split(before, step, step.factors); break;
      case StepKind::FSP: split(before, step, before.fsp_factors(step)); break;
      case StepKind::RE: reorder(step); break;
      case StepKind::FU: fuse(step); break;
      case StepKind::AN: annotate(step); break;
      case StepKind::CA: compute_at(step); break;
      case StepKind::CI:
      case StepKind::CR:
      case StepKind::PR: break;  // applied once all steps are in (see finish)
      case StepKind::CHW: cache_write(step); break;
      case StepKind::CHR: cache_read(step); break;
      case StepKind::RF: rfactor(step); break;
    }
  }

  LoweredKernel finish() {
    for (size_t s = 0; s < stages_.size(); ++s) {
      const StageState &st = state_.stage(int(s));
      HalideStage &hs = stages_[s];
      if (hs.input || st.is_output) continue;
      if (st.location == ComputeLocation::Root) {
        hs.func.compute_root();
        emit(hs.src + ".compute_root();");
      } else if (st.location == ComputeLocation::Inline) {
        hs.func.compute_inline();
        emit(hs.src + ".compute_inline();");
      }
    }
    if (target_.has_gpu_feature())
      for (size_t s = 0; s < stages_.size(); ++s) gpu_initialization(int(s));
    for (HalideStage &hs : stages_) apply_tile_bounds(hs);
    for (size_t s = 0; s < stages_.size(); ++s) explicit_unroll(int(s));
    for (size_t s = 0; s < stages_.size(); ++s) auto_unroll(int(s));
    specialize_shapes();
    LoweredKernel k;
    k.output = output_;
    k.inputs = alg_.inputs;
    k.schedule_source = source_.str();
    return k;
  }

 private:
  void emit(const std::string &line) { source_ << line << "\n"; }

  Halide::Stage stage_of(HalideStage &hs) {
    if (hs.input) throw ScheduleError("internal: inputs have no schedule");
    return hs.update ? hs.func.update(0) : Halide::Stage(hs.func);
  }
  std::string stage_src(const HalideStage &hs) const { return hs.src + (hs.update ? ".update(0)" : ""); }

  static std::string loop_src(const VarOrRVar &v) { return cxx_name(v.name()); }

  void split(const LoopState &before, const Step &step, const std::vector<int> &factors) {
    HalideStage &hs = stages_[step.stage];
    const StageState &after = state_.stage(step.stage);
    VarOrRVar rest = hs.loops[step.iter];
    const bool reduce = before.stage(step.stage).iters[step.iter].kind == IterKind::Reduce;
    int64_t inner = 1;
    for (int f : factors) inner *= f;
    std::vector<VarOrRVar> parts;
    Halide::Stage stage = stage_of(hs);
    const bool rounded = hs.update && before.can_round_up(step.stage, step.iter);
    for (size_t i = 0; i <= factors.size(); ++i) {
      const LoopIter &piece = after.iters[step.iter + i];
      if (i == factors.size()) {
        parts.push_back(rest);
        break;
      }
      VarOrRVar outer = make_loop(piece);
      VarOrRVar next = reduce ? VarOrRVar(Halide::RVar(piece.name + "_r")) : VarOrRVar(Halide::Var(piece.name + "_r"));
      if (i + 1 == factors.size()) next = make_loop(after.iters[step.iter + i + 1]);
      // An update cannot recompute points (ShiftInwards): its tails are rounded up
      // where the loop state allows it (the first split of a loop whose extra
      // points read nothing past an input, in a stage no one outside sees) and
      // guarded otherwise. A cache's region may be smaller than its split (a GPU
      // block's threads loading a small chunk), where ShiftInwards would read
      // before the input's start. Other pure stages keep Halide's choice.
      const bool round_up = rounded && i == 0;
      if (round_up) round_up_tile_bound(hs, rest.name(), inner);
      const bool guard = !round_up && (hs.update || hs.cache);
      const auto tail = round_up ? Halide::TailStrategy::RoundUp
                        : guard  ? Halide::TailStrategy::GuardWithIf
                                 : Halide::TailStrategy::Auto;
      if (guard && hs.update && before.stage(step.stage).iters[step.iter].extent % inner != 0) hs.guarded = true;
      stage.split(rest, outer, next, int(inner), tail);
      emit(stage_src(hs) + ".split(" + loop_src(rest) + ", " + loop_src(outer) + ", " + loop_src(next) + ", " +
           std::to_string(inner) +
           (round_up ? ", TailStrategy::RoundUp" : guard ? ", TailStrategy::GuardWithIf" : "") + ");");
      parts.push_back(outer);
      rest = next;
      inner /= factors[i];
    }
    hs.loops.erase(hs.loops.begin() + step.iter);
    hs.loops.insert(hs.loops.begin() + step.iter, parts.begin(), parts.end());
    if (!rounded) note_guarded_parts(step, before.stage(step.stage).iters[step.iter], factors);
  }

  // Records the inner parts of an update's pure split that leaves a guarded
  // tail, or that splits such a part again.
  void note_guarded_parts(const Step &step, const LoopIter &split, const std::vector<int> &factors) {
    HalideStage &hs = stages_[step.stage];
    const StageState &after = state_.stage(step.stage);
    if (!hs.update || split.kind == IterKind::Reduce) return;
    int64_t inner = 1;
    for (int f : factors) inner *= f;
    if (split.extent % inner == 0 && !hs.guarded_parts.count(split.name)) return;
    for (size_t i = 1; i <= factors.size(); ++i) hs.guarded_parts.insert(after.iters[size_t(step.iter) + i].name);
  }

  void reorder(const Step &step) {
    HalideStage &hs = stages_[step.stage];
    std::vector<VarOrRVar> next;
    for (int id : step.ids) next.push_back(hs.loops[id]);
    hs.loops = next;
    std::vector<VarOrRVar> innermost_first(next.rbegin(), next.rend());
    stage_of(hs).reorder(innermost_first);
    std::string args;
    for (const auto &v : innermost_first) args += (args.empty() ? "" : ", ") + loop_src(v);
    emit(stage_src(hs) + ".reorder(" + args + ");");
  }

  void fuse(const Step &step) {
    HalideStage &hs = stages_[step.stage];
    const LoopIter &fused_iter = state_.stage(step.stage).iters[step.ids.front()];
    const bool reduce = fused_iter.kind == IterKind::Reduce;
    VarOrRVar acc = hs.loops[step.ids.front()];
    Halide::Stage stage = stage_of(hs);
    for (size_t i = 1; i < step.ids.size(); ++i) {
      const std::string name = i + 1 == step.ids.size() ? fused_iter.name : fused_iter.name + std::to_string(i);
      VarOrRVar fused = reduce ? VarOrRVar(Halide::RVar(name)) : VarOrRVar(Halide::Var(name));
      VarOrRVar inner = hs.loops[step.ids[i]];
      stage.fuse(inner, acc, fused);
      emit(stage_src(hs) + ".fuse(" + loop_src(inner) + ", " + loop_src(acc) + ", " + loop_src(fused) + ");");
      acc = fused;
    }
    const int first = step.ids.front();
    hs.loops.erase(hs.loops.begin() + first, hs.loops.begin() + first + int(step.ids.size()));
    hs.loops.insert(hs.loops.begin() + first, acc);
  }

  void annotate(const Step &step) {
    HalideStage &hs = stages_[step.stage];
    const VarOrRVar v = hs.loops[step.iter];
    Halide::Stage stage = stage_of(hs);
    const bool gpu = target_.has_gpu_feature();
    switch (step.annotation) {
      case Annotation::Parallel:
        stage.parallel(v);
        emit(stage_src(hs) + ".parallel(" + loop_src(v) + ");");
        break;
      case Annotation::Vectorize:
        // Halide 14 miscompiles a vectorized loop inside an update's guarded
        // tail: the guard and the loop's index term vanish and the same lanes
        // are added again (layernorm's rows, tiled by 40, split by 32 around a
        // vectorized 8; see the Lower tests). Such a loop stays scalar.
        if (hs.update && hs.guarded_parts.count(v.name())) {
          emit("// " + stage_src(hs) + ".vectorize(" + loop_src(v) +
               ") left out: it is inside a guarded tail of an update (Halide 14 miscompiles it)");
          break;
        }
        stage.vectorize(v);
        emit(stage_src(hs) + ".vectorize(" + loop_src(v) + ");");
        break;
      case Annotation::Unroll: break;  // in finish(), once the loop nest is final (see explicit_unroll)
      case Annotation::GpuBlock:
      case Annotation::GpuThread: {
        if (!gpu) throw ScheduleError("step " + step.to_text() + ": GPU annotations need a GPU target, not " + target_.to_string());
        const bool block = step.annotation == Annotation::GpuBlock;
        if (block) stage.gpu_blocks(v);
        else stage.gpu_threads(v);
        emit(stage_src(hs) + (block ? ".gpu_blocks(" : ".gpu_threads(") + loop_src(v) + ");");
        break;
      }
      case Annotation::None: break;
    }
  }

  void compute_at(const Step &step) {
    HalideStage &hs = stages_[step.stage];
    HalideStage &target = stages_[step.target_stage];
    const VarOrRVar v = target.loops[step.target_iter];
    if (v.is_rvar) hs.func.compute_at(target.func, v.rvar);
    else hs.func.compute_at(target.func, v.var);
    emit(hs.src + ".compute_at(" + target.src + ", " + loop_src(v) + ");");
    if (state_.stage(step.stage).origin == StageOrigin::CacheWriteLocal) bound_local_tile(step.stage);
  }

  // A cache-write accumulator computed in its copy's tile covers exactly that
  // tile (the copy reads it point for point and its splits shift inwards), which
  // the loop state knows. Saying so fixes its size; without it, where the tile's
  // corner zigzags along a fused loop and the accumulator's rows are split by 1,
  // Halide 14's bounds ask the inputs for rows past their end (matmul 512^3
  // asked A for row 1019; see the Lower tests).
  void bound_local_tile(int s) {
    const StageState &st = state_.stage(s);
    if (st.transformed) return;  // the state's extents are only estimates after the stage's own splits
    // Below a fused loop the state's region is an estimate too (the fused loop
    // counts whole for every dimension it came from): leave it to Halide.
    const StageState &host = state_.stage(st.attach_stage);
    for (size_t j = size_t(st.attach_iter) + 1; j < host.iters.size(); ++j)
      if (host.iters[j].origins.size() > 1) return;
    HalideStage &hs = stages_[s];
    const std::vector<Halide::Var> args = hs.func.args();  // innermost first
    const int n = st.num_spatial_iters();
    if (int(args.size()) != n) return;
    for (int d = 0; d < n; ++d) hs.tile_bounds.emplace_back(args[size_t(n - 1 - d)], st.iters[d].extent);
  }

  // A rounded-up split of a bounded accumulator's loop computes whole parts:
  // its bound grows to the next multiple of the split.
  static void round_up_tile_bound(HalideStage &hs, const std::string &loop, int64_t split) {
    for (auto &[var, extent] : hs.tile_bounds)
      if (var.name() == loop) extent = (extent + split - 1) / split * split;
  }

  void apply_tile_bounds(HalideStage &hs) {
    for (const auto &[var, extent] : hs.tile_bounds) {
      hs.func.bound_extent(var, int(extent));
      emit(hs.src + ".bound_extent(" + cxx_name(var.name()) + ", " + std::to_string(extent) + ");");
    }
  }

  void cache_write(const Step &step) {
    // The original Func keeps the reduction (it becomes S.local); a new Func copies it out.
    HalideStage local = stages_[step.stage];
    HalideStage copy;
    copy.src = local.src + "_copy";
    if (local.func.name() == output_.name()) {
      Halide::Func out(local.func.name() + "_out");
      std::vector<Halide::Var> args = local.func.args();
      out(args) = local.func(args);
      copy.func = out;
      output_ = out;
      emit("Func " + copy.src + "(\"" + out.name() + "\"); " + copy.src + "(args) = " + local.src + "(args);");
    } else {
      copy.func = local.func.in();
      emit("Func " + copy.src + " = " + local.src + ".in();");
    }
    copy.loops = pure_loops(copy.func);
    if (step.scope == MemScope::Shared) local.func.store_in(Halide::MemoryType::GPUShared);
    stages_[step.stage] = local;
    stages_.insert(stages_.begin() + step.stage + 1, copy);
  }

  void cache_read(const Step &step) {
    HalideStage &reader = stages_[step.target_stage];
    HalideStage &src = stages_[step.stage];
    HalideStage cache;
    cache.func = src.input ? src.param.in(reader.func) : src.func.in(reader.func);
    cache.src = src.src + "_cache";
    cache.cache = true;
    cache.loops = pure_loops(cache.func);
    emit("Func " + cache.src + " = " + src.src + ".in(" + reader.src + ");");
    if (step.scope == MemScope::Shared) {
      cache.func.store_in(Halide::MemoryType::GPUShared);
      emit(cache.src + ".store_in(MemoryType::GPUShared);");
    }
    stages_.insert(stages_.begin() + step.stage + 1, cache);
  }

  void rfactor(const Step &step) {
    HalideStage &hs = stages_[step.stage];
    const LoopIter &kept = state_.stage(step.stage).iters[step.iter];  // the .rf stage, already inserted
    Halide::Var v(kept.name);
    const VarOrRVar r = hs.loops[step.iter];
    if (!r.is_rvar) throw ScheduleError("step " + step.to_text() + ": the loop is not a reduction loop");
    HalideStage rf;
    rf.func = hs.func.update(0).rfactor(r.rvar, v);
    rf.update = true;
    rf.src = hs.src + "_rf";
    rf.loops = hs.loops;
    rf.loops[step.iter] = v;
    emit("Func " + rf.src + " = " + stage_src(hs) + ".rfactor(" + loop_src(r) + ", " + loop_src(v) + ");");
    // The original now reduces over the partial results: its loops are Halide's.
    hs.loops.clear();
    for (const auto &d : hs.func.function().update(0).schedule().dims()) {
      if (d.var == Halide::Var::outermost().name()) continue;
      // Halide qualifies the new reduction variable ("rn.rn_0"); scheduling
      // calls take the unqualified name.
      const std::string name = d.var.substr(d.var.rfind('.') + 1);
      if (d.is_rvar()) hs.loops.insert(hs.loops.begin(), Halide::RVar(name));
      else hs.loops.insert(hs.loops.begin(), Halide::Var(name));
    }
    const StageState &after = state_.stage(step.stage + 1);
    if (hs.loops.size() != after.iters.size())
      throw ScheduleError("step " + step.to_text() + ": Halide's rfactor left " + std::to_string(hs.loops.size()) +
                          " loops where the IR expects " + std::to_string(after.iters.size()));
    stages_.insert(stages_.begin() + step.stage, rf);
  }

  // The steps schedule a reduction's update; at root on a GPU its pure
  // definition (the initial value) would otherwise run on the host, with copies
  // between host and device around it. It runs as a 1-D grid instead: the pure
  // loops fused, in blocks of 128 threads.
  void gpu_initialization(int s) {
    const StageState &st = state_.stage(s);
    HalideStage &hs = stages_[size_t(s)];
    if (hs.input || !hs.update || st.location != ComputeLocation::Root) return;
    const bool on_gpu = std::any_of(st.iters.begin(), st.iters.end(), [](const LoopIter &it) {
      return it.annotation == Annotation::GpuBlock || it.annotation == Annotation::GpuThread;
    });
    if (!on_gpu) return;
    const std::vector<Halide::Var> args = hs.func.args();  // innermost first
    Halide::Var fused = args.front();
    for (size_t i = 1; i < args.size(); ++i) {
      const Halide::Var next(hs.func.name() + "_init_f" + std::to_string(i));
      hs.func.fuse(fused, args[i], next);
      emit(hs.src + ".fuse(" + cxx_name(fused.name()) + ", " + cxx_name(args[i].name()) + ", " + cxx_name(next.name()) +
           ");");
      fused = next;
    }
    const Halide::Var block(hs.func.name() + "_init_b"), thread(hs.func.name() + "_init_t");
    hs.func.gpu_tile(fused, block, thread, 128, Halide::TailStrategy::GuardWithIf);
    emit(hs.src + ".gpu_tile(" + cxx_name(fused.name()) + ", " + cxx_name(block.name()) + ", " + cxx_name(thread.name()) +
         ", 128, TailStrategy::GuardWithIf);");
  }

  // Halide 14 miscompiles an unrolled loop around a vectorized one when the stage
  // has a guarded tail: in the tail the last unrolled copy loses its guard and
  // adds twice (found by tuning matmul 512^3; see the Lower tests). Such loops stay
  // serial; the schedule is otherwise kept.
  bool unroll_is_unsafe(int s, int i) const {
    if (!stages_[s].guarded) return false;
    const StageState &st = state_.stage(s);
    for (size_t j = size_t(i) + 1; j < st.iters.size(); ++j)
      if (st.iters[j].annotation == Annotation::Vectorize) return true;
    return false;
  }

  void explicit_unroll(int s) {
    const StageState &st = state_.stage(s);
    HalideStage &hs = stages_[s];
    if (hs.input) return;
    for (size_t i = 0; i < st.iters.size(); ++i) {
      if (st.iters[i].annotation != Annotation::Unroll) continue;
      if (unroll_is_unsafe(s, int(i))) {
        emit("// " + stage_src(hs) + ".unroll(" + loop_src(hs.loops[i]) +
             ") left out: a vectorized loop inside a guarded tail (Halide 14 miscompiles it)");
        continue;
      }
      stage_of(hs).unroll(hs.loops[i]);
      emit(stage_src(hs) + ".unroll(" + loop_src(hs.loops[i]) + ");");
    }
  }

  // PR: unroll the innermost loops while their extents (a vectorized loop's as
  // its native vectors) multiply to at most the limit. Only loops whose extent is
  // a compile-time constant are unrolled.
  void auto_unroll(int s) {
    const StageState &st = state_.stage(s);
    if (st.auto_unroll <= 0 || stages_[s].input) return;
    HalideStage &hs = stages_[s];
    int64_t product = 1;
    for (int i = int(st.iters.size()) - 1; i >= 0; --i) {
      const LoopIter &it = st.iters[i];
      if (it.annotation == Annotation::Vectorize) {
        product *= native_vectors(hs, it.extent);
        continue;
      }
      if (it.annotation != Annotation::None && it.annotation != Annotation::Unroll) break;
      // Stop at a loop that holds another stage: unrolling it would copy that stage's whole loop nest.
      if (!state_.attached_at(s, i).empty()) break;
      if (at_block_level(st, i)) break;
      const bool constant = it.kind == IterKind::Reduce || st.location == ComputeLocation::Root || is_inner_split(it.name);
      if (!constant || product * it.extent > st.auto_unroll || unroll_is_unsafe(s, i)) break;
      product *= it.extent;
      if (it.annotation == Annotation::None) {
        stage_of(hs).unroll(hs.loops[i]);
        emit(stage_src(hs) + ".unroll(" + loop_src(hs.loops[i]) + ");  // auto-unroll " + std::to_string(st.auto_unroll));
      }
    }
  }

  // The native vector instructions one iteration of a vectorized loop of
  // `lanes` becomes on a CPU. They count toward a stage's auto-unroll budget:
  // LLVM compiles every unrolled copy of each, and a root pad stage unrolled 400
  // times around 56 lanes (7 AVX2 vectors) took over 20 s to build (1 on a GPU,
  // where a vectorized loop is rare and the budget is kept as it was).
  int64_t native_vectors(const HalideStage &hs, int64_t lanes) const {
    if (target_.has_gpu_feature()) return 1;
    const int natural = std::max(1, target_.natural_vector_size(hs.func.output_types().front()));
    return std::max<int64_t>(1, (lanes + natural - 1) / natural);
  }

  // A loop inside a kernel's block loops but outside its thread loops runs in
  // one thread while the others wait (a cross-thread reduction adding up its
  // partials). Halide puts a barrier between block-level statements, so
  // unrolling such a loop would put one after every iteration.
  static bool at_block_level(const StageState &st, int i) {
    bool in_block = false;
    for (int j = 0; j < i; ++j) {
      if (st.iters[j].annotation == Annotation::GpuThread) return false;
      in_block = in_block || st.iters[j].annotation == Annotation::GpuBlock;
    }
    return in_block;
  }

  static bool is_inner_split(const std::string &name) {
    const size_t us = name.rfind('_');
    return us != std::string::npos && us + 1 < name.size() && std::isdigit(static_cast<unsigned char>(name[us + 1])) &&
           name.substr(us + 1) != "0";
  }

  // Fixed shapes let Halide drop stride arithmetic and tail checks.
  void specialize_shapes() {
    const auto in_shapes = op_.input_shapes();
    for (size_t i = 0; i < alg_.inputs.size(); ++i) constrain(alg_.inputs[i], in_shapes[i]);
    const Shape out_shape = op_.output_shape();
    const auto args = output_.args();
    int64_t stride = 1;
    for (size_t d = 0; d < args.size(); ++d) {
      output_.bound(args[d], 0, int(out_shape[d]));
      output_.output_buffer().dim(int(d)).set_bounds(0, int(out_shape[d])).set_stride(int(stride));
      stride *= out_shape[d];
    }
  }

  static void constrain(Halide::ImageParam &p, const Shape &shape) {
    int64_t stride = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      p.dim(int(d)).set_bounds(0, int(shape[d])).set_stride(int(stride));
      stride *= shape[d];
    }
  }

  const Operator &op_;
  const ComputeDag &dag_;
  Halide::Target target_;
  LoopState state_;
  HalideAlgorithm alg_;
  std::vector<HalideStage> stages_;
  Halide::Func output_;
  std::ostringstream source_;
};

}  // namespace

LoweredKernel lower_schedule(const Operator &op, const ComputeDag &dag, const Schedule &schedule,
                             const Halide::Target &target) {
  Lowering lowering(op, dag, target);
  for (const auto &step : schedule.steps) lowering.apply(step);
  return lowering.finish();
}

std::string schedule_to_halide_source(const Operator &op, const ComputeDag &dag, const Schedule &schedule) {
  return lower_schedule(op, dag, schedule, Halide::get_host_target()).schedule_source;
}

}  // namespace tlp
