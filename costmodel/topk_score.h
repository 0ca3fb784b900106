// The top-k score, TenSet's definition, used to evaluate cost models:
//
//   for each task t (weight w_t): rank its records by predicted score, highest
//   first; latency_k(t) = the best true latency among the first k;
//   score = sum_t w_t * min_latency_t / sum_t w_t * latency_k(t)
//
// 1 means the model's top k always holds the task's best record. When a task has
// fewer than k records, its top k is all of them (so it contributes 1). Ties in
// prediction are broken by record order (the earlier record ranks first), so the
// score of a constant model is well defined. Tasks without records are ignored.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace tlp {

struct TopkTask {
  std::vector<double> latencies;   // true latencies (seconds), finite and positive
  std::vector<float> predictions;  // model scores, higher = predicted faster
  double weight = 1.0;             // e.g. how often the task appears in its network
  std::string group;               // e.g. the network; for per-group scores
};

// A task's record indices, best predicted first: ties keep record order and a
// NaN prediction ranks last. The order every score here uses.
std::vector<size_t> ranking_order(const TopkTask &t);

// The best true latency among the k records predicted best (all of them when the
// task has fewer). The task must have records, as many predictions as latencies.
double latency_at_k(const TopkTask &t, int k);

// Throws std::invalid_argument when k < 1, a task's latencies and predictions
// differ in length, a latency is not finite and positive, or a weight is
// negative or not finite. Returns 0 when no task has records.
double topk_score(const std::vector<TopkTask> &tasks, int k);

// The score of each group's tasks alone, by group name.
std::map<std::string, double> topk_score_by_group(const std::vector<TopkTask> &tasks, int k);

struct TopkReport {
  double top1 = 0, top5 = 0;
  std::map<std::string, double> top1_by_group, top5_by_group;
};
TopkReport topk_report(const std::vector<TopkTask> &tasks);

// Several models' rankings of the same tasks as one ranking: each model's
// predictions are standardized within a task (models differ in scale and
// offset), then summed. per_model[m][t] is model m's task t; the latencies,
// weights and groups come from the first model's. One model's tasks come back
// as they are. Throws std::invalid_argument when per_model is empty or the
// models' tasks differ in number or length.
std::vector<TopkTask> ensemble_predictions(const std::vector<std::vector<TopkTask>> &per_model);

}  // namespace tlp
