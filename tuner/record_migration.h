// Reading logs written by older versions as this version would write them.
//
// A split step records the extent of the loop it splits, and the cost model
// reads that number. When LoopState's bound inference changes (a stage computed
// inside a consumer's tile now has only the tile's rows), older records carry
// the old extents while the search proposes the new ones. Training and
// evaluation rewrite them first, so both see one convention.
#pragma once

#include <cstddef>
#include <vector>

#include "measure/measure_record.h"

namespace tlp {

class ComputeDagCache;

// Sets each split's extent to what this build's LoopState gives its loop.
// Records of unknown operators, or that no longer replay, are left as they were.
// Returns how many records changed.
size_t use_current_split_extents(std::vector<MeasureRecord> &records, ComputeDagCache &dags);

}  // namespace tlp
