// One benchmark: every policy on every operator of a suite, for several seeds,
// with the same trial budget, plus the peers (other tuners and libraries) on the
// same operators. Runs are interleaved (seed by seed, operator by operator, the
// policy order rotating) so that drift of a noisy machine hits all alike.
//
// Everything lands under the output folder and a later call resumes from it:
//   logs/<run>.jsonl   each run's measurements (append-only, as `tune` writes)
//   runs/<run>.json    a finished run's curve and time split; its presence means done
//   peers/<op>.json    the peers' figures for one operator
//   finals/            each run's fastest kernels (final_top; also those of its first
//                      trials with final_early) measured again after
//                      all runs, side by side (remeasured.jsonl: the records;
//                      remeasured.json: the figures, whose presence means done)
// An interrupted run's partial log is set aside (renamed, never deleted) and the
// run starts again, since its curve needs the whole run's clock.
#pragma once

#include <atomic>
#include <set>
#include <string>
#include <vector>

#include "tuner/bench/bench_report.h"
#include "tuner/bench/bench_suite.h"
#include "tuner/tuning_session.h"

namespace tlp {

// A named way to search: the tuning policy and its cost model.
struct BenchPolicy {
  std::string name;    // as in reports: random, evolutionary, tlp, tlp-online
  std::string policy;  // TuneOptions::policy
  std::string model;   // TuneOptions::model
  int update_epochs = -1;  // TuneOptions::update_epochs for this policy; -1: the bench's --update-epochs
};

// "random,tlp" -> the policies; `tlp_model` is the model file the tlp policy uses.
// "LABEL=FILE" is the evolutionary search guided by the model FILE, named LABEL.
// Throws std::runtime_error naming an unknown policy and the known ones.
std::vector<BenchPolicy> parse_bench_policies(const std::string &csv, const std::string &tlp_model);

// The policy the others are compared with: random when it runs, else the first
// one given (e.g. "old" in old=A.tlpm,new=B.tlpm).
std::string bench_baseline_policy(const std::vector<BenchPolicy> &policies);

struct BenchOptions {
  std::string suite = "quick";  // a name in suites_dir, or a path to a suite file
  std::string suites_dir;       // empty: examples/suites here, or next to the build
  std::string policies = "random,evolutionary,tlp";
  std::string model = "default";  // the tlp policy's model: a file, or default (tuner/shipped_model.h)
  int trials = 64;              // per run, unless the suite says otherwise for an operator
  int seeds = 1;                // seeds 1..seeds
  std::string out_dir;          // required
  std::string peers;            // comma-separated peer names; empty: none
  // What every run shares: target, threads, measurement settings, the TLP
  // policies' fine-tuning, the evolutionary share of plain samples, progress.
  // Each run takes it whole and sets its operator, trials, policy, model, seed
  // and log from its plan.
  TuneOptions runs;
  // After all runs, each run's final_top fastest kernels are measured again this
  // many rounds, side by side with the other runs' (0: not), and the run's figure
  // is the best of their fastest rounds: the figures then compare under the same
  // conditions, free of the drift between runs. More than one kernel per run,
  // because a search that measures hundreds of near-equal kernels has a lucky
  // record as its best (measured: 26-29% above the kernel's median on matmul).
  int final_rounds = 5;
  int final_top = 3;
  // With final_rounds, also measure again each run's final_top fastest kernels
  // among its first ceil(final_early * trials) trials, in the same rounds (0:
  // not): whether one policy's best of 100 trials is as fast as another's of
  // 1,000 is then measured side by side, not read off two noisy searches.
  double final_early = 0;
};

// The suites folder to use: `given` if set, else ./examples/suites, else the one
// beside the build's bin/ folder.
std::string resolve_suites_dir(const std::string &given);

// Runs (or resumes) the benchmark. The report holds what finished; `interrupted`
// is set when `stop` cut it short.
BenchReport run_bench(const BenchOptions &o, const std::string &command_line, const std::atomic<bool> &stop,
                      bool &interrupted);

// Runs the given entries (baseline keys: policy|op[|label]) once more for every
// seed, under new run names, to tell a real regression from noise; with
// final_rounds, their best kernels are measured again too (in finals-recheckT/).
BenchReport rerun_entries(const BenchOptions &o, const std::set<std::string> &keys, const std::atomic<bool> &stop,
                          bool &interrupted);

// Writes report.json, report.md and plots/ under `dir`; returns the Markdown.
std::string write_bench_report(const BenchReport &r, const std::string &dir, const std::string &baseline_policy);

}  // namespace tlp
