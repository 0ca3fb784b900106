// tlptune bench: policies against each other and against peers, side by side in
// one run, with a report (JSON, Markdown, SVG plots) and a CI regression check.
#include <cstdio>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "codegen/target.h"
#include "tuner/bench/json_file.h"
#include "tuner/bench/regression_check.h"
#include "tuner/bench_session.h"
#include "tuner/command.h"
#include "tuner/interrupt.h"
#include "tuner/measure_settings_options.h"
#include "tuner/name_list.h"
#include "tuner/platform_spec.h"
#include "tuner/shipped_model.h"

namespace tlp {
namespace {

struct CheckOptions {
  std::string baseline_path;  // --check FILE
  double tolerance = 0.15;
  double target_fraction = 0.9;
  bool update = false;
};

// --model default made concrete before any tuning: the shipped model's path, so
// the report names the file; the tlp policy with no model that fits is refused.
std::string resolved_tlp_model(const BenchOptions &o) {
  if (o.model != "default") return o.model;
  const ShippedModelChoice shipped = shipped_model_for(parse_target(o.runs.target));
  if (!shipped.path.empty()) {
    printf("model: %s: %s\n", shipped.file.c_str(), shipped.reason.c_str());
    return shipped.path;
  }
  for (const std::string &p : split_name_list(o.policies))
    if (p == "tlp" || p == "tlp-frozen")
      throw std::runtime_error("the tlp policy needs a pretrained model, and none ships for target '" + o.runs.target +
                               "': give --model FILE (see 'tlptune train')");
  return o.model;
}

// A search's best is its luckiest record, while a best measured again is a median
// over rounds (8-29% lower in the runs of 2026-12-01/02): one cannot check the other.
void refuse_mismatched_bests(const BenchBaseline &baseline, const BenchOptions &o, const std::string &path) {
  const bool measured_again = o.final_rounds > 0;
  if (baseline.bests_measured_again == measured_again) return;
  throw std::runtime_error(
      path + " holds " +
      (baseline.bests_measured_again ? "best kernels measured again after the runs (--final-rounds N)"
                                     : "the searches' own bests (written with --final-rounds 0 or by an older tlptune)") +
      ", but this run " +
      (measured_again ? "measures its best kernels again (--final-rounds " + std::to_string(o.final_rounds) + ")"
                      : "does not (--final-rounds 0)") +
      ": give " + (baseline.bests_measured_again ? "--final-rounds 5" : "--final-rounds 0") +
      " to match it, or write a new baseline with --update-baseline");
}

void print_regressions(const std::vector<Regression> &regs) {
  for (const Regression &r : regs) printf("  REGRESSION %s\n", r.message.c_str());
}

std::set<std::string> keys_of(const std::vector<Regression> &regs) {
  std::set<std::string> keys;
  for (const Regression &r : regs) keys.insert(r.key);
  return keys;
}

// Compares with the stored baseline; what looks regressed is measured once more
// and the better of the two figures counts, so one noisy run does not fail CI.
int check_against_baseline(const BenchOptions &o, const CheckOptions &c, const BenchReport &report,
                           const std::atomic<bool> &stop) {
  const BenchBaseline baseline = read_baseline(c.baseline_path);
  const bool measured_again = o.final_rounds > 0;
  BenchBaseline current = baseline_from_report(report, c.target_fraction, &baseline, measured_again);
  std::vector<Regression> regs = find_regressions(baseline, current, c.tolerance);
  if (!regs.empty()) {
    fprintf(stderr, "%zu entr%s past the tolerance; measuring them again to rule out noise\n", regs.size(),
            regs.size() == 1 ? "y is" : "ies are");
    bool interrupted = false;
    const BenchReport again = rerun_entries(o, keys_of(regs), stop, interrupted);
    if (interrupted) return kExitInterrupted;
    current = best_of(current, baseline_from_report(again, c.target_fraction, &baseline, measured_again));
    regs = find_regressions(baseline, current, c.tolerance);
  }
  if (regs.empty()) {
    printf("\nno regression against %s (tolerance %.0f%%, %zu entries)\n", c.baseline_path.c_str(),
           c.tolerance * 100, baseline.entries.size());
    return kExitOk;
  }
  printf("\n%zu regression%s against %s (tolerance %.0f%%), confirmed by a second measurement:\n", regs.size(),
         regs.size() == 1 ? "" : "s", c.baseline_path.c_str(), c.tolerance * 100);
  print_regressions(regs);
  printf("If the change is intended, rewrite the baseline with --update-baseline.\n");
  return kExitRegression;
}

void add_run_options(CLI::App &cmd, BenchOptions &o) {
  cmd.add_option("--suite", o.suite, "A suite name (examples/suites/NAME.json) or a suite file")->capture_default_str();
  cmd.add_option("--suites-dir", o.suites_dir, "Where suite names are looked up (default: examples/suites)");
  cmd.add_option("--policies", o.policies,
                  "Comma-separated: random, evolutionary (model learns nothing), tlp (pretrained --model, "
                  "fine-tuned online), tlp-frozen (pretrained --model as it is), tlp-online (model trained from scratch), LABEL=MODEL_FILE (guided by that model; A.tlpm+B.tlpm "
                  "joins several as one ensemble). The report compares each with random, or with the first one given "
                  "when random does not run")
      ->capture_default_str();
  cmd.add_option("--trials", o.trials, "Trials per run (a suite entry may set its own)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--seeds", o.seeds, "Runs per policy and operator, with seeds 1..N")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--peers", o.peers,
                  "Also measure these peers on every operator: adams2019, mullapudi2016, li2018, openblas, onednn")
      ->capture_default_str();
  cmd.add_option("--model", o.model,
                  "The TLP model file of the tlp policy (default: the model shipped in models/, as tune's --model "
                  "default)")
      ->capture_default_str();
  cmd.add_option("--update-epochs", o.runs.update_epochs,
                  "Epochs a TLP policy's model fine-tunes after each round (default: the model's, 0: never); finished "
                  "runs in --out are read back whatever they used, so compare settings in separate --out folders")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--update-records", o.runs.update_records,
                  "Records each fine-tuning trains on (default: the model's, 0: all seen)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--sampled-share", o.runs.sampled_share,
                  "Share of an evolutionary policy's model picks per round taken from the best-scored plain samples "
                  "(see 'tlptune tune --help'); like --update-epochs, compare settings in separate --out folders")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
}

void add_final_options(CLI::App &cmd, BenchOptions &o) {
  cmd.add_option("--final-rounds", o.final_rounds,
                  "After all runs, measure each run's fastest kernels (--final-top) again this many times, the runs "
                  "taking turns, and report the best of each run's fastest rounds too: a fair comparison of the bests on a "
                  "machine whose speed drifts; --peers are timed as often (0: skip)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--final-top", o.final_top,
                  "How many of each run's fastest kernels --final-rounds measures again (a search's single best record "
                  "is the luckiest of many near-equal ones)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--final-early", o.final_early,
                  "Also measure again each run's --final-top fastest kernels among its first FRACTION of trials, in "
                  "the same rounds (e.g. 0.1 with --trials 1000: is TLP's best of 100 trials as fast as random's of "
                  "1000?); the report compares them with the baseline policy's best of all trials (0: skip)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
}

void add_check_options(CLI::App &cmd, CheckOptions &c) {
  cmd.add_option("--check", c.baseline_path,
                  "CI mode: compare best GFLOP/s and trials-to-target of every policy and operator with this "
                  "baseline file; exit 3 on a regression confirmed by a second measurement");
  cmd.add_option("--tolerance", c.tolerance, "Allowed relative regression in --check mode")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--target-fraction", c.target_fraction,
                  "Trials-to-target counts trials to reach this fraction of the operator's best GFLOP/s")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 1.0));
  cmd.add_flag("--update-baseline", c.update, "With --check: write this run's figures to the baseline file instead");
}

int run_bench_command(BenchOptions &o, const CheckOptions &c, const std::string &platform, const std::string &json_path,
                      const std::string &invoked) {
  if (!platform.empty()) {
    const PlatformSpec p = parse_platform_spec(platform);
    o.runs.target = p.target;
    o.runs.threads = p.threads;
  }
  o.model = resolved_tlp_model(o);
  if (o.final_early > 0 && o.final_rounds == 0)
    throw std::runtime_error(
        "--final-early measures kernels again in the --final-rounds rounds; give --final-rounds "
        "N (e.g. 5) or leave --final-early out");
  if (c.update && c.baseline_path.empty())
    throw std::runtime_error("--update-baseline needs --check FILE: the file to write the baseline to");
  if (!c.baseline_path.empty() && !c.update)  // fail before hours of tuning
    refuse_mismatched_bests(read_baseline(c.baseline_path), o, c.baseline_path);
  const std::atomic<bool> &stop = stop_on_interrupt();
  bool interrupted = false;
  const BenchReport report = run_bench(o, invoked, stop, interrupted);
  if (interrupted) {
    fprintf(stderr, "interrupted: finished runs are kept in %s/runs; run the same command again to resume\n",
            o.out_dir.c_str());
    return kExitInterrupted;
  }
  const std::string md =
      write_bench_report(report, o.out_dir, bench_baseline_policy(parse_bench_policies(o.policies, o.model)));
  printf("%s\nreport: %s/report.md, %s/report.json, plots in %s/plots\n", md.c_str(), o.out_dir.c_str(),
         o.out_dir.c_str(), o.out_dir.c_str());
  if (!json_path.empty()) bench_detail::write_file_atomically(json_path, report.to_json().dump(1) + "\n");
  if (c.baseline_path.empty()) return kExitOk;
  if (c.update) {
    write_baseline(baseline_from_report(report, c.target_fraction, nullptr, o.final_rounds > 0), c.baseline_path);
    printf("baseline written to %s\n", c.baseline_path.c_str());
    return kExitOk;
  }
  return check_against_baseline(o, c, report, stop);
}

}  // namespace

Command add_bench_command(CLI::App &app, const FleetRank &fleet) {
  auto o = std::make_shared<BenchOptions>();
  auto c = std::make_shared<CheckOptions>();
  auto json_path = std::make_shared<std::string>();
  auto platform = std::make_shared<std::string>();
  Command cmd;
  cmd.app = app.add_subcommand(
      "bench",
      "Benchmark search policies against each other (and peers) on a suite of operators, side by side: best "
      "GFLOP/s, trials and seconds to reach it, the speedup of each policy over random search, plots; "
      "--check compares with a stored baseline for CI");
  auto *sub = cmd.app;
  sub->footer(
      "Examples:\n"
      "  tlptune bench --suite quick --out bench-quick\n"
      "  tlptune bench --suite full --policies random,tlp --seeds 3 --trials 300 --peers adams2019,openblas,onednn "
      "--out bench-full\n"
      "  tlptune bench --suite quick --out ci-bench --check perf-baseline.json --tolerance 0.15\n"
      "Run the same command again to resume: finished runs are read back from --out.\n"
      "Exit codes: 0 ok, 1 error, 3 a regression past --tolerance, 130 interrupted.");
  add_run_options(*sub, *o);
  sub->add_option("--out", o->out_dir, "Folder for logs, finished runs, report.md, report.json and plots/")->required();
  sub->add_option("--json", *json_path, "Also write the report as JSON to this file");
  auto *target_opt = sub->add_option("--target", o->runs.target, "Compile target")->capture_default_str();
  sub->add_option("--platform", *platform,
                  "Platform to tune for, TARGET@THREADS (e.g. x86-64-linux-sse41@2): sets the target and the threads "
                  "kernels run with; an MTL-TLP model uses its head")
      ->excludes(target_opt);
  add_measure_settings_options(*sub, o->runs.measure);
  add_final_options(*sub, *o);
  add_check_options(*sub, *c);
  sub->add_flag("!--no-progress", o->runs.progress, "Do not draw progress bars");
  cmd.run = [o, c, json_path, platform, invoked = cmd.invoked, fleet] {
    o->runs.fleet = fleet;
    if (fleet.fleet() && !o->peers.empty())
      throw std::runtime_error("--peers run on rank 0's machine, not on the fleet's: bench peers without mpirun, on a "
                               "machine of the fleet");
    return run_bench_command(*o, *c, *platform, *json_path, *invoked);
  };
  return cmd;
}

}  // namespace tlp
