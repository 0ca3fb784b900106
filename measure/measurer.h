// Measures candidates for any number of tasks on one target: a work folder, the
// target's Halide runtime (built once), the parallel builder, the isolated
// runner, and the log every record is appended to as soon as it exists.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "codegen/operator.h"
#include "measure/builder.h"
#include "measure/measure_record.h"
#include "measure/measuring_service.h"
#include "measure/measure_settings.h"
#include "measure/record_log.h"
#include "measure/runner_client.h"
#include "measure/work_dir.h"

namespace tlp {

struct MeasurerOptions {
  std::string target;       // resolved target string
  // Thread counts to run each built candidate with, one record each (each its own
  // platform, see measure/platform.h): one build serves several platforms.
  // Empty: one run with every hardware thread.
  std::vector<int> threads;
  // Build (and, for GPUs, validate with ptxas) without running: records come
  // back with NotRun and are not logged. For a target this machine cannot run.
  bool build_only = false;
  // How to start the runner: empty for tlptune-runner beside this program, else a
  // shell command (e.g. "ssh gpu-host tlptune-runner"); the runner it reaches
  // must see the work folder at the same path.
  std::string runner_command;
  std::string log_path;     // empty: records are not logged here (a fleet rank's go to rank 0)
  std::string work_dir;     // empty: a temporary folder removed at the end
  MeasureSettings settings;
};

// The platform the records of `target` name: for a CPU, cpu_platform(target,
// threads); for a GPU, what the runner's --probe-gpu reports (through
// runner_command when given), except when only building. Throws
// std::runtime_error when a GPU target finds no GPU, saying what to do.
std::string measurement_platform(const std::string &target, int threads, bool build_only,
                                 const std::string &runner_command);


class Measurer : public MeasuringService {
 public:
  explicit Measurer(MeasurerOptions o);
  ~Measurer();

  // Builds all candidates in parallel, then runs each once per thread count; each
  // record is logged before `on_record` sees it. Runs whose run_key() is in `skip`
  // are left out (a candidate with nothing left to run is not built). Stops early
  // (returning fewer records) when `stop` turns true.
  std::vector<MeasureRecord> measure(const Operator &op, const std::vector<Schedule> &schedules,
                                     const std::atomic<bool> &stop,
                                     const std::function<void(const MeasureRecord &)> &on_record,
                                     const std::unordered_set<std::string> *skip = nullptr) override;

  // Builds each schedule once (schedules[i] of ops[i]), then runs them all `rounds`
  // times, round after round, each once per round and per thread count; round r
  // starts with kernel r (mod the count), so none always runs first. Every record
  // is logged, then passed to `on_record` with its kernel's index. A kernel that
  // fails to build gets one failed record. Nothing is run when only building.
  // Returns early when `stop` turns true.
  void measure_side_by_side(const std::vector<const Operator *> &ops, const std::vector<Schedule> &schedules,
                            int rounds, const std::atomic<bool> &stop,
                            const std::function<void(size_t, const MeasureRecord &)> &on_record,
                            const std::function<void(int)> &after_round) override;

  // The platforms this measurer's records carry, one per thread count.
  const std::vector<std::string> &platforms() const override { return platforms_; }

  // Names one run of a schedule on a platform, for `skip`.
  static std::string run_key(const std::string &platform, const std::string &workload_key, const Schedule &s);

  const MeasureTimes &times() const override { return times_; }
  int records_logged() const override { return logged_; }

 private:
  std::string task_dir(const Operator &op);
  std::string build_dir(size_t candidate) const;  // of the batch being built
  // Runs one built candidate with thread count `thread_index` (unless the build
  // failed or only building), logs the record and returns it.
  MeasureRecord run_and_log(const std::string &workload_key, const Schedule &schedule, const BuildResult &built,
                            size_t thread_index, const std::string &data_dir);
  // Counts a record's cpu_wait reading; warns on stderr, once, when enough were busy
  // (busy_enough_to_warn).
  void note_cpu_wait(double cpu_wait);

  MeasurerOptions o_;
  std::vector<std::string> platforms_;
  std::optional<MachineIdentity> machine_;  // CPU targets: the machine the records name
  std::unique_ptr<WorkDir> work_;
  std::unique_ptr<RecordLog> log_;
  std::unique_ptr<Builder> builder_;
  std::unique_ptr<RunnerClient> runner_;
  MeasureTimes times_;
  int batches_ = 0;
  int logged_ = 0;
  bool warned_busy_ = false;
  int timed_with_reading_ = 0, timed_busy_ = 0;  // this run's kernels
};

}  // namespace tlp
