// The evolutionary policy (Ansor's, with crossover added): keep a population,
// score it with the cost model, breed the next generation from the better
// half by mutation and crossover, and after a few generations propose the
// best-scored schedules not measured yet, plus a few random ones
// (epsilon-greedy) so that a wrong model cannot trap the search.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "search/cost_model.h"
#include "search/schedule_mutator.h"
#include "search/schedule_space.h"
#include "search/search_policy.h"

namespace tlp {

struct EvolutionOptions {
  int population = 512;           // Ansor uses 2048; sized for 2 cores (see the note in the docs)
  int generations = 4;            // Ansor's default
  double mutation_probability = 0.85;
  double crossover_probability = 0.05;
  double eps_greedy = 0.05;       // share of each proposal drawn at random from the space
  double seed_measured_share = 0.2;  // of the first population, from the best measured schedules
  // Share of the model's picks taken from the best-scored fresh samples of the
  // first population rather than from everything evolved: evolution climbs to
  // where the model overrates schedules, and the plain samples hedge that.
  // Half and half beat evolved-only picks in paired runs with the shipped model.
  double sampled_share = 0.5;
  uint64_t seed = 1;
};

class EvolutionarySearch : public SearchPolicy {
 public:
  EvolutionarySearch(const ScheduleSpace &space, CostModel &model, std::string task_key, EvolutionOptions options);

  std::vector<Schedule> propose(int n, const std::unordered_set<std::string> &measured) override;
  void observe(const std::vector<Schedule> &schedules, const std::vector<double> &costs) override;
  std::string name() const override { return "evolutionary"; }

  // Seconds spent in the cost model (predict and update) so far.
  double model_seconds() const override { return model_seconds_; }

 private:
  std::vector<Schedule> initial_population(int size);
  // Appends to `out` the best-scored of `pool` not in `taken` until it holds `limit`.
  void take_best(const std::vector<Schedule> &pool, size_t limit, std::unordered_set<std::string> &taken,
                 std::vector<Schedule> &out);
  std::vector<float> score(const std::vector<Schedule> &pop);
  std::vector<Schedule> next_generation(const std::vector<Schedule> &pop, const std::vector<float> &scores);

  const ScheduleSpace &space_;
  CostModel &model_;
  std::string task_key_;
  EvolutionOptions options_;
  ScheduleMutator mutator_;
  std::mt19937_64 rng_;
  std::vector<std::pair<double, Schedule>> measured_;  // (cost, schedule), valid ones only
  // Scores given during the current propose(): the model only changes in
  // observe(), and the elite and unchanged children recur across generations
  // and in the final pick, which would otherwise score them again.
  std::unordered_map<std::string, float> scored_;
  double model_seconds_ = 0;
};

}  // namespace tlp
