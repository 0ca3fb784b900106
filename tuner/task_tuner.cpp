#include "tuner/wall_clock.h"
#include "tuner/task_tuner.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "codegen/lower.h"
#include "codegen/target.h"
#include "measure/platform.h"
#include "search/evolutionary_search.h"
#include "search/random_search.h"

namespace tlp {

SpaceOptions space_options_for(const Halide::Target &target) {
  SpaceOptions so;
  so.vector_lanes = vector_lanes_f32(target);
  if (so.vector_lanes >= 16) so.register_budgets = {8, 12, 16, 24};  // AVX-512 has 32 vector registers
  if (target.has_gpu_feature()) so.gpu = GpuLimits{};  // the GPU sketch rules, within CUDA's launch limits
  return so;
}

TaskTuner::TaskTuner(const std::string &op_spec, const Halide::Target &target, const TuneOptions &o, uint64_t seed,
                     CostModel *model)
    : op_(make_operator(op_spec)), dag_(make_compute_dag(*op_)) {
  space_ = std::make_unique<ScheduleSpace>(dag_, space_options_for(target));
  sum_.workload = op_->workload().key();
  sum_.target = target.to_string();
  sum_.platform =
      measurement_platform(sum_.target, o.threads > 0 ? o.threads : hardware_threads(), o.build_only, o.runner_command);
  if (o.policy == "random") {
    policy_ = std::make_unique<RandomSearch>(*space_, seed);
  } else if (o.policy == "evolutionary") {
    if (!model) throw std::logic_error("the evolutionary policy needs a cost model");
    EvolutionOptions eo;
    eo.population = o.population;
    eo.generations = o.generations;
    eo.sampled_share = o.sampled_share;
    eo.seed = seed;
    policy_ = std::make_unique<EvolutionarySearch>(*space_, *model, sum_.workload, eo);
  } else {
    throw std::runtime_error("unknown search policy '" + o.policy + "' (available: random, evolutionary)");
  }
}

void TaskTuner::consider(const MeasureRecord &r) {
  if (!r.ok() || (sum_.found && r.median_cost >= sum_.best_cost)) return;
  sum_.found = true;
  sum_.best_cost = r.median_cost;
  sum_.best_gflops = op_->flops() / r.median_cost / 1e9;
  sum_.best_schedule = r.schedule;
}

void TaskTuner::load_prior(const std::vector<MeasureRecord> &records, bool resume) {
  for (const auto &r : records) {
    if (r.workload_key != sum_.workload || r.target != sum_.target || r.platform != sum_.platform) continue;
    if (!measured_.insert(r.schedule.to_text()).second) continue;
    consider(r);
    ++sum_.skipped_known;
  }
  if (resume) sum_.trials_total = sum_.skipped_known;
}

int TaskTuner::round(Measurer &m, int n, const std::atomic<bool> &stop, const std::function<void()> &on_record) {
  const double ts = steady_seconds();
  std::vector<Schedule> batch = policy_->propose(n, measured_);
  last_round_ = batch;
  sum_.search_seconds += steady_seconds() - ts;
  if (batch.empty()) return 0;
  const MeasureTimes before = m.times();
  std::vector<double> costs;
  m.measure(*op_, batch, stop, [&](const MeasureRecord &rec) {
    if (rec.platform != sum_.platform) return;
    if (rec.ptxas && rec.error != MeasureError::CompileError) {
      sum_.registers.push_back(rec.ptxas->registers);
      sum_.spilling += rec.ptxas->spill_store_bytes > 0;
    }
    measured_.insert(rec.schedule.to_text());
    consider(rec);
    costs.push_back(rec.ok() ? rec.median_cost : std::numeric_limits<double>::infinity());
    ++sum_.measured_now;
    ++sum_.trials_total;
    if (!rec.ok()) {
      const std::string kind = measure_error_name(rec.error);
      if (++sum_.errors[kind] == 1 && rec.error != MeasureError::NotRun)
        sum_.first_errors[kind] = rec.error_message + "\n  schedule: " + rec.schedule.to_text();
    }
    on_record();
  });
  sum_.build_seconds += m.times().build - before.build;
  sum_.run_seconds += m.times().run - before.run;
  std::vector<Schedule> observed(batch.begin(), batch.begin() + long(costs.size()));
  const double to = steady_seconds();
  try {
    policy_->observe(observed, costs);
  } catch (const std::exception &e) {
    // The records are logged already; a model that failed to learn from them
    // still guides the search as it was, so the run goes on.
    if (!model_update_failed_)
      fprintf(stderr, "warning: the cost model could not learn from this round (%s); it keeps its weights\n", e.what());
    model_update_failed_ = true;
  }
  sum_.search_seconds += steady_seconds() - to;
  return int(costs.size());
}

void TaskTuner::finish() {
  sum_.model_seconds = policy_->model_seconds();
  sum_.search_seconds -= std::min(sum_.search_seconds, sum_.model_seconds);
  if (sum_.found) sum_.best_halide_source = schedule_to_halide_source(*op_, dag_, sum_.best_schedule);
}

}  // namespace tlp
