// One operator whose layout is a search decision (layout=any; codegen/layout_choice.h):
// a TaskTuner per layout variant, sharing one cost model and one budget, rounds
// going to the variants that can still be the fastest (search/variant_scheduler.h).
// A spec that fixes its layout makes a tuner of one variant that behaves as that
// variant's TaskTuner does, so callers need not tell the two apart.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "search/variant_scheduler.h"
#include "tuner/task_tuner.h"

namespace tlp {

class LayoutChoiceTuner {
 public:
  LayoutChoiceTuner(const std::string &op_spec, const Halide::Target &target, const TuneOptions &options,
                    uint64_t seed, CostModel *model);

  // Each variant takes what the log holds for it (TaskTuner::load_prior).
  void load_prior(const std::vector<MeasureRecord> &records, bool resume);

  // Up to n new candidates of the variant whose turn it is; 0 once every variant's
  // space is used up (or, with several, every variant is done).
  int round(MeasuringService &m, int n, const std::atomic<bool> &stop, const std::function<void()> &on_record);

  // Measures the fastest kernels again (TaskTuner::measure_best_again) of every
  // variant within 10% of the best, so the winner is decided side by side.
  void measure_best_again(MeasuringService &m, int top, int rounds, const std::atomic<bool> &stop,
                          const std::function<void()> &on_record);

  // From now on rounds go to the variant in `layout` alone (the faster of those that
  // keep activations in it, as NCHW and NCHWgemm both do), and it is measured again
  // at the end even when another is faster: a network's layout plan needs that
  // layout's kernel to be good, not only the fastest one. False, and nothing
  // changes, when there is no such variant.
  bool focus(const std::string &layout);
  // The focused variant's best (+inf while none is valid); best_cost() without a focus.
  double focus_cost() const;
  const TaskTuner *focused() const { return focus_ >= 0 ? variants_[size_t(focus_)].get() : nullptr; }

  void finish();

  // The fastest variant's summary with every variant's trials and time; with
  // several variants, layout_variants lists them.
  TuneSummary summary() const;
  int trials_total() const;
  bool found() const;
  double best_cost() const;  // +inf while none is valid

  const std::vector<std::unique_ptr<TaskTuner>> &variants() const { return variants_; }

 private:
  LayoutChoiceTuner(const std::vector<std::string> &specs, bool chooses, const Halide::Target &target,
                    const TuneOptions &options, uint64_t seed, CostModel *model);
  size_t leader() const;

  std::vector<std::unique_ptr<TaskTuner>> variants_;
  VariantScheduler scheduler_;
  bool chooses_ = false;
  int focus_ = -1;
};

}  // namespace tlp
