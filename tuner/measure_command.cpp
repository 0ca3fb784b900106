// tlptune measure: measures given schedules of an operator (written in the step
// text form that logs and `show` print) with the same protocol as tuning, and
// logs them. For hand-written schedules, regressions and checking a claim.
// With --from-log it measures every schedule of another log again: a log
// written by an older build (whose lowering has changed since) or on a busier
// day, refreshed with this build's kernels.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>

#include "codegen/lower.h"
#include "codegen/operator.h"
#include "codegen/target.h"
#include "measure/measurer.h"
#include "measure/record_log.h"
#include "measure/timing_protocol.h"
#include "tuner/command.h"
#include "tuner/compute_dag_cache.h"
#include "tuner/interrupt.h"
#include "tuner/network_workloads.h"
#include "tuner/record_migration.h"

namespace tlp {
namespace {

struct MeasureCommandOptions {
  std::string op;
  std::vector<std::string> schedules;
  std::string target = "host";
  std::string log;
  double min_seconds = kDefaultMinSeconds;
  bool build_only = false;
  bool print_halide = false;
  std::string from_log;
  std::vector<std::string> networks;
};

struct TaskSchedules {
  std::string workload_key;
  std::vector<Schedule> schedules;
};

// The schedules of `old_log` to measure again, per workload in order of first
// appearance: each distinct one once, less those already in `new_log` (a
// resumed run), and only the workloads of `networks` when any are given. Older
// records get this build's split extents first, so they replay.

std::vector<TaskSchedules> schedules_to_refresh(const std::string &old_log, const std::string &new_log,
                                                const std::vector<std::string> &networks) {
  std::set<std::string> wanted;
  for (const auto &[key, in_network] : network_workloads(networks)) wanted.insert(key);
  std::vector<MeasureRecord> records;
  for (MeasureRecord &r : read_record_log(old_log).records)
    if (wanted.empty() || wanted.count(r.workload_key)) records.push_back(std::move(r));
  ComputeDagCache dags;
  migrate_records(records, dags);  // replays each record: only the wanted ones
  std::unordered_set<std::string> seen;
  if (std::filesystem::exists(new_log))
    for (const MeasureRecord &r : read_record_log(new_log).records)
      seen.insert(r.workload_key + "|" + r.schedule.to_text());
  std::vector<TaskSchedules> out;
  std::map<std::string, size_t> index;  // workload key -> its place in `out`
  for (const MeasureRecord &r : records) {
    if (!seen.insert(r.workload_key + "|" + r.schedule.to_text()).second) continue;
    const auto [it, added] = index.try_emplace(r.workload_key, out.size());
    if (added) out.push_back({r.workload_key, {}});
    out[it->second].schedules.push_back(r.schedule);
  }
  return out;
}

// --from-log: measures the old log's schedules again, task by task, into o.log.
int refresh_log(const MeasureCommandOptions &o) {
  if (o.log.empty()) throw std::runtime_error("--from-log needs --log FILE: the log to append the new measurements to");
  std::error_code ec;
  if (o.log == o.from_log || std::filesystem::equivalent(o.log, o.from_log, ec))
    throw std::runtime_error("--log must name another file than --from-log: logs are append-only, and the old "
                             "measurements stay as they were");
  const std::vector<TaskSchedules> todo = schedules_to_refresh(o.from_log, o.log, o.networks);
  if (todo.empty()) {
    printf("nothing to measure: %s holds every schedule of %s%s already\n", o.log.c_str(), o.from_log.c_str(),
           o.networks.empty() ? "" : " on these networks");
    return kExitOk;
  }
  MeasurerOptions mo;
  mo.target = parse_target(o.target).to_string();
  mo.log_path = o.log;
  mo.settings.min_seconds = o.min_seconds;
  Measurer measurer(mo);
  const std::atomic<bool> &stop = stop_on_interrupt();
  for (size_t i = 0; i < todo.size() && !stop; ++i) {
    const std::string &key = todo[i].workload_key;
    std::unique_ptr<Operator> op;
    try {
      op = make_operator(key);
    } catch (const std::exception &e) {  // a log of another build's operators: measure what this one knows
      printf("[%zu/%zu] %s: skipped, not an operator of this build (%s)\n", i + 1, todo.size(), key.c_str(), e.what());
      continue;
    }
    int ok = 0, failed = 0;
    measurer.measure(*op, todo[i].schedules, stop, [&](const MeasureRecord &r) { ++(r.ok() ? ok : failed); });
    printf("[%zu/%zu] %s: %d measured, %d failed\n", i + 1, todo.size(), key.c_str(), ok, failed);
    fflush(stdout);
  }
  if (stop) {
    fprintf(stderr, "interrupted: what was measured is in %s; run the same command again to go on\n", o.log.c_str());
    return kExitInterrupted;
  }
  return kExitOk;  // a failed kernel is a record with its cause, as in collect
}

}  // namespace

Command add_measure_command(CLI::App &app) {
  auto o = std::make_shared<MeasureCommandOptions>();
  Command c;
  c.app = app.add_subcommand("measure",
                             "Measure given schedules of an operator, as tuning would, and log them; or, with "
                             "--from-log, every schedule of an older log again");
  auto *op_opt = c.app->add_option("--op", o->op, "Operator, KIND:PARAM=VALUE,...");
  auto *schedule_opt = c.app->add_option("--schedule", o->schedules,
                                         "A schedule in step text form, e.g. \"SP(2,0,512,[16]); AN(2,0,parallel)\"");
  auto *from_log_opt =
      c.app->add_option("--from-log", o->from_log,
                        "Instead of --op/--schedule: measure every distinct schedule of this log again, with this "
                        "build, into --log (resumable: what --log holds is skipped). Refreshes a log whose "
                        "timings are stale (an older build's kernels, a busier day)")
          ->excludes(op_opt)
          ->excludes(schedule_opt);
  c.app->add_option("--network", o->networks, "With --from-log: only the operators of these network files")
      ->needs(from_log_opt);
  c.app->add_option("--target", o->target, "Compile target")->capture_default_str();
  c.app->add_option("--log", o->log, "JSON-lines log to append the records to (required unless --build-only)");
  c.app->add_flag("--build-only", o->build_only,
                  "Build (and for a GPU validate with ptxas) without running or logging: checks schedules for a "
                  "target this machine cannot run")
      ->excludes(from_log_opt);
  c.app->add_option("--min-seconds", o->min_seconds, "Timed seconds per schedule, at least")->capture_default_str();
  c.app->add_flag("--print-halide", o->print_halide,
                  "Print each schedule as the Halide C++ it lowers to, and stop (nothing is built): to see why a "
                  "candidate failed, or to reuse it by hand")
      ->excludes(from_log_opt);
  c.run = [o] {
    if (!o->from_log.empty()) return refresh_log(*o);
    if (o->op.empty() || o->schedules.empty())
      throw std::runtime_error("give --op and --schedule (the schedules to measure), or --from-log LOG");
    auto op = make_operator(o->op);
    std::vector<Schedule> schedules;
    for (const auto &text : o->schedules) schedules.push_back(Schedule::from_text(text));
    if (o->print_halide) {
      const ComputeDag dag = make_compute_dag(*op);
      for (const Schedule &s : schedules)
        printf("// %s\n%s\n", s.to_text().c_str(), schedule_to_halide_source(*op, dag, s).c_str());
      return kExitOk;
    }
    const Halide::Target target = parse_target(o->target);
    if (o->log.empty() && !o->build_only) throw std::runtime_error("--log is required (only --build-only needs none)");
    MeasurerOptions mo;
    mo.target = target.to_string();
    mo.build_only = o->build_only;
    mo.log_path = o->log;
    mo.settings.min_seconds = o->min_seconds;
    Measurer measurer(mo);
    std::atomic<bool> never{false};
    int failed = 0;
    measurer.measure(*op, schedules, never, [&](const MeasureRecord &r) {
      if (r.error == MeasureError::NotRun) {
        printf("built%s  %s\n",
               r.ptxas ? (": " + std::to_string(r.ptxas->kernels) + " GPU kernels, " +
                          std::to_string(r.ptxas->registers) + " registers, " +
                          std::to_string(r.ptxas->spill_store_bytes) + " bytes spilled").c_str()
                       : "",
               r.schedule.to_text().c_str());
      } else if (r.ok()) {
        printf("%.4f ms  %.2f GFLOP/s  %s\n", r.median_cost * 1e3, op->flops() / r.median_cost / 1e9,
               r.schedule.to_text().c_str());
      } else {
        ++failed;
        printf("%s: %s\n  %s\n", measure_error_name(r.error), r.error_message.c_str(), r.schedule.to_text().c_str());
      }
    });
    return failed ? kExitError : kExitOk;
  };
  return c;
}

}  // namespace tlp
