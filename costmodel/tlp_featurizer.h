// TLP's featurization: a schedule becomes a matrix, one row per step.
//
// A row is the one-hot of the step's kind followed by the step's fields in
// layout order (search/step.h), lists flattened. Rows are cropped or padded with
// zeros to emb_size, and the matrix to seq_len rows (the paper: 25 x 22 on CPU,
// 40 x 20 on GPU). Raw mode keeps the numbers as they are, as the paper does;
// Log mode maps x to sign(x) * log2(1 + |x|) so split factors of 1 and 1024 do
// not differ by three orders of magnitude.
#pragma once

#include <string>
#include <vector>

#include "search/schedule.h"

namespace tlp {

enum class FeatureScaling { Raw, Log };

struct FeaturizerOptions {
  int seq_len = 25;
  int emb_size = 22;
  FeatureScaling scaling = FeatureScaling::Raw;
};

const char *feature_scaling_name(FeatureScaling s);
FeatureScaling feature_scaling_from_name(const std::string &name);  // throws std::invalid_argument

// seq_len * emb_size values, row-major (row = step).
std::vector<float> featurize(const Schedule &schedule, const FeaturizerOptions &options);

// The matrices of several schedules, one after another.
std::vector<float> featurize_all(const std::vector<Schedule> &schedules, const FeaturizerOptions &options);

}  // namespace tlp
