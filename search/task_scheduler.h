// The task scheduler for whole-network tuning: it decides which task (operator) gets
// the next measurement round, so that the estimated network latency
//     f = Σ_t weight_t × best_t
// falls as fast as possible. It follows Ansor's gradient strategy (Zheng et al.,
// OSDI 2020, §6; TVM's auto_scheduler/task_scheduler.py).
//
// Use: ask next_task(), run one round of search and measurement on that task, and
// report() the task's best latency so far and the trials the round spent. Repeat
// until the trial budget is spent or next_task() returns -1.
//
// Which task is picked:
// 1. Warm-up: every task gets one round, in order 0, 1, ..., n-1.
// 2. After that, with probability eps_random, a uniformly random live task (Ansor's
//    epsilon-greedy step, so no task is starved by a bad estimate).
// 3. Otherwise the live task with the smallest (most negative) gradient. Ties go to
//    the task with fewer rounds, then to the lower index.
//
// The gradient of task i is an estimate of ∂f per trial spent on task i:
//     gradient_i = weight_i × (α·backward_i + (1 − α)·forward_i)
// - weight_i is ∂f/∂best_i (Ansor's chain-rule term).
// - backward_i = (best_i after its latest round − best_i `backward_window` rounds
//   earlier) / (trials spent in those rounds). It is the recent improvement rate, and
//   0 until the task has had backward_window + 1 rounds, or while the older value is
//   still +inf.
// - forward_i = −best_i / trials_i. This is the optimistic guess that the next trials
//   improve as much as the average trial so far.
// - A task whose best is still +inf has gradient −inf. Such a task is picked before
//   any task with a valid result (among several, the one with fewer rounds first).
//
// - With set_similar_tasks(): Ansor's similar-task bound. A task may get as fast, in
//   FLOP/s, as the fastest task of its group within a factor beta, so
//       forward_i = (min(best_i − best_i/rounds_i, β × flops_i / group throughput) − best_i)
//                   / (trials_i / rounds_i)
//   (without it, or while no task of the group has a valid result, the first term
//   alone: the −best_i / trials_i above). A task far slower than its peers (a
//   depthwise convolution that got few trials, next to one that got many) gets rounds
//   even while its own curve is flat.
//
// How this differs from Ansor:
// - Ansor divides both terms by rounds; here they are divided by trials. With rounds
//   of equal size the ranking is the same. With unequal rounds (say a task whose
//   space is nearly used up measures fewer candidates), tasks are compared per unit of
//   the measurement budget.
// - Ansor starts every best at 1e10. Here it starts at +inf, and +inf means −inf
//   gradient, with the same effect.
// - Ties: Ansor picks at random when all gradients are equal. Here it is the
//   deterministic order above.
// - Done tasks (never picked again) are:
//   - a task whose round measured 0 trials (its space is used up; as in Ansor);
//   - a task still without a valid result after `max_invalid_rounds` rounds (new here:
//     without it, a task whose every candidate fails would hold gradient −inf and
//     take the whole budget).
//   next_task() returns -1 once every task is done.
//
// A consequence of the forward term, worth knowing: among tasks that are all flat,
// rounds go roughly in proportion to weight × best latency. A task that is still
// improving gets more rounds than a flat one only while its recent gain per trial is
// large next to best/trials.
//
// Standard library only. Not thread-safe.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tlp {

struct TaskSchedulerOptions {
  double alpha = 0.2;          // weight of the backward (observed) gradient, in [0, 1]
  double beta = 2.0;           // Ansor's similar-task bound (with set_similar_tasks), > 0
  int backward_window = 3;     // rounds of a task looked back by the backward gradient, >= 1
  double eps_random = 0.05;    // probability of a random pick after the warm-up, in [0, 1]
  uint64_t seed = 1;           // for the random picks
  int max_invalid_rounds = 5;  // a task with no valid result after this many rounds is done; 0: never
};

class TaskScheduler {
 public:
  // One task per weight (each weight finite and > 0; at least one task). Throws
  // std::invalid_argument for bad weights or options.
  TaskScheduler(std::vector<double> weights, TaskSchedulerOptions o = {});

  // Turns on the similar-task bound: each task's FLOPs per occurrence (> 0) and its
  // group (tasks of one group compare their FLOP/s; e.g. the operator kind). Throws
  // std::invalid_argument for sizes that differ from the tasks' or bad FLOPs.
  void set_similar_tasks(std::vector<double> flops, std::vector<std::string> groups);

  // Which task gets the next round; -1 when every task is done.
  int next_task();

  // Reports the result of a round of task t: its best latency so far (seconds, > 0;
  // +inf if none valid yet; never above what was reported before) and the trials
  // spent in the round (>= 0; 0 marks the task done). A done task's reports are
  // still recorded, but it stays done. Throws std::invalid_argument for a bad t or value.
  void report(int t, double best_latency, int trials);

  // Σ weight × best latency; +inf while any task has no valid result.
  double estimated_latency() const;

  const std::vector<int> &trials_per_task() const { return trials_; }
  const std::vector<int> &rounds_per_task() const { return rounds_; }
  double best_latency(int t) const;  // +inf until a valid result
  bool done(int t) const;
  // The gradient described above (for logs and tests); −inf for a task without a valid result.
  double gradient(int t) const;
  int num_tasks() const { return static_cast<int>(weights_.size()); }

 private:
  void check_task(int t, const char *what) const;
  double uniform01();
  // FLOP/s of the fastest task of t's group with a valid result; 0 if none (or no groups).
  double group_throughput(int t) const;

  TaskSchedulerOptions opt_;
  std::vector<double> weights_;
  std::vector<double> best_;
  std::vector<int> trials_;
  std::vector<int> rounds_;
  std::vector<std::vector<double>> best_history_;   // best after each round, per task
  std::vector<std::vector<int>> trials_history_;    // trials of each round, per task
  std::vector<bool> done_;
  std::vector<double> flops_;        // empty: no similar-task bound
  std::vector<std::string> groups_;
  int warmup_next_ = 0;  // the next task to hand out during the warm-up
  std::mt19937_64 rng_;
};

}  // namespace tlp
