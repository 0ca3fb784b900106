#include "tuner/tuning_session.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <memory>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "codegen/kernel_compiler.h"
#include "codegen/lower.h"
#include "codegen/operator.h"
#include "codegen/target.h"
#include "measure/builder.h"
#include "measure/platform.h"
#include "measure/record_log.h"
#include "measure/runner_client.h"
#include "measure/task_data.h"
#include "search/evolutionary_search.h"
#include "search/random_model.h"
#include "search/random_search.h"
#include "tuner/progress_bar.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double unix_time() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A temporary folder that goes away with the run unless the user named it.
class WorkDir {
 public:
  explicit WorkDir(const std::string &requested) {
    if (!requested.empty()) {
      path_ = requested;
      fs::create_directories(path_);
      return;
    }
    std::string tmpl = (fs::temp_directory_path() / "tlptune-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary folder in " + fs::temp_directory_path().string());
    path_ = tmpl;
    owned_ = true;
  }
  ~WorkDir() {
    std::error_code ec;
    if (owned_) fs::remove_all(path_, ec);
  }
  const std::string &path() const { return path_; }

 private:
  std::string path_;
  bool owned_ = false;
};

// The policy and the cost model it consults live and die together.
struct Searcher {
  std::unique_ptr<CostModel> model;
  std::unique_ptr<SearchPolicy> policy;
};

Searcher make_searcher(const TuneOptions &o, const ScheduleSpace &space, const std::string &task_key) {
  Searcher s;
  if (o.policy == "random") {
    s.policy = std::make_unique<RandomSearch>(space, o.seed);
    return s;
  }
  if (o.policy != "evolutionary")
    throw std::runtime_error("unknown search policy '" + o.policy + "' (available: random, evolutionary)");
  if (o.model != "random")
    throw std::runtime_error("unknown cost model '" + o.model + "' (available: random)");
  s.model = std::make_unique<RandomModel>(o.seed);
  EvolutionOptions eo;
  eo.population = o.population;
  eo.generations = o.generations;
  eo.seed = o.seed;
  s.policy = std::make_unique<EvolutionarySearch>(space, *s.model, task_key, eo);
  return s;
}

std::string best_text(const TuneSummary &s) {
  if (!s.found) return "no valid kernel yet";
  char buf[64];
  snprintf(buf, sizeof buf, "best %.1f GFLOP/s (%.3f ms)", s.best_gflops, s.best_cost * 1e3);
  return buf;
}

}  // namespace

nlohmann::json TuneSummary::to_json() const {
  nlohmann::json j = {{"workload", workload},
                      {"target", target},
                      {"platform", platform},
                      {"trials", trials_total},
                      {"measured", measured_now},
                      {"skipped_known", skipped_known},
                      {"errors", errors},
                      {"interrupted", interrupted},
                      {"found", found},
                      {"time_seconds",
                       {{"wall", wall_seconds},
                        {"search", search_seconds},
                        {"model", model_seconds},
                        {"build", build_seconds},
                        {"run", run_seconds}}}};
  if (found) {
    j["best"] = {{"cost_seconds", best_cost},
                 {"gflops", best_gflops},
                 {"schedule", best_schedule.to_text()},
                 {"schedule_json", best_schedule.to_json()},
                 {"halide_source", best_halide_source}};
  }
  return j;
}

TuneSummary run_tuning(const TuneOptions &o, const std::atomic<bool> &stop) {
  const double t0 = now_seconds();
  if (o.log_path.empty()) throw std::runtime_error("--log FILE is required: measurements are kept there");
  if (o.trials < 1) throw std::runtime_error("--trials must be at least 1");
  auto op = make_operator(o.op_spec);
  const Halide::Target target = parse_target(o.target);
  if (target.has_gpu_feature())
    throw std::runtime_error("target '" + o.target + "' is a GPU target; this build tunes CPU targets only");
  if (!target_runs_here(target))
    throw std::runtime_error("target '" + target.to_string() + "' uses instructions this CPU lacks (host is " +
                             Halide::get_host_target().to_string() + "); kernels for it cannot be measured here");
  const ComputeDag dag = make_compute_dag(*op);
  SpaceOptions space_options;
  space_options.vector_lanes = vector_lanes_f32(target);
  ScheduleSpace space(dag, space_options);

  TuneSummary sum;
  sum.workload = op->workload().key();
  sum.target = target.to_string();
  sum.platform = cpu_platform(sum.target, hardware_threads());
  Searcher searcher = make_searcher(o, space, sum.workload);
  SearchPolicy *policy = searcher.policy.get();
  const double flops = op->flops();
  auto consider = [&](const MeasureRecord &r) {
    if (!r.ok() || (sum.found && r.median_cost >= sum.best_cost)) return;
    sum.found = true;
    sum.best_cost = r.median_cost;
    sum.best_gflops = flops / r.median_cost / 1e9;
    sum.best_schedule = r.schedule;
  };

  // Everything already measured for this task is known: never measure it twice.
  std::unordered_set<std::string> measured;
  if (fs::exists(o.log_path)) {
    LogReadResult prior = read_record_log(o.log_path);
    for (const auto &w : prior.warnings) fprintf(stderr, "warning: %s\n", w.c_str());
    for (const auto &r : prior.records) {
      if (r.workload_key != sum.workload || r.target != sum.target) continue;
      if (!measured.insert(r.schedule.to_text()).second) continue;
      consider(r);
      ++sum.skipped_known;
    }
    if (o.resume) sum.trials_total = sum.skipped_known;
    else if (sum.skipped_known)
      fprintf(stderr, "note: %s holds %d measurements of this task; they will not be measured again "
              "(--resume counts them toward --trials)\n", o.log_path.c_str(), sum.skipped_known);
  }
  RecordLog log(o.log_path);

  WorkDir work(o.work_dir);
  const std::string task_dir = (fs::path(work.path()) / "task").string();
  write_task_data(*op, task_dir);
  const std::string runtime = (fs::path(work.path()) / "halide_runtime.o").string();
  compile_runtime_object(target, runtime);

  BuilderOptions bo;
  bo.workers = o.build_workers > 0 ? o.build_workers : hardware_threads();
  bo.timeout_seconds = o.build_timeout;
  bo.runtime_object = runtime;
  bo.stderr_path = (fs::path(work.path()) / "build-worker.log").string();
  Builder builder(bo);
  RunnerClient runner({RunnerClient::default_runner_path()}, (fs::path(work.path()) / "runner.log").string());

  ProgressBar bar("tuning " + sum.workload, o.trials);
  if (o.progress) bar.update(std::min(sum.trials_total, o.trials), best_text(sum));
  int round = 0;
  while (sum.trials_total < o.trials && !stop) {
    const double ts = now_seconds();
    const int want = std::min(o.batch, o.trials - sum.trials_total);
    std::vector<Schedule> batch = policy->propose(want, measured);
    sum.search_seconds += now_seconds() - ts;
    if (batch.empty()) {
      fprintf(stderr, "note: the schedule space has no unmeasured candidates left\n");
      break;
    }
    std::vector<BuildJob> jobs;
    for (size_t i = 0; i < batch.size(); ++i) {
      const std::string dir = (fs::path(work.path()) / ("r" + std::to_string(round) + "_" + std::to_string(i))).string();
      jobs.push_back({sum.workload, sum.target, batch[i], dir});
    }
    const double tb = now_seconds();
    std::vector<BuildResult> built = builder.build(jobs);
    sum.build_seconds += now_seconds() - tb;
    std::vector<double> costs;
    for (size_t i = 0; i < batch.size() && !stop; ++i) {
      MeasureRecord rec;
      rec.workload_key = sum.workload;
      rec.target = sum.target;
      rec.platform = sum.platform;
      rec.schedule = batch[i];
      rec.build_seconds = built[i].seconds;
      rec.error = built[i].error;
      rec.error_message = built[i].message;
      if (built[i].error == MeasureError::None) {
        RunJob job;
        job.artifact = built[i].artifact;
        job.entry = Builder::kEntryPoint;
        job.data_dir = task_dir;
        job.min_repeats = o.min_repeats;
        job.min_seconds = o.min_seconds;
        const double tr = now_seconds();
        RunResult run = runner.run(job, o.run_timeout);
        sum.run_seconds += now_seconds() - tr;
        rec.error = run.error;
        rec.error_message = run.message;
        rec.costs = run.costs;
        rec.median_cost = run.median;
        rec.run_seconds = run.seconds_taken;
        std::error_code ec;
        fs::remove_all(jobs[i].dir, ec);
      }
      rec.timestamp = unix_time();
      log.append(rec);
      measured.insert(rec.schedule.to_text());
      consider(rec);
      costs.push_back(rec.ok() ? rec.median_cost : std::numeric_limits<double>::infinity());
      ++sum.measured_now;
      ++sum.trials_total;
      if (!rec.ok()) ++sum.errors[measure_error_name(rec.error)];
      if (o.progress) bar.update(sum.trials_total, best_text(sum));
    }
    std::vector<Schedule> observed(batch.begin(), batch.begin() + long(costs.size()));
    const double to = now_seconds();
    policy->observe(observed, costs);
    sum.search_seconds += now_seconds() - to;
    ++round;
  }
  if (o.progress) bar.finish();
  sum.interrupted = stop && sum.trials_total < o.trials;
  sum.model_seconds = policy->model_seconds();
  sum.search_seconds -= std::min(sum.search_seconds, sum.model_seconds);
  if (sum.found) sum.best_halide_source = schedule_to_halide_source(*op, dag, sum.best_schedule);
  sum.wall_seconds = now_seconds() - t0;
  return sum;
}

}  // namespace tlp
