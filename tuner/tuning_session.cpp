#include "tuner/tuning_session.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "codegen/layout_choice.h"
#include "codegen/target.h"
#include "measure/measurer.h"
#include "measure/platform.h"
#include "measure/record_log.h"
#include "measure/wall_clock.h"
#include "search/network_spec.h"
#include "search/task_scheduler.h"
#include "search/variant_scheduler.h"
#include "tuner/compute_dag_cache.h"
#include "tuner/cost_model_factory.h"
#include "tuner/progress_bar.h"
#include "tuner/record_migration.h"
#include "tuner/shipped_model.h"
#include "tuner/task_tuner.h"

namespace tlp {
namespace {

std::string best_text(const TuneSummary &s) {
  if (!s.found) return "no valid kernel yet";
  char buf[64];
  snprintf(buf, sizeof buf, "best %.1f GFLOP/s (%.3f ms)", s.best_gflops, s.best_cost * 1e3);
  return buf;
}

Halide::Target checked_target(const TuneOptions &o) {
  const Halide::Target target = parse_target(o.target);
  if (o.build_only) return target;
  if (target.has_gpu_feature()) {
    measurement_platform(target.to_string(), 1, false, o.runner_command);  // throws when no GPU answers
    return target;
  }
  if (!target_runs_here(target))
    throw std::runtime_error("target '" + target.to_string() + "' uses instructions this CPU lacks (host is " +
                             Halide::get_host_target().to_string() + "); kernels for it cannot be measured here");
  return target;
}

void check_common(const TuneOptions &o) {
  if (o.log_path.empty() && !o.build_only)
    throw std::runtime_error("--log is required: measurements are kept there (only --build-only needs none)");
  if (o.trials < 1) throw std::runtime_error("--trials must be at least 1");
}

std::vector<MeasureRecord> prior_records(const std::string &log_path) {
  if (log_path.empty() || !std::filesystem::exists(log_path)) return {};
  LogReadResult prior = read_record_log(log_path);
  for (const auto &w : prior.warnings) fprintf(stderr, "warning: %s\n", w.c_str());
  ComputeDagCache dags;  // a resumed older log: known schedules match the ones proposed now
  migrate_records(prior.records, dags);
  return std::move(prior.records);
}

bool measures_best_again(const TuneOptions &o) { return !o.build_only && o.final_top > 0 && o.final_rounds > 0; }

std::string tune_platform(const TuneOptions &o, const Halide::Target &target) {
  return measurement_platform(target.to_string(), o.threads > 0 ? o.threads : hardware_threads(), o.build_only,
                              o.runner_command);
}


// The evolutionary policy's cost model; none for random search.
std::unique_ptr<CostModel> guiding_model(const TuneOptions &o, const Halide::Target &target) {
  if (o.policy != "evolutionary") return nullptr;
  return make_cost_model(o.model, tune_platform(o, target), o.seed, o.update_epochs, o.update_records);
}

}  // namespace

TuneOptions with_target_defaults(TuneOptions o, const Halide::Target &target) {
  if (o.policy == "auto") o.policy = o.build_only ? "random" : "evolutionary";
  if (o.model == "default") {
    o.model = shipped_model_for(target);
    if (o.model.empty()) {
      if (o.policy == "evolutionary")
        fprintf(stderr, "note: no shipped cost model fits %s; the TLP model learns from this run's measurements "
                        "alone (--model none)\n", target.to_string().c_str());
      o.model = "none";
    }
  }
  return o;
}

nlohmann::json TuneSummary::to_json() const {
  nlohmann::json j = {{"workload", workload},
                      {"target", target},
                      {"platform", platform},
                      {"policy", policy},
                      {"model", model},
                      {"trials", trials_total},
                      {"measured", measured_now},
                      {"skipped_known", skipped_known},
                      {"errors", errors},
                      {"first_errors", first_errors},
                      {"interrupted", interrupted},
                      {"found", found},
                      {"time_seconds",
                       {{"wall", wall_seconds},
                        {"search", search_seconds},
                        {"model", model_seconds},
                        {"build", build_seconds},
                        {"run", run_seconds}}}};
  if (!finals.empty() || remeasured) {
    j["time_seconds"]["final"] = final_seconds;
    j["remeasured"] = remeasured;
    j["finals_changed_best"] = finals_changed_best;
    j["finals"] = nlohmann::json::array();
    for (const FinalKernel &f : finals)
      j["finals"].push_back({{"schedule", f.schedule},
                             {"first_cost_seconds", f.first_cost},
                             {"cost_seconds", f.cost},
                             {"measurements", f.measurements},
                             {"ruled_out_by", f.ruled_out_by}});
  }
  if (!registers.empty()) j["gpu"] = {{"registers", registers}, {"spilling", spilling}};
  if (!layout_variants.empty()) {
    j["layout_variants"] = nlohmann::json::array();
    for (const LayoutVariant &v : layout_variants)
      j["layout_variants"].push_back({{"workload", v.workload},
                                      {"trials", v.trials},
                                      {"found", v.found},
                                      {"cost_seconds", v.found ? nlohmann::json(v.best_cost) : nlohmann::json(nullptr)}});
  }
  if (found) {
    j["best"] = {{"cost_seconds", best_cost},
                 {"gflops", best_gflops},
                 {"schedule", best_schedule.to_text()},
                 {"schedule_json", best_schedule.to_json()},
                 {"halide_source", best_halide_source}};
  }
  return j;
}

namespace {

// layout=any: one task per layout variant, one model and one budget for all; rounds
// go to the variants that can still be the fastest. The variants within 10% of the
// best are measured again at the end, so the winner is decided side by side.
TuneSummary run_layout_choice(const TuneOptions &o, const Halide::Target &target, const std::atomic<bool> &stop,
                              double t0) {
  const std::vector<std::string> variants = layout_variants(o.op_spec, target);
  auto model = guiding_model(o, target);
  const std::vector<MeasureRecord> prior = prior_records(o.log_path);
  std::vector<std::unique_ptr<TaskTuner>> tasks;
  for (size_t i = 0; i < variants.size(); ++i) {
    tasks.push_back(std::make_unique<TaskTuner>(variants[i], target, o, o.seed + i, model.get()));
    tasks.back()->load_prior(prior, o.resume);
  }
  VariantScheduler scheduler(int(tasks.size()));
  auto best_of = [](const TuneSummary &s) { return s.found ? s.best_cost : std::numeric_limits<double>::infinity(); };
  int spent = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    spent += tasks[i]->summary().trials_total;
    if (tasks[i]->summary().trials_total > 0)  // a resumed run does not warm up again
      scheduler.report(int(i), best_of(tasks[i]->summary()), tasks[i]->summary().trials_total);
  }
  Measurer measurer(measurer_options(o, target.to_string()));
  ProgressBar bar("tuning " + o.op_spec, o.trials);
  auto leader_text = [&] {
    const int v = scheduler.best_variant();
    return v < 0 ? std::string("no valid kernel yet")
                 : tasks[size_t(v)]->op().workload().get_str("layout") + " " + best_text(tasks[size_t(v)]->summary());
  };
  while (spent < o.trials && !stop) {
    const int v = scheduler.next_variant();
    if (v < 0) {
      fprintf(stderr, "note: the schedule spaces of every layout have no unmeasured candidates left\n");
      break;
    }
    const int done = tasks[size_t(v)]->round(measurer, std::min(o.batch, o.trials - spent), stop, [&] {
      ++spent;
      if (o.progress) bar.update(std::min(spent, o.trials), leader_text());
    });
    scheduler.report(v, best_of(tasks[size_t(v)]->summary()), done);
  }
  if (o.progress) bar.finish();
  const int leader = scheduler.best_variant();
  if (!stop && leader >= 0 && measures_best_again(o)) {
    for (size_t i = 0; i < tasks.size() && !stop; ++i)
      if (best_of(tasks[i]->summary()) <= 1.1 * scheduler.best_latency(leader))
        tasks[i]->measure_best_again(measurer, o.final_top, o.final_rounds, stop, [] {});
  }
  TuneSummary out;
  size_t winner = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    tasks[i]->finish();
    const TuneSummary &s = tasks[i]->summary();
    out.layout_variants.push_back({s.workload, s.trials_total, s.found, s.best_cost});
    if (best_of(s) < best_of(tasks[winner]->summary())) winner = i;
  }
  const std::vector<LayoutVariant> searched = out.layout_variants;
  out = tasks[winner]->summary();
  out.layout_variants = searched;
  out.trials_total = spent;
  out.measured_now = out.skipped_known = 0;
  for (const auto &t : tasks) {
    out.measured_now += t->summary().measured_now;
    out.skipped_known += t->summary().skipped_known;
  }
  out.interrupted = stop;
  out.wall_seconds = steady_seconds() - t0;
  return out;
}

}  // namespace

TuneSummary run_tuning(const TuneOptions &given, const std::atomic<bool> &stop) {
  const double t0 = steady_seconds();
  check_common(given);
  const Halide::Target target = checked_target(given);
  const TuneOptions o = with_target_defaults(given, target);
  if (chooses_layout(o.op_spec)) return run_layout_choice(o, target, stop, t0);
  auto model = guiding_model(o, target);
  TaskTuner task(o.op_spec, target, o, o.seed, model.get());
  task.load_prior(prior_records(o.log_path), o.resume);
  const TuneSummary &sum = task.summary();
  if (!o.resume && sum.skipped_known)
    fprintf(stderr,
            "note: %s holds %d measurements of this task; they will not be measured again "
            "(--resume counts them toward --trials)\n",
            o.log_path.c_str(), sum.skipped_known);
  Measurer measurer(measurer_options(o, target.to_string()));
  ProgressBar bar("tuning " + sum.workload, o.trials);
  auto progress = [&] {
    if (o.progress) bar.update(std::min(sum.trials_total, o.trials), best_text(sum));
  };
  progress();
  while (sum.trials_total < o.trials && !stop) {
    if (task.round(measurer, std::min(o.batch, o.trials - sum.trials_total), stop, progress) == 0) {
      if (!stop) fprintf(stderr, "note: the schedule space has no unmeasured candidates left\n");
      break;
    }
  }
  if (o.progress) bar.finish();
  if (!stop && sum.found && measures_best_again(o)) {
    if (o.progress)
      fprintf(stderr, "measuring the fastest %d kernels again, %d rounds side by side (--final-rounds 0 skips this)\n",
              o.final_top, o.final_rounds);
    task.measure_best_again(measurer, o.final_top, o.final_rounds, stop, [] {});
  }
  task.finish();
  TuneSummary out = task.summary();
  out.interrupted = stop;  // also mid-way through measuring the fastest again: --resume finishes that
  out.wall_seconds = steady_seconds() - t0;
  return out;
}

double NetworkSummary::estimated_latency() const {
  double total = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!tasks[i].found) return std::numeric_limits<double>::infinity();
    total += weights[i] * tasks[i].best_cost;
  }
  return total;
}

nlohmann::json NetworkSummary::to_json() const {
  nlohmann::json j = {{"network", network},
                      {"trials", trials_total},
                      {"interrupted", interrupted},
                      {"wall_seconds", wall_seconds},
                      {"tasks", nlohmann::json::array()}};
  const double lat = estimated_latency();
  j["estimated_latency_seconds"] = std::isfinite(lat) ? nlohmann::json(lat) : nlohmann::json(nullptr);
  for (size_t i = 0; i < tasks.size(); ++i) {
    nlohmann::json t = tasks[i].to_json();
    t["weight"] = weights[i];
    j["tasks"].push_back(t);
  }
  return j;
}

NetworkSummary run_network_tuning(const TuneOptions &given, const std::string &network_path,
                                  const std::atomic<bool> &stop) {
  const double t0 = steady_seconds();
  check_common(given);
  const Halide::Target target = checked_target(given);
  const TuneOptions o = with_target_defaults(given, target);
  const NetworkSpec spec = read_network_spec(network_path);
  NetworkSummary out;
  out.network = spec.name;
  const std::vector<MeasureRecord> prior = prior_records(o.log_path);
  // One model for all tasks: what it learns on one operator helps the others.
  auto model = guiding_model(o, target);
  std::vector<std::unique_ptr<TaskTuner>> tasks;
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    try {
      tasks.push_back(std::make_unique<TaskTuner>(spec.tasks[i].op, target, o, o.seed + i, model.get()));
    } catch (const std::exception &e) {
      throw std::runtime_error("network file '" + network_path + "', task " + std::to_string(i) + ": " + e.what());
    }
    tasks.back()->load_prior(prior, o.resume);
    out.weights.push_back(spec.tasks[i].weight);
  }
  TaskScheduler scheduler(out.weights, TaskSchedulerOptions{});
  Measurer measurer(measurer_options(o, target.to_string()));
  int spent = 0;
  for (const auto &t : tasks) spent += t->summary().trials_total;
  // Known results seed the scheduler, so a resumed run does not warm up again.
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i]->summary().trials_total > 0)
      scheduler.report(int(i), tasks[i]->summary().found ? tasks[i]->summary().best_cost
                                                          : std::numeric_limits<double>::infinity(),
                       tasks[i]->summary().trials_total);
  // Rounds small enough that every task gets at least two within the budget.
  const int per_round = std::max(1, std::min(o.batch, o.trials / (2 * int(tasks.size()))));
  ProgressBar bar("tuning " + spec.name, o.trials);
  auto latency_text = [&] {
    double lat = 0;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (!tasks[i]->summary().found) return std::string("estimated latency: not all tasks have a kernel yet");
      lat += out.weights[i] * tasks[i]->summary().best_cost;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "estimated latency %.3f ms", lat * 1e3);
    return std::string(buf);
  };
  while (spent < o.trials && !stop) {
    const int t = scheduler.next_task();
    if (t < 0) break;
    TaskTuner &task = *tasks[t];
    const int n = std::min(per_round, o.trials - spent);
    const int done = task.round(measurer, n, stop, [&] {
      ++spent;
      if (o.progress) bar.update(std::min(spent, o.trials), latency_text());
    });
    const TuneSummary &s = task.summary();
    scheduler.report(t, s.found ? s.best_cost : std::numeric_limits<double>::infinity(), done);
    if (o.progress && !stop) {
      bar.finish();
      fprintf(stderr, "  task %d/%zu %s: %d trials, %s\n", t + 1, tasks.size(), s.workload.c_str(), s.trials_total,
              best_text(s).c_str());
    }
  }
  if (o.progress) bar.finish();
  if (!stop && measures_best_again(o)) {
    ProgressBar again("measuring each task's fastest " + std::to_string(o.final_top) + " again", int(tasks.size()));
    for (size_t i = 0; i < tasks.size() && !stop; ++i) {
      if (tasks[i]->summary().found) tasks[i]->measure_best_again(measurer, o.final_top, o.final_rounds, stop, [] {});
      if (o.progress) again.update(int(i) + 1, latency_text());
    }
    if (o.progress) again.finish();
  }
  for (auto &t : tasks) {
    t->finish();
    out.tasks.push_back(t->summary());
  }
  out.trials_total = spent;
  out.interrupted = stop;  // also mid-way through measuring the fastest again: --resume finishes that
  out.wall_seconds = steady_seconds() - t0;
  return out;
}

}  // namespace tlp
