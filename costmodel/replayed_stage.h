// Loop-nest rows: the improved featurization's view of what a schedule builds.
//
// TLP reads the steps alone, so the network must work out from split factors
// and reorder lists which loop ends up parallel, vectorized or innermost. These
// rows state it directly: the schedule is replayed on the operator's ComputeDAG
// (LoopState) and each loop of the resulting nest becomes one row, in nesting
// order (a stage computed at a loop follows that loop's row). Nothing is
// lowered: the rows are still a function of the primitive sequence and the
// operator's shape.
//
// A row occupies columns [kNumStepKinds, emb_size) so that its one-hot part is
// all zeros and it cannot be mistaken for a step row; column kNumStepKinds is 1.
#pragma once

#include <string>
#include <vector>

#include "search/loop_state.h"

namespace tlp {

// The name of the loop that walks the stage's contiguous dimension (Halide's
// dimension 0: the DAG's innermost spatial loop), or "" if there is none.
std::string contiguous_loop(const ComputeDag &dag, const StageState &st);

// Whether the stage computes what its DAG stage does, so that the DAG's
// accesses are its own: not a cache's copy, nor the copy-out a cache write
// leaves behind.
bool computes_its_dag_stage(const LoopState &state, const StageState &st);

// The values of one loop row, before cropping to the matrix width.
constexpr int kLoopRowValues = 22;

// Writes at most `rows` rows of `emb_size` floats starting at `out` (which the
// caller has zeroed); returns how many were written.
int write_loop_nest_rows(const LoopState &state, int rows, int emb_size, float *out);

}  // namespace tlp
