// tlptune bundle / bundle-import: build candidates here, run them on a machine
// with nothing installed (a GPU machine lent for minutes), log the results here.
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "tuner/bundle.h"
#include "tuner/command.h"
#include "tuner/measure_settings_options.h"
#include "tuner/progress_bar.h"

namespace tlp {
namespace {

// Random picks' final best, per workload: the target other picks are timed to.
double random_best(const std::vector<BundleCurve> &curves, const std::string &workload) {
  for (const BundleCurve &c : curves)
    if (c.workload == workload && c.pick == "random") return c.best_gflops;
  return 0;
}

void print_curves(const std::vector<BundleCurve> &curves) {
  if (curves.empty()) return;
  printf("\n| operator | pick | trials | valid | best GFLOP/s | trials to its best | trials to random's best |\n");
  printf("|---|---|---|---|---|---|---|\n");
  for (const BundleCurve &c : curves) {
    const double target = random_best(curves, c.workload);
    const int to_random = target > 0 ? trials_to_reach(c, target) : 0;
    const int to_best = c.best_gflops > 0 ? trials_to_reach(c, c.best_gflops) : 0;
    printf("| %s | %s | %d | %d | %.1f | %s | %s |\n", c.workload.c_str(), c.pick.c_str(), c.trials, c.valid,
           c.best_gflops, to_best ? std::to_string(to_best).c_str() : "n/r",
           to_random ? std::to_string(to_random).c_str() : "n/r");
  }
}

void write_curves_json(const std::string &path, const BundleImportSummary &s) {
  nlohmann::json j = {{"platform", s.platform}, {"curves", nlohmann::json::array()}};
  for (const BundleCurve &c : s.curves)
    j["curves"].push_back({{"workload", c.workload},
                           {"pick", c.pick},
                           {"trials", c.trials},
                           {"valid", c.valid},
                           {"best_gflops", c.best_gflops},
                           {"best_schedule", c.best_schedule},
                           {"best_so_far", c.best_so_far}});
  std::ofstream f(path, std::ios::trunc);
  f << j.dump(1) << "\n";
  if (!f) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace

Command add_bundle_command(CLI::App &app) {
  auto o = std::make_shared<BundleOptions>();
  auto ops = std::make_shared<std::vector<std::string>>();
  auto progress = std::make_shared<bool>(true);
  Command c;
  c.app = app.add_subcommand(
      "bundle",
      "Build candidates into a folder that another machine runs with nothing installed (bin/tlptune-runner, "
      "kernels, jobs, portable task data, run.sh); then 'tlptune bundle-import' logs the results");
  CLI::App *sub = c.app;
  sub->add_option("--op", *ops, "Operators, KIND:PARAM=VALUE,... (repeat, or give several)")->required();
  sub->add_option("--out", o->out_dir, "The bundle folder to create (must not hold a bundle already)")->required();
  sub->add_option("--target", o->target, "Compile target: cuda, cuda_capability_NN, host, or a Halide target string")
      ->capture_default_str();
  sub->add_option("--per-op", o->per_op, "Candidates per operator")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--model", o->model,
                  "A TLP model file: rank --pool random samples and keep the best --per-op, best first "
                  "(default: keep random samples)");
  sub->add_option("--platform", o->platform,
                  "The platform an MTL-TLP --model predicts for (its head), as records name it");
  sub->add_option("--pool", o->pool, "Samples the model ranks per operator (0: 16 x --per-op)")->capture_default_str();
  sub->add_option("--seed", o->seed, "Random seed of the sampling")->capture_default_str();
  sub->add_option("--threads", o->threads, "CPU targets: threads each run uses (0: all)")->capture_default_str();
  add_measure_settings_options(*sub, o->measure, /*runs_here=*/false);
  sub->add_option("--max-reference", o->max_reference,
                  "Reference values kept per operator; a larger output is checked at this many sampled positions")
      ->capture_default_str();
  sub->add_flag("!--no-progress", *progress, "Do not draw the progress bar");
  sub->footer(
      "Example (tune for a GPU this machine cannot see):\n"
      "  tlptune bundle --target cuda --op matmul:M=4096,N=4096,K=4096 --per-op 200 --out gpu-bundle\n"
      "  (copy gpu-bundle to the GPU machine)  sh gpu-bundle/run.sh gpu-results\n"
      "  (copy gpu-results back)  tlptune bundle-import gpu-bundle gpu-results --log gpu.jsonl\n"
      "The bundle needs glibc and, for CUDA kernels, the NVIDIA driver; nothing else.");
  c.run = [o, ops, progress] {
    std::unique_ptr<ProgressBar> bar;
    const BundleSummary s = write_bundle(*ops, *o, [&](int done, int total) {
      if (!*progress) return;
      if (!bar) bar = std::make_unique<ProgressBar>("building", total);
      bar->update(done, "");
    });
    if (bar) bar->finish();
    printf("bundle %s: %d candidates, %d built, %d failed to build, %.1f MiB\n", o->out_dir.c_str(), s.candidates,
           s.built, s.failed, double(s.bytes) / (1024.0 * 1024.0));
    printf("next: run 'sh %s/run.sh RESULTS' on the machine to measure, then 'tlptune bundle-import %s RESULTS --log LOG'\n",
           o->out_dir.c_str(), o->out_dir.c_str());
    if (s.built == 0) {
      fprintf(stderr, "no candidate built: each one's error is in %s/manifest.jsonl\n", o->out_dir.c_str());
      return kExitError;
    }
    return kExitOk;
  };
  return c;
}

Command add_bundle_import_command(CLI::App &app) {
  auto pairs = std::make_shared<std::vector<std::string>>();
  auto log = std::make_shared<std::string>();
  auto platform = std::make_shared<std::string>();
  auto json_path = std::make_shared<std::string>();
  Command c;
  c.app = app.add_subcommand("bundle-import",
                             "Append a bundle's measurements (the folder its run.sh wrote) to a log as records; "
                             "several bundles are compared in one table (e.g. random picks against a model's)");
  c.app->add_option("bundle_and_results", *pairs,
                    "BUNDLE RESULTS [BUNDLE RESULTS ...]: a bundle folder ('tlptune bundle --out') and the folder its "
                    "run.sh wrote results.jsonl (and probe.json) to")
      ->required();
  c.app->add_option("--log", *log, "JSON-lines log to append to (records already there are not added twice)")
      ->required();
  c.app->add_option("--platform", *platform,
                    "The platform the records name, as records name it (default: the GPU in probe.json, or this "
                    "machine's CPU)");
  c.app->add_option("--json", *json_path, "Also write the per-operator curves (best GFLOP/s after each trial) here");
  c.run = [pairs, log, platform, json_path] {
    if (pairs->size() % 2 != 0)
      throw std::runtime_error("bundle-import takes BUNDLE RESULTS pairs; got " + std::to_string(pairs->size()) +
                               " folders");
    BundleImportSummary all;
    for (size_t i = 0; i < pairs->size(); i += 2) {
      BundleImportSummary s = import_bundle((*pairs)[i], (*pairs)[i + 1], *log, *platform);
      printf("%s: %d records appended for %s; %d already in the log; %d built but not measured\n", log->c_str(),
             s.imported, s.platform.c_str(), s.already_logged, s.not_measured);
      if (s.not_measured > 0)
        printf("%s stopped early: run its run.sh again on the machine to measure the rest\n", (*pairs)[i].c_str());
      all.platform = s.platform;
      all.curves.insert(all.curves.end(), s.curves.begin(), s.curves.end());
    }
    print_curves(all.curves);
    if (!json_path->empty()) write_curves_json(*json_path, all);
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
