#include "tuner/layout_choice_tuner.h"

#include <algorithm>
#include <limits>

#include "codegen/layout_choice.h"

namespace tlp {
namespace {

double best_of(const TuneSummary &s) { return s.found ? s.best_cost : std::numeric_limits<double>::infinity(); }

std::vector<std::string> variant_specs(const std::string &spec, const Halide::Target &target) {
  return chooses_layout(spec) ? layout_variants(spec, target) : std::vector<std::string>{spec};
}

}  // namespace

LayoutChoiceTuner::LayoutChoiceTuner(const std::string &op_spec, const Halide::Target &target,
                                     const TuneOptions &options, uint64_t seed, CostModel *model)
    : LayoutChoiceTuner(variant_specs(op_spec, target), chooses_layout(op_spec), target, options, seed, model) {}

LayoutChoiceTuner::LayoutChoiceTuner(const std::vector<std::string> &specs, bool chooses, const Halide::Target &target,
                                     const TuneOptions &options, uint64_t seed, CostModel *model)
    : scheduler_(int(specs.size())), chooses_(chooses) {
  for (size_t i = 0; i < specs.size(); ++i)
    variants_.push_back(std::make_unique<TaskTuner>(specs[i], target, options, seed + i, model));
}

void LayoutChoiceTuner::load_prior(const std::vector<MeasureRecord> &records, bool resume) {
  for (size_t i = 0; i < variants_.size(); ++i) {
    variants_[i]->load_prior(records, resume);
    const TuneSummary &s = variants_[i]->summary();
    if (s.trials_total > 0) scheduler_.report(int(i), best_of(s), s.trials_total);  // no second warm-up
  }
}

int LayoutChoiceTuner::round(MeasuringService &m, int n, const std::atomic<bool> &stop,
                             const std::function<void()> &on_record) {
  if (variants_.size() == 1) return variants_[0]->round(m, n, stop, on_record);
  if (!focus_.empty()) return focused_round(m, n, stop, on_record);
  const int v = scheduler_.next_variant();
  if (v < 0) return 0;
  const int done = variants_[size_t(v)]->round(m, n, stop, on_record);
  scheduler_.report(v, best_of(variants_[size_t(v)]->summary()), done);
  // A used-up variant is not the end while others still have candidates.
  return done > 0 || stop || scheduler_.next_variant() < 0 ? done : round(m, n, stop, on_record);
}

size_t LayoutChoiceTuner::leader() const {
  size_t best = 0;
  for (size_t i = 1; i < variants_.size(); ++i)
    if (best_of(variants_[i]->summary()) < best_of(variants_[best]->summary())) best = i;
  return best;
}

void LayoutChoiceTuner::measure_best_again(MeasuringService &m, int top, int rounds, const std::atomic<bool> &stop,
                                           const std::function<void()> &on_record) {
  const double best = best_cost();
  for (size_t i = 0; i < variants_.size(); ++i) {
    const TuneSummary &s = variants_[i]->summary();
    const bool focused = std::any_of(focus_.begin(), focus_.end(), [&](const FocusedVariant &f) { return f.variant == int(i); });
    if (!stop && s.found && (best_of(s) <= 1.1 * best || focused))
      variants_[i]->measure_best_again(m, top, rounds, stop, on_record);
  }
}

int LayoutChoiceTuner::variant_in(const std::string &layout) const {
  // Among the variants that keep activations in `layout` (NCHW and NCHWgemm), the faster.
  int pick = -1;
  for (size_t i = 0; i < variants_.size(); ++i) {
    const Workload w = variants_[i]->op().workload();
    if (!has_layout(w.kind) || activation_memory_layout(w.get_str("layout")) != layout) continue;
    if (pick < 0 || best_of(variants_[i]->summary()) < best_of(variants_[size_t(pick)]->summary())) pick = int(i);
  }
  return pick;
}

bool LayoutChoiceTuner::focus(const std::string &layout, const std::string &detour_layout, double detour_seconds) {
  std::vector<FocusedVariant> picked;
  if (const int v = variant_in(layout); v >= 0) picked.push_back({v, 0});
  if (const int v = detour_layout.empty() ? -1 : variant_in(detour_layout);
      v >= 0 && (picked.empty() || v != picked[0].variant))
    picked.push_back({v, detour_seconds});
  if (picked.empty()) return false;
  focus_ = picked;
  focus_scheduler_.reset();
  if (focus_.size() > 1) {
    VariantSchedulerOptions shares;
    shares.contender_ratio = std::numeric_limits<double>::infinity();  // shares by closeness alone
    focus_scheduler_.emplace(int(focus_.size()), shares);
    // What each has already had counts as its warm-up.
    for (size_t f = 0; f < focus_.size(); ++f) {
      const TuneSummary &s = variants_[size_t(focus_[f].variant)]->summary();
      if (s.trials_total > 0) focus_scheduler_->report(int(f), best_of(s) + focus_[f].extra_seconds, s.trials_total);
    }
  }
  return true;
}

int LayoutChoiceTuner::focused_round(MeasuringService &m, int n, const std::atomic<bool> &stop,
                                     const std::function<void()> &on_record) {
  if (!focus_scheduler_) return variants_[size_t(focus_[0].variant)]->round(m, n, stop, on_record);
  const int f = focus_scheduler_->next_variant();
  if (f < 0) return 0;
  TaskTuner &tuner = *variants_[size_t(focus_[size_t(f)].variant)];
  const int done = tuner.round(m, n, stop, on_record);
  focus_scheduler_->report(f, best_of(tuner.summary()) + focus_[size_t(f)].extra_seconds, done);
  return done > 0 || stop || focus_scheduler_->next_variant() < 0 ? done : focused_round(m, n, stop, on_record);
}

double LayoutChoiceTuner::focus_cost() const {
  if (focus_.empty()) return best_cost();
  double best = std::numeric_limits<double>::infinity();
  for (const FocusedVariant &f : focus_)
    best = std::min(best, best_of(variants_[size_t(f.variant)]->summary()) + f.extra_seconds);
  return best;
}

const TaskTuner *LayoutChoiceTuner::focused() const {
  return focus_.empty() ? nullptr : variants_[size_t(focus_[0].variant)].get();
}

void LayoutChoiceTuner::finish() {
  for (auto &v : variants_) v->finish();
}

TuneSummary LayoutChoiceTuner::summary() const {
  if (!chooses_) return variants_[0]->summary();
  TuneSummary out = variants_[leader()]->summary();
  out.trials_total = out.measured_now = out.skipped_known = out.remeasured = 0;
  out.search_seconds = out.model_seconds = out.build_seconds = out.run_seconds = out.final_seconds = 0;
  for (const auto &v : variants_) {
    const TuneSummary &s = v->summary();
    out.layout_variants.push_back({s.workload, s.trials_total, s.found, s.best_cost});
    out.trials_total += s.trials_total;
    out.measured_now += s.measured_now;
    out.skipped_known += s.skipped_known;
    out.remeasured += s.remeasured;
    out.search_seconds += s.search_seconds;
    out.model_seconds += s.model_seconds;
    out.build_seconds += s.build_seconds;
    out.run_seconds += s.run_seconds;
    out.final_seconds += s.final_seconds;
  }
  return out;
}

bool LayoutChoiceTuner::warming_up() const {
  return variants_.size() > 1 && focus_.empty() && scheduler_.warming_up();
}

std::map<std::string, double> LayoutChoiceTuner::latency_by_layout() const {
  std::map<std::string, double> out;
  for (const auto &v : variants_) {
    const TuneSummary &s = v->summary();
    if (!s.found) continue;
    const std::string layout = activation_memory_layout(v->op().workload().get_str("layout"));
    const auto it = out.find(layout);
    if (it == out.end() || s.best_cost < it->second) out[layout] = s.best_cost;
  }
  return out;
}

int LayoutChoiceTuner::trials_total() const {
  int n = 0;
  for (const auto &v : variants_) n += v->summary().trials_total;
  return n;
}

bool LayoutChoiceTuner::found() const { return best_cost() < std::numeric_limits<double>::infinity(); }

double LayoutChoiceTuner::best_cost() const { return best_of(variants_[leader()]->summary()); }

}  // namespace tlp
