#include "costmodel/topk_score.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "search/ensemble_cost_model.h"

namespace tlp {
namespace {

void check(const TopkTask &t, size_t index) {
  const std::string where = "top-k score: task " + std::to_string(index);
  if (t.latencies.size() != t.predictions.size())
    throw std::invalid_argument(where + " has " + std::to_string(t.latencies.size()) + " latencies but " +
                                std::to_string(t.predictions.size()) + " predictions");
  if (!std::isfinite(t.weight) || t.weight < 0)
    throw std::invalid_argument(where + " has weight " + std::to_string(t.weight) +
                                "; weights must be finite and non-negative");
  for (double l : t.latencies)
    if (!std::isfinite(l) || l <= 0)
      throw std::invalid_argument(where + " has latency " + std::to_string(l) +
                                  "; drop failed records before scoring");
}

}  // namespace

std::vector<size_t> ranking_order(const TopkTask &t) {
  std::vector<size_t> order(t.predictions.size());
  std::iota(order.begin(), order.end(), size_t(0));
  // A NaN prediction ranks last (and keeps the comparison a strict weak order).
  auto key = [&](size_t i) { return std::isnan(t.predictions[i]) ? -INFINITY : t.predictions[i]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) > key(b); });
  return order;
}

double latency_at_k(const TopkTask &t, int k) {
  const std::vector<size_t> order = ranking_order(t);
  const size_t top = std::min(order.size(), size_t(std::max(k, 1)));
  double best = t.latencies[order[0]];
  for (size_t i = 1; i < top; ++i) best = std::min(best, t.latencies[order[i]]);
  return best;
}

double topk_score(const std::vector<TopkTask> &tasks, int k) {
  if (k < 1) throw std::invalid_argument("top-k score: k must be at least 1, got " + std::to_string(k));
  double num = 0, den = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TopkTask &t = tasks[i];
    check(t, i);
    if (t.latencies.empty()) continue;
    num += t.weight * *std::min_element(t.latencies.begin(), t.latencies.end());
    den += t.weight * latency_at_k(t, k);
  }
  return den > 0 ? num / den : 0.0;
}

std::map<std::string, double> topk_score_by_group(const std::vector<TopkTask> &tasks, int k) {
  std::map<std::string, std::vector<TopkTask>> groups;
  for (const TopkTask &t : tasks) groups[t.group].push_back(t);
  std::map<std::string, double> out;
  for (const auto &g : groups) out[g.first] = topk_score(g.second, k);
  return out;
}

TopkReport topk_report(const std::vector<TopkTask> &tasks) {
  TopkReport r;
  r.top1 = topk_score(tasks, 1);
  r.top5 = topk_score(tasks, 5);
  r.top1_by_group = topk_score_by_group(tasks, 1);
  r.top5_by_group = topk_score_by_group(tasks, 5);
  return r;
}

std::vector<TopkTask> ensemble_predictions(const std::vector<std::vector<TopkTask>> &per_model) {
  if (per_model.empty()) throw std::invalid_argument("an ensemble needs at least one model's predictions");
  std::vector<TopkTask> out = per_model.front();
  if (per_model.size() == 1) return out;
  for (size_t t = 0; t < out.size(); ++t) {
    std::vector<double> sum(out[t].predictions.size(), 0.0);
    for (const auto &model : per_model) {
      if (model.size() != out.size() || model[t].predictions.size() != sum.size())
        throw std::invalid_argument("the models of an ensemble must rank the same tasks");
      add_standardized(model[t].predictions, sum);
    }
    out[t].predictions.assign(sum.begin(), sum.end());
  }
  return out;
}

}  // namespace tlp
