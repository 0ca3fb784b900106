#include "search/task_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tlp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string num(double v) {
  std::string s = std::to_string(v);
  return std::isfinite(v) ? s : (v > 0 ? "inf" : (v < 0 ? "-inf" : "nan"));
}

}  // namespace

TaskScheduler::TaskScheduler(std::vector<double> weights, TaskSchedulerOptions o)
    : opt_(o), weights_(std::move(weights)), rng_(o.seed) {
  if (weights_.empty()) throw std::invalid_argument("TaskScheduler: no tasks (give at least one weight)");
  for (size_t i = 0; i < weights_.size(); ++i)
    if (!(weights_[i] > 0) || !std::isfinite(weights_[i]))
      throw std::invalid_argument("TaskScheduler: weight of task " + std::to_string(i) +
                                  " must be finite and > 0, got " + num(weights_[i]));
  if (!(opt_.alpha >= 0 && opt_.alpha <= 1))
    throw std::invalid_argument("TaskScheduler: alpha must be in [0, 1], got " + num(opt_.alpha));
  if (!(opt_.beta > 0)) throw std::invalid_argument("TaskScheduler: beta must be > 0, got " + num(opt_.beta));
  if (opt_.backward_window < 1)
    throw std::invalid_argument("TaskScheduler: backward_window must be >= 1, got " +
                                std::to_string(opt_.backward_window));
  if (!(opt_.eps_random >= 0 && opt_.eps_random <= 1))
    throw std::invalid_argument("TaskScheduler: eps_random must be in [0, 1], got " + num(opt_.eps_random));
  if (opt_.max_invalid_rounds < 0)
    throw std::invalid_argument("TaskScheduler: max_invalid_rounds must be >= 0 (0: never give up), got " +
                                std::to_string(opt_.max_invalid_rounds));
  const size_t n = weights_.size();
  best_.assign(n, kInf);
  trials_.assign(n, 0);
  rounds_.assign(n, 0);
  best_history_.resize(n);
  trials_history_.resize(n);
  done_.assign(n, false);
}

void TaskScheduler::set_similar_tasks(std::vector<double> flops, std::vector<std::string> groups) {
  if (flops.size() != weights_.size() || groups.size() != weights_.size())
    throw std::invalid_argument("TaskScheduler::set_similar_tasks: " + std::to_string(flops.size()) + " FLOP counts and " +
                                std::to_string(groups.size()) + " groups for " + std::to_string(weights_.size()) +
                                " tasks");
  for (size_t i = 0; i < flops.size(); ++i)
    if (!(flops[i] > 0) || !std::isfinite(flops[i]))
      throw std::invalid_argument("TaskScheduler::set_similar_tasks: FLOPs of task " + std::to_string(i) +
                                  " must be finite and > 0, got " + num(flops[i]));
  flops_ = std::move(flops);
  groups_ = std::move(groups);
}

double TaskScheduler::group_throughput(int t) const {
  double best = 0;
  for (size_t u = 0; u < flops_.size(); ++u)
    if (groups_[u] == groups_[size_t(t)] && std::isfinite(best_[u])) best = std::max(best, flops_[u] / best_[u]);
  return best;
}

void TaskScheduler::check_task(int t, const char *what) const {
  if (t < 0 || t >= num_tasks())
    throw std::invalid_argument(std::string("TaskScheduler::") + what + ": task " + std::to_string(t) +
                                " out of range (there are " + std::to_string(num_tasks()) + " tasks)");
}

// 53 random bits as a double in [0, 1): the same sequence on every platform, unlike
// std::uniform_real_distribution.
double TaskScheduler::uniform01() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

double TaskScheduler::best_latency(int t) const {
  check_task(t, "best_latency");
  return best_[t];
}

bool TaskScheduler::done(int t) const {
  check_task(t, "done");
  return done_[t];
}

double TaskScheduler::gradient(int t) const {
  check_task(t, "gradient");
  const double best = best_[t];
  if (std::isinf(best)) return -kInf;
  const int r = rounds_[t];
  const int w = opt_.backward_window;

  double backward = 0;
  if (r > w) {
    const double old = best_history_[t][r - 1 - w];
    int window_trials = 0;
    for (int k = r - w; k < r; ++k) window_trials += trials_history_[t][k];
    if (std::isfinite(old) && window_trials > 0) backward = (best_history_[t][r - 1] - old) / window_trials;
  }
  double forward = -best / std::max(trials_[t], 1);
  const double throughput = flops_.empty() ? 0 : group_throughput(t);
  if (throughput > 0) {
    const double rounds = std::max(r, 1), trials_per_round = std::max(trials_[t], 1) / rounds;
    const double similar = opt_.beta * flops_[size_t(t)] / throughput;
    forward = (std::min(best - best / rounds, similar) - best) / trials_per_round;
  }
  return weights_[t] * (opt_.alpha * backward + (1 - opt_.alpha) * forward);
}

int TaskScheduler::next_task() {
  const int n = num_tasks();
  while (warmup_next_ < n) {
    const int t = warmup_next_++;
    if (!done_[t]) return t;
  }

  std::vector<int> live;
  for (int t = 0; t < n; ++t)
    if (!done_[t]) live.push_back(t);
  if (live.empty()) return -1;

  // Draw on every call, so the random stream does not depend on the gradients.
  const double u = uniform01();
  if (u < opt_.eps_random) return live[rng_() % live.size()];

  int pick = live.front();
  double pick_grad = gradient(pick);
  for (size_t k = 1; k < live.size(); ++k) {
    const int t = live[k];
    const double g = gradient(t);
    if (g < pick_grad || (g == pick_grad && rounds_[t] < rounds_[pick])) {
      pick = t;
      pick_grad = g;
    }
  }
  return pick;
}

void TaskScheduler::report(int t, double best_latency, int trials) {
  check_task(t, "report");
  if (std::isnan(best_latency) || !(best_latency > 0))
    throw std::invalid_argument("TaskScheduler::report: task " + std::to_string(t) +
                                ": best latency must be > 0 seconds (or +inf for none yet), got " +
                                num(best_latency));
  if (best_latency > best_[t])
    throw std::invalid_argument("TaskScheduler::report: task " + std::to_string(t) + ": best latency " +
                                num(best_latency) + " is above the best reported before (" + num(best_[t]) +
                                "); report the best so far, not the round's best");
  if (trials < 0)
    throw std::invalid_argument("TaskScheduler::report: task " + std::to_string(t) + ": trials must be >= 0, got " +
                                std::to_string(trials));
  best_[t] = best_latency;
  trials_[t] += trials;
  rounds_[t] += 1;
  best_history_[t].push_back(best_latency);
  trials_history_[t].push_back(trials);
  if (trials == 0) done_[t] = true;  // nothing new left to measure
  if (opt_.max_invalid_rounds > 0 && std::isinf(best_latency) && rounds_[t] >= opt_.max_invalid_rounds)
    done_[t] = true;
}

double TaskScheduler::estimated_latency() const {
  double sum = 0;
  for (size_t t = 0; t < weights_.size(); ++t) {
    if (std::isinf(best_[t])) return kInf;
    sum += weights_[t] * best_[t];
  }
  return sum;
}

}  // namespace tlp
