// The search state of one task (one operator on one target): its DAG and
// schedule space, the policy and its cost model, what is already measured, and
// the best kernel so far. Rounds of measurement go through a shared MeasuringService.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "codegen/operator.h"
#include "measure/kernel_cost_table.h"
#include "measure/measurer.h"
#include "search/cost_model.h"
#include "search/schedule_space.h"
#include "search/search_policy.h"
#include "tuner/tuning_session.h"

namespace tlp {

// The schedule space's settings for a target: its vector width, register
// budgets, and the GPU sketch rules for CUDA targets.
SpaceOptions space_options_for(const Halide::Target &target);

class TaskTuner {
 public:
  // `model` (not owned; may be shared by several tasks) guides the evolutionary
  // policy; the random policy needs none.
  TaskTuner(const std::string &op_spec, const Halide::Target &target, const TuneOptions &options, uint64_t seed,
            CostModel *model);

  // Takes what a log already holds for this task: never measured again, and the
  // best of it counts. With `resume`, the records also count toward the budget.
  void load_prior(const std::vector<MeasureRecord> &records, bool resume);

  // Proposes and measures up to n new candidates. Returns how many were measured;
  // 0 means the space has nothing new left. The measurer may also run them on
  // other platforms (thread counts): those records are logged, but only this
  // task's platform counts here.
  int round(MeasuringService &m, int n, const std::atomic<bool> &stop, const std::function<void()> &on_record);

  // The candidates the last round proposed (also those left unmeasured by a stop).
  const std::vector<Schedule> &last_round() const { return last_round_; }

  // Measures the `top` fastest kernels again, side by side, until each has at
  // least 1 + `rounds` measurements; a kernel's figure is then the median of them
  // (measure/kernel_cost_table.h). A kernel measured again can drop out of the top
  // and let one measured once in, so this takes several passes, until the best is
  // confirmed (tuner/final_pass.h); each measures the kernels due beside the best
  // so far (from an earlier pass, or an earlier run of a resumed log). Fills
  // summary().finals.
  void measure_best_again(MeasuringService &m, int top, int rounds, const std::atomic<bool> &stop,
                          const std::function<void()> &on_record);

  // Fills in the Halide source of the best kernel and the policy's model time.
  void finish();

  const TuneSummary &summary() const { return sum_; }
  const Operator &op() const { return *op_; }

 private:
  void consider(const MeasureRecord &r);

  std::unique_ptr<Operator> op_;
  ComputeDag dag_;
  std::unique_ptr<ScheduleSpace> space_;
  std::unique_ptr<SearchPolicy> policy_;
  std::unordered_set<std::string> measured_;
  KernelCostTable costs_;                              // this task's platform only
  std::unordered_map<std::string, Schedule> schedule_of_;  // of every kernel in costs_
  std::vector<Schedule> last_round_;
  TuneSummary sum_;
  bool model_update_failed_ = false;  // warned once
};

// The measurer options of a tuning run's options, for a resolved target string.
MeasurerOptions measurer_options(const TuneOptions &o, const std::string &target);

}  // namespace tlp
