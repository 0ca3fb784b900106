// Workload rows: what the operator itself is, in a few rows of the feature matrix.
//
// TLP's steps carry the loop extents a split divides but not how a stage reads
// its producers, so two convolutions that differ only in stride look the same
// to a steps-only model, while what is fast differs (a vectorized output column
// of a stride-2 convolution reads its input with gaps). Held-out ResNet-50's
// worst picks were strided convolutions. One row per computed stage of the
// ComputeDAG (in DAG order) states its size, its reduction, and the strides of
// its accesses; the rows are the same for every schedule of an operator.
//
// A row occupies columns [kNumStepKinds, emb_size): its one-hot part is all
// zeros, and its first value is 2 (a loop-nest row's is 1), so it cannot be
// mistaken for a step or a loop row.
#pragma once

#include "search/compute_dag.h"

namespace tlp {

// The values of one workload row, before cropping to the matrix width.
constexpr int kWorkloadRowValues = 10;

// Writes at most `rows` rows of `emb_size` floats starting at `out` (which the
// caller has zeroed), one per computed stage of `dag`; returns how many were
// written.
int write_workload_rows(const ComputeDag &dag, int rows, int emb_size, float *out);

}  // namespace tlp
