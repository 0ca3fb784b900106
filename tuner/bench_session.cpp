#include "tuner/bench_session.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

#include "codegen/layout_choice.h"
#include "codegen/operator.h"
#include "codegen/target.h"
#include "measure/kernel_cost_table.h"
#include "measure/machine_identity.h"
#include "measure/platform.h"
#include "measure/record_log.h"
#include "measure/wall_clock.h"
#include "tuner/bench/json_file.h"
#include "tuner/bench/regression_check.h"
#include "tuner/bench_peers.h"
#include "tuner/name_list.h"
#include "tuner/peer_baselines.h"
#include "tuner/shipped_files.h"
#include "tuner/side_by_side_remeasure.h"
#include "tuner/tuning_session.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

// The policies a benchmark knows, as data: name, tuning policy, cost model
// (empty: the --model file), fine-tuning epochs per round (-1: --update-epochs).
struct KnownPolicy {
  const char *name, *policy, *model;
  int update_epochs;
  const char *what;
};
constexpr KnownPolicy kPolicies[] = {
    {"random", "random", "random", -1, "uniform samples of the schedule space"},
    {"evolutionary", "evolutionary", "random", -1, "evolutionary search with a model that learns nothing"},
    {"tlp", "evolutionary", "", -1, "evolutionary search guided by the pretrained TLP model (--model), fine-tuned online"},
    {"tlp-frozen", "evolutionary", "", 0,
     "the same with the pretrained model as it is, never fine-tuned on the run's measurements"},
    {"tlp-online", "evolutionary", "none", -1, "evolutionary search with a TLP model trained online from scratch"},
};

std::string iso_date() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// "AMD EPYC 7B13 (zen3-epyc-2c-avx2), 2 threads, 23.4 GiB": what a reader needs to compare reports.
std::string machine_description() {
  double gib = 0;
  std::ifstream mem("/proc/meminfo");
  for (std::string key; mem >> key;) {
    double kb = 0;
    mem >> kb;
    if (key == "MemTotal:") {
      gib = kb / (1024.0 * 1024.0);
      break;
    }
    mem.ignore(1 << 10, '\n');
  }
  char buf[256];
  const MachineIdentity machine = this_machine();
  snprintf(buf, sizeof buf, "%s (%s), %d threads, %.1f GiB", machine.cpu_name.c_str(), machine.short_name().c_str(),
           hardware_threads(), gib);
  return buf;
}

struct RunPlan {
  BenchPolicy policy;
  BenchOperator op;
  int trials = 0;
  int seed = 1;
  std::string name;  // file stem under logs/ and runs/
};

std::string run_name(const BenchPolicy &p, const BenchOperator &op, int trials, int seed, const std::string &suffix) {
  return p.name + "-" + plot_file_stem(op.op, op.label) + "-t" + std::to_string(trials) + "-s" +
         std::to_string(seed) + suffix;
}

// Seed by seed and operator by operator; within each, the policies take turns
// going first.
std::vector<RunPlan> plan_runs(const BenchOptions &o, const BenchSuite &suite, const std::vector<BenchPolicy> &policies,
                               const std::set<std::string> *only, const std::string &suffix) {
  std::vector<RunPlan> plans;
  int turn = 0;
  for (int seed = 1; seed <= o.seeds; ++seed)
    for (const BenchOperator &op : suite.operators) {
      const int trials = op.trials > 0 ? op.trials : o.trials;
      for (size_t k = 0; k < policies.size(); ++k) {
        const BenchPolicy &p = policies[(k + turn) % policies.size()];
        if (only && !only->count(baseline_key(p.name, op.op, op.label))) continue;
        plans.push_back({p, op, trials, seed, run_name(p, op, trials, seed, suffix)});
      }
      ++turn;
    }
  return plans;
}

// A partial log of an interrupted run is renamed, never deleted.
void set_aside_partial_log(const std::string &log) {
  if (!fs::exists(log)) return;
  const std::string aside = log.substr(0, log.size() - 6) + ".interrupted-" + std::to_string(long(unix_seconds())) + ".jsonl";
  fs::rename(log, aside);
  fprintf(stderr, "note: %s was left by an interrupted run; kept as %s, and the run starts again\n", log.c_str(),
          aside.c_str());
}

TuningCurve curve_from_log(const std::string &log, double start_unix, double flops) {
  std::vector<CurvePoint> points;
  if (!fs::exists(log)) return TuningCurve();
  const LogReadResult read = read_record_log(log);
  for (const MeasureRecord &r : read.records) {
    const double gflops = r.ok() && r.median_cost > 0 ? flops / r.median_cost / 1e9 : 0;
    points.push_back({int(points.size()) + 1, std::max(0.0, r.timestamp - start_unix), gflops});
  }
  return TuningCurve(std::move(points));
}

PolicyResult run_once(const BenchOptions &o, const RunPlan &plan, const std::atomic<bool> &stop, bool &finished) {
  const std::string log = o.out_dir + "/logs/" + plan.name + ".jsonl";
  set_aside_partial_log(log);
  TuneOptions t = o.runs;
  t.op_spec = plan.op.op;
  t.trials = plan.trials;
  t.policy = plan.policy.policy;
  t.model = plan.policy.model;
  if (plan.policy.update_epochs >= 0) t.update_epochs = plan.policy.update_epochs;
  t.seed = uint64_t(plan.seed);
  t.log_path = log;
  t.final_top = 0;  // the bench measures every run's best again itself, side by side across runs (finals/)
  const double start = unix_seconds();
  const TuneSummary s = run_tuning(t, stop);
  finished = !s.interrupted;
  PolicyResult r;
  r.policy = plan.policy.name;
  r.op = plan.op.op;
  r.label = plan.op.label;
  r.seed = plan.seed;
  r.curve = curve_from_log(log, start, make_operator(representative_spec(plan.op.op))->flops());
  r.wall_seconds = s.wall_seconds;
  r.search_seconds = s.search_seconds;
  r.model_seconds = s.model_seconds;
  r.build_seconds = s.build_seconds;
  r.run_seconds = s.run_seconds;
  return r;
}

// A finished run is stored as a one-run report, so it reads back through the
// report's own parser.
PolicyResult load_or_run(const BenchOptions &o, const RunPlan &plan, const std::atomic<bool> &stop, bool &finished) {
  const std::string done = o.out_dir + "/runs/" + plan.name + ".json";
  finished = true;
  if (fs::exists(done)) {
    const BenchReport one = BenchReport::read_part_file(done);
    if (one.runs.size() != 1) throw std::runtime_error(done + " should hold one run; delete it to run it again");
    return one.runs.front();
  }
  PolicyResult r = run_once(o, plan, stop, finished);
  if (finished) {
    BenchReport one;
    one.runs = {r};
    bench_detail::write_json_file(done, one.to_json());
  }
  return r;
}

BenchReport execute(const BenchOptions &o, const std::vector<RunPlan> &plans, const BenchSuite &suite,
                    const std::atomic<bool> &stop, bool &interrupted) {
  for (const char *sub : {"logs", "runs", "peers", "plots"}) fs::create_directories(o.out_dir + "/" + sub);
  BenchReport report;
  report.suite = suite.name;
  report.machine = machine_description();
  report.date = iso_date();
  interrupted = false;
  for (size_t i = 0; i < plans.size() && !stop; ++i) {
    const RunPlan &p = plans[i];
    fprintf(stderr, "[%zu/%zu] %s on %s, seed %d, %d trials\n", i + 1, plans.size(), p.policy.name.c_str(),
            p.op.op.c_str(), p.seed, p.trials);
    bool finished = false;
    PolicyResult r = load_or_run(o, p, stop, finished);
    if (!finished) break;
    report.runs.push_back(std::move(r));
  }
  interrupted = bool(stop);
  return report;
}

// The suite's peers into `report`: those the re-measure rounds timed are read
// back, any others are timed now.
void add_peers(const BenchOptions &o, const BenchSuite &suite, BenchReport &report, const std::atomic<bool> &stop) {
  if (o.peers.empty()) return;
  for (const BenchOperator &op : suite.operators) {
    if (stop) break;
    for (BenchPeerResult &p : bench_peers_of(o, op)) report.peers.push_back(std::move(p));
  }
}

// Up to `n` kernels of a run's log, cheapest first, ranked as tune ranks them;
// only those of its first `trials` records (one per trial) when `trials` > 0.
// A layout=any run logs kernels of several workloads (one per layout): each kernel
// is named by its workload and schedule.
std::vector<RemeasureKernel> fastest_kernels_of(const std::string &log, int n, int trials) {
  if (!fs::exists(log)) return {};
  KernelCostTable costs;
  std::unordered_map<std::string, RemeasureKernel> by_key;
  const std::vector<MeasureRecord> records = read_record_log(log).records;
  const size_t count = trials > 0 ? std::min(records.size(), size_t(trials)) : records.size();
  for (size_t i = 0; i < count; ++i) {
    const std::string key = records[i].workload_key + " " + records[i].schedule.to_text();
    costs.add(records[i], key);
    by_key.try_emplace(key, RemeasureKernel{records[i].workload_key, records[i].schedule});
  }
  std::vector<RemeasureKernel> out;
  for (const std::string &key : costs.cheapest(size_t(n))) out.push_back(by_key.at(key));
  return out;
}

int early_trials_of(const BenchOptions &o, const RunPlan &plan) {
  return o.final_early > 0 ? std::max(1, int(std::ceil(o.final_early * plan.trials - 1e-9))) : 0;
}

// One kernel to measure again: of which run, and whether it is among that run's
// fastest of all trials, of its first trials, or both (then measured once).
struct RemeasureRole {
  size_t run;
  bool of_all = false, of_early = false;
};

// remeasured.json: the re-measured bests of a finished bench, so that a resumed
// one reads them back instead of measuring again. Format 1 (and files of tlptune
// 0.1, without "format") held each kernel's median over the rounds, format 2 its
// fastest round: a resumed bench measures a format-1 file's kernels again.
constexpr int kRemeasuredFormat = 2;
constexpr char kRemeasuredKind[] = "re-measured bests";

// Fills the runs' figures from `path` when it holds them for these settings and
// runs; false when it is missing or stale.
bool read_remeasured_bests(const BenchOptions &o, const std::vector<RunPlan> &plans, const std::string &path,
                           BenchReport &report) {
  if (!fs::exists(path)) return false;
  const nlohmann::json stored = bench_detail::read_json_object_file(kRemeasuredKind, path);
  if (!stored.contains("format")) return false;
  bench_detail::check_format(kRemeasuredKind, path, stored, kRemeasuredFormat);
  if (stored["format"] != kRemeasuredFormat) return false;
  bench_detail::refuse_unknown_keys(kRemeasuredKind, path, "the top level", stored,
                                    {"format", "rounds", "top", "early", "runs", "runs_early"});
  const nlohmann::json runs = stored.value("runs", nlohmann::json::object());
  const nlohmann::json early = stored.value("runs_early", nlohmann::json::object());
  auto has = [&](const nlohmann::json &figures, const RunPlan &p) {
    return figures.contains(p.name) && figures[p.name].is_number();
  };
  const bool complete = stored.value("rounds", 0) == o.final_rounds && stored.value("top", 1) == o.final_top &&
                        stored.value("early", 0.0) == o.final_early &&
                        std::all_of(plans.begin(), plans.end(), [&](const RunPlan &p) {
                          return has(runs, p) && (o.final_early <= 0 || has(early, p));
                        });
  if (!complete) return false;
  for (size_t i = 0; i < plans.size(); ++i) {
    report.runs[i].remeasured_gflops = runs[plans[i].name].get<double>();
    if (o.final_early > 0) report.runs[i].remeasured_early_gflops = early[plans[i].name].get<double>();
  }
  return true;
}

void write_remeasured_bests(const BenchOptions &o, const std::vector<RunPlan> &plans, const std::string &path,
                            const BenchReport &report) {
  nlohmann::json runs = nlohmann::json::object(), early = nlohmann::json::object();
  for (size_t i = 0; i < plans.size(); ++i) {
    runs[plans[i].name] = report.runs[i].remeasured_gflops;
    if (o.final_early > 0) early[plans[i].name] = report.runs[i].remeasured_early_gflops;
  }
  nlohmann::json figures = {
      {"format", kRemeasuredFormat}, {"rounds", o.final_rounds}, {"top", o.final_top}, {"runs", runs}};
  if (o.final_early > 0) {
    figures["early"] = o.final_early;
    figures["runs_early"] = early;
  }
  bench_detail::write_json_file(path, figures);
}

// Sets each run's remeasured_gflops and, with final_early, its
// remeasured_early_gflops (see side_by_side_remeasure.h); `runs[i]` is the run of
// `plans[i]`. The figures are stored in `dir` and read back by a resumed bench
// with the same settings and runs.
void remeasure_best_kernels(const BenchOptions &o, const std::vector<RunPlan> &plans, const std::string &dir,
                            BenchReport &report, PeersInRounds &peers, const std::atomic<bool> &stop) {
  if (o.final_rounds <= 0 || report.runs.size() != plans.size() || plans.empty()) return;
  const std::string done = dir + "/remeasured.json";
  fs::create_directories(dir);
  for (size_t i = 0; i < plans.size(); ++i) report.runs[i].early_trials = early_trials_of(o, plans[i]);
  if (read_remeasured_bests(o, plans, done, report)) return;
  std::vector<RemeasureRole> roles;
  std::vector<RemeasureKernel> kernels;
  for (size_t i = 0; i < plans.size(); ++i) {
    const std::string log = o.out_dir + "/logs/" + plans[i].name + ".jsonl";
    std::unordered_map<std::string, size_t> index;  // this run's kernels so far, by workload and schedule
    auto add = [&](const RemeasureKernel &k, bool RemeasureRole::*role) {
      auto [it, fresh] = index.try_emplace(k.op + " " + k.schedule.to_text(), kernels.size());
      if (fresh) {
        roles.push_back({i});
        kernels.push_back(k);
      }
      roles[it->second].*role = true;
    };
    for (const RemeasureKernel &k : fastest_kernels_of(log, o.final_top, 0)) add(k, &RemeasureRole::of_all);
    if (o.final_early > 0)
      for (const RemeasureKernel &k : fastest_kernels_of(log, o.final_top, report.runs[i].early_trials))
        add(k, &RemeasureRole::of_early);
  }
  fprintf(stderr,
          "measuring the %d fastest kernel%s of each of %zu runs%s again (%zu kernels), side by side, %d round%s%s\n",
          o.final_top, o.final_top == 1 ? "" : "s", plans.size(),
          o.final_early > 0 ? ", and of their first trials," : "", kernels.size(), o.final_rounds,
          o.final_rounds == 1 ? "" : "s",
          peers.operators() > 0 ? (", with the peers of " + std::to_string(peers.operators()) + " operators in each")
                                      .c_str()
                                : "");
  RemeasureOptions ro;
  ro.rounds = o.final_rounds;
  ro.target = o.runs.target;
  ro.threads = o.runs.threads;
  ro.min_seconds = o.runs.measure.min_seconds;
  ro.log_path = dir + "/remeasured.jsonl";
  ro.fleet = o.runs.fleet;
  const std::vector<double> gflops = remeasure_side_by_side(kernels, ro, stop, [&](int round) {
    if (peers.operators() == 0) return;
    peers.time_round();
    fprintf(stderr, "round %d of %d done, peers included\n", round + 1, o.final_rounds);
  });
  if (stop) return;
  peers.store();
  for (PolicyResult &run : report.runs) run.remeasured_gflops = run.remeasured_early_gflops = 0;  // none valid: 0
  for (size_t k = 0; k < kernels.size(); ++k) {
    PolicyResult &run = report.runs[roles[k].run];
    if (roles[k].of_all) run.remeasured_gflops = std::max(run.remeasured_gflops, gflops[k]);
    if (roles[k].of_early) run.remeasured_early_gflops = std::max(run.remeasured_early_gflops, gflops[k]);
  }
  write_remeasured_bests(o, plans, done, report);
}

BenchSuite checked_suite(const BenchOptions &o) {
  if (o.out_dir.empty()) throw std::runtime_error("--out DIR is required: the runs, logs and report go there");
  if (o.seeds < 1) throw std::runtime_error("--seeds must be at least 1");
  BenchSuite suite = read_bench_suite(o.suite, resolve_suites_dir(o.suites_dir));
  // Fails now on a bad operator, not hours in.
  const Halide::Target target = parse_target(o.runs.target);
  for (const BenchOperator &op : suite.operators) {
    if (chooses_layout(op.op)) layout_variants(op.op, target);
    else make_operator(op.op);
  }
  return suite;
}

}  // namespace

std::vector<BenchPolicy> parse_bench_policies(const std::string &csv, const std::string &tlp_model) {
  std::vector<BenchPolicy> out;
  for (const std::string &name : split_name_list(csv)) {
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {  // LABEL=MODEL: the evolutionary search guided by that model file
      if (eq == 0 || eq + 1 == name.size())
        throw std::runtime_error("policy '" + name + "': write LABEL=MODEL_FILE, e.g. mtl=models/mtl.tlpm");
      out.push_back({name.substr(0, eq), "evolutionary", name.substr(eq + 1)});
      continue;
    }
    const KnownPolicy *known = nullptr;
    for (const KnownPolicy &k : kPolicies)
      if (name == k.name) known = &k;
    if (!known) {
      std::string list;
      for (const KnownPolicy &k : kPolicies) list += std::string("\n  ") + k.name + ": " + k.what;
      throw std::runtime_error("unknown policy '" + name + "'; the known ones are:" + list +
                               "\n  LABEL=MODEL_FILE: the evolutionary search guided by that model");
    }
    out.push_back({known->name, known->policy, *known->model ? known->model : tlp_model, known->update_epochs});
  }
  if (out.empty()) throw std::runtime_error("--policies is empty; give e.g. random,evolutionary,tlp");
  return out;
}

std::string bench_baseline_policy(const std::vector<BenchPolicy> &policies) {
  for (const BenchPolicy &p : policies)
    if (p.name == "random") return p.name;
  return policies.empty() ? "random" : policies.front().name;
}

std::string resolve_suites_dir(const std::string &given) {
  if (!given.empty()) return given;
  if (fs::is_directory("examples/suites")) return "examples/suites";
  const std::string shipped = shipped_file("suites");
  return shipped.empty() ? "examples/suites" : shipped;
}

BenchReport run_bench(const BenchOptions &o, const std::string &command_line, const std::atomic<bool> &stop,
                      bool &interrupted) {
  const BenchSuite suite = checked_suite(o);
  const auto policies = parse_bench_policies(o.policies, o.model);
  if (!o.peers.empty()) parse_peer_list(o.peers);  // an unknown peer fails before hours of tuning
  const std::vector<RunPlan> plans = plan_runs(o, suite, policies, nullptr, "");
  BenchReport r = execute(o, plans, suite, stop, interrupted);
  if (!interrupted) {
    PeersInRounds peers(o, o.final_rounds > 0 ? suite.operators : std::vector<BenchOperator>{});
    remeasure_best_kernels(o, plans, o.out_dir + "/finals", r, peers, stop);
    add_peers(o, suite, r, stop);
    interrupted = bool(stop);
  }
  r.command = command_line;
  // Runs were interleaved; the report lists them in the order the user gave the policies.
  auto rank = [&](const PolicyResult &run) {
    for (size_t i = 0; i < policies.size(); ++i)
      if (policies[i].name == run.policy) return i;
    return policies.size();
  };
  std::stable_sort(r.runs.begin(), r.runs.end(),
                   [&](const PolicyResult &a, const PolicyResult &b) { return rank(a) < rank(b); });
  return r;
}

BenchReport rerun_entries(const BenchOptions &o, const std::set<std::string> &keys, const std::atomic<bool> &stop,
                          bool &interrupted) {
  const BenchSuite suite = checked_suite(o);
  const auto policies = parse_bench_policies(o.policies, o.model);
  const std::string suffix = "-recheck" + std::to_string(long(unix_seconds()));
  const std::vector<RunPlan> plans = plan_runs(o, suite, policies, &keys, suffix);
  BenchReport r = execute(o, plans, suite, stop, interrupted);
  if (!interrupted) {  // measured again like the first runs, so the two compare
    PeersInRounds no_peers(o, {});
    remeasure_best_kernels(o, plans, o.out_dir + "/finals" + suffix, r, no_peers, stop);
    interrupted = bool(stop);
  }
  return r;
}

std::string write_bench_report(const BenchReport &r, const std::string &dir, const std::string &baseline_policy) {
  fs::create_directories(dir);
  bench_detail::write_json_file(dir + "/report.json", r.to_json());
  std::string md = render_markdown(r, baseline_policy);
  const auto plots = write_plots(r, dir + "/plots");
  md += "\nPlots (best-so-far GFLOP/s against trials and against seconds):\n\n";
  for (const std::string &p : plots) {
    const std::string rel = fs::relative(p, dir).string();
    md += "- [" + rel + "](" + rel + ")\n";
  }
  std::ofstream out(dir + "/report.md");
  out << md;
  if (!out) throw std::runtime_error("cannot write " + dir + "/report.md");
  return md;
}

}  // namespace tlp
