// tlptune show: summarizes a log, one block per platform (the machine that
// measured it), and in it one block per task.
#include <cstdio>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "codegen/operator.h"
#include "measure/platform.h"
#include "measure/record_log.h"
#include "tuner/command.h"
#include "tuner/log_summary.h"

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
  c.run = [path, json_path, failures] {
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
