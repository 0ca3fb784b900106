// Tile rows: how much memory the loops of a schedule's main computation touch.
//
// What makes a tiling fast on a CPU is whether the data one tile reads fits a
// cache level, and how much work it does per byte. The steps carry the split
// factors, but the footprint is a product of factors from several steps and an
// access pattern the steps never state (a 1x1 convolution over 2048 channels
// reads its input tile once per output channel; its tiles differ only in how
// the channel loop is split). Held-out ResNet-50's worst picks were such
// convolutions. These rows state it: the stage doing the operator's arithmetic
// (the most arithmetic, where there are several) is replayed on the ComputeDAG
// and each of its loops with more than one iteration becomes a row, innermost
// first, then the loops of the stage it is computed at, outward. A row says
// what the whole loop does: its work, the bytes it reads and the bytes it
// writes. Nothing is lowered: the rows are a function of the primitive sequence
// and the operator's shape.
//
// A row occupies columns [kNumStepKinds, emb_size): its one-hot part is all
// zeros, and its first value is 3 (a loop-nest row's is 1, a workload row's 2).
#pragma once

#include "search/loop_state.h"

namespace tlp {

// The values of one tile row, before cropping to the matrix width: marker 3,
// log2(1+x) of the loop's extent, whether it is a reduction, parallel,
// vectorized, unrolled, log2(1+x) of the whole loop's multiply-adds, of the
// bytes it reads and of the bytes it writes, and whether the loop is the host
// stage's (outside the computing stage's own loops).
constexpr int kTileRowValues = 10;

// Writes at most `rows` rows of `emb_size` floats starting at `out` (which the
// caller has zeroed); returns how many were written. A state with no stage that
// computes (only inputs) writes none.
int write_tile_rows(const LoopState &state, int rows, int emb_size, float *out);

}  // namespace tlp
