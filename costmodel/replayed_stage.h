// Questions the replay-based features (named loops, tile rows) ask of a stage
// of a schedule replayed on its operator (LoopState).
#pragma once

#include <string>

#include "search/loop_state.h"

namespace tlp {

// The name of the loop that walks the stage's contiguous dimension (Halide's
// dimension 0: the DAG's innermost spatial loop), or "" if there is none.
std::string contiguous_loop(const ComputeDag &dag, const StageState &st);

// Whether the stage computes what its DAG stage does, so that the DAG's
// accesses are its own: not a cache's copy, nor the copy-out a cache write
// leaves behind.
bool computes_its_dag_stage(const LoopState &state, const StageState &st);

}  // namespace tlp
