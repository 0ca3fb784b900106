// TLP's featurization: a schedule becomes a matrix, one row per step.
//
// A row is the one-hot of the step's kind followed by the step's fields in
// layout order (search/step.h), lists flattened. Rows are cropped or padded with
// zeros to emb_size, and the matrix to seq_len rows (the paper: 25 x 22 on CPU,
// 40 x 20 on GPU). Raw mode keeps the numbers as they are, as the paper does;
// Log mode maps x to sign(x) * log2(1 + |x|) so split factors of 1 and 1024 do
// not differ by three orders of magnitude.
//
// Improved modes of ours, not the paper's: split_tails adds two values to each
// split's row (below). Two more need the operator's ComputeDAG: named_loops
// adds values to the rows of steps that name a loop (below), and with
// tile_rows > 0 the last rows describe the memory the main computation's loops
// touch (costmodel/tile_footprint_features.h). The steps get the rows before.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "search/compute_dag.h"
#include "search/schedule.h"

namespace tlp {

enum class FeatureScaling { Raw, Log };

struct FeaturizerOptions {
  int seq_len = 25;
  int emb_size = 22;
  FeatureScaling scaling = FeatureScaling::Raw;
  int tile_rows = 0;  // of seq_len; 0: the paper's steps-only matrix
  // Ours: a split's row also says whether its factors leave a tail (the last
  // two columns: 1 when some level does not divide evenly, and the share of
  // iterations the tiling adds, written over any field that reaches them). From
  // numbers alone a network hardly learns divisibility, and log scaling makes
  // 30 and 32 look alike.
  bool split_tails = false;
  // Ours: the rows of steps that name a loop end with what only replaying the
  // schedule on the operator tells about that loop (the steps name loops by
  // position, and the extent of "loop 8" is scattered over the splits before
  // it). AN: whether the loop walks the stage's contiguous dimension, how it
  // walks the memory it reads (1 dense, 2 strided, 64 a gather, 0 a
  // broadcast), its extent and how many times 2 divides it (the fit to vector
  // lanes or threads); FU: the fused extent and its twos; CA: how many times
  // the target's loops compute the stage, and the region each time.
  bool named_loops = false;

  int step_rows() const { return seq_len - tile_rows; }
  bool needs_dag() const { return tile_rows > 0 || named_loops; }
};

// Throws std::invalid_argument when the sizes are not positive or tile_rows
// leave no row for the steps.
void check_featurizer_options(const FeaturizerOptions &options);

const char *feature_scaling_name(FeatureScaling s);
FeatureScaling feature_scaling_from_name(const std::string &name);  // throws std::invalid_argument

// The operator of a workload key, or nullptr when it is unknown. The tuner
// supplies it (costmodel cannot build one: that takes Halide); the DAG must
// stay alive while features are made from it.
using DagLookup = std::function<const ComputeDag *(const std::string &workload_key)>;

// The DAG of `workload_key` when `options` need one: throws
// std::invalid_argument naming the workload when `dags` has none. nullptr when
// they do not.
const ComputeDag *dag_for_features(const FeaturizerOptions &options, const DagLookup &dags,
                                   const std::string &workload_key);

// seq_len * emb_size values, row-major (row = step). `dag` is the operator the
// schedule applies to; options.needs_dag() makes it required (invalid_argument
// without it). A schedule that does not replay on the DAG (a log of an older
// schedule space) gets empty tile rows.
std::vector<float> featurize(const Schedule &schedule, const FeaturizerOptions &options,
                             const ComputeDag *dag = nullptr);

// The matrices of several schedules of one operator, one after another.
std::vector<float> featurize_all(const std::vector<Schedule> &schedules, const FeaturizerOptions &options,
                                 const ComputeDag *dag = nullptr);

}  // namespace tlp
