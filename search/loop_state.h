// The loop structure that a schedule's steps build, step by step.
//
// LoopState replays a Schedule on a ComputeDAG the way Ansor's State does: each
// stage holds its current loops, and each step splits, fuses, reorders,
// annotates or moves them. It is the semantic validator of the IR (a step that
// names a missing stage or loop, or breaks a rule, throws ScheduleError naming the
// step) and the reference that codegen's lowering follows loop for loop.
//
// Stage indices shift when a step adds a stage, as in Ansor:
//   CHW(s)      inserts "S.local" at s (it takes the computation and its loops);
//               the original stage becomes s+1 and just copies out of it.
//   CHR(s,r,..) inserts "S.cache" at s+1; stage r now reads the cache.
//   RF(s,i,j)   inserts "S.rf" at s, which computes partial results: it keeps
//               S's loops with reduction loop i turned spatial; S then reduces
//               over that loop only (Halide's rfactor).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "search/compute_dag.h"
#include "search/schedule.h"

namespace tlp {

struct LoopIter {
  std::string name;
  int64_t extent = 1;
  IterKind kind = IterKind::Spatial;
  Annotation annotation = Annotation::None;
  std::set<std::string> origins;  // the stage's original loops this one derives from
};

// A loop no split or fuse has touched yet: one of its stage's original loops.
inline bool is_whole_original(const LoopIter &it) {
  return it.origins.size() == 1 && *it.origins.begin() == it.name;
}

enum class ComputeLocation { Root, Inline, At };
enum class StageOrigin { Dag, CacheWriteLocal, CacheRead, RFactor };

struct StageState {
  std::string name;
  int dag_stage = -1;  // the DAG stage it derives from
  StageOrigin origin = StageOrigin::Dag;
  bool placeholder = false;
  bool is_output = false;
  std::vector<LoopIter> iters;  // outermost first
  std::vector<int> reads;
  ComputeLocation location = ComputeLocation::Root;
  int attach_stage = -1;  // with location At
  int attach_iter = -1;
  MemScope scope = MemScope::Global;
  int auto_unroll = 0;      // PR's limit, 0 if none
  bool transformed = false;  // any SP/FSP/FU/RE applied yet

  bool has_reduction() const;
  int num_spatial_iters() const;
};

class LoopState {
 public:
  // The DAG must outlive the state (applying a step may read its accesses).
  explicit LoopState(const ComputeDag &dag);

  // Applies one step, or throws ScheduleError("step N SP(...): reason").
  void apply(const Step &step);
  static LoopState replay(const ComputeDag &dag, const Schedule &schedule);

  const ComputeDag &dag() const { return *dag_; }
  const std::vector<StageState> &stages() const { return stages_; }
  const StageState &stage(int i) const { return stages_.at(i); }
  const std::vector<Step> &history() const { return history_; }
  int num_stages() const { return int(stages_.size()); }
  // The current index of the stage called `name` (indices shift as CHW, CHR and
  // RF insert stages; names do not), or -1.
  int find_stage(const std::string &name) const;

  // The stages that read stage `s` and are not inlined, looking through inlined
  // readers to their own readers; sorted, each once.
  std::vector<int> live_consumers(int s) const;

  // Stages attached (CA) at loop `iter` of stage `s`.
  std::vector<int> attached_at(int s, int iter) const;
  // Inner factors an FSP step resolves to (from its source SP step).
  std::vector<int> fsp_factors(const Step &fsp) const;
  // Whether a split of loop `iter` of stage `s` may round its tail up (compute
  // the last part whole, past the loop's end) instead of guarding it: an
  // untouched loop the DAG marks extendable, in a stage that is not the output
  // (no one outside sees the extra points). Its reductions are never rounded:
  // that would add terms.
  bool can_round_up(int s, int iter) const;

  // A readable loop nest, for `show` and debugging.
  std::string to_text() const;

 private:
  [[noreturn]] void fail(const Step &step, const std::string &why) const;
  StageState &checked_stage(const Step &step, int s);
  void check_iter(const Step &step, const StageState &st, int iter) const;
  void insert_stage(int at, StageState st);
  void split(const Step &step, int s, int iter, const std::vector<int> &factors);
  void apply_reorder(const Step &step);
  void apply_fuse(const Step &step);
  void apply_annotation(const Step &step);
  void apply_compute_at(const Step &step);
  void apply_cache_write(const Step &step);
  void apply_cache_read(const Step &step);
  void apply_rfactor(const Step &step);
  void bound_attached_stage(int s);
  void bound_attached_cache(int s);

  const ComputeDag *dag_;
  std::vector<StageState> stages_;
  std::vector<Step> history_;
};

}  // namespace tlp
