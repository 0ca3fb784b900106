#include "tuner/task_tuner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "codegen/lower.h"
#include "codegen/target.h"
#include "measure/platform.h"
#include "measure/wall_clock.h"
#include "search/evolutionary_search.h"
#include "search/random_search.h"
#include "tuner/final_pass.h"

namespace tlp {

SpaceOptions space_options_for(const Halide::Target &target) {
  SpaceOptions so;
  so.vector_lanes = vector_lanes_f32(target);
  if (so.vector_lanes >= 16) so.register_budgets = {8, 12, 16, 24, 28};  // AVX-512 has 32 vector registers
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
  sum_.policy = o.policy;
  if (o.policy == "evolutionary") {
    sum_.model = o.model;
    sum_.model_reason = o.model_reason;
  }
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
  costs_.add(r);
  if (r.ok()) schedule_of_.try_emplace(r.schedule.to_text(), r.schedule);
  sum_.found = costs_.has_best();
  if (!sum_.found) return;
  sum_.best_cost = costs_.best_cost();
  sum_.best_gflops = op_->flops() / sum_.best_cost / 1e9;
  sum_.best_schedule = schedule_of_.at(costs_.best_key());
}

void TaskTuner::load_prior(const std::vector<MeasureRecord> &records, bool resume) {
  for (const auto &r : records) {
    if (r.workload_key != sum_.workload || r.target != sum_.target || r.platform != sum_.platform) continue;
    consider(r);  // every measurement of a kernel counts toward its figure
    if (measured_.insert(r.schedule.to_text()).second) ++sum_.skipped_known;
  }
  if (resume) sum_.trials_total = sum_.skipped_known;
}

int TaskTuner::round(MeasuringService &m, int n, const std::atomic<bool> &stop, const std::function<void()> &on_record) {
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

void TaskTuner::measure_best_again(MeasuringService &m, int top, int rounds, const std::atomic<bool> &stop,
                                   const std::function<void()> &on_record) {
  if (top <= 0 || rounds <= 0) return;
  const double t0 = steady_seconds();
  const MeasureTimes before = m.times();
  std::map<std::string, size_t> final_of;  // schedule text -> index in sum_.finals
  const std::string best_before = costs_.has_best() ? costs_.best_key() : "";
  for (int pass = 0; !stop; ++pass) {
    const std::vector<std::string> due = kernels_due_again(costs_, top, rounds, pass);
    if (due.empty()) break;
    std::vector<Schedule> schedules;
    for (const std::string &key : due) {
      schedules.push_back(schedule_of_.at(key));
      if (final_of.emplace(key, sum_.finals.size()).second)
        sum_.finals.push_back({key, costs_.cost(key), costs_.cost(key), costs_.measurements(key), ""});
    }
    const std::vector<const Operator *> ops(schedules.size(), op_.get());
    m.measure_side_by_side(ops, schedules, rounds, stop, [&](size_t k, const MeasureRecord &rec) {
      if (rec.platform != sum_.platform) return;
      consider(rec);
      ++sum_.remeasured;
      FinalKernel &f = sum_.finals[final_of.at(due[k])];
      if (costs_.ruled_out(f.schedule) && f.ruled_out_by.empty()) f.ruled_out_by = measure_error_name(rec.error);
      on_record();
    }, {});
  }
  sum_.finals_changed_best = !costs_.has_best() || costs_.best_key() != best_before;
  for (FinalKernel &f : sum_.finals) {
    f.cost = costs_.cost(f.schedule);
    f.measurements = costs_.measurements(f.schedule);
  }
  std::sort(sum_.finals.begin(), sum_.finals.end(), [](const FinalKernel &a, const FinalKernel &b) {
    if (a.ruled_out_by.empty() != b.ruled_out_by.empty()) return a.ruled_out_by.empty();
    return a.cost < b.cost;
  });
  sum_.build_seconds += m.times().build - before.build;
  sum_.run_seconds += m.times().run - before.run;
  sum_.final_seconds += steady_seconds() - t0;
}

void TaskTuner::finish() {
  sum_.model_seconds = policy_->model_seconds();
  sum_.search_seconds -= std::min(sum_.search_seconds, sum_.model_seconds);
  if (sum_.found) sum_.best_halide_source = schedule_to_halide_source(*op_, dag_, sum_.best_schedule);
}

MeasurerOptions measurer_options(const TuneOptions &o, const std::string &target) {
  MeasurerOptions mo;
  mo.target = target;
  mo.threads = {o.threads > 0 ? o.threads : hardware_threads()};
  mo.build_only = o.build_only;
  mo.runner_command = o.runner_command;
  mo.log_path = o.log_path;
  mo.work_dir = o.work_dir;
  mo.settings = o.measure;
  return mo;
}

}  // namespace tlp
