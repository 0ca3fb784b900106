#include "tuner/tuning_session.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "fleet/fleet_measurer.h"
#include "codegen/layout_choice.h"
#include "codegen/target.h"
#include "measure/measurer.h"
#include "measure/platform.h"
#include "measure/record_log.h"
#include "measure/wall_clock.h"
#include "search/network_spec.h"
#include "search/task_scheduler.h"
#include "tuner/compute_dag_cache.h"
#include "tuner/cost_model_factory.h"
#include "tuner/platform_alias.h"
#include "tuner/progress_bar.h"
#include "tuner/record_migration.h"
#include "tuner/shipped_model.h"
#include "tuner/layout_choice_tuner.h"
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

// Counts the log's records of CPU machines other than `platform`'s: an older
// log names its machine by the brand string, and is reused only once aliased.
void note_other_machines(const std::vector<MeasureRecord> &records, const std::string &platform,
                         const std::string &log_path) {
  const std::string here = platform_machine(platform);
  if (here.empty()) return;
  std::map<std::string, size_t> others;
  for (const MeasureRecord &r : records) {
    const std::string m = platform_machine(r.platform);
    if (!m.empty() && m != here) ++others[m];
  }
  if (others.empty()) return;
  std::string list;
  for (const auto &[m, n] : others) list += (list.empty() ? "" : ", ") + ("'" + m + "': " + std::to_string(n));
  fprintf(stderr,
          "note: %s holds records of other machines (%s); they are not reused on %s. If they were measured on "
          "this machine: --platform-alias '%s=host'\n",
          log_path.c_str(), list.c_str(), here.c_str(), others.begin()->first.c_str());
}

// The log's records, migrated and aliased, for resume and for skipping known runs.
std::vector<MeasureRecord> prior_records(const TuneOptions &o, const std::string &platform) {
  if (o.log_path.empty() || !std::filesystem::exists(o.log_path)) return {};
  LogReadResult prior = read_record_log(o.log_path);
  for (const auto &w : prior.warnings) fprintf(stderr, "warning: %s\n", w.c_str());
  ComputeDagCache dags;  // a resumed older log: known schedules match the ones proposed now
  migrate_records(prior.records, dags);
  apply_platform_aliases(prior.records, parse_platform_aliases(o.platform_aliases));
  note_other_machines(prior.records, platform, o.log_path);
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
    const ShippedModelChoice choice = shipped_model_for(target);
    o.model = choice.path;
    o.model_reason = choice.file + ": " + choice.reason;
    if (o.model.empty()) {
      o.model_reason = "no shipped model fits " + target.to_string() + "; learns online from scratch";
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
                      {"model_choice", model_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(model_reason)},
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

TuneSummary run_tuning(const TuneOptions &given, const std::atomic<bool> &stop) {
  const double t0 = steady_seconds();
  check_common(given);
  const Halide::Target target = checked_target(given);
  const TuneOptions o = with_target_defaults(given, target);
  auto model = guiding_model(o, target);
  LayoutChoiceTuner task(o.op_spec, target, o, o.seed, model.get());
  task.load_prior(prior_records(o, task.summary().platform), o.resume);
  const int known = task.summary().skipped_known;
  if (!o.resume && known)
    fprintf(stderr,
            "note: %s holds %d measurements of this task; they will not be measured again "
            "(--resume counts them toward --trials)\n",
            o.log_path.c_str(), known);
  const auto measuring = make_measuring_service(o.fleet, measurer_options(o, target.to_string()));
  MeasuringService &measurer = *measuring;
  ProgressBar bar("tuning " + o.op_spec, o.trials);
  int trials = task.trials_total();
  auto progress = [&] {
    if (o.progress) bar.update(std::min(trials, o.trials), best_text(task.summary()));
  };
  progress();
  while (trials < o.trials && !stop) {
    const int done = task.round(measurer, std::min(o.batch, o.trials - trials), stop, [&] {
      ++trials;
      progress();
    });
    if (done == 0) {
      if (!stop) fprintf(stderr, "note: the schedule space has no unmeasured candidates left\n");
      break;
    }
  }
  if (o.progress) bar.finish();
  if (!stop && task.found() && measures_best_again(o)) {
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
  if (planned) {
    nlohmann::json p = {{"found", plan.found},
                        {"network_layout", plan.network_layout},
                        {"latency_seconds", plan.found ? nlohmann::json(plan.latency) : nlohmann::json(nullptr)},
                        {"conversion_seconds", plan.found ? nlohmann::json(plan.conversion_latency) : nlohmann::json(nullptr)},
                        {"tasks", nlohmann::json::array()},
                        {"conversions", nlohmann::json::array()}};
    for (const LayoutPlanStep &st : plan.steps)
      p["tasks"].push_back({{"layout", st.layout}, {"kernel_seconds", st.kernel}, {"conversion_seconds", st.conversions}});
    for (const PricedConversion &c : conversions)
      p["conversions"].push_back({{"workload", c.workload},
                                  {"trials", c.trials},
                                  {"cost_seconds", c.found ? nlohmann::json(c.cost) : nlohmann::json(nullptr)}});
    if (first_plan_trials > 0) {
      p["first_plan"] = {{"after_trials", first_plan_trials},
                         {"network_layout", first_plan.network_layout},
                         {"latency_seconds", first_plan.found ? nlohmann::json(first_plan.latency) : nlohmann::json(nullptr)},
                         {"task_layouts", nlohmann::json::array()}};
      for (const LayoutPlanStep &st : first_plan.steps) p["first_plan"]["task_layouts"].push_back(st.layout);
    }
    j["layout_plan"] = p;
  }
  return j;
}

namespace {

// The layouts an activation flows in between operators: the variants' own, in
// first-seen order.
std::vector<std::string> network_layout_candidates(const std::vector<std::unique_ptr<LayoutChoiceTuner>> &tasks) {
  std::vector<std::string> out;
  for (const auto &t : tasks)
    for (const auto &v : t->variants()) {
      const Workload w = v->op().workload();
      if (layout_is_weights_only(w.kind)) continue;
      for (const auto &p : w.params) {
        if (p.first != "layout") continue;
        const std::string memory = activation_memory_layout(p.second);
        if (std::find(out.begin(), out.end(), memory) == out.end()) out.push_back(memory);
      }
    }
  return out;
}

// Plans the network's layouts (search/layout_plan.h): each task's best per layout,
// the first task reading the network's NCHW input, and every conversion the plan
// asks about tuned on the spot as a layout_convert operator, once per shape and pair.
void plan_network_layouts(const TuneOptions &o, const Halide::Target &target,
                          const std::vector<std::unique_ptr<LayoutChoiceTuner>> &tasks, MeasuringService &measurer,
                          CostModel *model, const std::atomic<bool> &stop, NetworkSummary &out) {
  std::vector<LayoutPlanTask> plan_tasks;
  std::vector<std::array<Shape, 2>> activations;  // per task: input and output, NCHW, Halide order {W,H,C,N}
  bool seen_layouts = false;
  for (size_t i = 0; i < tasks.size(); ++i) {
    LayoutPlanTask t;
    t.weight = out.weights[i];
    const Workload &first = tasks[i]->variants().front()->op().workload();
    if (!has_layout(first.kind) || layout_is_weights_only(first.kind)) {  // its best kernel, in whatever layout
      t.fixed = tasks[i]->best_cost();
      activations.push_back({});
    } else {
      // Only layouts with a kernel: one without must not rank its network layout
      // as if the task cost nothing or everything there (the plan detours it).
      t.latency = tasks[i]->latency_by_layout();
      if (t.latency.empty()) t.fixed = std::numeric_limits<double>::infinity();  // no kernel at all: no plan
      if (!seen_layouts) t.input_layout = "NCHW";  // the network's input
      seen_layouts = true;
      const auto plain = make_operator(plain_layout_form(first));
      activations.push_back({plain->input_shapes().front(), plain->output_shape()});
    }
    plan_tasks.push_back(t);
  }
  out.conversions.clear();
  std::map<std::string, size_t> priced;  // conversion workload -> index in out.conversions
  const std::vector<MeasureRecord> prior = prior_records(o, "");  // conversions a resumed log holds (noted already)
  const ConversionCost cost = [&](size_t task, int side, const std::string &from, const std::string &to) {
    const Shape &s = activations[task][size_t(side)];
    const std::string spec = "layout_convert:N=" + std::to_string(s[3]) + ",C=" + std::to_string(s[2]) +
                             ",H=" + std::to_string(s[1]) + ",W=" + std::to_string(s[0]) + ",from=" + from + ",to=" + to;
    auto it = priced.find(spec);
    if (it == priced.end()) {
      PricedConversion c;
      c.workload = spec;
      try {
        TaskTuner tuner(spec, target, o, o.seed, model);
        tuner.load_prior(prior, true);
        while (!stop && tuner.summary().trials_total < o.conversion_trials &&
               tuner.round(measurer, o.conversion_trials - tuner.summary().trials_total, stop, [] {}) > 0) {
        }
        c.found = tuner.summary().found;
        c.cost = tuner.summary().best_cost;
        c.trials = tuner.summary().trials_total;
      } catch (const WorkloadError &) {
        // A block that does not divide these channels: no such conversion.
      }
      it = priced.emplace(spec, out.conversions.size()).first;
      out.conversions.push_back(c);
    }
    const PricedConversion &c = out.conversions[it->second];
    return c.found ? c.cost : std::numeric_limits<double>::infinity();
  };
  if (o.progress) fprintf(stderr, "planning the network's layouts, tuning the conversions it prices (%d trials each)\n",
                          o.conversion_trials);
  out.plan = best_layout_plan(plan_tasks, network_layout_candidates(tasks), cost);
  out.planned = true;
}


std::string plan_latency_text(const LayoutPlan &plan) {
  if (!plan.found) return "no plan: some task has no valid kernel";
  char buf[96];
  snprintf(buf, sizeof buf, "%.3f ms with conversions (%.3f ms of them)", plan.latency * 1e3,
           plan.conversion_latency * 1e3);
  return buf;
}

// Rounds of search over a network's tasks within one trial budget, each round to
// the task where the network's latency should fall most (search/task_scheduler.h).
struct NetworkRounds {
  std::vector<std::unique_ptr<LayoutChoiceTuner>> &tasks;
  const std::vector<double> &weights;
  MeasuringService &measurer;
  const TuneOptions &o;
  const std::atomic<bool> &stop;
  std::string network;
  int spent = 0;

  // Σ weight × cost(task), as the progress bar's text.
  std::string latency_text(const std::function<double(size_t)> &cost) const {
    double lat = 0;
    for (size_t i = 0; i < tasks.size(); ++i) lat += weights[i] * cost(i);
    if (!std::isfinite(lat)) return "estimated latency: not all tasks have a kernel yet";
    char buf[64];
    snprintf(buf, sizeof buf, "estimated latency %.3f ms", lat * 1e3);
    return buf;
  }

  // Until `until` trials are spent; cost(i) is task i's seconds per occurrence as
  // the scheduler should see them. A fresh scheduler starts from what the tasks
  // hold, so no task warms up twice.
  void run(int until, const std::function<double(size_t)> &cost) {
    if (spent >= until || stop) return;
    TaskScheduler scheduler(weights, TaskSchedulerOptions{});
    // Tasks of one operator kind compare their FLOP/s (Ansor's similar-task bound).
    std::vector<double> flops;
    std::vector<std::string> kinds;
    for (const auto &t : tasks) {
      flops.push_back(t->variants().front()->op().flops());
      kinds.push_back(t->variants().front()->op().workload().kind);
    }
    scheduler.set_similar_tasks(flops, kinds);
    for (size_t i = 0; i < tasks.size(); ++i)
      if (tasks[i]->trials_total() > 0) scheduler.report(int(i), cost(i), tasks[i]->trials_total());
    // Rounds small enough that every task gets at least two within the budget.
    const int per_round = std::max(1, std::min(o.batch, o.trials / (2 * int(tasks.size()))));
    ProgressBar bar("tuning " + network, o.trials);
    auto counted = [&] {
      ++spent;
      if (o.progress) bar.update(std::min(spent, o.trials), latency_text(cost));
    };
    // Every task's first round, then every layout's warm-up, task by task in
    // turn: the scheduler would give a small task (a pooling) too few rounds to
    // try its layouts, and a layout without a kernel can be the network's only
    // through a detour.
    auto warming = [&](size_t i) { return tasks[i]->trials_total() == 0 || tasks[i]->warming_up(); };
    for (bool progressed = true; progressed && spent < until && !stop;) {
      progressed = false;
      for (size_t i = 0; i < tasks.size() && spent < until && !stop; ++i) {
        if (!warming(i)) continue;
        const int done = tasks[i]->round(measurer, std::min(per_round, until - spent), stop, counted);
        scheduler.report(int(i), cost(i), done);
        progressed = progressed || done > 0;
      }
    }
    while (spent < until && !stop) {
      const int t = scheduler.next_task();
      if (t < 0) break;
      LayoutChoiceTuner &task = *tasks[size_t(t)];
      const int done = task.round(measurer, std::min(per_round, until - spent), stop, counted);
      scheduler.report(t, cost(size_t(t)), done);
      if (o.progress && !stop) {
        bar.finish();
        const TuneSummary s = task.focused() ? task.focused()->summary() : task.summary();
        fprintf(stderr, "  task %d/%zu %s: %d trials, %s\n", t + 1, tasks.size(), s.workload.c_str(), s.trials_total,
                best_text(s).c_str());
      }
    }
    if (o.progress) bar.finish();
  }
};

}  // namespace

NetworkSummary run_network_tuning(const TuneOptions &given, const std::string &network_path,
                                  const std::atomic<bool> &stop) {
  const double t0 = steady_seconds();
  check_common(given);
  const Halide::Target target = checked_target(given);
  const TuneOptions o = with_target_defaults(given, target);
  const NetworkSpec spec = read_network_spec(network_path);
  NetworkSummary out;
  out.network = spec.name;
  const std::vector<MeasureRecord> prior = prior_records(o, tune_platform(o, target));
  // One model for all tasks: what it learns on one operator helps the others.
  auto model = guiding_model(o, target);
  std::vector<std::unique_ptr<LayoutChoiceTuner>> tasks;
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    const std::string op = o.network_layouts == "any" ? with_any_layout(spec.tasks[i].op) : spec.tasks[i].op;
    try {
      tasks.push_back(std::make_unique<LayoutChoiceTuner>(op, target, o, o.seed + i, model.get()));
    } catch (const std::exception &e) {
      throw std::runtime_error("network file '" + network_path + "', task " + std::to_string(i) + ": " + e.what());
    }
    tasks.back()->load_prior(prior, o.resume);
    out.weights.push_back(spec.tasks[i].weight);
  }
  const auto measuring = make_measuring_service(o.fleet, measurer_options(o, target.to_string()));
  MeasuringService &measurer = *measuring;
  NetworkRounds rounds{tasks, out.weights, measurer, o, stop, spec.name};
  for (const auto &t : tasks) rounds.spent += t->trials_total();
  const bool plans = o.network_layouts == "any";
  // With layouts free, a first share of the budget finds each task's layouts, then
  // the plan drawn from it says which layout each task's kernel must be good in.
  const int first_phase = plans ? int(std::lround(o.trials * o.layout_plan_share)) : o.trials;
  rounds.run(first_phase, [&](size_t i) { return tasks[i]->best_cost(); });
  if (plans && rounds.spent < o.trials && !stop) {
    plan_network_layouts(o, target, tasks, measurer, model.get(), stop, out);
    out.first_plan = out.plan;
    out.first_plan_trials = rounds.spent;
    if (o.progress) {
      fprintf(stderr, "first layout plan after %d trials: activations in %s, %s; the other %d trials go to each "
                      "task's kernels in that layout and in its detour\n",
              rounds.spent, out.plan.network_layout.c_str(), plan_latency_text(out.plan).c_str(), o.trials - rounds.spent);
    }
    // Without a plan (no network layout every task can run in or convert to) the
    // rounds go on as in the first phase.
    std::vector<double> plan_cost(tasks.size(), std::numeric_limits<double>::infinity());
    for (size_t i = 0; i < tasks.size() && out.plan.found; ++i) {
      const LayoutPlanStep &step = out.plan.steps.at(i);
      tasks[i]->focus(out.plan.network_layout, step.layout, step.conversions);
      plan_cost[i] = step.kernel + step.conversions;
    }
    // A task's part of the plan: the better of its kernel in the network's layout and
    // its detour, conversions counted (the first plan's figure until one beats it).
    rounds.run(o.trials, [&](size_t i) { return std::min(tasks[i]->focus_cost(), plan_cost[i]); });
  }
  if (!stop && measures_best_again(o)) {
    ProgressBar again("measuring each task's fastest " + std::to_string(o.final_top) + " again", int(tasks.size()));
    for (size_t i = 0; i < tasks.size() && !stop; ++i) {
      if (tasks[i]->found()) tasks[i]->measure_best_again(measurer, o.final_top, o.final_rounds, stop, [] {});
      if (o.progress) again.update(int(i) + 1, rounds.latency_text([&](size_t k) { return tasks[k]->best_cost(); }));
    }
    if (o.progress) again.finish();
  }
  for (auto &t : tasks) {
    t->finish();
    out.tasks.push_back(t->summary());
  }
  if (plans && !stop) plan_network_layouts(o, target, tasks, measurer, model.get(), stop, out);
  out.trials_total = rounds.spent;
  out.interrupted = stop;  // also mid-way through measuring the fastest again: --resume finishes that
  out.wall_seconds = steady_seconds() - t0;
  return out;
}

}  // namespace tlp
