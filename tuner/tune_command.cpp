// tlptune tune: tunes one operator and prints (and optionally writes) a summary.
#include <atomic>
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "codegen/workload.h"
#include "frontend/onnx_tasks.h"
#include "tuner/command.h"
#include "tuner/interrupt.h"
#include "tuner/measure_settings_options.h"
#include "tuner/network_peers.h"
#include "tuner/platform_alias.h"
#include "tuner/platform_spec.h"
#include "tuner/tuning_session.h"

namespace tlp {
namespace {

void print_layout_plan(const NetworkSummary &n) {
  const LayoutPlan &p = n.plan;
  if (!p.found) {
    printf("layout plan: none (some task has no valid kernel in any layout; give more --trials)\n");
    return;
  }
  if (n.first_plan_trials > 0 && n.first_plan.found)
    printf("first plan (after %d trials): activations in %s, %.3f ms with conversions; the rest of the trials went to "
           "its layouts\n",
           n.first_plan_trials, n.first_plan.network_layout.c_str(), n.first_plan.latency * 1e3);
  printf("layout plan: activations in %s, %.3f ms with conversions (%.3f ms of them)\n", p.network_layout.c_str(),
         p.latency * 1e3, p.conversion_latency * 1e3);
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const LayoutPlanStep &st = p.steps[i];
    if (st.layout.empty() || (st.layout == p.network_layout && st.conversions == 0)) continue;
    printf("  task %zu runs in %s: %.4f ms + %.4f ms converting, x%g\n", i + 1, st.layout.c_str(), st.kernel * 1e3,
           st.conversions * 1e3, n.weights[i]);
  }
  int trials = 0;
  for (const PricedConversion &c : n.conversions) trials += c.trials;
  printf("conversions priced: %zu kernels, %d trials\n", n.conversions.size(), trials);
}

void print_network_summary(const NetworkSummary &n) {
  printf("\nnetwork    %s\ntrials     %d\ntime       %.1f s\n", n.network.c_str(), n.trials_total, n.wall_seconds);
  if (!n.tasks.empty()) {
    const TuneSummary &first = n.tasks.front();
    printf("search     %s%s%s\n", first.policy.c_str(), first.model.empty() ? "" : ", model ", first.model.c_str());
    if (!first.model_reason.empty()) printf("model      %s\n", first.model_reason.c_str());
  }
  printf("\n");
  printf("%-72s %6s %7s %10s %9s\n", "task", "weight", "trials", "best ms", "GFLOP/s");
  for (size_t i = 0; i < n.tasks.size(); ++i) {
    const TuneSummary &t = n.tasks[i];
    if (t.found)
      printf("%-72s %6g %7d %10.4f %9.2f\n", t.workload.c_str(), n.weights[i], t.trials_total, t.best_cost * 1e3,
             t.best_gflops);
    else
      printf("%-72s %6g %7d %10s %9s\n", t.workload.c_str(), n.weights[i], t.trials_total, "none", "-");
  }
  int again = 0, changed = 0;
  double final_seconds = 0;
  for (const TuneSummary &t : n.tasks) {
    again += !t.finals.empty();
    changed += !t.finals.empty() && t.finals_changed_best;
    final_seconds += t.final_seconds;
  }
  if (again)
    printf("\nmeasured again: the fastest kernels of %d tasks, side by side (%.1f s); %d tasks have a different best "
           "for it\n",
           again, final_seconds, changed);
  const double lat = n.estimated_latency();
  if (std::isfinite(lat))
    printf("\nestimated network latency: %.3f ms (sum of weight x best latency%s)\n", lat * 1e3,
           n.planned ? ", each task in its own fastest layout, no conversions" : "");
  else printf("\nestimated network latency: unknown (some tasks have no valid kernel yet; give more --trials)\n");
  if (n.planned) print_layout_plan(n);
}

void print_build_only(const TuneSummary &s) {
  const auto it = s.errors.find("not_run");
  const int built = it == s.errors.end() ? 0 : it->second;
  printf("\nworkload   %s\ntarget     %s\nbuilt      %d of %d candidates (built only, none run)\n", s.workload.c_str(),
         s.target.c_str(), built, s.trials_total);
  for (const auto &[name, n] : s.errors) {
    if (name == "not_run") continue;
    printf("failed     %s: %d\n", name.c_str(), n);
    const auto first = s.first_errors.find(name);
    if (first != s.first_errors.end()) printf("  first: %s\n", first->second.c_str());
  }
  if (!s.registers.empty()) {
    std::vector<int> r = s.registers;
    std::sort(r.begin(), r.end());
    printf("ptxas      registers per thread min %d, median %d, max %d; %d of %zu spill\n", r.front(), r[r.size() / 2],
           r.back(), s.spilling, r.size());
  }
  printf("time       %.1f s (search %.1f, build %.1f)\n", s.wall_seconds, s.search_seconds, s.build_seconds);
}

// The fastest kernels measured again: what each measured first and the median
// over all its measurements, so a user sees how far one figure can be trusted.
void print_finals(const TuneSummary &s) {
  if (s.finals.empty()) return;
  printf("again      %zu of the fastest kernels measured again side by side (%.1f s); a kernel's figure is the "
         "median of its measurements\n",
         s.finals.size(), s.final_seconds);
  for (const FinalKernel &f : s.finals) {
    const std::string head = f.schedule.size() > 60 ? f.schedule.substr(0, 57) + "..." : f.schedule;
    if (!f.ruled_out_by.empty())
      printf("           %.4f ms -> ruled out (%s when run again)  %s\n", f.first_cost * 1e3, f.ruled_out_by.c_str(),
             head.c_str());
    else
      printf("           %.4f ms -> %.4f ms over %d measurements  %s\n", f.first_cost * 1e3, f.cost * 1e3,
             f.measurements, head.c_str());
  }
}

void print_summary(const TuneSummary &s) {
  printf("\nworkload   %s\ntarget     %s\ntrials     %d (%d measured now, %d known from the log)\n", s.workload.c_str(),
         s.target.c_str(), s.trials_total, s.measured_now, s.skipped_known);
  if (!s.errors.empty()) {
    printf("failures  ");
    for (const auto &[name, n] : s.errors) printf(" %s=%d", name.c_str(), n);
    printf("\n");
  }
  printf("search     %s%s%s\n", s.policy.c_str(), s.model.empty() ? "" : ", model ", s.model.c_str());
  if (!s.model_reason.empty()) printf("model      %s\n", s.model_reason.c_str());
  printf("time       %.1f s (search %.1f, model %.1f, build %.1f, run %.1f)\n", s.wall_seconds, s.search_seconds,
         s.model_seconds, s.build_seconds, s.run_seconds);
  if (!s.found) {
    printf("best       none: no candidate compiled and passed the correctness check\n");
    return;
  }
  if (!s.layout_variants.empty()) {
    printf("layouts    ");
    for (size_t i = 0; i < s.layout_variants.size(); ++i) {
      const LayoutVariant &v = s.layout_variants[i];
      const std::string layout = parse_workload(v.workload).get_str("layout");
      printf("%s%s ", i ? ", " : "", layout.c_str());
      if (v.found) printf("%.4f ms (%d trials)", v.best_cost * 1e3, v.trials);
      else printf("none (%d trials)", v.trials);
    }
    printf("\n");
  }
  print_finals(s);
  printf("best       %.4f ms, %.2f GFLOP/s\nschedule   %s\n\nHalide schedule:\n%s", s.best_cost * 1e3, s.best_gflops,
         s.best_schedule.to_text().c_str(), s.best_halide_source.c_str());
}

void add_search_options(CLI::App &cmd, TuneOptions &o) {
  cmd.add_option("--policy", o.policy,
                  "Search policy: evolutionary (guided by --model), random (no model), or auto (evolutionary; random "
                  "with --build-only, where nothing is measured to learn from)")
      ->capture_default_str();
  cmd.add_option("--model", o.model,
                  "Cost model of the evolutionary policy: default (the TLP model shipped in models/, for x86-64 CPUs; "
                  "none elsewhere), a model file from 'tlptune train', several joined by '+' (a.tlpm+b.tlpm: one "
                  "ensemble, each model's scores standardized and averaged; each fine-tunes online, so it costs "
                  "that many times the model time), none (TLP trained online from scratch), or random (learns nothing)")
      ->capture_default_str();
  cmd.add_option("--population", o.population, "Evolutionary population size")->capture_default_str()->check(CLI::PositiveNumber);
  cmd.add_option("--generations", o.generations, "Evolutionary generations per round")->capture_default_str();
  cmd.add_option("--sampled-share", o.sampled_share,
                  "Share of the model's picks per round taken from the best-scored plain samples of the first "
                  "population instead of from the evolved schedules (a hedge against the model's blind spots)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--update-epochs", o.update_epochs,
                  "Epochs the TLP model fine-tunes on the measurements after each round (default: the model's, 0: never)");
  cmd.add_option("--update-records", o.update_records,
                  "Records each fine-tuning trains on: the newest half and a draw of older ones (default: the "
                  "model's, 0: all seen)");
  cmd.add_option("--final-top", o.final_top,
                  "At the end, measure this many of the fastest kernels again (0: don't); on a busy machine one "
                  "lucky measurement can make a slower kernel look fastest")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--final-rounds", o.final_rounds,
                  "Rounds of measuring the fastest again, side by side; the best is then the lowest median over each "
                  "kernel's measurements, and one that fails when run again is ruled out (0: skip)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

void print_progress_line(const std::string &what) { fprintf(stderr, "  %s\n", what.c_str()); }

// The network beside each library in `peers`, over the same tasks.
nlohmann::json report_network_peers(const NetworkSummary &n, const TuneOptions &o, const std::vector<std::string> &peers) {
  std::vector<std::string> ops;
  std::vector<double> mine;
  for (const TuneSummary &t : n.tasks) {
    ops.push_back(t.workload);
    mine.push_back(t.found ? t.best_cost : -1);
  }
  PeerOptions base;
  base.target = o.target;
  base.threads = o.threads;
  nlohmann::json out = nlohmann::json::array();
  for (const std::string &peer : peers) {
    fprintf(stderr, "\nmeasuring %s on the network's operators...\n", peer.c_str());
    const NetworkPeerSum sum = sum_network_peer(peer, ops, n.weights, mine, base, print_progress_line);
    printf("%s", format_network_peer_sum(sum).c_str());
    out.push_back(sum.to_json());
  }
  return out;
}

int run_tune(TuneOptions &o, const std::string &network, const std::string &platform, const std::string &json_path,
             const std::vector<std::string> &peers) {
  if (!platform.empty()) {
    const PlatformSpec p = parse_platform_spec(platform);
    o.target = p.target;
    o.threads = p.threads;
  }
  const std::atomic<bool> &stop = stop_on_interrupt();
  nlohmann::json summary;
  bool interrupted = false;
  int trials = 0;
  if (!network.empty()) {
    NetworkSummary n = run_network_tuning(o, network, stop);
    print_network_summary(n);
    summary = n.to_json();
    if (!peers.empty() && !n.interrupted) summary["peers"] = report_network_peers(n, o, peers);
    interrupted = n.interrupted;
    trials = n.trials_total;
  } else {
    TuneSummary s = run_tuning(o, stop);
    if (o.build_only)
      print_build_only(s);
    else
      print_summary(s);
    summary = s.to_json();
    interrupted = s.interrupted;
    trials = s.trials_total;
  }
  if (!json_path.empty()) {
    std::ofstream f(json_path);
    if (!f) throw std::runtime_error("cannot write the summary to '" + json_path + "'");
    f << summary.dump(2) << "\n";
  }
  if (interrupted) {
    fprintf(stderr, "interrupted: %d measurements are in %s; run again with --resume to continue\n", trials,
            o.log_path.c_str());
    return kExitInterrupted;
  }
  return kExitOk;
}

// An ONNX model to tune (--onnx) and the shapes of its dynamic inputs.
struct OnnxSource {
  std::string model;
  std::vector<std::string> inputs;
};

// Extracts the model's tasks and writes their network file beside the log.
std::string network_file_of(const OnnxSource &src, const std::string &log_path) {
  if (log_path.empty()) throw std::runtime_error("--onnx needs --log (the network file is written beside it)");
  const ExtractedNetwork n = import_onnx_tasks(src.model, src.inputs);
  std::string path = log_path;
  if (path.size() > 6 && path.compare(path.size() - 6, 6, ".jsonl") == 0) path.resize(path.size() - 6);
  path += ".network.json";
  write_network_file(n, path);
  printf("%s: %zu tasks, %.1f%% of the model's FLOPs ('tlptune tasks' lists them); network file %s\n",
         src.model.c_str(), n.tasks.size(), n.total_flops > 0 ? 100.0 * n.mapped_flops / n.total_flops : 0.0,
         path.c_str());
  return path;
}

}  // namespace

Command add_tune_command(CLI::App &app, const FleetRank &fleet) {
  auto o = std::make_shared<TuneOptions>();
  auto json_path = std::make_shared<std::string>();
  auto network = std::make_shared<std::string>();
  Command c;
  c.app = app.add_subcommand("tune", "Search schedules for an operator, measure them, log every measurement");
  auto *sub = c.app;
  auto *op_opt = sub->add_option("--op", o->op_spec, "Operator to tune, KIND:PARAM=VALUE,... (see 'tlptune ops'); layout=any on a "
                                 "convolution or pooling searches its layouts (NCHW, NHWC, channel-blocked), on a matmul or dense layer "
                                 "the packing of its B (KN as given, NK<b>n), and keeps the fastest")
                     ->capture_default_str();
  auto *network_opt = sub->add_option("--network", *network,
                                      "Tune every operator of a network file (see examples/networks/) within --trials "
                                      "in all")
                          ->excludes(op_opt);
  sub->add_option("--layouts", o->network_layouts,
                  "With --network: fixed (each operator in the layout its spec names) or any (free every operator's "
                  "layout, then plan the network's: one layout the activations flow in, operators that are faster "
                  "elsewhere converting in and out, every conversion tuned and counted). The plan is drawn up after "
                  "--plan-share of the trials, the rest tune each operator's kernels in the network's layout and in its "
                  "detour, if the plan takes one (shared by how close each is, conversions counted), and the plan is "
                  "drawn up again at the end")
      ->capture_default_str()
      ->check(CLI::IsMember({"fixed", "any"}));
  sub->add_option("--plan-share", o->layout_plan_share,
                  "With --layouts any: the share of --trials spent with every layout free before the first plan")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--conversion-trials", o->conversion_trials,
                  "With --layouts any: trials to tune each layout conversion the plan prices (beyond --trials)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  auto onnx = std::make_shared<OnnxSource>();
  sub->add_option("--onnx", onnx->model,
                  "Tune every task of an ONNX model, as 'tlptune tasks' extracts them; their network file is written "
                  "beside --log (LOG.network.json) for later runs")
      ->excludes(op_opt)
      ->excludes(network_opt);
  sub->add_option("--input", onnx->inputs,
                  "With --onnx: NAME=DIMxDIM..., the shape of an input with symbolic dimensions (a dynamic batch)");
  auto *target_opt =
      sub->add_option("--target", o->target, "Compile target: host, or a Halide target string such as x86-64-linux-avx2")
          ->capture_default_str();
  sub->add_option("--trials", o->trials, "How many candidates to measure in all")->capture_default_str()->check(CLI::PositiveNumber);
  add_search_options(*sub, *o);
  sub->add_option("--log", o->log_path, "JSON-lines log; records are appended, never rewritten (required unless --build-only)");
  sub->add_option("--runner", o->runner_command,
                  "Start the runner with this shell command, e.g. 'ssh gpu-host /opt/tlptune/tlptune-runner' (it must "
                  "see --work-dir at the same path)");
  sub->add_flag("--build-only", o->build_only,
                "Build (and for --target cuda validate with ptxas) the candidates without running them: checks a "
                "target this machine cannot run, e.g. a GPU");
  sub->add_flag("--resume", o->resume, "Count the log's measurements of this task toward --trials and continue");
  sub->add_option("--platform-alias", o->platform_aliases, kPlatformAliasHelp);
  sub->add_option("--json", *json_path, "Also write the summary as JSON to this file");
  sub->add_option("--seed", o->seed, "Random seed of the search")->capture_default_str();
  sub->add_option("--batch", o->batch, "Candidates built and measured per round")->capture_default_str()->check(CLI::PositiveNumber);
  auto platform = std::make_shared<std::string>();
  auto *platform_opt = sub->add_option(
      "--platform", *platform,
      "Platform to tune for, TARGET@THREADS (e.g. x86-64-linux-sse41@1): sets --target and --threads, and picks an "
      "MTL-TLP model's head");
  auto *threads_opt = sub->add_option("--threads", o->threads,
                                      "Threads a kernel runs with (0: every hardware thread); part of the platform "
                                      "records name")
                          ->capture_default_str()
                          ->check(CLI::NonNegativeNumber);
  platform_opt->excludes(target_opt)->excludes(threads_opt);
  add_measure_settings_options(*sub, o->measure);
  sub->add_option("--work-dir", o->work_dir, "Keep build artifacts here (default: a temporary folder, removed at the end)");
  sub->add_flag("!--no-progress", o->progress, "Do not draw the progress bar");
  auto peers = std::make_shared<std::string>();
  sub->add_option("--peers", *peers,
                  "With a network: also time its operators in these libraries (onednn, openblas; comma-separated) and "
                  "report their sum over the same operators beside tlptune's");
  c.run = [o, json_path, network, platform, onnx, sub, peers, fleet] {
    o->fleet = fleet;
    if (fleet.fleet() && !peers->empty())
      throw std::runtime_error("--peers run on rank 0's machine, not on the fleet's: compare with 'tlptune show LOG "
                               "--network FILE --peers ...' on a machine of the fleet");
    for (const char *name : {"--layouts", "--plan-share", "--conversion-trials", "--peers"})
      if (sub->count(name) && network->empty() && onnx->model.empty())
        throw std::runtime_error(std::string(name) + " applies to a network: give --network FILE or --onnx MODEL");
    if (!onnx->inputs.empty() && onnx->model.empty()) throw std::runtime_error("--input applies to --onnx MODEL");
    const std::string from_onnx = onnx->model.empty() ? std::string() : network_file_of(*onnx, o->log_path);
    const std::vector<std::string> peer_list = peers->empty() ? std::vector<std::string>{} : parse_peer_list(*peers);
    return run_tune(*o, from_onnx.empty() ? *network : from_onnx, *platform, *json_path, peer_list);
  };
  return c;
}

}  // namespace tlp
