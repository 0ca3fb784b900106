// Questions the sketch rules ask of one stage's loops.
#pragma once

#include <cstdint>

#include "search/loop_state.h"

namespace tlp {

// The product of the extents of the stage's loops of one kind.
inline int64_t extent_product(const StageState &st, IterKind kind) {
  int64_t p = 1;
  for (const LoopIter &it : st.iters)
    if (it.kind == kind) p *= it.extent;
  return p;
}

// The index of the stage's longest reduction loop (the first of equals), or -1.
inline int longest_reduction_loop(const StageState &st) {
  int longest = -1;
  for (int i = 0; i < int(st.iters.size()); ++i)
    if (st.iters[i].kind == IterKind::Reduce && (longest < 0 || st.iters[i].extent > st.iters[longest].extent))
      longest = i;
  return longest;
}

}  // namespace tlp
