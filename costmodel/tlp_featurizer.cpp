#include "costmodel/tlp_featurizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "costmodel/loop_nest_features.h"
#include "costmodel/workload_features.h"
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
  if (o.nest_rows < 0 || o.workload_rows < 0 || o.step_rows() < 1)
    throw std::invalid_argument("nest_rows " + std::to_string(o.nest_rows) + " and workload_rows " +
                                std::to_string(o.workload_rows) + " must be at least 0 and leave rows of seq_len " +
                                std::to_string(o.seq_len) + " for the steps");
}

const ComputeDag *dag_for_features(const FeaturizerOptions &options, const DagLookup &dags,
                                   const std::string &workload_key) {
  if (!options.needs_dag()) return nullptr;
  const ComputeDag *dag = dags ? dags(workload_key) : nullptr;
  if (!dag)
    throw std::invalid_argument("the model's features describe the operator or its loop nest, which needs the "
                                "operator of '" + workload_key +
                                "', and it is not known here (is the workload key from a newer tlptune?)");
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

void write_step_rows(const Schedule &schedule, const FeaturizerOptions &o, float *m) {
  const size_t rows = std::min(schedule.steps.size(), size_t(o.step_rows()));
  for (size_t r = 0; r < rows; ++r) {
    const Step &s = schedule.steps[r];
    float *row = m + (size_t(o.workload_rows) + r) * size_t(o.emb_size);
    const int kind = static_cast<int>(s.kind);
    if (kind < o.emb_size) row[kind] = 1.0f;
    int col = kNumStepKinds;
    for (double v : step_numeric_fields(s)) {
      if (col >= o.emb_size) break;
      if (o.scaling == FeatureScaling::Log) v = std::copysign(std::log2(1.0 + std::fabs(v)), v);
      row[col++] = float(v);
    }
    // Written over whatever split fields reached the last two columns.
    if (o.split_tails && s.kind == StepKind::SP && o.emb_size >= kNumStepKinds + 2) {
      const auto [flag, waste] = split_tail(s);
      row[o.emb_size - 2] = flag;
      row[o.emb_size - 1] = waste;
    }
  }
}

void write_nest_rows(const Schedule &schedule, const FeaturizerOptions &o, const ComputeDag &dag, float *m) {
  LoopState state(dag);
  try {
    for (const Step &s : schedule.steps) state.apply(s);
  } catch (const ScheduleError &) {
    return;  // not this operator's space (an older log): the rows stay empty
  }
  write_loop_nest_rows(state, o.nest_rows, o.emb_size,
                       m + size_t(o.workload_rows + o.step_rows()) * size_t(o.emb_size));
}

}  // namespace

std::vector<float> featurize(const Schedule &schedule, const FeaturizerOptions &o, const ComputeDag *dag) {
  std::vector<float> m(size_t(o.seq_len) * size_t(o.emb_size), 0.0f);
  write_step_rows(schedule, o, m.data());
  if (o.needs_dag()) {
    if (!dag)
      throw std::invalid_argument("this featurizer describes the operator or its loop nest, "
                                  "and needs the operator's DAG");
    if (o.workload_rows > 0) write_workload_rows(*dag, o.workload_rows, o.emb_size, m.data());
    if (o.nest_rows > 0) write_nest_rows(schedule, o, *dag, m.data());
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
