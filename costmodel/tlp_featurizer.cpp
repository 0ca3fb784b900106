#include "costmodel/tlp_featurizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "costmodel/replayed_stage.h"
#include "costmodel/tile_footprint_features.h"
#include "search/loop_state.h"

namespace tlp {

const char *feature_scaling_name(FeatureScaling s) { return s == FeatureScaling::Raw ? "raw" : "log"; }

FeatureScaling feature_scaling_from_name(const std::string &name) {
  if (name == "raw") return FeatureScaling::Raw;
  if (name == "log") return FeatureScaling::Log;
  throw std::invalid_argument("unknown feature scaling '" + name + "' (known: raw, log)");
}

void check_featurizer_options(const FeaturizerOptions &o) {
  if (o.seq_len < 1 || o.emb_size < 1)
    throw std::invalid_argument("the feature matrix must have at least one row and column (seq_len " +
                                std::to_string(o.seq_len) + ", emb_size " + std::to_string(o.emb_size) + ")");
  if (o.tile_rows < 0 || o.step_rows() < 1)
    throw std::invalid_argument("tile_rows " + std::to_string(o.tile_rows) +
                                " must be at least 0 and leave rows of seq_len " + std::to_string(o.seq_len) +
                                " for the steps");
}

const ComputeDag *dag_for_features(const FeaturizerOptions &options, const DagLookup &dags,
                                   const std::string &workload_key) {
  if (!options.needs_dag()) return nullptr;
  const ComputeDag *dag = dags ? dags(workload_key) : nullptr;
  if (!dag)
    throw std::invalid_argument("the model's features describe the operator or its loop nest, which needs the "
                                "operator of '" + workload_key +
                                "', and it is not known here (is the workload key from a newer tlptune?). Features "
                                "without named loops, nest, tile or workload rows (train --recipe paper) need no operator");
  return dag;
}

namespace {

// The split's tail values: whether any level leaves a remainder, and how many
// iterations the tiled loops run beyond the extent, as a share of it. Factors
// are the inner lengths, outermost first: ext 112 by [3,32] runs 2 x 3 x 32.
std::pair<float, float> split_tail(const Step &s) {
  if (s.extent <= 0 || s.factors.empty()) return {0.0f, 0.0f};
  int64_t inner = 1;
  bool remainder = false;
  for (auto f = s.factors.rbegin(); f != s.factors.rend(); ++f) {
    inner *= *f;
    remainder |= s.extent % inner != 0;
  }
  const int64_t outer = (s.extent + inner - 1) / inner;
  return {remainder ? 1.0f : 0.0f, float(double(outer * inner - s.extent) / double(s.extent))};
}

float scaled(const FeaturizerOptions &o, double v) {
  return float(o.scaling == FeatureScaling::Log ? std::copysign(std::log2(1.0 + std::fabs(v)), v) : v);
}

// How many times 2 divides n, up to 6 (64 lanes or threads is plenty).
float twos_in(int64_t n) {
  int twos = 0;
  while (n > 0 && n % 2 == 0 && twos < 6) n /= 2, ++twos;
  return float(twos);
}

int64_t extent_product(const std::vector<LoopIter> &iters, size_t count) {
  int64_t p = 1;
  for (size_t i = 0; i < std::min(count, iters.size()); ++i) p *= std::max<int64_t>(1, iters[i].extent);
  return p;
}

// How consecutive iterations of `it` walk the memory they read, the worst read:
// its coefficient in the producer's contiguous dimension (1 dense, 2 every other
// element), kGather when it moves only along an outer dimension, 0 when no read
// depends on it (a broadcast). A stride-2 convolution vectorized along its
// output columns reads every other input element; the steps alone cannot say.
constexpr int64_t kGather = 64;
int64_t read_step(const DagStage &stage, const LoopIter &it) {
  int64_t worst = 0;
  for (const DagAccess &a : stage.accesses)
    for (size_t d = 0; d < a.dims.size(); ++d)
      for (const auto &[loop, coef] : a.dims[d])
        if (coef != 0 && it.origins.count(loop))
          worst = std::max(worst, d + 1 == a.dims.size() ? std::abs(coef) : kGather);
  return worst;
}

// The values a step just applied to `state` gets for the loop it names, last
// column last; none for a step that names no loop.
std::vector<float> named_loop_values(const Step &s, const LoopState &state, const FeaturizerOptions &o) {
  switch (s.kind) {
    case StepKind::AN: {
      const StageState &st = state.stage(s.stage);
      const LoopIter &it = st.iters.at(size_t(s.iter));
      float store = 0, step = 0;
      if (computes_its_dag_stage(state, st)) {
        const std::string contiguous = contiguous_loop(state.dag(), st);
        store = !contiguous.empty() && it.origins.count(contiguous) ? 1.0f : 0.0f;
        step = scaled(o, double(read_step(state.dag().stages.at(size_t(st.dag_stage)), it)));
      }
      return {store, step, scaled(o, double(it.extent)), twos_in(it.extent)};
    }
    case StepKind::FU: {
      const int64_t e = state.stage(s.stage).iters.at(size_t(s.ids.front())).extent;
      return {scaled(o, double(e)), twos_in(e)};
    }
    case StepKind::CA: {
      const auto &target = state.stage(s.target_stage).iters;
      const auto &own = state.stage(s.stage).iters;
      return {scaled(o, double(extent_product(target, size_t(s.target_iter) + 1))),
              scaled(o, double(extent_product(own, own.size())))};
    }
    default:
      return {};
  }
}

void write_step_rows(const Schedule &schedule, const FeaturizerOptions &o, float *m) {
  const size_t rows = std::min(schedule.steps.size(), size_t(o.step_rows()));
  for (size_t r = 0; r < rows; ++r) {
    const Step &s = schedule.steps[r];
    float *row = m + r * size_t(o.emb_size);
    const int kind = static_cast<int>(s.kind);
    if (kind < o.emb_size) row[kind] = 1.0f;
    int col = kNumStepKinds;
    for (double v : step_numeric_fields(s)) {
      if (col >= o.emb_size) break;
      row[col++] = scaled(o, v);
    }
    // Written over whatever split fields reached the last two columns.
    if (o.split_tails && s.kind == StepKind::SP && o.emb_size >= kNumStepKinds + 2) {
      const auto [flag, waste] = split_tail(s);
      row[o.emb_size - 2] = flag;
      row[o.emb_size - 1] = waste;
    }
  }
}

// What replaying the schedule on the operator tells: each step row's named-loop
// values (written into its last columns as the steps apply), then the tile
// rows of the loop nest built. One replay serves both. A schedule that does not
// replay (a log of an older space) keeps the named-loop values it got up to the
// step that failed, and empty tile rows.
void write_replayed_features(const Schedule &schedule, const FeaturizerOptions &o, const ComputeDag &dag, float *m) {
  LoopState state(dag);
  const size_t step_rows = size_t(o.step_rows());
  const bool whole_nest = o.tile_rows > 0;  // else the steps past the rows matter not
  const size_t replayed = whole_nest ? schedule.steps.size() : std::min(schedule.steps.size(), step_rows);
  for (size_t r = 0; r < replayed; ++r) {
    const Step &s = schedule.steps[r];
    try {
      state.apply(s);
    } catch (const ScheduleError &) {
      return;
    }
    if (!o.named_loops || r >= step_rows) continue;
    const std::vector<float> values = named_loop_values(s, state, o);
    if (kNumStepKinds + int(values.size()) > o.emb_size) continue;
    float *row = m + (r + 1) * size_t(o.emb_size) - values.size();
    std::copy(values.begin(), values.end(), row);
  }
  if (!whole_nest) return;
  write_tile_rows(state, o.tile_rows, o.emb_size, m + step_rows * size_t(o.emb_size));
}

}  // namespace

std::vector<float> featurize(const Schedule &schedule, const FeaturizerOptions &o, const ComputeDag *dag) {
  std::vector<float> m(size_t(o.seq_len) * size_t(o.emb_size), 0.0f);
  write_step_rows(schedule, o, m.data());
  if (o.needs_dag()) {
    if (!dag)
      throw std::invalid_argument("this featurizer describes the operator or its loop nest, "
                                  "and needs the operator's DAG");
    write_replayed_features(schedule, o, *dag, m.data());
  }
  return m;
}

std::vector<float> featurize_all(const std::vector<Schedule> &schedules, const FeaturizerOptions &options,
                                 const ComputeDag *dag) {
  const size_t per = size_t(options.seq_len) * size_t(options.emb_size);
  std::vector<float> out(schedules.size() * per, 0.0f);
  for (size_t i = 0; i < schedules.size(); ++i) {
    const std::vector<float> m = featurize(schedules[i], options, dag);
    std::copy(m.begin(), m.end(), out.begin() + long(i * per));
  }
  return out;
}

}  // namespace tlp
