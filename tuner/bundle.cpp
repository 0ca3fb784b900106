#include "tuner/bundle.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "codegen/kernel_compiler.h"
#include "codegen/operator.h"
#include "codegen/target.h"
#include "measure/builder.h"
#include "measure/measure_record.h"
#include "measure/measurer.h"
#include "measure/platform.h"
#include "measure/record_log.h"
#include "measure/runner_client.h"
#include "measure/task_data.h"
#include "measure/work_dir.h"
#include "search/schedule_space.h"
#include "tuner/cost_model_factory.h"
#include "tuner/task_tuner.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// A manifest line is the candidate's record plus these keys of the bundle's own.
constexpr const char *kManifestKeys[] = {"id", "pick", "rank"};

// Runs on the other machine: plain sh, no tlptune. The runner's --job-timeout
// turns a hanging kernel into a run_timeout result; a kernel that kills the
// runner gets a runtime_error line written here, and the runner restarts at the
// next job. A second run continues after the results already there.
constexpr const char *kBundleRunScript = R"SH(#!/bin/sh
# Runs this tlptune bundle: every job of jobs.jsonl through bin/tlptune-runner.
# Usage: sh run.sh [RESULTS_DIR]   (default: results/ beside this script)
# Writes RESULTS_DIR/results.jsonl (one result per job, in job order),
# RESULTS_DIR/probe.json (the GPU, for GPU kernels) and RESULTS_DIR/runner.log.
# Then, on the tlptune machine: tlptune bundle-import BUNDLE RESULTS_DIR --log LOG
# Environment: TLP_JOB_TIMEOUT, seconds one job may take (default 60).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/results}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
cd "$here" || exit 1
runner=./bin/tlptune-runner
total=$(wc -l < jobs.jsonl)
if grep -q '"device":"cuda"' jobs.jsonl; then
  "$runner" --probe-gpu > "$out/probe.json" || { echo "run.sh: no usable CUDA GPU here (see above)" >&2; exit 1; }
fi
touch "$out/results.jsonl"
done=$(wc -l < "$out/results.jsonl")
while [ "$done" -lt "$total" ]; do
  tail -n +"$((done + 1))" jobs.jsonl | "$runner" --job-timeout "${TLP_JOB_TIMEOUT:-60}" >> "$out/results.jsonl" 2>> "$out/runner.log"
  status=$?
  now=$(wc -l < "$out/results.jsonl")
  if [ "$now" -lt "$total" ] && [ "$status" -ne 124 ]; then
    id=$(sed -n "$((now + 1))p" jobs.jsonl | sed 's/.*"id":\([0-9]*\).*/\1/')
    echo "{\"id\":$id,\"error\":\"runtime_error\",\"costs\":[],\"median\":0,\"max_abs_error\":null,\"message\":\"the runner died on this job (exit status $status)\"}" >> "$out/results.jsonl"
    now=$((now + 1))
  fi
  done=$now
  echo "run.sh: $done/$total jobs" >&2
done
echo "run.sh: done; results in $out" >&2
)SH";

void write_text(const fs::path &path, const std::string &text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error("cannot write '" + path.string() + "'");
}

void prepare_folder(const std::string &dir) {
  if (dir.empty()) throw std::runtime_error("a bundle needs --out FOLDER");
  if (fs::exists(fs::path(dir) / "manifest.jsonl"))
    throw std::runtime_error("'" + dir + "' holds a bundle already; choose a new --out (a bundle is never overwritten)");
  std::error_code ec;
  for (const char *sub : {"bin", "kernels", "tasks"}) fs::create_directories(fs::path(dir) / sub, ec);
  if (ec) throw std::runtime_error("cannot create the bundle folder '" + dir + "': " + ec.message());
  const fs::path runner = RunnerClient::default_runner_path();
  fs::copy_file(runner, fs::path(dir) / "bin" / "tlptune-runner", fs::copy_options::overwrite_existing, ec);
  if (ec)
    throw std::runtime_error("cannot copy the runner '" + runner.string() + "' into the bundle: " + ec.message());
}

// The candidates of one operator, in the order they will run.
struct Pick {
  Schedule schedule;
  std::string how;  // "random" or "model"
  int rank = 0;
};

std::vector<Pick> pick_candidates(const Operator &op, const ScheduleSpace &space, const BundleOptions &o,
                                  uint64_t seed, CostModel *model) {
  std::mt19937_64 rng(seed);
  const int wanted = model ? (o.pool > 0 ? o.pool : 16 * o.per_op) : o.per_op;
  std::vector<Schedule> samples;
  std::unordered_set<std::string> seen;
  for (int tries = 0; int(samples.size()) < wanted && tries < 20 * wanted; ++tries) {
    Schedule s = space.sample(rng);
    if (seen.insert(s.to_text()).second) samples.push_back(std::move(s));
  }
  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), 0);
  if (model) {
    const std::vector<float> scores = model->predict(op.workload().key(), samples);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  }
  std::vector<Pick> picks;
  for (size_t i = 0; i < order.size() && int(picks.size()) < o.per_op; ++i)
    picks.push_back({samples[order[i]], model ? "model" : "random", int(i) + 1});
  return picks;
}

uint64_t folder_bytes(const std::string &dir) {
  uint64_t total = 0;
  for (const auto &e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) total += e.file_size();
  return total;
}

std::string read_file_text(const fs::path &path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read '" + path.string() + "'");
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::vector<json> read_json_lines(const fs::path &path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read '" + path.string() + "'");
  std::vector<json> out;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("id"))
      throw std::runtime_error("'" + path.string() + "' line " + std::to_string(n) + " is not a bundle entry");
    out.push_back(std::move(j));
  }
  return out;
}

// Best-so-far curves per (workload, pick), in manifest order.
std::vector<BundleCurve> curves_of(const std::vector<std::pair<std::string, MeasureRecord>> &measured) {
  std::vector<BundleCurve> curves;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::map<std::string, double> flops;
  for (const auto &[pick, rec] : measured) {
    const auto key = std::make_pair(rec.workload_key, pick);
    if (!index.count(key)) {
      index[key] = curves.size();
      curves.push_back(BundleCurve{rec.workload_key, pick});
    }
    if (!flops.count(rec.workload_key)) flops[rec.workload_key] = make_operator(rec.workload_key)->flops();
    BundleCurve &c = curves[index[key]];
    ++c.trials;
    if (rec.ok()) {
      ++c.valid;
      const double g = flops[rec.workload_key] / rec.median_cost / 1e9;
      if (g > c.best_gflops) {
        c.best_gflops = g;
        c.best_schedule = rec.schedule.to_text();
      }
    }
    c.best_so_far.push_back(c.best_gflops);
  }
  return curves;
}

}  // namespace

int trials_to_reach(const BundleCurve &c, double gflops) {
  for (size_t i = 0; i < c.best_so_far.size(); ++i)
    if (c.best_so_far[i] >= gflops) return int(i) + 1;
  return 0;
}

BundleSummary write_bundle(const std::vector<std::string> &op_specs, const BundleOptions &o,
                           const std::function<void(int, int)> &progress) {
  if (op_specs.empty()) throw std::runtime_error("a bundle needs at least one operator (--op)");
  if (o.per_op < 1) throw std::runtime_error("--per-op must be at least 1");
  const Halide::Target target = parse_target(o.target);
  const std::string target_string = target.to_string();  // the full string tune records (not "host")
  std::vector<std::unique_ptr<Operator>> ops;
  for (const std::string &spec : op_specs) ops.push_back(make_operator(spec));  // bad specs fail before any work
  std::unique_ptr<CostModel> model;
  if (!o.model.empty()) model = make_cost_model(o.model, o.platform, o.seed);
  prepare_folder(o.out_dir);
  const fs::path out(o.out_dir);

  WorkDir work("", "tlptune-bundle");
  const std::unique_ptr<Builder> builder = make_target_builder(target.to_string(), work.path(), o.measure);

  std::ofstream jobs(out / "jobs.jsonl", std::ios::trunc), manifest(out / "manifest.jsonl", std::ios::trunc);
  BundleSummary sum;
  const int total = int(ops.size()) * o.per_op;
  long long next_id = 1;
  for (size_t k = 0; k < ops.size(); ++k) {
    const Operator &op = *ops[k];
    const ComputeDag dag = make_compute_dag(op);
    const ScheduleSpace space(dag, space_options_for(target));
    const std::vector<Pick> picks = pick_candidates(op, space, o, o.seed + k, model.get());
    const std::string task = "tasks/t" + std::to_string(k);
    write_portable_task_data(op, (out / task).string(), 1, o.max_reference);
    constexpr size_t kBatch = 32;  // progress granularity; the builder runs each batch in parallel
    for (size_t first = 0; first < picks.size(); first += kBatch) {
      const size_t last = std::min(picks.size(), first + kBatch);
      std::vector<BuildJob> batch;
      for (size_t i = first; i < last; ++i)
        batch.push_back({op.workload().key(), target_string, picks[i].schedule, work / ("b" + std::to_string(next_id + long(i - first)))});
      const std::vector<BuildResult> built = builder->build(batch);
      for (size_t i = 0; i < built.size(); ++i, ++next_id) {
        const Pick &pick = picks[first + i];
        MeasureRecord rec;
        rec.workload_key = op.workload().key();
        rec.target = target_string;
        rec.schedule = pick.schedule;
        rec.build_seconds = built[i].seconds;
        rec.error = built[i].error == MeasureError::None ? MeasureError::NotRun : built[i].error;
        rec.error_message = built[i].message;
        rec.ptxas = built[i].ptxas;
        json entry = rec.to_json();
        entry["id"] = next_id;
        entry["pick"] = pick.how;
        entry["rank"] = pick.rank;
        manifest << entry.dump() << "\n";
        ++sum.candidates;
        if (built[i].error != MeasureError::None) {
          ++sum.failed;
          continue;
        }
        const std::string kernel = "kernels/" + std::to_string(next_id) + ".so";
        // Copied, not renamed: the build folder may be on another file system (/tmp).
        fs::copy_file(built[i].artifact, out / kernel, fs::copy_options::overwrite_existing);
        fs::remove_all(fs::path(built[i].artifact).parent_path());
        RunJob job;
        job.artifact = kernel;
        job.entry = Builder::kEntryPoint;
        job.data_dir = task;
        job.min_repeats = o.measure.min_repeats;
        job.min_seconds = o.measure.min_seconds;
        job.threads = o.threads;
        if (target.has_gpu_feature()) job.device = "cuda";
        jobs << job.to_json(next_id).dump() << "\n";
        ++sum.built;
      }
      jobs.flush();
      manifest.flush();
      if (!jobs || !manifest) throw std::runtime_error("cannot write the bundle's jobs or manifest in '" + o.out_dir + "'");
      if (progress) progress(sum.candidates, total);
    }
  }
  write_text(out / "run.sh", kBundleRunScript);
  fs::permissions(out / "run.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  sum.bytes = folder_bytes(o.out_dir);
  return sum;
}

BundleImportSummary import_bundle(const std::string &bundle_dir, const std::string &results_dir,
                                  const std::string &log_path, const std::string &platform) {
  const fs::path bundle(bundle_dir), results(results_dir);
  const std::vector<json> manifest = read_json_lines(bundle / "manifest.jsonl");
  std::map<long long, json> jobs;
  for (json &j : read_json_lines(bundle / "jobs.jsonl")) {
    const long long id = j["id"].get<long long>();  // before the move: C++17 moves the right side first
    jobs[id] = std::move(j);
  }
  std::map<long long, std::string> replies;
  {
    std::ifstream f(results / "results.jsonl");
    if (!f) throw std::runtime_error("cannot read '" + (results / "results.jsonl").string() +
                                     "'; give the folder run.sh wrote its results to");
    std::string line;
    while (std::getline(f, line)) {
      const json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("id") && j["id"].is_number_integer()) replies[j["id"].get<long long>()] = line;
    }
  }
  BundleImportSummary sum;
  sum.platform = platform;
  if (sum.platform.empty() && fs::exists(results / "probe.json")) {
    const json probe = json::parse(read_file_text(results / "probe.json"), nullptr, false);
    if (probe.is_object() && probe.contains("platform") && probe["platform"].is_string())
      sum.platform = probe["platform"].get<std::string>();
  }

  RecordLog log(log_path);
  std::vector<std::pair<std::string, MeasureRecord>> measured;  // (pick, record) in manifest order
  std::unordered_set<std::string> logged;
  for (const MeasureRecord &r : read_record_log(log_path).records)
    logged.insert(Measurer::run_key(r.platform, r.workload_key, r.schedule));
  for (const json &entry : manifest) {
    json record = entry;
    for (const char *key : kManifestKeys) record.erase(key);
    MeasureRecord rec = MeasureRecord::from_json(record);
    const long long id = entry["id"].get<long long>();
    if (sum.platform.empty()) {
      if (parse_target(rec.target).has_gpu_feature())
        throw std::runtime_error("'" + (results / "probe.json").string() +
                                 "' is missing or names no platform; give --platform for these GPU records");
      const int threads = jobs.count(id) ? jobs[id].value("threads", 0) : 0;
      sum.platform = cpu_platform(rec.target, threads > 0 ? threads : hardware_threads());
    }
    rec.platform = sum.platform;
    if (rec.error == MeasureError::NotRun) {
      const auto reply = replies.find(id);
      if (reply == replies.end()) {
        ++sum.not_measured;
        continue;
      }
      const RunResult run = parse_runner_reply(reply->second, id);
      rec.error = run.error;
      rec.error_message = run.message;
      rec.costs = run.costs;
      rec.median_cost = run.median;
      rec.cpu_wait = run.cpu_wait;
      for (double c : run.costs) rec.run_seconds += c;
    }
    measured.emplace_back(entry.value("pick", "random"), rec);
    if (!logged.insert(Measurer::run_key(rec.platform, rec.workload_key, rec.schedule)).second) {
      ++sum.already_logged;
      continue;
    }
    rec.timestamp = double(std::time(nullptr));
    log.append(rec);
    ++sum.imported;
  }
  log.sync();
  sum.curves = curves_of(measured);
  return sum;
}

}  // namespace tlp
