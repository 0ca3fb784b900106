// One tuning run of one operator on one target: propose schedules, build them in
// parallel, run them one by one in an isolated runner, log every measurement as
// it comes, repeat until the trial budget is spent or the user stops.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fleet/fleet.h"
#include "search/evolutionary_search.h"
#include "search/layout_plan.h"
#include "search/schedule.h"
#include "measure/measure_settings.h"

namespace Halide {
struct Target;
}

namespace tlp {

struct TuneOptions {
  std::string op_spec = "matmul:M=512,N=512,K=512";
  std::string target = "host";
  int trials = 64;
  // random | evolutionary | auto (evolutionary, or random when only building:
  // nothing is measured to learn from)
  std::string policy = "auto";
  // The evolutionary policy's cost model: a model file, none, random, or default
  // (the shipped model when it fits the target, else none; tuner/shipped_model.h)
  std::string model = "default";
  std::string model_reason;  // set by with_target_defaults: why --model default took the model it took
  int population = 512;
  int generations = 4;
  double sampled_share = EvolutionOptions().sampled_share;  // of the model's picks, from plain samples
  int update_epochs = -1;   // the TLP model's fine-tuning epochs per round (-1: its default; 0: never)
  int update_records = -1;  // records each fine-tuning trains on (-1: its default; 0: all seen)
  std::string log_path;    // required
  bool resume = false;     // count the log's records for this task toward `trials`
  std::vector<std::string> platform_aliases;  // OLD=NEW: records of machine OLD read as NEW's (platform_alias.h)
  uint64_t seed = 1;
  int batch = 16;          // candidates measured per round
  int threads = 0;         // threads a kernel runs with (part of the platform); 0: every hardware thread
  MeasureSettings measure;
  std::string work_dir;      // artifacts; a fresh temporary folder if empty
  bool progress = true;
  bool build_only = false;   // build and validate candidates, never run them (GPU targets here)
  std::string runner_command;  // empty: the local tlptune-runner (see MeasurerOptions)
  FleetRank fleet;             // on rank 0 of an MPI fleet, the other ranks measure (fleet/fleet.h)
  // At the end, the final_top fastest kernels are measured again, final_rounds
  // times side by side, and the best is the lowest median over each kernel's
  // measurements (measure/kernel_cost_table.h). 0 for either skips it.
  int final_top = 3;
  int final_rounds = 3;
  // Network tuning: "fixed" tunes each operator in the layout its spec names; "any"
  // frees the layout of every operator that has one and plans the network's layouts
  // (search/layout_plan.h), tuning each conversion the plan prices with
  // conversion_trials trials (beyond `trials`). The plan is first drawn up after
  // layout_plan_share of the trials; the rest go to each task's kernels in the
  // network's layout and in the plan's detour, if it takes one, shared by how close
  // each is with conversions counted (LayoutChoiceTuner::focus), and the plan is
  // drawn up again at the end.
  std::string network_layouts = "fixed";
  int conversion_trials = 8;
  double layout_plan_share = 0.5;
};

// One of a run's fastest kernels, measured again at the end.
struct FinalKernel {
  std::string schedule;      // its text
  double first_cost = 0;     // seconds: its figure before it was measured again
  double cost = 0;           // seconds: the median over all its measurements since (0 when ruled out)
  int measurements = 0;      // in that median
  std::string ruled_out_by;  // the error of a run that failed when run again; empty if none
};

// One layout of a layout=any run (codegen/layout_choice.h) and how far it got.
struct LayoutVariant {
  std::string workload;  // the concrete workload key
  int trials = 0;
  bool found = false;
  double best_cost = 0;  // seconds, when found
};

struct TuneSummary {
  std::string workload;
  std::string target;
  std::string platform;
  std::string policy;  // as run: random or evolutionary
  std::string model;   // the evolutionary policy's cost model as run; empty for random
  std::string model_reason;  // why --model default chose it; empty when the user named the model
  int trials_total = 0;       // counted toward the budget, including resumed ones
  int measured_now = 0;       // measured by this run
  int skipped_known = 0;      // found in the log and not measured again
  std::map<std::string, int> errors;  // error name -> count, this run
  // error name -> the first such record's message and schedule, so a user sees why
  std::map<std::string, std::string> first_errors;
  bool interrupted = false;
  bool found = false;         // a valid kernel exists
  double best_cost = 0;       // seconds (median of repeats)
  double best_gflops = 0;
  Schedule best_schedule;
  std::string best_halide_source;
  // The fastest kernels measured again at the end: kept ones fastest first, then
  // the ruled-out ones. remeasured counts those records (not trials).
  std::vector<FinalKernel> finals;
  int remeasured = 0;
  bool finals_changed_best = false;  // the best after them is not the one before
  double wall_seconds = 0, search_seconds = 0, model_seconds = 0, build_seconds = 0, run_seconds = 0;
  double final_seconds = 0;  // measuring the fastest again (its build and run time are in those, too)
  // GPU builds: registers per thread of each candidate ptxas accepted, and how many spilled.
  std::vector<int> registers;
  int spilling = 0;
  // With layout=any: every layout searched; the rest of the summary is the winner's,
  // with the trials of all of them.
  std::vector<LayoutVariant> layout_variants;

  nlohmann::json to_json() const;
};

// `options` with --policy auto and --model default made concrete for `target`.
TuneOptions with_target_defaults(TuneOptions options, const Halide::Target &target);

// With layout=any in the op spec, searches every layout variant within the one
// budget (search/variant_scheduler.h) and summarizes the fastest.
// Throws std::runtime_error (WorkloadError, TargetError, RecordError...) with a
// message for people when the options cannot work. `stop` is polled between
// candidates; when it turns true the run ends cleanly with everything logged.
TuneSummary run_tuning(const TuneOptions &options, const std::atomic<bool> &stop);

// A conversion kernel the layout plan priced, and what it cost.
struct PricedConversion {
  std::string workload;  // layout_convert:...
  bool found = false;
  double cost = 0;       // seconds, when found
  int trials = 0;
};

struct NetworkSummary {
  std::string network;
  std::vector<double> weights;      // per task
  std::vector<TuneSummary> tasks;   // per task, in the network file's order
  int trials_total = 0;
  bool interrupted = false;
  double wall_seconds = 0;
  // Σ weight × best latency; +inf while some task has no valid kernel. With
  // layouts free it ignores that the tasks' layouts may disagree: `plan` does not.
  double estimated_latency() const;
  // With network_layouts "any": the best consistent plan, and the conversions priced.
  bool planned = false;
  LayoutPlan plan;
  // The plan drawn up after first_plan_trials trials, whose layouts the rest went
  // to (first_plan_trials is 0 when there was none: the budget was spent before).
  LayoutPlan first_plan;
  int first_plan_trials = 0;
  std::vector<PricedConversion> conversions;

  nlohmann::json to_json() const;
};

// Tunes every operator of a network file (search/network_spec.h) within one
// trial budget (`options.trials`), giving each round to the task where the
// estimated network latency should fall most (search/task_scheduler.h).
NetworkSummary run_network_tuning(const TuneOptions &options, const std::string &network_path,
                                  const std::atomic<bool> &stop);

}  // namespace tlp
