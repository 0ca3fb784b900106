#include "search/variant_scheduler.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace tlp {

VariantScheduler::VariantScheduler(int variants, VariantSchedulerOptions o)
    : opt_(o),
      best_(size_t(std::max(variants, 0)), std::numeric_limits<double>::infinity()),
      trials_(best_.size(), 0),
      rounds_(best_.size(), 0),
      done_(best_.size(), false) {
  if (variants < 1) throw std::invalid_argument("VariantScheduler needs at least one variant");
  if (o.warmup_rounds < 1 || !(o.contender_ratio >= 1) || o.max_invalid_rounds < 1 || !(o.half_share_ratio > 1))
    throw std::invalid_argument("VariantScheduler: warmup_rounds and max_invalid_rounds must be >= 1, "
                                "contender_ratio >= 1, half_share_ratio > 1");
}

bool VariantScheduler::warming_up() const {
  for (size_t v = 0; v < best_.size(); ++v)
    if (!done_[v] && rounds_[v] < opt_.warmup_rounds) return true;
  return false;
}

int VariantScheduler::best_variant() const {
  int best = -1;
  for (size_t v = 0; v < best_.size(); ++v)
    if (best_[v] < std::numeric_limits<double>::infinity() && (best < 0 || best_[v] < best_[size_t(best)]))
      best = int(v);
  return best;
}

bool VariantScheduler::contender(int v) const {
  const int leader = best_variant();
  const double best = best_.at(size_t(v));
  // Without a valid result yet, a variant keeps its chances until max_invalid_rounds.
  return leader < 0 || best == std::numeric_limits<double>::infinity() ||
         best <= opt_.contender_ratio * best_[size_t(leader)];
}

double VariantScheduler::weighted_trials(int v) const {
  const int leader = best_variant();
  const double best = best_.at(size_t(v));
  if (leader < 0 || best == std::numeric_limits<double>::infinity() || std::isinf(opt_.half_share_ratio))
    return trials_[size_t(v)];
  const double exponent = std::log(2.0) / std::log(opt_.half_share_ratio);
  return trials_[size_t(v)] * std::pow(best / best_[size_t(leader)], exponent);
}

int VariantScheduler::next_variant() {
  for (size_t v = 0; v < best_.size(); ++v)
    if (!done_[v] && rounds_[v] < opt_.warmup_rounds) return int(v);
  int pick = -1;
  double least = 0;
  for (size_t v = 0; v < best_.size(); ++v) {
    if (done_[v] || !contender(int(v))) continue;
    const double w = weighted_trials(int(v));
    if (pick < 0 || w < least) pick = int(v), least = w;
  }
  return pick;
}

void VariantScheduler::report(int v, double best_latency, int trials) {
  if (v < 0 || size_t(v) >= best_.size()) throw std::invalid_argument("VariantScheduler::report: no variant " + std::to_string(v));
  if (!(best_latency > 0) || trials < 0) throw std::invalid_argument("VariantScheduler::report: bad latency or trials");
  best_[size_t(v)] = std::min(best_[size_t(v)], best_latency);
  trials_[size_t(v)] += trials;
  ++rounds_[size_t(v)];
  const bool never_valid = best_[size_t(v)] == std::numeric_limits<double>::infinity();
  if (trials == 0 || (never_valid && rounds_[size_t(v)] >= opt_.max_invalid_rounds)) done_[size_t(v)] = true;
}

}  // namespace tlp
