// The loops of a reduction computed inside its consumer's tile, shaped as a
// register block: each spatial loop split in two (the innermost in three, its
// last part a vector), each reduction loop split in two, ordered R S R S or
// R R S S with the vector innermost and the middle spatial parts unrolled when
// the block is small enough, those of loops that index a broadcast operand
// (one the vector loop does not index) outermost. Part of the fused tiling rule.
#pragma once

#include "search/sketch/sketch_context.h"

namespace tlp {

// Tiles stage s (a reduction with untouched loops) as a register block.
void register_block(SketchContext &ctx, int s);

}  // namespace tlp
