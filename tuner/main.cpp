// tlptune: an autotuner for tensor operators, guided by the TLP cost model.
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <vector>

#include "fleet/fleet.h"
#include "fleet/fleet_worker.h"
#include "search/tlptune_version.h"
#include "tuner/command.h"

namespace {

int run_command(int argc, char **argv, const tlp::FleetRank &fleet) {
  CLI::App app{
      "tlptune: tunes tensor operators (matmul, conv2d, softmax, ...) for a CPU by searching schedules,\n"
      "compiling them with Halide and measuring them. Every measurement is appended to a log.\n\n"
      "Start with:  tlptune ops            (what can be tuned)\n"
      "             tlptune tune --op matmul:M=512,N=512,K=512 --trials 64 --log matmul.jsonl\n"
      "             tlptune show matmul.jsonl\n"
      "             tlptune replay matmul.jsonl --out kernels/\n"
      "             tlptune bench --suite quick --out bench-quick   (policies side by side)\n"
      "             tlptune tasks model.onnx --out model.json       (a network's tasks, from ONNX)\n"
      "             tlptune tune --onnx model.onnx --trials 500 --log model.jsonl\n"
      "             tlptune export model.jsonl --network model.jsonl.network.json --out model-kernels/"};
  app.require_subcommand(1);
  app.set_version_flag("--version", tlp::kTlptuneVersion);
  std::vector<tlp::Command> commands = {tlp::add_tune_command(app, fleet), tlp::add_show_command(app),
                                        tlp::add_replay_command(app), tlp::add_ops_command(app),
                                        tlp::add_collect_command(app, fleet), tlp::add_measure_command(app),
                                        tlp::add_train_command(app), tlp::add_eval_command(app),
                                        tlp::add_peers_command(app), tlp::add_bench_command(app, fleet),
                                        tlp::add_bundle_command(app), tlp::add_bundle_import_command(app),
                                        tlp::add_tasks_command(app), tlp::add_export_command(app),
                                        tlp::add_merge_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  for (auto &c : commands) {
    if (!c.app->parsed()) continue;
    *c.invoked = tlp::shell_quoted_command_line(argc, argv);
    try {
      const std::string name = c.app->get_name();
      if (fleet.fleet() && name != "collect" && name != "tune" && name != "bench")
        throw std::runtime_error("'" + name + "' measures nothing to share out: run it without mpirun (on a fleet: "
                                 "tune, collect, bench)");
      return c.run();
    } catch (const std::exception &e) {
      fprintf(stderr, "tlptune %s: error: %s\n", c.app->get_name().c_str(), e.what());
      return tlp::kExitError;
    }
  }
  return tlp::kExitError;
}

}  // namespace

int main(int argc, char **argv) {
  // Under mpirun or srun, every rank but 0 serves measurement jobs (fleet/fleet.h).
  const tlp::FleetRank fleet = tlp::join_fleet(&argc, &argv);
  int code = tlp::kExitError;
  if (fleet.fleet() && fleet.rank > 0) {
    try {
      code = tlp::serve_fleet_jobs(fleet);
    } catch (const std::exception &e) {
      fprintf(stderr, "tlptune rank %d: error: %s\n", fleet.rank, e.what());
    }
  } else {
    code = run_command(argc, argv, fleet);
  }
  tlp::leave_fleet(fleet, code);
  return code;
}
