// A bundle: candidates built here, packed with the runner into one folder that
// another machine runs with nothing installed (glibc, and the NVIDIA driver for
// GPU kernels), then imported back as log records. This is how tlptune measures
// on a GPU machine it cannot reach as a runner command (a lab machine lent for a
// few minutes, a batch queue).
//
// The folder:
//   bin/tlptune-runner   the runner (links no Halide and no Torch)
//   kernels/<id>.so      one per built candidate
//   tasks/t<k>/          portable task data per operator (generated_task_data.h)
//   jobs.jsonl           the runner's jobs, paths relative to the folder
//   manifest.jsonl       one record per candidate (error not_run until measured,
//                        or its build error), plus "id", "pick" and "rank"
//   run.sh               runs every job; see kBundleRunScript in bundle.cpp
// A failed build stays in the manifest (and becomes a failed record on import),
// so a bundle's trial order is the search's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include "measure/measure_settings.h"

namespace tlp {

struct BundleOptions {
  std::string out_dir;        // created; must not hold a bundle already
  std::string target = "cuda";
  int per_op = 64;            // candidates per operator
  // Empty: candidates are random samples of the schedule space. Else a TLP model
  // file ranks `pool` samples and the best per_op are kept, best first.
  std::string model;
  std::string platform;       // the platform a model predicts for (its head, for MTL)
  int pool = 0;               // 0: 16 x per_op
  uint64_t seed = 1;
  int threads = 0;            // CPU targets: threads per run (0: the runner's default)
  MeasureSettings measure;    // its run_timeout is run.sh's business
  size_t max_reference = size_t(1) << 20;  // reference values kept per operator
};

struct BundleSummary {
  int candidates = 0, built = 0, failed = 0;
  uint64_t bytes = 0;         // the folder's size
};

// Builds the bundle. `progress(done, total)` after each build batch. Throws
// std::runtime_error (bad options, an existing bundle, an unwritable folder).
BundleSummary write_bundle(const std::vector<std::string> &op_specs, const BundleOptions &options,
                           const std::function<void(int, int)> &progress = {});

// One operator's candidates of one kind of pick ("random" or "model"), in the
// bundle's order: how good the best is and how soon it was reached.
struct BundleCurve {
  std::string workload, pick;
  int trials = 0, valid = 0;
  double best_gflops = 0;          // 0 when none ran correctly
  std::vector<double> best_so_far; // GFLOP/s after each trial
  std::string best_schedule;
};

// Trials until best_so_far first reaches `gflops`; 0 when it never does.
int trials_to_reach(const BundleCurve &c, double gflops);

struct BundleImportSummary {
  int imported = 0;       // records appended to the log
  int already_logged = 0; // the log had them (an import run twice)
  int not_measured = 0;   // built but with no result: run.sh stopped early
  std::string platform;
  std::vector<BundleCurve> curves;  // per operator and pick, over every measured candidate
};

// Appends one record per candidate of the bundle's manifest whose result is in
// results_dir/results.jsonl (or whose build failed). The platform is `platform`
// when given, else the GPU's from results_dir/probe.json, else this machine's CPU
// for a CPU target. Throws std::runtime_error naming a missing or malformed file.
BundleImportSummary import_bundle(const std::string &bundle_dir, const std::string &results_dir,
                                  const std::string &log_path, const std::string &platform = "");

}  // namespace tlp
