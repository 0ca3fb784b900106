// One operator whose layout is a search decision (layout=any; codegen/layout_choice.h):
// a TaskTuner per layout variant, sharing one cost model and one budget, rounds
// going to the variants that can still be the fastest (search/variant_scheduler.h).
// A spec that fixes its layout makes a tuner of one variant that behaves as that
// variant's TaskTuner does, so callers need not tell the two apart.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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

  // From now on rounds go to the kernels a network's layout plan can use for this
  // operator: its variant in `layout`, the network's (the faster of those that keep
  // activations in it, as NCHW and NCHWgemm both do), and, where the plan detours
  // through another layout, its variant in `detour_layout`, whose cost counts
  // `detour_seconds` of conversions. The two share rounds as variants do
  // (search/variant_scheduler.h), conversions counted, except that neither is ever
  // left out: one close to the other gets a fair share, one far behind a round now
  // and then (about 1 in 70 when 1.8x behind), since a kernel judged on a few
  // noisy trials may be nearer than it looks. The detour's kernel keeps improving
  // where the plan will run it. Both are measured again at
  // the end even when another variant is faster. False, and nothing changes, when
  // neither layout has a variant.
  bool focus(const std::string &layout, const std::string &detour_layout = "", double detour_seconds = 0);
  // The best of the focused kernels, conversions included (+inf while none is
  // valid); best_cost() without a focus.
  double focus_cost() const;
  // The focused kernel in the network's layout (else the detour's); nullptr without a focus.
  const TaskTuner *focused() const;

  // True while some layout has not had its warm-up round (never with a single
  // variant or a focus). A network's plan can run an operator only in a layout it
  // has a kernel in, so a network warms every layout up before its first plan.
  bool warming_up() const;

  // Each memory layout's best seconds, for a network's plan: NCHW and NCHWgemm
  // keep activations alike and count as one (the faster); a layout without a
  // valid kernel has no entry.
  std::map<std::string, double> latency_by_layout() const;

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
  int variant_in(const std::string &layout) const;  // -1: none
  int focused_round(MeasuringService &m, int n, const std::atomic<bool> &stop, const std::function<void()> &on_record);

  // A kernel the focus tunes, and the conversions its cost counts.
  struct FocusedVariant {
    int variant = 0;
    double extra_seconds = 0;
  };

  std::vector<std::unique_ptr<TaskTuner>> variants_;
  VariantScheduler scheduler_;
  bool chooses_ = false;
  std::vector<FocusedVariant> focus_;  // empty: no focus
  std::optional<VariantScheduler> focus_scheduler_;  // over focus_, with two of them
};

}  // namespace tlp
