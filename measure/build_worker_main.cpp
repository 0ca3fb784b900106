// tlptune-build-worker: reads build jobs (one JSON line each) on stdin, lowers
// and compiles each candidate, links it with the target's runtime into a shared
// library (with the operator's packing entry points, codegen/weight_packing.h),
// and answers one JSON line per job. It holds no state between jobs but
// caches (operators, DAGs, targets), so a crash loses only the job at hand.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "codegen/kernel_compiler.h"
#include "codegen/lower.h"
#include "codegen/operator.h"
#include "codegen/target.h"
#include "codegen/weight_packing.h"
#include "measure/measure_error.h"
#include "measure/ptxas.h"
#include "search/gpu_launch_limits.h"
#include "search/loop_state.h"

namespace {

struct CachedOp {
  std::unique_ptr<tlp::Operator> op;
  tlp::ComputeDag dag;
  std::map<std::string, std::vector<std::string>> packing_objects;  // per target string
};

// The operator's packing objects for `target`, compiled once per worker process
// (every candidate of a workload links the same ones) under the runtime's folder.
const std::vector<std::string> &packing_objects(CachedOp &c, const std::string &target_text,
                                                const Halide::Target &target, const std::string &runtime,
                                                const std::string &entry) {
  namespace fs = std::filesystem;
  auto it = c.packing_objects.find(target_text);
  if (it != c.packing_objects.end()) return it->second;
  std::vector<std::string> objects;
  if (!c.op->packed_inputs().empty()) {
    const size_t id = std::hash<std::string>{}(c.op->workload().key() + "|" + target_text + "|" + entry);
    const fs::path dir = fs::path(runtime).parent_path() / ("packing-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    objects = tlp::compile_packing_objects(*c.op, target, (dir / std::to_string(id)).string(), entry);
  }
  return c.packing_objects.emplace(target_text, std::move(objects)).first->second;
}

nlohmann::json build(const nlohmann::json &job, std::map<std::string, CachedOp> &ops) {
  namespace fs = std::filesystem;
  const std::string key = job.at("workload").get<std::string>();
  auto it = ops.find(key);
  if (it == ops.end()) {
    CachedOp c;
    c.op = tlp::make_operator(key);
    c.dag = tlp::make_compute_dag(*c.op);
    it = ops.emplace(key, std::move(c)).first;
  }
  const Halide::Target target = tlp::parse_target(job.at("target").get<std::string>());
  const tlp::Schedule schedule = tlp::Schedule::from_json(job.at("schedule"));
  const std::string dir = job.at("dir").get<std::string>();
  const std::string entry = job.at("entry").get<std::string>();
  fs::create_directories(dir);
  if (target.has_gpu_feature()) {
    // Over CUDA's launch limits fails at launch, not at compile time: refuse it now.
    const std::string why =
        tlp::gpu_launch_limit_violation(tlp::LoopState::replay(it->second.dag, schedule), tlp::GpuLimits{});
    if (!why.empty()) return {{"error", tlp::measure_error_name(tlp::MeasureError::LaunchLimit)}, {"message", why}};
  }
  tlp::LoweredKernel k = tlp::lower_schedule(*it->second.op, it->second.dag, schedule, target);
  const std::string object = (fs::path(dir) / "kernel.o").string();
  const std::string library = (fs::path(dir) / "kernel.so").string();
  nlohmann::json reply = {{"error", "none"}, {"artifact", library}};
  if (target.has_gpu_feature()) {
    // Validated here, on a machine without a GPU: ptxas accepts the PTX for the capability.
    const std::string ptx = tlp::compile_kernel_object_with_ptx(k, target, object, entry);
    reply["ptxas"] = tlp::validate_ptx(ptx, tlp::cuda_capability(target), dir).to_json();
  } else {
    tlp::compile_kernel_object(k, target, object, entry);
  }
  std::vector<std::string> objects = {object, job.at("runtime").get<std::string>()};
  for (const std::string &p : packing_objects(it->second, job.at("target").get<std::string>(), target,
                                              objects[1], entry))
    objects.push_back(p);
  tlp::link_shared_library(objects, library);
  fs::remove(object);
  return reply;
}

}  // namespace

int main() {
  std::map<std::string, CachedOp> ops;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    nlohmann::json reply;
    long long id = -1;
    try {
      const auto job = nlohmann::json::parse(line);
      id = job.at("id").get<long long>();
      reply = build(job, ops);
    } catch (const tlp::ScheduleError &e) {
      reply = {{"error", tlp::measure_error_name(tlp::MeasureError::InvalidSchedule)}, {"message", e.what()}};
    } catch (const Halide::Error &e) {
      reply = {{"error", tlp::measure_error_name(tlp::MeasureError::CompileError)}, {"message", e.what()}};
    } catch (const std::exception &e) {
      reply = {{"error", tlp::measure_error_name(tlp::MeasureError::CompileError)}, {"message", e.what()}};
    }
    reply["id"] = id;
    std::cout << reply.dump() << std::endl;
  }
  return 0;
}
