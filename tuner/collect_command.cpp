// tlptune collect: measures randomly sampled schedules of many operators into a
// log, as training data for the cost model. It runs for hours, so it is resumable
// by design: each task is topped up to --per-task valid-or-failed records, and what
// the log already holds is never measured again.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "codegen/target.h"
#include "measure/platform.h"
#include "measure/record_log.h"
#include "search/network_spec.h"
#include "tuner/command.h"
#include "tuner/interrupt.h"
#include "tuner/measurer.h"
#include "tuner/progress_bar.h"
#include "tuner/task_tuner.h"

namespace tlp {
namespace {


struct CollectOptions {
  std::vector<std::string> ops;
  std::vector<std::string> networks;
  int per_task = 100;
  TuneOptions tune;
};

std::vector<std::string> task_specs(const CollectOptions &c) {
  std::vector<std::string> specs = c.ops;
  for (const auto &n : c.networks)
    for (const auto &t : read_network_spec(n).tasks) specs.push_back(t.op);
  if (specs.empty()) throw std::runtime_error("name what to collect: --ops SPEC ... and/or --network FILE ...");
  return specs;
}

}  // namespace

Command add_collect_command(CLI::App &app) {
  auto c = std::make_shared<CollectOptions>();
  c->tune.policy = "random";
  Command cmd;
  cmd.app = app.add_subcommand("collect",
                               "Measure random schedules of many operators into a log (training data for the cost "
                               "model); resumable: run it again to top up");
  auto *sub = cmd.app;
  sub->add_option("--ops", c->ops, "Operators, KIND:PARAM=VALUE,... (several allowed)");
  sub->add_option("--network", c->networks, "Network files whose operators to collect (several allowed)");
  sub->add_option("--per-task", c->per_task, "Records wanted per operator")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--log", c->tune.log_path, "JSON-lines log to append to")->required();
  sub->add_option("--target", c->tune.target, "Compile target")->capture_default_str();
  sub->add_option("--seed", c->tune.seed, "Random seed")->capture_default_str();
  sub->add_option("--batch", c->tune.batch, "Candidates built and measured per round")->capture_default_str();
  sub->add_option("--min-seconds", c->tune.min_seconds, "Timed seconds per candidate, at least")->capture_default_str();
  sub->add_option("--run-timeout", c->tune.run_timeout, "Seconds before a running candidate is killed")->capture_default_str();
  sub->add_flag("!--no-progress", c->tune.progress, "Do not draw the progress bar");
  cmd.run = [c] {
    const std::atomic<bool> &stop = stop_on_interrupt();
    const auto specs = task_specs(*c);
    const Halide::Target target = parse_target(c->tune.target);
    if (!target_runs_here(target))
      throw std::runtime_error("target '" + target.to_string() + "' cannot run on this CPU");
    std::vector<MeasureRecord> prior;
    if (std::filesystem::exists(c->tune.log_path)) prior = read_record_log(c->tune.log_path).records;
    std::vector<std::unique_ptr<TaskTuner>> tasks;
    int missing = 0;
    for (size_t i = 0; i < specs.size(); ++i) {
      tasks.push_back(std::make_unique<TaskTuner>(specs[i], target, c->tune, c->tune.seed + i, nullptr));
      tasks.back()->load_prior(prior, true);
      missing += std::max(0, c->per_task - tasks.back()->summary().trials_total);
    }
    MeasurerOptions mo;
    mo.target = target.to_string();
    mo.platform = cpu_platform(mo.target, hardware_threads());
    mo.log_path = c->tune.log_path;
    mo.run_timeout = c->tune.run_timeout;
    mo.min_seconds = c->tune.min_seconds;
    Measurer measurer(mo);
    ProgressBar bar("collecting", missing);
    int done = 0;
    for (auto &t : tasks) {
      while (t->summary().trials_total < c->per_task && !stop) {
        const int want = std::min(c->tune.batch, c->per_task - t->summary().trials_total);
        if (t->round(measurer, want, stop, [&] {
              ++done;
              if (c->tune.progress) bar.update(done, t->summary().workload.substr(0, 40));
            }) == 0)
          break;
      }
      if (stop) break;
    }
    if (c->tune.progress) bar.finish();
    printf("collected %d new records for %zu operators into %s\n", done, tasks.size(), c->tune.log_path.c_str());
    if (stop) {
      fprintf(stderr, "interrupted: run the same command again to continue where it stopped\n");
      return kExitInterrupted;
    }
    return kExitOk;
  };
  return cmd;
}

}  // namespace tlp
