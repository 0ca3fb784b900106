// Which of several variants of one operator (the same computation in different
// data layouts, say) gets the next round of search, when only the fastest variant
// counts: unlike a network's tasks (task_scheduler.h), the others' latencies add
// nothing, so rounds go where the minimum may still fall.
//
// 1. Warm-up: every variant gets `warmup_rounds` rounds, in order.
// 2. Then the contenders are the live variants whose best is within
//    `contender_ratio` of the best of all, or that have no valid result yet.
//    The round goes to the contender with the fewest trials weighted by how far
//    it is behind: trials * (best / leader's best)^a, with a chosen so that a
//    variant `half_share_ratio` behind gets half the leader's trials (ties: the
//    lower index). Near-equal layouts share the budget; one a little behind
//    still gets a late round (its first round may have been unlucky), and the
//    leader gets most. The best only falls, so a variant past
//    `contender_ratio` stays out.
// 3. A variant is done when a round measures 0 trials (its space is used up), or
//    after `max_invalid_rounds` rounds without a valid result.
// next_variant() returns -1 once every variant is done.
//
// Standard library only. Not thread-safe.
#pragma once

#include <vector>

namespace tlp {

struct VariantSchedulerOptions {
  int warmup_rounds = 1;          // >= 1
  double contender_ratio = 1.3;   // >= 1
  int max_invalid_rounds = 3;     // >= 1
  double half_share_ratio = 1.1;  // > 1; +inf: contenders share evenly
};

class VariantScheduler {
 public:
  // Throws std::invalid_argument for no variants or bad options.
  VariantScheduler(int variants, VariantSchedulerOptions o = {});

  int next_variant();
  // Variant v's best latency so far (seconds; +inf while none is valid) after a
  // round that measured `trials` candidates. Throws std::invalid_argument for a bad v.
  void report(int v, double best_latency, int trials);

  int best_variant() const;  // -1 while none has a valid result
  double best_latency(int v) const { return best_.at(v); }
  int trials(int v) const { return trials_.at(v); }
  bool done(int v) const { return done_.at(v); }
  bool contender(int v) const;  // within contender_ratio of the best, or without a valid result yet
  bool warming_up() const;      // some live variant has had fewer than warmup_rounds rounds
  // What next_variant() compares: trials, weighted by how far v is behind the leader.
  double weighted_trials(int v) const;

 private:
  VariantSchedulerOptions opt_;
  std::vector<double> best_;
  std::vector<int> trials_, rounds_;
  std::vector<bool> done_;
};

}  // namespace tlp
