// The parent side of the runner: sends a job to a tlptune-runner process and turns
// its reply, its crash or its silence into a RunResult.
//
// The runner process is kept across jobs (loading data once per task), killed when
// a job times out or kills it, and restarted lazily for the next job, so one bad
// kernel costs one failed result, never the tuning run.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "measure/measure_error.h"
#include "measure/worker_process.h"
#include "measure/timing_protocol.h"

namespace tlp {

// One measurement job; mirrors the runner's job line (see kernel_runner.h) except
// "id", which RunnerClient assigns itself to pair replies with jobs.
struct RunJob {
  std::string artifact;  // absolute path of the kernel's shared library
  std::string entry;     // the runner calls <entry>_argv
  std::string data_dir;  // holds task.json, the inputs and the reference output
  int warmup = kDefaultWarmup;
  int min_repeats = kDefaultMinRepeats;
  int max_repeats = kDefaultMaxRepeats;
  double min_seconds = kDefaultMinSeconds;
  double rtol = kDefaultRtol;
  int threads = 0;  // 0 = the Halide runtime's default
  std::string device;  // "" (CPU) or "cuda"

  nlohmann::json to_json(long long id) const;
};

struct RunResult {
  MeasureError error = MeasureError::Unknown;
  std::vector<double> costs;  // seconds per timed run, in run order
  double median = 0;          // median of costs; 0 when there are none
  double max_abs_error = 0;   // +inf when the output held NaN/inf
  std::string message;        // why it failed; empty on success
  double seconds_taken = 0;   // wall time of the whole job, as seen by the parent
  std::optional<double> cpu_wait;  // CPU contention while it was timed (cpu_interference.h)
};

class RunnerClient {
 public:
  // runner_argv: the command that starts a runner (default: tlptune-runner next to
  // this executable). The runner's stderr is inherited, or appended to stderr_path.
  explicit RunnerClient(std::vector<std::string> runner_argv = {default_runner_path()},
                        std::string stderr_path = "");

  // Runs one job, waiting at most timeout_seconds for its reply (kernel loading,
  // warm-up and all repeats included). Failures of the kernel come back as a
  // RunResult: RunTimeout (the runner is killed), RuntimeError (including "runner
  // died: killed by signal 11 (Segmentation fault)"), WrongAnswer, or Unknown for a
  // malformed reply. Throws WorkerError only when no runner can be started at all
  // (a setup problem that no candidate can fix).
  RunResult run(const RunJob &job, double timeout_seconds);

  // Stops the runner now; the next run() starts a fresh one.
  void stop();

  // How many runner processes this client has started so far.
  int starts() const { return starts_; }

  // <directory of /proc/self/exe>/tlptune-runner (a PATH lookup if that fails).
  static std::string default_runner_path();

 private:
  void ensure_started();
  RunResult runner_died(double started_at);

  std::vector<std::string> argv_;
  std::string stderr_path_;
  std::unique_ptr<WorkerProcess> process_;
  long long next_id_ = 1;
  int starts_ = 0;
};

// Parses one reply line of the runner. Throws std::runtime_error if it is malformed.
RunResult parse_runner_reply(const std::string &line, long long expected_id);

}  // namespace tlp
