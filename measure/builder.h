// The builder: compiles candidates into self-contained shared libraries in
// parallel worker processes (tlptune-build-worker), each job with a time limit.
// A worker that hangs is killed (BuildTimeout); one that dies costs its job a
// CompileError; either is restarted for the next job.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "measure/measure_error.h"
#include "measure/ptxas.h"
#include "measure/worker_process.h"
#include "search/schedule.h"
#include "measure/measure_settings.h"
#include "measure/timing_protocol.h"

namespace tlp {

struct BuildJob {
  std::string workload_key;
  std::string target;    // a target string the worker parses ("host", "x86-64-linux-avx2", ...)
  Schedule schedule;
  std::string dir;       // where kernel.so goes; created by the worker
};

struct BuildResult {
  MeasureError error = MeasureError::Unknown;
  std::string message;
  std::string artifact;  // DIR/kernel.so on success
  double seconds = 0;    // wall time of the job as seen by the parent
  std::optional<PtxasReport> ptxas;  // GPU targets: what ptxas reported
};

struct BuilderOptions {
  int workers = 2;
  double timeout_seconds = kDefaultBuildTimeout;
  std::string runtime_object;        // Halide's runtime for the target, built once (see compile_runtime_object)
  std::vector<std::string> worker_argv;  // default: tlptune-build-worker next to this executable
  std::string stderr_path;           // the workers' stderr (Halide's messages); inherited if empty
};

class Builder {
 public:
  explicit Builder(BuilderOptions options);
  ~Builder();

  // Builds all jobs, up to `workers` at a time; results are in job order. Once
  // `stop` (when given) turns true, no further job starts and the builds in flight
  // are killed: those jobs come back NotRun, so a Ctrl-C does not wait for a batch.
  std::vector<BuildResult> build(const std::vector<BuildJob> &jobs, const std::atomic<bool> *stop = nullptr);

  static constexpr const char *kEntryPoint = "tlp_kernel";

 private:
  BuildResult build_one(int worker, const BuildJob &job, long long id, const std::atomic<bool> *stop);

  BuilderOptions options_;
  std::vector<std::unique_ptr<WorkerProcess>> workers_;
};

// The job line a worker reads, and parsing of its reply (shared with the worker).
std::string build_job_line(const BuildJob &job, long long id, const std::string &runtime_object);
BuildResult parse_build_reply(const std::string &line, long long expected_id);

// A Builder for `target` (a Halide target string) set up as every caller
// needs it: the build worker checked for first (a missing one is refused at
// once), then Halide's runtime for the target compiled into DIR/halide_runtime.o
// (seconds), the workers' stderr appended to DIR/build-worker.log;
// settings.build_workers 0: one per core.
std::unique_ptr<Builder> make_target_builder(const std::string &target, const std::string &dir,
                                             const MeasureSettings &settings);

}  // namespace tlp
