#include "costmodel/workload_features.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "search/step.h"

namespace tlp {
namespace {

float log_size(double x) { return float(std::log2(1.0 + x)); }

int64_t reduction_size(const DagStage &s) {
  int64_t n = 1;
  for (const DagIter &it : s.iters)
    if (it.kind == IterKind::Reduce) n *= it.extent;
  return n;
}

// The stage's innermost spatial loop: the one that walks its contiguous dimension.
const DagIter *innermost_spatial(const DagStage &s) {
  for (auto it = s.iters.rbegin(); it != s.iters.rend(); ++it)
    if (it->kind == IterKind::Spatial) return &*it;
  return nullptr;
}

bool is_spatial_loop(const DagStage &s, const std::string &name) {
  for (const DagIter &it : s.iters)
    if (it.name == name) return it.kind == IterKind::Spatial;
  return false;
}

// The largest coefficient of a spatial loop in any index of any access: a
// convolution of stride 2 reads input row oh*2 + ry, so 2.
int64_t largest_stride(const DagStage &s) {
  int64_t best = 0;
  for (const DagAccess &a : s.accesses)
    for (const auto &dim : a.dims)
      for (const auto &[loop, coef] : dim)
        if (is_spatial_loop(s, loop)) best = std::max(best, std::abs(coef));
  return best;
}

// How far apart consecutive iterations of the stage's innermost spatial loop
// read in a producer's contiguous dimension, the largest over its accesses:
// 1 is contiguous, 2 every other element, 0 the loop does not move along it.
int64_t innermost_read_step(const DagStage &s) {
  const DagIter *inner = innermost_spatial(s);
  if (!inner) return 0;
  int64_t best = 0;
  for (const DagAccess &a : s.accesses) {
    if (a.dims.empty()) continue;
    for (const auto &[loop, coef] : a.dims.back())
      if (loop == inner->name) best = std::max(best, std::abs(coef));
  }
  return best;
}

int64_t points_read(const ComputeDag &dag, const DagStage &s) {
  int64_t n = 0;
  for (int r : s.reads)
    if (r >= 0 && r < int(dag.stages.size())) n += dag.stages[size_t(r)].points();
  return n;
}

}  // namespace

int write_workload_rows(const ComputeDag &dag, int rows, int emb_size, float *out) {
  int written = 0;
  for (size_t i = 0; i < dag.stages.size() && written < rows; ++i) {
    const DagStage &s = dag.stages[i];
    if (s.placeholder) continue;
    const DagIter *inner = innermost_spatial(s);
    const float v[kWorkloadRowValues] = {
        2.0f,
        float(i),
        s.is_output ? 1.0f : 0.0f,
        log_size(double(s.points())),
        log_size(double(reduction_size(s))),
        log_size(inner ? double(inner->extent) : 0.0),
        float(largest_stride(s)),
        float(innermost_read_step(s)),
        float(s.reads.size()),
        log_size(double(points_read(dag, s))),
    };
    float *row = out + size_t(written) * size_t(emb_size);
    for (int k = 0; k < kWorkloadRowValues && kNumStepKinds + k < emb_size; ++k) row[kNumStepKinds + k] = v[k];
    ++written;
  }
  return written;
}

}  // namespace tlp
