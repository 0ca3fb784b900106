// What `tlptune bench` measured: one tuning run per policy, operator and seed,
// plus the peers' figures (other tuners and vendor libraries) on the same
// operators. The report is saved as JSON and rendered as Markdown with SVG plots.
//
// The rendering lives in sub-files: bench_report_markdown.cpp (the tables) and
// bench_report_plots.cpp (the SVG files); bench_report_internal.h holds the
// grouping by operator they share.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/bench/tuning_curve.h"

namespace tlp {

struct PolicyResult {
  std::string policy;  // "random", "tlp", ...
  std::string op;      // "KIND:P=V,..."
  std::string label;   // the suite's label for the operator; may be empty
  int seed = 0;
  TuningCurve curve;
  // Where the run's time went: wall clock in total, and its parts.
  double wall_seconds = 0, search_seconds = 0, model_seconds = 0, build_seconds = 0, run_seconds = 0;
  // The run's fastest kernels measured again after all runs, side by side with
  // the other runs' (the best of the kernels' medians over the rounds); 0: not
  // measured again, or none of them ran cleanly.
  double remeasured_gflops = 0;
  // The same for the fastest kernels among the run's first `early_trials` trials
  // (bench --final-early; 0 and 0: not measured): is a policy's best of its first
  // tenth as fast as another's best of all its trials, measured side by side?
  int early_trials = 0;
  double remeasured_early_gflops = 0;
};

struct BenchPeerResult {
  std::string peer;      // "halide-adams2019", "onednn", ...
  std::string op;        // matched to runs by op (not label)
  double gflops = 0;     // 0 when the peer failed
  std::string what_ran;  // one line for people: the library, version, settings
  std::vector<double> round_medians;  // seconds, each timing round's median (0: it failed); may be empty
};

struct BenchReport {
  std::string suite;    // the suite's name
  std::string machine;  // one line: CPU, cores, memory, OS
  std::string command;  // the command line that produced the report
  std::string date;     // when it ran, e.g. ISO 8601
  std::vector<PolicyResult> runs;
  std::vector<BenchPeerResult> peers;  // empty when peers were not run

  nlohmann::json to_json() const;
  // Throws std::runtime_error naming the fault when `j` is not what to_json writes
  // or carries a format this reader does not know.
  static BenchReport from_json(const nlohmann::json &j);
  // A report, or a part of one (a finished run, an operator's peers), as the bench
  // wrote it; the error names the file and says to delete it to measure again.
  static BenchReport read_part_file(const std::string &path);
};

// The newest report format this reader understands.
constexpr int kBenchReportFormat = 1;

// The report as Markdown. Per operator (in order of first appearance) one table
// row per policy:
// - best GFLOP/s: the median over seeds, with min-max when there are several;
// - when any run was measured again: the same of the re-measured best kernels;
// - trials and seconds to 50/90/95% of the best any policy found on that operator,
//   median over seeds, a seed that never got there counting as infinitely slow
//   ("n/r" when the median did not get there);
// - wall time (median over seeds) and its split into search, model, build and run;
// - for every policy other than `baseline_policy`, the speedup in trials and in wall
//   time to reach the baseline's final best (speedup_to_reach). Each seed is paired
//   with the baseline run of the same seed, or with every baseline run when there
//   is none; the median over pairs, a pair that never got there counting as 0
//   ("not reached" when the median did not).
// - when any run's first trials were measured again (early_trials): the same of
//   those kernels, and for other policies their median over the baseline's
//   re-measured best of all its trials.
// Then the peers' GFLOP/s and the ratio of the best tuned kernel to each (and of
// the best re-measured kernel, when runs were measured again), and a summary of
// geometric means across operators (with the re-measured bests' ratio to the
// baseline's, and each policy's re-measured best over each peer, when any run was
// measured again).
std::string render_markdown(const BenchReport &r, const std::string &baseline_policy);

// The file name stem for an operator's plots: the op, with the label appended
// when there is one, each character outside [A-Za-z0-9._-] made '_'.
std::string plot_file_stem(const std::string &op, const std::string &label);

// Writes, per operator, <dir>/<stem>-trials.svg and <dir>/<stem>-seconds.svg: the
// best-so-far GFLOP/s against trials and against seconds, one line per policy.
// With several seeds the line is the median seed's run (by final best; the lower
// one of the middle two for an even count), and the other seeds are drawn faintly
// in the same color behind it. Creates `dir` when needed. Returns the paths
// written; throws std::runtime_error when a file cannot be written.
std::vector<std::string> write_plots(const BenchReport &r, const std::string &dir);

}  // namespace tlp
