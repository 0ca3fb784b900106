#include "measure/builder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "codegen/kernel_compiler.h"
#include "codegen/target.h"
#include "measure/executable_path.h"
#include "measure/platform.h"

namespace tlp {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string build_job_line(const BuildJob &job, long long id, const std::string &runtime_object) {
  nlohmann::json j = {{"id", id},
                      {"workload", job.workload_key},
                      {"target", job.target},
                      {"schedule", job.schedule.to_json()},
                      {"dir", job.dir},
                      {"entry", Builder::kEntryPoint},
                      {"runtime", runtime_object}};
  return j.dump();
}

BuildResult parse_build_reply(const std::string &line, long long expected_id) {
  BuildResult r;
  try {
    auto j = nlohmann::json::parse(line);
    if (j.at("id").get<long long>() != expected_id) throw std::runtime_error("reply for another job");
    r.error = measure_error_from_name(j.at("error").get<std::string>());
    r.message = j.value("message", "");
    r.artifact = j.value("artifact", "");
    if (j.contains("ptxas")) r.ptxas = PtxasReport::from_json(j.at("ptxas"));
  } catch (const std::exception &e) {
    r.error = MeasureError::Unknown;
    r.message = std::string("malformed reply from the build worker (") + e.what() + "): " + line.substr(0, 200);
  }
  return r;
}

Builder::Builder(BuilderOptions options) : options_(std::move(options)) {
  if (options_.worker_argv.empty()) options_.worker_argv = {helper_executable("tlptune-build-worker")};
  if (options_.workers < 1) options_.workers = 1;
  workers_.resize(options_.workers);
}

Builder::~Builder() = default;

namespace {

bool stopped(const std::atomic<bool> *stop) { return stop && stop->load(); }

BuildResult not_built() {
  BuildResult r;
  r.error = MeasureError::NotRun;
  r.message = "not built: stopped";
  return r;
}

}  // namespace

BuildResult Builder::build_one(int w, const BuildJob &job, long long id, const std::atomic<bool> *stop) {
  const double start = now_seconds();
  auto &proc = workers_[w];
  BuildResult r;
  if (!proc || !proc->alive()) {
    try {
      proc = std::make_unique<WorkerProcess>(options_.worker_argv, options_.stderr_path);
    } catch (const WorkerError &e) {  // this runs on a pool thread: an escaping throw would abort
      r.error = MeasureError::CompileError;
      r.message = std::string("cannot start a build worker: ") + e.what();
      r.seconds = now_seconds() - start;
      return r;
    }
  }
  if (!proc->send(build_job_line(job, id, options_.runtime_object))) {
    r.error = MeasureError::CompileError;
    r.message = "build worker is gone: " + proc->exit_description();
    proc.reset();
  } else {
    // Waits in short slices, so that a stop kills the build instead of waiting for it.
    const double slice = stop ? 0.2 : options_.timeout_seconds;
    WorkerProcess::ReadStatus why = WorkerProcess::ReadStatus::Timeout;
    std::optional<std::string> line;
    for (double left = options_.timeout_seconds; left > 0 && !line && !stopped(stop);
         left = options_.timeout_seconds - (now_seconds() - start)) {
      line = proc->read_line(std::min(slice, left), &why);
      if (!line && why != WorkerProcess::ReadStatus::Timeout) break;
    }
    if (!line && stopped(stop)) {
      proc.reset();  // kills the worker; a later batch starts a fresh one
      r = not_built();
    } else if (line) {
      r = parse_build_reply(*line, id);
    } else if (why == WorkerProcess::ReadStatus::Timeout) {
      r.error = MeasureError::BuildTimeout;
      r.message = "build took longer than " + std::to_string(options_.timeout_seconds) + " s";
      proc.reset();  // kills the worker; a fresh one takes the next job
    } else {
      proc->kill();
      r.error = MeasureError::CompileError;
      r.message = "build worker died: " + proc->exit_description();
      proc.reset();
    }
  }
  r.seconds = now_seconds() - start;
  return r;
}

std::vector<BuildResult> Builder::build(const std::vector<BuildJob> &jobs, const std::atomic<bool> *stop) {
  std::vector<BuildResult> results(jobs.size());
  std::atomic<size_t> next{0};
  std::atomic<long long> ids{1};
  auto drain = [&](int w) {
    for (size_t i = next++; i < jobs.size(); i = next++)
      results[i] = stopped(stop) ? not_built() : build_one(w, jobs[i], ids++, stop);
  };
  const int n = std::min<int>(options_.workers, int(jobs.size()));
  std::vector<std::thread> threads;
  for (int w = 1; w < n; ++w) threads.emplace_back(drain, w);
  if (n > 0) drain(0);
  for (auto &t : threads) t.join();
  return results;
}

std::unique_ptr<Builder> make_target_builder(const std::string &target, const std::string &dir,
                                             const MeasureSettings &settings) {
  BuilderOptions bo;
  bo.workers = settings.build_workers > 0 ? settings.build_workers : hardware_threads();
  bo.timeout_seconds = settings.build_timeout;
  bo.runtime_object = dir + "/halide_runtime.o";
  bo.stderr_path = dir + "/build-worker.log";
  auto builder = std::make_unique<Builder>(bo);
  compile_runtime_object(parse_target(target), bo.runtime_object);
  return builder;
}

}  // namespace tlp
