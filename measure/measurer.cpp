#include "measure/measurer.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "codegen/kernel_compiler.h"
#include "codegen/target.h"
#include "measure/machine_identity.h"
#include "measure/platform.h"
#include "measure/shell_command.h"
#include "measure/task_data.h"
#include "measure/wall_clock.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::string measurement_platform(const std::string &target, int threads, bool build_only,
                                 const std::string &runner_command) {
  if (!parse_target(target).has_gpu_feature() || build_only) return cpu_platform(target, threads);
  const std::string runner =
      runner_command.empty() ? shell_quote(RunnerClient::default_runner_path()) : runner_command;
  std::string out;
  const int status = run_shell_command(runner + " --probe-gpu", out);
  const auto j = nlohmann::json::parse(out, nullptr, false);
  if (status != 0 || j.is_discarded() || !j.contains("platform")) {
    while (!out.empty() && out.back() == '\n') out.pop_back();
    throw std::runtime_error("no GPU to measure " + target + " on (" + runner + " --probe-gpu: " + out.substr(0, 300) +
                             "); --build-only builds and validates without one, and --runner CMD reaches a runner "
                             "on a GPU machine");
  }
  return j["platform"].get<std::string>();
}

Measurer::Measurer(MeasurerOptions o) : o_(std::move(o)) {
  if (o_.threads.empty()) o_.threads.push_back(o_.build_only ? 1 : hardware_threads());
  for (int t : o_.threads) {
    if (t < 1) throw std::runtime_error("a thread count must be at least 1, got " + std::to_string(t));
    platforms_.push_back(measurement_platform(o_.target, t, o_.build_only, o_.runner_command));
  }
  if (!parse_target(o_.target).has_gpu_feature()) machine_ = this_machine();
  // Refuses a bad log before any work. No log: a fleet rank's records go to rank 0, which logs them.
  if (!o_.build_only && !o_.log_path.empty()) log_ = std::make_unique<RecordLog>(o_.log_path);
  work_ = std::make_unique<WorkDir>(o_.work_dir);
  builder_ = make_target_builder(o_.target, work_->path(), o_.settings);
  if (o_.build_only) return;
  const std::vector<std::string> runner_argv =
      o_.runner_command.empty() ? std::vector<std::string>{RunnerClient::default_runner_path()}
                                : std::vector<std::string>{"/bin/sh", "-c", "exec " + o_.runner_command};
  runner_ = std::make_unique<RunnerClient>(runner_argv,
                                           (fs::path(work_->path()) / "runner.log").string());
}

Measurer::~Measurer() {
  // The workers go first: they hold files in the folder.
  runner_.reset();
  builder_.reset();
  work_.reset();
}

std::string Measurer::task_dir(const Operator &op) {
  // One data folder per workload, named by a hash of its key.
  const std::string dir =
      (fs::path(work_->path()) / ("task-" + std::to_string(std::hash<std::string>{}(op.workload().key())))).string();
  write_task_data(op, dir);
  return dir;
}

std::string Measurer::build_dir(size_t i) const {
  return (fs::path(work_->path()) / ("b" + std::to_string(batches_) + "_" + std::to_string(i))).string();
}

std::string Measurer::run_key(const std::string &platform, const std::string &workload_key, const Schedule &s) {
  return platform + "|" + workload_key + "|" + s.to_text();
}

std::vector<MeasureRecord> Measurer::measure(const Operator &op, const std::vector<Schedule> &all_schedules,
                                             const std::atomic<bool> &stop,
                                             const std::function<void(const MeasureRecord &)> &on_record,
                                             const std::unordered_set<std::string> *skip) {
  const std::string key = op.workload().key();
  // Which (schedule, thread count) runs are wanted; a schedule with none is dropped.
  std::vector<Schedule> schedules;
  std::vector<std::vector<size_t>> wanted;  // per kept schedule: indices into o_.threads
  for (const Schedule &s : all_schedules) {
    std::vector<size_t> w;
    for (size_t t = 0; t < o_.threads.size(); ++t)
      if (!skip || !skip->count(run_key(platforms_[t], key, s))) w.push_back(t);
    if (w.empty()) continue;
    schedules.push_back(s);
    wanted.push_back(std::move(w));
  }
  if (schedules.empty()) return {};
  const std::string data = o_.build_only ? std::string() : task_dir(op);
  std::vector<BuildJob> jobs;
  for (size_t i = 0; i < schedules.size(); ++i) jobs.push_back({key, o_.target, schedules[i], build_dir(i)});
  ++batches_;
  const double tb = steady_seconds();
  std::vector<BuildResult> built = builder_->build(jobs, &stop);
  times_.build += steady_seconds() - tb;
  std::vector<MeasureRecord> out;
  for (size_t i = 0; i < schedules.size() && !stop; ++i) {
    for (size_t t : wanted[i]) {
      if (stop) break;
      out.push_back(run_and_log(key, schedules[i], built[i], t, data));
      on_record(out.back());
    }
    std::error_code ec;
    fs::remove_all(jobs[i].dir, ec);
  }
  return out;
}

MeasureRecord Measurer::run_and_log(const std::string &workload_key, const Schedule &schedule, const BuildResult &built,
                                    size_t thread_index, const std::string &data_dir) {
  MeasureRecord rec;
  rec.workload_key = workload_key;
  rec.target = o_.target;
  rec.platform = platforms_[thread_index];
  rec.schedule = schedule;
  rec.build_seconds = built.seconds;
  rec.error = built.error;
  rec.error_message = built.message;
  rec.ptxas = built.ptxas;
  rec.machine = machine_;
  if (built.error == MeasureError::None && o_.build_only) {
    rec.error = MeasureError::NotRun;
  } else if (built.error == MeasureError::None) {
    RunJob job;
    job.artifact = built.artifact;
    job.entry = Builder::kEntryPoint;
    job.data_dir = data_dir;
    job.min_repeats = o_.settings.min_repeats;
    job.min_seconds = o_.settings.min_seconds;
    job.threads = o_.threads[thread_index];
    if (parse_target(o_.target).has_gpu_feature()) job.device = "cuda";
    const double tr = steady_seconds();
    RunResult run = runner_->run(job, o_.settings.run_timeout);
    times_.run += steady_seconds() - tr;
    rec.error = run.error;
    rec.error_message = run.message;
    rec.costs = run.costs;
    rec.median_cost = run.median;
    rec.run_seconds = run.seconds_taken;
    rec.cpu_wait = run.cpu_wait;
    if (rec.cpu_wait) note_cpu_wait(*rec.cpu_wait);
  }
  rec.timestamp = unix_seconds();
  if (log_) {
    log_->append(rec);
    ++logged_;
  }
  return rec;
}

void Measurer::note_cpu_wait(double cpu_wait) {
  ++timed_with_reading_;
  if (cpu_wait >= kBusyCpuWait) ++timed_busy_;
  // Once per run: the user can act on it (stop the other work), and the records say the rest.
  if (warned_busy_ || !busy_enough_to_warn(timed_busy_, timed_with_reading_)) return;
  warned_busy_ = true;
  fprintf(stderr,
          "warning: the CPUs were busy while kernels were timed (%d of the %d timed so far; in the last, tasks "
          "waited for a CPU %.0f%% of the time): kernels timed on a busy machine run slower than they would alone, "
          "and their records say so in \"cpu_wait\". Stop other work on this machine while measuring; 'tlptune "
          "show LOG' counts such records and 'tlptune measure --from-log LOG --log NEW' measures them again.\n",
          timed_busy_, timed_with_reading_, cpu_wait * 100);
}

void Measurer::measure_side_by_side(const std::vector<const Operator *> &ops, const std::vector<Schedule> &schedules,
                                    int rounds, const std::atomic<bool> &stop,
                                    const std::function<void(size_t, const MeasureRecord &)> &on_record,
                                    const std::function<void(int)> &after_round) {
  if (ops.size() != schedules.size()) throw std::logic_error("measure_side_by_side: one operator per schedule");
  if (schedules.empty() || o_.build_only) return;
  std::vector<BuildJob> jobs;
  std::vector<std::string> data;
  for (size_t i = 0; i < schedules.size(); ++i) {
    jobs.push_back({ops[i]->workload().key(), o_.target, schedules[i], build_dir(i)});
    data.push_back(task_dir(*ops[i]));
  }
  ++batches_;
  const double tb = steady_seconds();
  const std::vector<BuildResult> built = builder_->build(jobs, &stop);
  times_.build += steady_seconds() - tb;
  // A kernel that no longer builds (a timeout on a busy machine) is logged once.
  for (size_t i = 0; i < built.size() && !stop; ++i)
    if (built[i].error != MeasureError::None)
      for (size_t t = 0; t < o_.threads.size(); ++t) on_record(i, run_and_log(jobs[i].workload_key, schedules[i], built[i], t, data[i]));
  for (int round = 0; round < rounds && !stop; ++round) {
    for (size_t n = 0; n < schedules.size() && !stop; ++n) {
      const size_t i = (n + size_t(round)) % schedules.size();
      if (built[i].error != MeasureError::None) continue;
      for (size_t t = 0; t < o_.threads.size() && !stop; ++t)
        on_record(i, run_and_log(jobs[i].workload_key, schedules[i], built[i], t, data[i]));
    }
    if (after_round && !stop) after_round(round);
  }
  std::error_code ec;
  for (const BuildJob &j : jobs) fs::remove_all(j.dir, ec);
}

}  // namespace tlp
