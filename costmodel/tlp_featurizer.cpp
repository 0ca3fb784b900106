#include "costmodel/tlp_featurizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tlp {

const char *feature_scaling_name(FeatureScaling s) { return s == FeatureScaling::Raw ? "raw" : "log"; }

FeatureScaling feature_scaling_from_name(const std::string &name) {
  if (name == "raw") return FeatureScaling::Raw;
  if (name == "log") return FeatureScaling::Log;
  throw std::invalid_argument("unknown feature scaling '" + name + "' (known: raw, log)");
}

std::vector<float> featurize(const Schedule &schedule, const FeaturizerOptions &o) {
  std::vector<float> m(size_t(o.seq_len) * size_t(o.emb_size), 0.0f);
  const size_t rows = std::min(schedule.steps.size(), size_t(o.seq_len));
  for (size_t r = 0; r < rows; ++r) {
    const Step &s = schedule.steps[r];
    float *row = &m[r * size_t(o.emb_size)];
    const int kind = static_cast<int>(s.kind);
    if (kind < o.emb_size) row[kind] = 1.0f;
    int col = kNumStepKinds;
    for (double v : step_numeric_fields(s)) {
      if (col >= o.emb_size) break;
      if (o.scaling == FeatureScaling::Log) v = std::copysign(std::log2(1.0 + std::fabs(v)), v);
      row[col++] = float(v);
    }
  }
  return m;
}

std::vector<float> featurize_all(const std::vector<Schedule> &schedules, const FeaturizerOptions &options) {
  const size_t per = size_t(options.seq_len) * size_t(options.emb_size);
  std::vector<float> out(schedules.size() * per, 0.0f);
  for (size_t i = 0; i < schedules.size(); ++i) {
    const std::vector<float> m = featurize(schedules[i], options);
    std::copy(m.begin(), m.end(), out.begin() + long(i * per));
  }
  return out;
}

}  // namespace tlp
