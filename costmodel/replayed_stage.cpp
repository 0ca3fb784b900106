#include "costmodel/loop_nest_features.h"

#include <cmath>

namespace tlp {

std::string contiguous_loop(const ComputeDag &dag, const StageState &st) {
  if (st.dag_stage < 0 || st.dag_stage >= int(dag.stages.size())) return "";
  const DagStage &d = dag.stages[size_t(st.dag_stage)];
  for (auto it = d.iters.rbegin(); it != d.iters.rend(); ++it)
    if (it->kind == IterKind::Spatial) return it->name;
  return "";
}

bool computes_its_dag_stage(const LoopState &state, const StageState &st) {
  if (st.dag_stage < 0 || st.placeholder) return false;
  if (st.origin == StageOrigin::CacheWriteLocal) return true;
  if (st.origin != StageOrigin::Dag) return false;
  for (int r : st.reads)
    if (state.stage(r).origin == StageOrigin::CacheWriteLocal) return false;
  return true;
}

namespace {

float log_size(double x) { return float(std::log2(1.0 + x)); }

// How many producers the stage evaluates inline, looking through inlined ones:
// an inlined pad puts a select into every access of a convolution.
int inlined_producers(const LoopState &state, const StageState &st) {
  int n = 0;
  for (int r : st.reads) {
    if (r < 0 || r >= state.num_stages()) continue;
    const StageState &p = state.stage(r);
    if (p.location == ComputeLocation::Inline && !p.placeholder) n += 1 + inlined_producers(state, p);
  }
  return n;
}

class NestWriter {
 public:
  NestWriter(const LoopState &state, const ComputeDag &dag, int rows, int emb_size, float *out)
      : state_(state), dag_(dag), rows_(rows), emb_(emb_size), out_(out) {}

  int written() const { return written_; }

  // The stage's loops, then (right after each loop) the stages computed at it.
  // `outer_trips` is how often the stage's body is entered from outside.
  void stage(int s, double outer_trips) {
    const StageState &st = state_.stage(s);
    const std::string contiguous = contiguous_loop(dag_, st);
    const float inlined = float(inlined_producers(state_, st));
    double trips = outer_trips;
    for (size_t i = 0; i < st.iters.size(); ++i) {
      const LoopIter &it = st.iters[i];
      trips *= double(it.extent);
      double inside = 1;
      for (size_t j = i + 1; j < st.iters.size(); ++j) inside *= double(st.iters[j].extent);
      const std::vector<int> attached = state_.attached_at(s, int(i));
      float v[kLoopRowValues] = {
          1.0f,
          log_size(double(it.extent)),
          it.kind == IterKind::Reduce ? 1.0f : 0.0f,
          it.annotation == Annotation::Parallel ? 1.0f : 0.0f,
          it.annotation == Annotation::Vectorize ? 1.0f : 0.0f,
          it.annotation == Annotation::Unroll ? 1.0f : 0.0f,
          it.annotation == Annotation::GpuBlock ? 1.0f : 0.0f,
          it.annotation == Annotation::GpuThread ? 1.0f : 0.0f,
          !contiguous.empty() && it.origins.count(contiguous) ? 1.0f : 0.0f,
          log_size(trips),
          log_size(inside),
          float(i),
          float(attached.size()),
          st.origin == StageOrigin::CacheWriteLocal ? 1.0f : 0.0f,
          st.origin == StageOrigin::CacheRead ? 1.0f : 0.0f,
          st.origin == StageOrigin::RFactor ? 1.0f : 0.0f,
          st.is_output ? 1.0f : 0.0f,
          log_size(double(st.auto_unroll)),
          st.scope == MemScope::Shared ? 1.0f : 0.0f,
          st.scope == MemScope::Local ? 1.0f : 0.0f,
          i == 0 ? 1.0f : 0.0f,
          inlined,
      };
      if (!emit(v)) return;
      for (int a : attached) stage(a, trips);
    }
  }

 private:
  bool emit(const float (&v)[kLoopRowValues]) {
    if (written_ >= rows_) return false;
    float *row = out_ + size_t(written_) * size_t(emb_);
    for (int k = 0; k < kLoopRowValues && kNumStepKinds + k < emb_; ++k) row[kNumStepKinds + k] = v[k];
    ++written_;
    return true;
  }

  const LoopState &state_;
  const ComputeDag &dag_;
  int rows_, emb_;
  float *out_;
  int written_ = 0;
};

}  // namespace

int write_loop_nest_rows(const LoopState &state, int rows, int emb_size, float *out) {
  NestWriter w(state, state.dag(), rows, emb_size, out);
  for (int s = 0; s < state.num_stages(); ++s) {
    const StageState &st = state.stage(s);
    if (!st.placeholder && st.location == ComputeLocation::Root) w.stage(s, 1.0);
  }
  return w.written();
}

}  // namespace tlp
