// The step sequences several sketch rules emit on one stage: annotating,
// splitting, tiling, fusing the outer loops into a parallel one, vectorizing.
// None of them adds or removes a stage, so the stage index `s` stays valid.
#pragma once

#include <vector>

#include "search/sketch/sketch_context.h"

namespace tlp {

// AN(s, iter, annotation).
void annotate(SketchContext &ctx, int s, int iter, Annotation annotation);

// SP(s, iter, its current extent, factors): splits one loop into an outer
// part and one part per factor (outermost first).
void split_loop(SketchContext &ctx, int s, int iter, std::vector<int> factors);

// Splits each spatial loop d by factors[d] (innermost loop first, so the indices
// of the loops before it stay valid). Loop d's parts then follow each other.
void split_spatial_loops(SketchContext &ctx, int s, const std::vector<std::vector<int>> &factors);

// Splits every loop from `first` to the last in two (last first), the inner
// part drawn by random_factor up to max_innermost_factor. Used on the
// reduction loops, which come after the spatial ones.
void split_loops_in_two(SketchContext &ctx, int s, int first);

// Splits each spatial loop into `levels` parts and orders them level by level
// (all outermost parts first), the reduction loops after them.
void tile_spatial(SketchContext &ctx, int s, int levels, const std::vector<std::vector<int>> &factors);

// Fuses a random number (1..n) of the n outer loops into one and makes it
// parallel. Returns how many loops were fused (n when n < 2).
int fuse_and_parallelize(SketchContext &ctx, int s, int n);

// Vectorizes the innermost loop if it is spatial, 2 to 64 long and unannotated.
void vectorize_innermost_spatial(SketchContext &ctx, int s);

}  // namespace tlp
