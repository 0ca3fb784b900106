// tlptune replay: rebuilds the best kernel of each task in a log and exports it
// as a static library with its header, plus the schedule as Halide C++, and, for a
// kernel that reads packed weights, the packing routine beside it.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "codegen/kernel_compiler.h"
#include "codegen/kernel_library.h"
#include "codegen/lower.h"
#include "codegen/operator.h"
#include "codegen/target.h"
#include "codegen/weight_packing.h"
#include "measure/record_log.h"
#include "tuner/command.h"
#include "tuner/log_summary.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

void check_output_dir(const std::string &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw std::runtime_error("cannot create the output folder '" + dir + "': " + (ec ? ec.message() : "not a folder") +
                             "; choose a writable --out");
  const fs::path probe = fs::path(dir) / ".tlptune-write-test";
  std::ofstream f(probe);
  if (!f) throw std::runtime_error("the output folder '" + dir + "' is not writable; choose another --out");
  f.close();
  fs::remove(probe, ec);
}

}  // namespace

Command add_replay_command(CLI::App &app) {
  auto path = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto only = std::make_shared<std::string>();
  Command c;
  c.app = app.add_subcommand("replay",
                             "Export the best kernel of each task in a log: a static library, its header, and the "
                             "schedule as Halide C++");
  c.app->add_option("log", *path, "A tlptune JSON-lines log")->required();
  c.app->add_option("--out", *out, "Folder to write the kernels to (created if missing)")->required();
  c.app->add_option("--workload", *only, "Export only this workload (its key as 'tlptune show' prints it)");
  c.run = [path, out, only] {
    LogReadResult log = read_record_log(*path);
    for (const auto &w : log.warnings) fprintf(stderr, "warning: %s\n", w.c_str());
    check_output_dir(*out);
    int exported = 0;
    const std::vector<TaskSummary> tasks = summarize_tasks(log.records);
    std::map<std::string, int> per_workload;  // a workload measured on several targets or platforms
    for (const TaskSummary &t : tasks) ++per_workload[t.workload];
    std::map<std::string, int> seen;
    for (const TaskSummary &t : tasks) {
      if (!only->empty() && t.workload != *only) continue;
      if (!t.best) {
        fprintf(stderr, "skipped %s: no valid measurement in the log\n", t.workload.c_str());
        continue;
      }
      auto op = make_operator(t.workload);
      const ComputeDag dag = make_compute_dag(*op);
      const Halide::Target target = parse_target(t.target);
      LoweredKernel k = lower_schedule(*op, dag, t.best->schedule, target);
      // One folder per task: numbered when the workload has several (see kernel.json for which).
      const int nth = ++seen[t.workload];
      const std::string name = workload_identifier(t.workload) + (per_workload[t.workload] > 1 ? "_" + std::to_string(nth) : "");
      const fs::path dir = fs::path(*out) / name;
      fs::create_directories(dir);
      compile_static_library(k, target, (dir / name).string(), name);
      std::ofstream(dir / "schedule.cc") << "// Halide schedule for " << t.workload << " on " << t.target
                                         << ", found by tlptune\n" << k.schedule_source;
      nlohmann::json info = {{"workload", t.workload},     {"target", t.target}, {"platform", t.platform},
                             {"function", name},           {"median_seconds", t.best_cost},
                             {"measurements", t.best_measurements}, {"gflops", op->flops() / t.best_cost / 1e9},
                             {"schedule", t.best->schedule.to_text()},
                             {"input_shapes", op->input_shapes()}, {"output_shape", op->output_shape()}};
      // Packed inputs: the user calls each packing once at load time and hands the
      // kernel its output.
      const std::vector<PackedInput> packed = op->packed_inputs();
      const std::vector<std::string> packings = compile_packing_static_libraries(*op, target, (dir / name).string(), name);
      std::string packing_files;
      for (size_t j = 0; j < packed.size(); ++j) {
        const std::string lib = name + "_pack" + std::to_string(packed[j].input);
        info["packed_inputs"].push_back({{"input", packed[j].input},
                                         {"function", packings[j]},
                                         {"library", lib + ".a"},
                                         {"user_shape", packed[j].user_shape},
                                         {"user_layout", packed[j].user_layout},
                                         {"packed_layout", packed[j].packed_layout}});
        packing_files += ", " + lib + ".a, " + lib + ".h";
      }
      std::ofstream(dir / "kernel.json") << info.dump(2) << "\n";
      printf("%s%s%s -> %s/ (%s.a, %s.h%s, schedule.cc, kernel.json)\n", t.workload.c_str(),
             t.platform.empty() ? "" : " on ", t.platform.c_str(), dir.string().c_str(), name.c_str(), name.c_str(),
             packing_files.c_str());
      ++exported;
    }
    if (exported == 0) {
      fprintf(stderr, "nothing exported: %s\n",
              only->empty() ? "the log has no valid measurement" : ("no valid measurement of '" + *only + "'").c_str());
      return kExitError;
    }
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
