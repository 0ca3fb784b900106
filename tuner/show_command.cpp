// tlptune show: summarizes a log, one block per platform (the machine that
// measured it), and in it one block per task.
#include <cstdio>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "codegen/operator.h"
#include "measure/platform.h"
#include "measure/record_log.h"
#include "search/network_spec.h"
#include "tuner/command.h"
#include "tuner/log_summary.h"
#include "tuner/network_kernels.h"
#include "tuner/network_peers.h"

namespace tlp {
namespace {

double gflops_of(const std::string &workload, double seconds) {
  try {
    return make_operator(workload)->flops() / seconds / 1e9;
  } catch (const std::exception &) {
    return 0;  // a workload this build does not know: show the time only
  }
}

// Prints one task's block and returns it as JSON.
nlohmann::json show_task(const TaskSummary &t, bool failures) {
  printf("%s\n  target    %s\n", t.workload.c_str(), t.target.c_str());
  printf("  records   %d (%d valid", t.records, t.ok);
  if (t.busy > 0) printf(", %d timed on a busy machine", t.busy);
  printf(")\n");
  if (!t.errors.empty()) {
    printf("  failures ");
    for (const auto &[name, n] : t.errors) printf(" %s=%d", name.c_str(), n);
    printf("\n");
  }
  nlohmann::json j = {{"workload", t.workload}, {"target", t.target}, {"platform", t.platform},
                      {"records", t.records},   {"valid", t.ok},       {"errors", t.errors},
                      {"busy", t.busy},         {"machine", t.machine ? t.machine->to_json() : nlohmann::json(nullptr)}};
  if (failures) {
    j["failures"] = nlohmann::json::array();
    for (const MeasureRecord *r : t.failures) {
      printf("  failed    %s: %s\n            %s\n", measure_error_name(r->error), r->error_message.c_str(),
             r->schedule.to_text().c_str());
      j["failures"].push_back({{"error", measure_error_name(r->error)},
                               {"message", r->error_message},
                               {"schedule", r->schedule.to_text()}});
    }
  }
  if (t.best) {
    const double gf = gflops_of(t.workload, t.best_cost);
    printf("  best      %.4f ms, %.2f GFLOP/s", t.best_cost * 1e3, gf);
    if (t.best_measurements > 1) printf(" (median of %d measurements)", t.best_measurements);
    printf("\n  schedule  %s\n", t.best->schedule.to_text().c_str());
    j["best"] = {{"cost_seconds", t.best_cost},
                 {"gflops", gf},
                 {"measurements", t.best_measurements},
                 {"schedule", t.best->schedule.to_text()}};
  }
  printf("\n");
  return j;
}

// What is known of the machine that measured a platform's records.
std::string machine_line(const PlatformGroup &g) {
  if (g.machine) {
    const MachineIdentity &m = *g.machine;
    std::string line = m.description();
    if (m.l2_kib > 0) line += ", L2 " + std::to_string(m.l2_kib) + " KiB";
    if (m.l3_kib > 0) line += ", L3 " + std::to_string(m.l3_kib) + " KiB";
    return line;
  }
  const std::string named = platform_machine(g.platform);
  if (named.empty()) return "not recorded";
  return "microarchitecture unknown (records older than machine names); --platform-alias '" + named +
         "=NAME' reads them as machine NAME's (host: this machine)";
}

struct NetworkView {
  std::string network_path, platform, layouts = "fixed", peers;
};

void print_progress_line(const std::string &what) { fprintf(stderr, "  %s\n", what.c_str()); }

// The network's tasks as the log serves them, its estimated latency, and peers beside it.
nlohmann::json show_network(const NetworkView &v, const std::vector<TaskSummary> &tasks, const std::string &log_path) {
  const NetworkSpec spec = read_network_spec(v.network_path);
  const NetworkKernels k = network_kernels(spec, tasks, v.platform, v.layouts == "any", log_path);
  printf("network   %s (%zu tasks) on %s\n\n", spec.name.c_str(), spec.tasks.size(), k.platform.c_str());
  printf("%-72s %6s %10s %9s\n", "task", "weight", "best ms", "GFLOP/s");
  std::vector<std::string> ops;
  std::vector<double> weights, mine;
  nlohmann::json j = {{"network", spec.name}, {"platform", k.platform}, {"tasks", nlohmann::json::array()}};
  for (const NetworkKernel &nk : k.kernels) {
    ops.push_back(nk.best ? nk.best->workload : nk.task->op);
    weights.push_back(nk.task->weight);
    mine.push_back(nk.best ? nk.best->best_cost : -1);
    if (nk.best)
      printf("%-72s %6g %10.4f %9.2f\n", nk.best->workload.c_str(), nk.task->weight, nk.best->best_cost * 1e3,
             gflops_of(nk.best->workload, nk.best->best_cost));
    else
      printf("%-72s %6g %10s %9s\n", nk.task->op.c_str(), nk.task->weight, "none", "-");
    j["tasks"].push_back({{"op", nk.task->op},
                          {"weight", nk.task->weight},
                          {"workload", nk.best ? nlohmann::json(nk.best->workload) : nlohmann::json(nullptr)},
                          {"best_seconds", nk.best ? nlohmann::json(nk.best->best_cost) : nlohmann::json(nullptr)}});
  }
  if (k.missing == 0) {
    printf("\nestimated network latency: %.3f ms (sum of weight x best latency)\n", k.latency * 1e3);
    j["estimated_latency_seconds"] = k.latency;
  } else {
    printf("\nestimated network latency: unknown (%d tasks have no valid kernel; %.3f ms over the others)\n",
           k.missing, k.latency * 1e3);
    j["estimated_latency_seconds"] = nullptr;
  }
  j["missing"] = k.missing;
  if (!v.peers.empty()) {
    j["peers"] = nlohmann::json::array();
    PeerOptions base;
    if (const TaskSummary *any = k.kernels.empty() ? nullptr : k.kernels.front().best) base.target = any->target;
    base.threads = platform_threads(k.platform);
    for (const std::string &peer : parse_peer_list(v.peers)) {
      fprintf(stderr, "\nmeasuring %s on the network's operators...\n", peer.c_str());
      const NetworkPeerSum sum = sum_network_peer(peer, ops, weights, mine, base, print_progress_line);
      printf("%s", format_network_peer_sum(sum).c_str());
      j["peers"].push_back(sum.to_json());
    }
  }
  return j;
}

}  // namespace

Command add_show_command(CLI::App &app) {
  auto path = std::make_shared<std::string>();
  auto json_path = std::make_shared<std::string>();
  auto failures = std::make_shared<bool>(false);
  Command c;
  c.app = app.add_subcommand("show", "Summarize a log: per platform (machine) and task, how many measurements, failures, and the best kernel");
  c.app->add_option("log", *path, "A tlptune JSON-lines log")->required();
  c.app->add_option("--json", *json_path, "Also write the summary as JSON to this file");
  c.app->add_flag("--failures", *failures,
                  "Also list every failed record: its kind, message and schedule (the step text that 'tlptune "
                  "measure --schedule' takes; add --print-halide there to see its Halide C++)");
  auto net = std::make_shared<NetworkView>();
  c.app->add_option("--network", net->network_path,
                    "Also show this network's tasks as the log serves them and its estimated latency (the JSON "
                    "becomes {\"tasks\": [...], \"network\": {...}})");
  c.app->add_option("--platform", net->platform, "With --network: the platform to read, when the log holds several");
  c.app->add_option("--layouts", net->layouts, "With --network: fixed (the layout each op names) or any")
      ->check(CLI::IsMember({"fixed", "any"}))
      ->capture_default_str();
  c.app->add_option("--peers", net->peers,
                    "With --network: time the network's operators in these libraries (onednn, openblas) on this "
                    "machine and report their sum beside tlptune's");
  c.run = [path, json_path, failures, net, app = c.app] {
    for (const char *name : {"--platform", "--layouts", "--peers"})
      if (app->count(name) && net->network_path.empty())
        throw std::runtime_error(std::string(name) + " applies to a network: give --network FILE");
    LogReadResult log = read_record_log(*path);
    for (const auto &w : log.warnings) fprintf(stderr, "warning: %s\n", w.c_str());
    nlohmann::json out = nlohmann::json::array();
    const std::vector<TaskSummary> tasks = summarize_tasks(log.records);
    for (const PlatformGroup &g : group_by_platform(tasks)) {
      printf("platform  %s\n", g.platform.empty() ? "(not recorded)" : g.platform.c_str());
      printf("machine   %s\n", machine_line(g).c_str());
      printf("          %zu task%s, %d records\n\n", g.tasks.size(), g.tasks.size() == 1 ? "" : "s", g.records);
      for (const TaskSummary *t : g.tasks) out.push_back(show_task(*t, *failures));
    }
    if (log.records.empty()) printf("%s holds no records yet\n", path->c_str());
    if (!net->network_path.empty()) out = {{"tasks", out}, {"network", show_network(*net, tasks, *path)}};
    if (!json_path->empty()) {
      std::ofstream f(*json_path);
      if (!f) throw std::runtime_error("cannot write '" + *json_path + "'");
      f << out.dump(2) << "\n";
    }
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
