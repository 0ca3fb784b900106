// The sketch rules, CPU ones first, in the order ScheduleSpace::sample runs
// them (Ansor's order), then the GPU ones (gpu_*, run when SpaceOptions::gpu is
// set). Each is defined in the file named after it.
#pragma once

#include "search/sketch/sketch_rule.h"

namespace tlp {

// Ansor's AlwaysInline: each reduction-free intermediate stage is inlined with
// probability inline_probability, or else left at root to be tiled on its own.
class InlineElementwiseRule final : public SketchRule {
 public:
  const char *name() const override { return "inline_elementwise"; }
  void apply(SketchContext &ctx) const override;
};

// Ansor's AddRfactor: a reduction at least as long as its spatial extent, with a
// reduction loop of at least two vectors, is rfactored with probability
// rfactor_probability, as vector partials or as parallel chunks.
class RfactorRule final : public SketchRule {
 public:
  const char *name() const override { return "rfactor"; }
  void apply(SketchContext &ctx) const override;
};

// Ansor's AddCacheWrite: an output with a reduction accumulates in a local
// stage with probability cache_write_probability.
class CacheWriteRule final : public SketchRule {
 public:
  const char *name() const override { return "cache_write"; }
  void apply(SketchContext &ctx) const override;
};

// Ansor's MultiLevelTilingWithFusion: every reduction-free stage left at root is
// tiled on three levels, and each reduction it alone consumes is computed inside
// its tile as a register block (register_block.h).
class FusedTilingRule final : public SketchRule {
 public:
  const char *name() const override { return "fused_tiling"; }
  void apply(SketchContext &ctx) const override;
};

// Ansor's MultiLevelTiling: every reduction still at root and untouched is
// tiled S S R R S, its outer loops fused and parallel.
class RootTilingRule final : public SketchRule {
 public:
  const char *name() const override { return "root_tiling"; }
  void apply(SketchContext &ctx) const override;
};

// An rfactored reduction still at root gets its outer spatial loop parallel.
class RfactoredParallelRule final : public SketchRule {
 public:
  const char *name() const override { return "rfactored_parallel"; }
  void apply(SketchContext &ctx) const override;
};

// Ansor's auto-unroll pragma: each computed stage gets a limit drawn from
// auto_unroll_values (no PR step for 0).
class AutoUnrollRule final : public SketchRule {
 public:
  const char *name() const override { return "auto_unroll"; }
  void apply(SketchContext &ctx) const override;
};

// GPU rules. They read SpaceOptions::gpu (which must be set) for the limits.

// Ansor's shared-memory multi-level tiling, in Halide's terms: a reduction at
// root whose inputs are reused across its outputs (an input that ignores an
// output loop, as in matmul and conv, or a window sliding over one, as in
// depthwise conv and pooling) is, with
// probability gpu_shared_staging_probability, tiled block / thread / inner with
// each reduction loop split into an outer loop and a chunk, ordered blocks,
// outer reduction loops, threads, chunks, inners. Each reused producer is
// cached in shared memory at the innermost outer reduction loop, its loops
// fused and bound to threads in the block's shape, so the whole block loads a
// chunk cooperatively (Halide puts the barriers in). Each thread's outputs stay
// in registers across a chunk (LLVM promotes them); the reduction accumulates
// in its own buffer, so the output needs no local stage.
class GpuSharedStagingRule final : public SketchRule {
 public:
  const char *name() const override { return "gpu_shared_staging"; }
  void apply(SketchContext &ctx) const override;
};

// Ansor's cross-thread reduction, through Halide's rfactor: a reduction at
// root with few outputs or long rows (softmax's and layernorm's row sums)
// gets, with probability gpu_cross_thread_probability, its longest reduction
// loop split by a thread count that divides it and rfactored on the inner
// part. Each block handles one output (the spatial loops fused, bound to
// gpu_block); inside it each thread sums its own partial (the partial stage's
// thread loop), and the block then adds the partials up.
class GpuCrossThreadReductionRule final : public SketchRule {
 public:
  const char *name() const override { return "gpu_cross_thread_reduction"; }
  void apply(SketchContext &ctx) const override;
};

// Ansor's GPU cache write: a reduction that is the output always accumulates
// in a local stage, which the GPU tiling computes inside each thread.
class GpuCacheWriteRule final : public SketchRule {
 public:
  const char *name() const override { return "gpu_cache_write"; }
  void apply(SketchContext &ctx) const override;
};

// Ansor's GPU multi-level tiling with fusion: every reduction-free stage left
// at root is tiled block / thread / inner per spatial loop (outer loops fused
// so at most max_block_dims and max_thread_dims remain), reordered blocks,
// threads, inners and bound to gpu_block and gpu_thread, with at most
// max_threads_per_block threads (a multiple of the warp when the extents
// allow). Each reduction it alone consumes, point for point, is computed at its innermost thread
// loop, reduction loops split in two before the spatial ones (R R S), the
// spatial ones unrolled when the tile is small.
class GpuTilingRule final : public SketchRule {
 public:
  const char *name() const override { return "gpu_tiling"; }
  void apply(SketchContext &ctx) const override;
};

// A reduction still at root and untouched (one with several consumers, or
// one a larger consumer broadcasts, such as softmax's row max and sum) gets its spatial loops fused and split block / thread;
// each thread runs the whole reduction serially.
class GpuRootReductionRule final : public SketchRule {
 public:
  const char *name() const override { return "gpu_root_reduction"; }
  void apply(SketchContext &ctx) const override;
};

}  // namespace tlp
