// tlptune peers: measures other tuners (Halide's autoschedulers) and libraries
// (OpenBLAS, oneDNN) on an operator with tlptune's own protocol, side by side.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "measure/measure_error.h"
#include "tuner/command.h"
#include "tuner/peer_baselines.h"

namespace tlp {
namespace {

void print_progress(const std::string &text) { fprintf(stderr, "%s\n", text.c_str()); }

}  // namespace

Command add_peers_command(CLI::App &app) {
  auto o = std::make_shared<PeerOptions>();
  auto peers = std::make_shared<std::string>();
  auto json_path = std::make_shared<std::string>();
  auto show_schedules = std::make_shared<bool>(false);
  auto quiet = std::make_shared<bool>(false);
  std::string all;
  for (const auto &n : peer_names()) all += (all.empty() ? "" : ",") + n;
  *peers = all;
  Command c;
  c.app = app.add_subcommand(
      "peers",
      "Measure other tuners and libraries on an operator with tlptune's protocol: Halide's autoschedulers "
      "(adams2019, mullapudi2016, li2018), OpenBLAS sgemm, and oneDNN convolution and matmul");
  auto *sub = c.app;
  sub->add_option("--op", o->op_spec, "Operator, KIND:PARAM=VALUE,... (see 'tlptune ops')")->required();
  sub->add_option("--peers", *peers,
                  "Comma-separated peers to measure. Adams2019's beam search can take many minutes and several GiB "
                  "on a convolution with many channels (HL_BEAM_SIZE=1 makes it greedy and fast)")
      ->capture_default_str();
  sub->add_option("--target", o->target, "Compile target of the Halide peers: host, or a Halide target string")
      ->capture_default_str();
  sub->add_option("--threads", o->threads, "Threads for every peer (0: one per hardware thread)")->capture_default_str();
  sub->add_option("--min-seconds", o->min_seconds, "Timed seconds per peer, at least")->capture_default_str();
  sub->add_option("--min-repeats", o->min_repeats, "Timed runs per peer, at least")->capture_default_str();
  sub->add_option("--max-repeats", o->max_repeats, "Timed runs per peer, at most")->capture_default_str();
  sub->add_option("--rounds", o->rounds,
                  "Independent timing runs per peer; the fastest run's median is its figure (one run on a busy "
                  "or small VM can land at half speed)")
      ->capture_default_str();
  sub->add_option("--run-timeout", o->run_timeout, "Seconds before a peer's timing run is killed")->capture_default_str();
  sub->add_option("--json", *json_path, "Also write the results as JSON to this file");
  sub->add_option("--work-dir", o->work_dir, "Keep the kernels and task data here (default: a temporary folder)");
  sub->add_flag("--show-schedules", *show_schedules, "Print the schedules Halide's autoschedulers chose");
  sub->add_flag("--verbose", o->verbose, "Let the autoschedulers' own output through to stderr");
  sub->add_flag("--quiet", *quiet, "Do not say which peer is being measured");
  c.run = [o, peers, json_path, show_schedules, quiet] {
    o->peers = parse_peer_list(*peers);
    if (!json_path->empty()) {  // fail before measuring, not after; leave no empty file behind
      std::error_code ec;
      const bool existed = std::filesystem::exists(*json_path, ec);
      bool writable = false;
      {
        std::ofstream probe(*json_path, std::ios::app);
        writable = bool(probe);
      }
      if (!existed) std::filesystem::remove(*json_path, ec);
      if (!writable) throw std::runtime_error("cannot write the results to '" + *json_path + "'; choose another --json");
    }
    PeersReport report = run_peers(*o, *quiet ? nullptr : print_progress);
    printf("%s", format_peers_table(report).c_str());
    if (*show_schedules)
      for (const auto &r : report.results)
        if (!r.schedule_source.empty()) printf("\nschedule of %s:\n%s", r.peer.c_str(), r.schedule_source.c_str());
    if (!json_path->empty()) {
      std::ofstream f(*json_path, std::ios::trunc);
      if (!f) throw std::runtime_error("cannot write the results to '" + *json_path + "'");
      f << report.to_json().dump(2) << "\n";
    }
    int failed = 0, measured = 0;
    for (const auto &r : report.results) {
      if (r.skipped) continue;
      ++measured;
      if (!r.ok()) ++failed;
    }
    if (failed) {
      fprintf(stderr, "%d of %d peers failed (see the table)\n", failed, measured);
      return kExitError;
    }
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
