// tlptune-peer-bench: times a library's kernel (OpenBLAS sgemm, oneDNN
// convolution) on one tlptune workload with the runner's protocol (warm-up, then
// repeats until a minimum time; the cost is the median), checks the output
// against tlptune's reference when given the task data, and prints one JSON line:
//
//   {"library": "openblas", "workload": "matmul:M=64,N=64,K=64", "error": "none",
//    "median_seconds": 1.2e-05, "runs": 50, "costs": [...], "kernel": "...", ...}
//
// It links OpenBLAS and oneDNN only: no Halide, no Torch, no tlptune codegen.
// Exit status: 0 when the kernel ran and (if checked) was right; 1 when it failed
// or was wrong (the JSON line says which); 2 for bad arguments (no JSON line).
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "measure/library_baselines/peer_bench.h"
#include "measure/library_baselines/peer_workload.h"
#include "measure/task_file.h"
#include "measure/median.h"

namespace {

using namespace tlp::peer;

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

// Deterministic inputs with magnitudes in [0.1, 1) and random signs, like tlptune's task data.
std::vector<std::vector<float>> random_inputs(const std::vector<int64_t> &sizes) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> mag(0.1f, 1.0f);
  std::bernoulli_distribution sign(0.5);
  std::vector<std::vector<float>> out;
  for (int64_t n : sizes) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float &x : v) x = sign(rng) ? mag(rng) : -mag(rng);
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<int64_t> input_sizes(const PeerWorkload &w) {
  if (is_gemm_kind(w.kind)) return gemm_input_sizes(gemm_shape(w));
  return conv_input_sizes(conv_shape(w));
}

// The task's inputs, which must have the sizes the library is given.
// Moves them out of `task`, whose reference stays for the check.
std::vector<std::vector<float>> inputs_of(tlp::TaskData &task, const PeerWorkload &w, const std::string &dir) {
  const std::vector<int64_t> sizes = input_sizes(w);
  if (sizes.size() != task.inputs.size())
    throw std::runtime_error("the task data in '" + dir + "' has " + std::to_string(task.inputs.size()) +
                             " inputs; " + w.key + " takes " + std::to_string(sizes.size()));
  std::vector<std::vector<float>> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (int64_t(task.inputs[i].data.size()) != sizes[i])
      throw std::runtime_error("input " + std::to_string(i) + " of the task data in '" + dir + "' has " +
                               std::to_string(task.inputs[i].data.size()) + " elements; " + w.key + " takes " +
                               std::to_string(sizes[i]));
    out.push_back(std::move(task.inputs[i].data));
  }
  return out;
}

// The runner's check, after the output's size.
tlp::OutputCheck check_peer_output(const std::vector<float> &out, const tlp::TaskData &task, double rtol) {
  const int64_t expected = tlp::element_count(task.reference.shape);
  if (int64_t(out.size()) != expected) {
    tlp::OutputCheck check;
    check.ok = false;
    check.max_abs_error = std::numeric_limits<double>::infinity();
    check.message = "the output has " + std::to_string(out.size()) + " elements, the reference " +
                    std::to_string(expected);
    return check;
  }
  return tlp::check_output(out.data(), task.reference, task.mean_abs_reference, rtol, task.reference_positions);
}

// What the timed runs say, into the result line.
void add_timing(nlohmann::json &out, const BenchResult &r, const PeerWorkload &w) {
  const double median = tlp::median_of(r.costs);
  out["median_seconds"] = median;
  out["runs"] = r.costs.size();
  out["costs"] = r.costs;
  out["kernel"] = r.kernel;
  out["threads"] = r.threads;
  out["gflops"] = median > 0 ? workload_flops(w) / median / 1e9 : 0.0;
  for (const auto &[k, v] : r.details) out[k] = v;
  if (!r.note.empty()) out["note"] = r.note;
}

}  // namespace

int main(int argc, char **argv) {
  std::string workload, library, data_dir;
  tlp::TimingOptions timing;
  int threads = 0;
  double rtol = tlp::kDefaultRtol;
  CLI::App app{"tlptune-peer-bench: times a library kernel (OpenBLAS sgemm, oneDNN convolution) on a tlptune workload\n"
               "and prints one JSON line. Used by 'tlptune peers'."};
  app.add_option("--workload", workload, "Workload key, KIND:P=V,... with every parameter (as tlptune writes it)")
      ->required();
  app.add_option("--library", library, "openblas (matmul, batch_matmul, dense_bias_relu) or onednn (conv2d, "
                                       "conv2d_bias_relu, conv2d_residual, group_conv2d, depthwise_conv2d, GEMMs)")
      ->required();
  app.add_option("--min-seconds", timing.min_seconds, "Timed seconds, at least")->capture_default_str();
  app.add_option("--min-repeats", timing.min_repeats, "Timed runs, at least")->capture_default_str();
  app.add_option("--max-repeats", timing.max_repeats, "Timed runs, at most")->capture_default_str();
  app.add_option("--warmup", timing.warmup, "Untimed runs first")->capture_default_str();
  app.add_option("--threads", threads, "Threads (0: every usable CPU)")->capture_default_str();
  app.add_option("--data", data_dir, "tlptune task data (task.json, inputs, reference): use its inputs and check the output");
  app.add_option("--rtol", rtol, "Relative tolerance of the check")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (timing.min_repeats < 1 || timing.max_repeats < timing.min_repeats || timing.warmup < 0 || timing.min_seconds < 0) {
    fprintf(stderr, "tlptune-peer-bench: error: need 1 <= --min-repeats <= --max-repeats, --warmup >= 0, --min-seconds >= 0\n");
    return 2;
  }
  if (threads <= 0) threads = usable_cpus();

  nlohmann::json out = {{"library", library}, {"workload", workload}, {"error", "none"}};
  // Say so when the environment forces OpenBLAS onto an older core.
  for (const char *var : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"})
    if (const char *v = std::getenv(var)) out["environment"][var] = v;
  int code = 0;
  try {
    const PeerWorkload w = parse_peer_workload(workload);
    out["workload"] = w.key;
    const std::string why = library_unsupported_reason(library, w.kind);
    if (!why.empty()) {
      fprintf(stderr, "tlptune-peer-bench: error: %s\n", why.c_str());
      return 2;
    }
    std::vector<std::vector<float>> inputs;
    tlp::TaskData task;
    if (!data_dir.empty()) {
      task = tlp::load_task_data(data_dir);
      if (!task.workload.empty() && task.workload != w.key)
        throw std::runtime_error("the task data in '" + data_dir + "' is for " + task.workload + ", not " + w.key);
      inputs = inputs_of(task, w, data_dir);
    } else {
      inputs = random_inputs(input_sizes(w));
    }
    BenchResult r = library == "openblas" ? bench_openblas(w, inputs, timing, threads)
                                          : bench_onednn(w, inputs, timing, threads);
    add_timing(out, r, w);
    out["checked"] = !data_dir.empty();
    if (!data_dir.empty()) {
      const tlp::OutputCheck check = check_peer_output(r.output, task, rtol);
      out["max_abs_error"] = std::isfinite(check.max_abs_error) ? nlohmann::json(check.max_abs_error) : nlohmann::json();
      if (!check.ok) {
        out["error"] = "wrong_answer";
        out["message"] = check.message;
        code = 1;
      }
    }
  } catch (const PeerWorkloadError &e) {
    fprintf(stderr, "tlptune-peer-bench: error: %s\n", e.what());
    return 2;
  } catch (const std::exception &e) {
    out["error"] = "runtime_error";
    out["message"] = e.what();
    code = 1;
  }
  printf("%s\n", out.dump().c_str());
  fflush(stdout);
  return code;
}
