#include "search/evolutionary_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <unordered_set>

namespace tlp {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Indices sorted by score, best first.
std::vector<size_t> ranking(const std::vector<float> &scores) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return order;
}

}  // namespace

EvolutionarySearch::EvolutionarySearch(const ScheduleSpace &space, CostModel &model, std::string task_key,
                                       EvolutionOptions options)
    : space_(space), model_(model), task_key_(std::move(task_key)), options_(options),
      mutator_(space.dag(), space.options()), rng_(options.seed) {}

std::vector<float> EvolutionarySearch::score(const std::vector<Schedule> &pop) {
  std::vector<std::string> keys;
  std::vector<Schedule> fresh;
  std::vector<size_t> fresh_key;  // index into keys
  for (const Schedule &s : pop) {
    keys.push_back(s.to_text());
    if (scored_.count(keys.back())) continue;
    fresh.push_back(s);
    fresh_key.push_back(keys.size() - 1);
  }
  if (!fresh.empty()) {
    const double t = now_seconds();
    const std::vector<float> got = model_.predict(task_key_, fresh);
    model_seconds_ += now_seconds() - t;
    for (size_t i = 0; i < fresh.size(); ++i) scored_[keys[fresh_key[i]]] = got[i];
  }
  std::vector<float> out;
  out.reserve(pop.size());
  for (const std::string &k : keys) out.push_back(scored_.at(k));
  return out;
}

std::vector<Schedule> EvolutionarySearch::initial_population(int size) {
  std::vector<Schedule> pop;
  std::unordered_set<std::string> seen;
  // The best measured schedules seed the search, as in Ansor.
  std::sort(measured_.begin(), measured_.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  const int seeded = std::min<int>(int(measured_.size()), int(options_.seed_measured_share * size));
  for (int i = 0; i < seeded; ++i)
    if (seen.insert(measured_[i].second.to_text()).second) pop.push_back(measured_[i].second);
  for (int misses = 0; int(pop.size()) < size && misses < size;) {
    Schedule s = space_.sample(rng_);
    if (seen.insert(s.to_text()).second) pop.push_back(std::move(s));
    else ++misses;
  }
  return pop;
}

std::vector<Schedule> EvolutionarySearch::next_generation(const std::vector<Schedule> &pop,
                                                          const std::vector<float> &scores) {
  const auto order = ranking(scores);
  // Parents are drawn with probability falling linearly with their rank.
  std::vector<double> weights(pop.size());
  for (size_t r = 0; r < order.size(); ++r) weights[order[r]] = double(order.size() - r);
  std::discrete_distribution<size_t> parent(weights.begin(), weights.end());
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Schedule> next;
  std::unordered_set<std::string> seen;
  // Keep the best few as they are (elitism), so a generation never loses its best.
  const size_t elite = std::max<size_t>(1, pop.size() / 16);
  for (size_t r = 0; r < std::min(elite, order.size()); ++r)
    if (seen.insert(pop[order[r]].to_text()).second) next.push_back(pop[order[r]]);
  for (size_t tries = 0; next.size() < pop.size() && tries < 4 * pop.size(); ++tries) {
    const Schedule &a = pop[parent(rng_)];
    std::optional<Schedule> child;
    const double roll = u(rng_);
    if (roll < options_.crossover_probability) child = mutator_.crossover(a, pop[parent(rng_)], rng_);
    else if (roll < options_.crossover_probability + options_.mutation_probability) child = mutator_.mutate(a, rng_);
    else child = a;
    if (child && seen.insert(child->to_text()).second) next.push_back(std::move(*child));
  }
  return next;
}

void EvolutionarySearch::take_best(const std::vector<Schedule> &pool, size_t limit,
                                   std::unordered_set<std::string> &taken, std::vector<Schedule> &out) {
  if (pool.empty() || out.size() >= limit) return;
  const auto scores = score(pool);
  for (size_t i : ranking(scores)) {
    if (out.size() >= limit) break;
    if (taken.insert(pool[i].to_text()).second) out.push_back(pool[i]);
  }
}

std::vector<Schedule> EvolutionarySearch::propose(int n, const std::unordered_set<std::string> &measured) {
  scored_.clear();  // the model may have changed since the last round
  std::vector<Schedule> pop = initial_population(options_.population);
  // Everything seen in any generation is a candidate for the final pick.
  std::vector<Schedule> candidates;
  std::unordered_set<std::string> seen;
  auto collect = [&](const std::vector<Schedule> &p) {
    for (const auto &s : p)
      if (!measured.count(s.to_text()) && seen.insert(s.to_text()).second) candidates.push_back(s);
  };
  collect(pop);
  const std::vector<Schedule> sampled = candidates;  // the first population, less what is measured
  for (int g = 0; g < options_.generations && !pop.empty(); ++g) {
    pop = next_generation(pop, score(pop));
    collect(pop);
  }
  std::vector<Schedule> out;
  std::unordered_set<std::string> taken;
  const int random_share = int(std::round(options_.eps_greedy * n));
  const int by_model = n - random_share;
  take_best(sampled, size_t(std::lround(options_.sampled_share * by_model)), taken, out);
  take_best(candidates, size_t(by_model), taken, out);
  for (int misses = 0; int(out.size()) < n && misses < 50 * n + 100;) {
    Schedule s = space_.sample(rng_);
    const std::string key = s.to_text();
    if (measured.count(key) || !taken.insert(key).second) {
      ++misses;
      continue;
    }
    out.push_back(std::move(s));
  }
  return out;
}

void EvolutionarySearch::observe(const std::vector<Schedule> &schedules, const std::vector<double> &costs) {
  for (size_t i = 0; i < schedules.size(); ++i)
    if (std::isfinite(costs[i])) measured_.emplace_back(costs[i], schedules[i]);
  const double t = now_seconds();
  model_.update(task_key_, schedules, costs);
  model_seconds_ += now_seconds() - t;
}

}  // namespace tlp
