// The search's view of an operator: its stages, their loops and extents, and
// which stage reads which. It is pure description (no Halide), built by
// codegen from the operator's Halide algorithm, so the searcher stays generic:
// sketch rules look at this and nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tlp {

enum class IterKind { Spatial, Reduce };

struct DagIter {
  std::string name;
  int64_t extent = 1;
  IterKind kind = IterKind::Spatial;
  // The stage may compute this (spatial) loop past its extent without reading
  // past an input: every input read through it is clamped, directly or through
  // the stages it reads. A split of it may then round its tail up instead of
  // guarding it, where the stage is not the output (see LoopState::can_round_up).
  bool extendable = false;
};

// How a stage indexes one producer, from the Halide algorithm: for each of the
// producer's loops (outermost first, like its iters), the consumer loops its
// index expression uses and each one's coefficient (0 when the index is not
// affine in that loop). conv's input row oh*2 + ry gives {{"oh", 2}, {"ry", 1}}.
// The sketch rules read it to find data reuse; the loop state, to estimate the
// region a cache must hold.
struct DagAccess {
  int producer = -1;
  std::vector<std::vector<std::pair<std::string, int64_t>>> dims;

  bool uses(const std::string &loop) const;  // whether some dimension's index uses that consumer loop
};

struct DagStage {
  std::string name;
  bool placeholder = false;    // an input tensor: nothing to compute
  std::vector<DagIter> iters;  // loop-nest order, outermost first: spatial loops, then reduction loops
  std::vector<int> reads;      // indices of the stages this one reads
  std::vector<DagAccess> accesses;  // one per call site of a producer (empty for inputs)
  bool is_output = false;

  bool has_reduction() const;
  int64_t points() const;  // product of the spatial extents
  // The call sites of `producer` (usually one).
  std::vector<const DagAccess *> accesses_of(int producer) const;
};

struct ComputeDag {
  std::vector<DagStage> stages;  // topological order: every stage after the ones it reads

  int output() const;                       // index of the output stage
  std::vector<int> consumers(int s) const;  // stages that read s
  // A compute stage without reduction whose consumers read it point-wise is
  // what Ansor inlines always; we treat every non-output, reduction-free stage so.
  bool is_inlinable(int s) const;
  std::string to_text() const;  // one line per stage, for `show` and debugging
};

}  // namespace tlp
