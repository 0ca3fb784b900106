// tlptune measure: measures given schedules of an operator (written in the step
// text form that logs and `show` print) with the same protocol as tuning, and
// logs them. For hand-written schedules, regressions and checking a claim.
#include <atomic>
#include <cstdio>
#include <memory>

#include "codegen/lower.h"
#include "codegen/operator.h"
#include "codegen/target.h"
#include "tuner/command.h"
#include "tuner/measurer.h"

namespace tlp {

Command add_measure_command(CLI::App &app) {
  struct Options {
    std::string op;
    std::vector<std::string> schedules;
    std::string target = "host";
    std::string log;
    double min_seconds = 0.2;
    bool build_only = false;
    bool print_halide = false;
  };
  auto o = std::make_shared<Options>();
  Command c;
  c.app = app.add_subcommand("measure", "Measure given schedules of an operator, as tuning would, and log them");
  c.app->add_option("--op", o->op, "Operator, KIND:PARAM=VALUE,...")->required();
  c.app->add_option("--schedule", o->schedules, "A schedule in step text form, e.g. \"SP(2,0,512,[16]); AN(2,0,parallel)\"")
      ->required();
  c.app->add_option("--target", o->target, "Compile target")->capture_default_str();
  c.app->add_option("--log", o->log, "JSON-lines log to append the records to (required unless --build-only)");
  c.app->add_flag("--build-only", o->build_only,
                  "Build (and for a GPU validate with ptxas) without running or logging: checks schedules for a "
                  "target this machine cannot run");
  c.app->add_option("--min-seconds", o->min_seconds, "Timed seconds per schedule, at least")->capture_default_str();
  c.app->add_flag("--print-halide", o->print_halide,
                  "Print each schedule as the Halide C++ it lowers to, and stop (nothing is built): to see why a "
                  "candidate failed, or to reuse it by hand");
  c.run = [o] {
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
    mo.min_seconds = o->min_seconds;
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
