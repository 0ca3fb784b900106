// tlptune bundle / bundle-import: build candidates here, run them on a machine
// with nothing installed (a GPU machine lent for minutes), log the results here.
#include <cstdio>
#include <memory>

#include "tuner/bundle.h"
#include "tuner/command.h"
#include "tuner/progress_bar.h"

namespace tlp {

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
  sub->add_option("--platform", o->platform, "The platform an MTL-TLP --model predicts for (its head)");
  sub->add_option("--pool", o->pool, "Samples the model ranks per operator (0: 16 x --per-op)")->capture_default_str();
  sub->add_option("--seed", o->seed, "Random seed of the sampling")->capture_default_str();
  sub->add_option("--build-workers", o->build_workers, "Parallel build processes (0: one per core)")->capture_default_str();
  sub->add_option("--build-timeout", o->build_timeout, "Seconds before a build is abandoned")->capture_default_str();
  sub->add_option("--threads", o->threads, "CPU targets: threads each run uses (0: all)")->capture_default_str();
  sub->add_option("--min-repeats", o->min_repeats, "Timed runs per candidate, at least")->capture_default_str();
  sub->add_option("--min-seconds", o->min_seconds, "Timed seconds per candidate, at least")->capture_default_str();
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
    return s.built > 0 ? kExitOk : kExitError;
  };
  return c;
}

Command add_bundle_import_command(CLI::App &app) {
  auto bundle = std::make_shared<std::string>();
  auto results = std::make_shared<std::string>();
  auto log = std::make_shared<std::string>();
  auto platform = std::make_shared<std::string>();
  Command c;
  c.app = app.add_subcommand("bundle-import",
                             "Append a bundle's measurements (the folder its run.sh wrote) to a log as records");
  c.app->add_option("bundle", *bundle, "The bundle folder ('tlptune bundle --out')")->required();
  c.app->add_option("results", *results, "The folder run.sh wrote results.jsonl (and probe.json) to")->required();
  c.app->add_option("--log", *log, "JSON-lines log to append to (records already there are not added twice)")
      ->required();
  c.app->add_option("--platform", *platform,
                    "The platform the records name (default: the GPU in probe.json, or this machine's CPU)");
  c.run = [bundle, results, log, platform] {
    const BundleImportSummary s = import_bundle(*bundle, *results, *log, *platform);
    printf("%s: %d records appended for %s; %d already in the log; %d built but not measured\n", log->c_str(),
           s.imported, s.platform.c_str(), s.already_logged, s.not_measured);
    if (s.not_measured > 0) printf("run.sh stopped early: run it again on the machine to measure the rest\n");
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
