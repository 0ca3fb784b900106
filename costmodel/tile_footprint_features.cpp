#include "costmodel/tile_footprint_features.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

#include "costmodel/replayed_stage.h"

namespace tlp {

namespace {

constexpr double kBytesPerElement = 4;  // the operator library's tensors are float32

float log_size(double x) { return float(std::log2(1.0 + x)); }

int64_t dag_work(const DagStage &d) {
  int64_t w = 1;
  for (const DagIter &it : d.iters) w *= std::max<int64_t>(1, it.extent);
  return w;
}

// The stage doing the operator's arithmetic: of the stages that compute their
// DAG stage, the one with the most multiply-adds (softmax has several
// reductions; the tiling of the largest decides). -1 when none computes.
int computing_stage(const LoopState &state) {
  int best = -1;
  int64_t most = 0;
  for (int s = 0; s < state.num_stages(); ++s) {
    const StageState &st = state.stage(s);
    if (!computes_its_dag_stage(state, st)) continue;
    const int64_t w = dag_work(state.dag().stages.at(size_t(st.dag_stage)));
    if (w > most) most = w, best = s;
  }
  return best;
}

// How many values of each of the DAG stage's loops a region covers.
using Region = std::map<std::string, int64_t>;

// Widens `r` to what loops [from, end) of `st` cover: per DAG loop, the product
// of the extents of the loops deriving from it, at most the DAG's extent. A
// fused loop counts whole for each loop it derives from, hence the cap.
void widen_to_loops(Region &r, const DagStage &d, const StageState &st, size_t from) {
  for (const DagIter &dag_it : d.iters) {
    int64_t covered = 1;
    bool found = false;
    for (size_t j = from; j < st.iters.size(); ++j)
      if (st.iters[j].origins.count(dag_it.name)) covered *= st.iters[j].extent, found = true;
    if (found) r[dag_it.name] = std::max(r[dag_it.name], std::min(covered, dag_it.extent));
  }
}

Region single_point(const DagStage &d) {
  Region r;
  for (const DagIter &it : d.iters) r[it.name] = 1;
  return r;
}

// Bytes of the producers the region reads, each producer once (its widest call
// site): per dimension, an index a*x + b*y spans a*(x's region - 1) + b*(y's
// region - 1) + 1 values; one not affine in a loop spans the whole dimension.
double read_bytes(const ComputeDag &dag, const DagStage &d, const Region &r) {
  std::map<int, double> per_producer;
  for (const DagAccess &a : d.accesses) {
    if (a.producer < 0 || a.producer >= int(dag.stages.size())) continue;
    const DagStage &p = dag.stages[size_t(a.producer)];
    double elements = 1;
    for (size_t k = 0; k < a.dims.size(); ++k) {
      const int64_t whole = k < p.iters.size() ? std::max<int64_t>(1, p.iters[k].extent) : 1;
      int64_t span = 1;
      for (const auto &[loop, coef] : a.dims[k]) {
        const auto covered = r.find(loop);
        if (coef == 0 || covered == r.end()) {
          span = whole;
          break;
        }
        span += std::abs(coef) * (covered->second - 1);
      }
      elements *= double(std::min(span, whole));
    }
    double &widest = per_producer[a.producer];
    widest = std::max(widest, elements);
  }
  double total = 0;
  for (const auto &[producer, elements] : per_producer) total += elements;
  return total * kBytesPerElement;
}

class TileWriter {
 public:
  TileWriter(const LoopState &state, int rows, int emb_size, float *out)
      : state_(state), rows_(rows), emb_(emb_size), out_(out) {}

  int written() const { return written_; }

  void write() {
    const int s = computing_stage(state_);
    if (s < 0) return;
    const StageState &st = state_.stage(s);
    const DagStage &d = state_.dag().stages.at(size_t(st.dag_stage));
    Region r = single_point(d);
    for (size_t i = st.iters.size(); i-- > 0;) {
      widen_to_loops(r, d, st, i);
      if (!emit(st.iters[i], d, r, false)) return;
    }
    // The stage runs whole for each iteration of its host's loops; outward
    // from the loop it is computed at, each host loop widens the spatial region.
    for (const StageState *at = &st; at->location == ComputeLocation::At;) {
      const StageState &host = state_.stage(at->attach_stage);
      for (int i = at->attach_iter; i >= 0; --i) {
        widen_to_loops(r, d, host, size_t(i));
        if (!emit(host.iters.at(size_t(i)), d, r, true)) return;
      }
      at = &host;
    }
  }

 private:
  // False once the rows are full. A loop of one iteration adds nothing and gets no row.
  bool emit(const LoopIter &it, const DagStage &d, const Region &r, bool host_loop) {
    if (it.extent <= 1) return true;
    if (written_ >= rows_) return false;
    double work = 1, written_elements = 1;
    for (const DagIter &dag_it : d.iters) {
      work *= double(r.at(dag_it.name));
      if (dag_it.kind == IterKind::Spatial) written_elements *= double(r.at(dag_it.name));
    }
    const float v[kTileRowValues] = {
        3.0f,
        log_size(double(it.extent)),
        it.kind == IterKind::Reduce ? 1.0f : 0.0f,
        it.annotation == Annotation::Parallel ? 1.0f : 0.0f,
        it.annotation == Annotation::Vectorize ? 1.0f : 0.0f,
        it.annotation == Annotation::Unroll ? 1.0f : 0.0f,
        log_size(work),
        log_size(read_bytes(state_.dag(), d, r)),
        log_size(written_elements * kBytesPerElement),
        host_loop ? 1.0f : 0.0f,
    };
    float *row = out_ + size_t(written_) * size_t(emb_);
    for (int k = 0; k < kTileRowValues && kNumStepKinds + k < emb_; ++k) row[kNumStepKinds + k] = v[k];
    ++written_;
    return true;
  }

  const LoopState &state_;
  int rows_, emb_;
  float *out_;
  int written_ = 0;
};

}  // namespace

int write_tile_rows(const LoopState &state, int rows, int emb_size, float *out) {
  TileWriter w(state, rows, emb_size, out);
  w.write();
  return w.written();
}

}  // namespace tlp
