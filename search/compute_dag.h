// The search's view of an operator: its stages, their loops and extents, and
// which stage reads which. It is pure description (no Halide), built by
// codegen from the operator's Halide algorithm, so the searcher stays generic:
// sketch rules look at this and nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tlp {

enum class IterKind { Spatial, Reduce };

struct DagIter {
  std::string name;
  int64_t extent = 1;
  IterKind kind = IterKind::Spatial;
};

struct DagStage {
  std::string name;
  bool placeholder = false;    // an input tensor: nothing to compute
  std::vector<DagIter> iters;  // loop-nest order, outermost first: spatial loops, then reduction loops
  std::vector<int> reads;      // indices of the stages this one reads
  bool is_output = false;

  bool has_reduction() const;
  int num_spatial() const;
  int64_t points() const;  // product of the spatial extents
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
