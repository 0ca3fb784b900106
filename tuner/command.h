// A subcommand of tlptune: its CLI11 definition and what running it does. Each
// subcommand lives in its own file and owns its options (no globals).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "fleet/fleet.h"

namespace tlp {

struct Command {
  CLI::App *app = nullptr;
  std::function<int()> run;  // returns the process exit code
  // The command line as typed, quoted for a shell; set before `run` (reports
  // that say how to reproduce them quote it).
  std::shared_ptr<std::string> invoked = std::make_shared<std::string>();
};

// argv joined into one line a shell reads back as the same words.
std::string shell_quoted_command_line(int argc, const char *const *argv);

Command add_tune_command(CLI::App &app, const FleetRank &fleet);
Command add_show_command(CLI::App &app);
Command add_replay_command(CLI::App &app);
Command add_ops_command(CLI::App &app);
Command add_collect_command(CLI::App &app, const FleetRank &fleet);
Command add_measure_command(CLI::App &app);
Command add_train_command(CLI::App &app);
Command add_eval_command(CLI::App &app);
Command add_peers_command(CLI::App &app);
Command add_bench_command(CLI::App &app, const FleetRank &fleet);
Command add_bundle_command(CLI::App &app);
Command add_bundle_import_command(CLI::App &app);
Command add_tasks_command(CLI::App &app);
Command add_export_command(CLI::App &app);
Command add_merge_command(CLI::App &app);

// Exit codes shared by the subcommands.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitRegression = 3;  // bench --check found a confirmed regression
constexpr int kExitInterrupted = 130;

}  // namespace tlp
