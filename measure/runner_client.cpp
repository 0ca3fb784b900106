#include "measure/runner_client.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "measure/executable_path.h"

namespace tlp {

namespace {

using nlohmann::json;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// How long a runner whose stdout closed gets to finish dying by itself, so the
// record names the real cause (a signal, an exit code) rather than our SIGKILL.
constexpr double kDeathGraceSeconds = 1.0;

std::string format_seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", s);
  return text;
}

}  // namespace

json RunJob::to_json(long long id) const {
  json j{{"id", id},
              {"artifact", artifact},
              {"entry", entry},
              {"data_dir", data_dir},
              {"warmup", warmup},
              {"min_repeats", min_repeats},
              {"max_repeats", max_repeats},
              {"min_seconds", min_seconds},
              {"rtol", rtol},
              {"threads", threads}};
  if (!device.empty()) j["device"] = device;
  return j;
}

RunResult parse_runner_reply(const std::string &line, long long expected_id) {
  const json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw std::runtime_error("not a JSON object");
  try {
    if (j.at("id").get<long long>() != expected_id) {
      throw std::runtime_error("reply is for job " + j.at("id").dump() + ", expected " +
                               std::to_string(expected_id));
    }
    RunResult r;
    r.error = measure_error_from_name(j.at("error").get<std::string>());
    r.costs = j.at("costs").get<std::vector<double>>();
    r.median = j.at("median").get<double>();
    const json &max_err = j.at("max_abs_error");
    r.max_abs_error = max_err.is_null() ? std::numeric_limits<double>::infinity()
                                        : max_err.get<double>();
    r.message = j.at("message").get<std::string>();
    const auto wait = j.find("cpu_wait");
    if (wait != j.end() && wait->is_number()) r.cpu_wait = wait->get<double>();
    return r;
  } catch (const json::exception &e) {
    throw std::runtime_error(e.what());
  }
}

std::string RunnerClient::default_runner_path() { return helper_executable("tlptune-runner"); }

RunnerClient::RunnerClient(std::vector<std::string> runner_argv, std::string stderr_path)
    : argv_(std::move(runner_argv)), stderr_path_(std::move(stderr_path)) {}

void RunnerClient::stop() { process_.reset(); }  // the destructor kills and reaps

void RunnerClient::ensure_started() {
  // A runner can also die between jobs (e.g. a late crash of a pool thread).
  if (process_ && process_->alive()) return;
  process_.reset();
  process_ = std::make_unique<WorkerProcess>(argv_, stderr_path_);
  ++starts_;
}

RunResult RunnerClient::runner_died(double started_at) {
  process_->wait_exit(kDeathGraceSeconds);
  process_->kill();
  RunResult r;
  r.error = MeasureError::RuntimeError;
  r.message = "runner died: " + process_->exit_description();
  r.seconds_taken = now_seconds() - started_at;
  process_.reset();
  return r;
}

RunResult RunnerClient::run(const RunJob &job, double timeout_seconds) {
  const double start = now_seconds();
  ensure_started();
  const long long id = next_id_++;

  if (!process_->send(job.to_json(id).dump(), timeout_seconds)) return runner_died(start);

  WorkerProcess::ReadStatus why;
  const double left = timeout_seconds - (now_seconds() - start);
  const std::optional<std::string> line = process_->read_line(left, &why);
  if (!line) {
    if (why == WorkerProcess::ReadStatus::Closed) return runner_died(start);
    stop();  // a hung kernel never returns: only a fresh runner can go on
    RunResult r;
    r.error = MeasureError::RunTimeout;
    r.message = "run timed out after " + format_seconds(timeout_seconds) + " s; runner killed";
    r.seconds_taken = now_seconds() - start;
    return r;
  }

  RunResult r;
  try {
    r = parse_runner_reply(*line, id);
  } catch (const std::exception &e) {
    // The conversation can no longer be trusted: start over with a new runner.
    stop();
    r = RunResult{};
    r.error = MeasureError::Unknown;
    r.message = std::string("malformed reply from runner (") + e.what() + "): " + *line;
  }
  r.seconds_taken = now_seconds() - start;
  return r;
}

}  // namespace tlp
