#include "codegen/halide_autoscheduler.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace tlp {
namespace {

namespace fs = std::filesystem;

constexpr const char *kPluginDir = "/usr/lib/x86_64-linux-gnu/halide14";
constexpr uint64_t kGenericLlcBytes = 16ull * 1024 * 1024;  // MachineParams::generic() in Halide 14
constexpr float kGenericBalance = 40;                        // likewise

std::string lowercase(std::string s) {
  for (char &c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string known_names() {
  std::string out;
  for (const auto &n : halide_autoscheduler_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// "32K", "1024K", "32M" or a plain byte count, as sysfs writes cache sizes.
uint64_t parse_cache_size(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (text.empty()) return 0;
  uint64_t scale = 1;
  const char unit = char(std::toupper(static_cast<unsigned char>(text.back())));
  if (unit == 'K') scale = 1024;
  if (unit == 'M') scale = 1024 * 1024;
  if (unit == 'G') scale = 1024ull * 1024 * 1024;
  if (scale != 1) text.pop_back();
  try {
    return uint64_t(std::stoull(text)) * scale;
  } catch (const std::exception &) {
    return 0;
  }
}

// Loads each plugin at most once per process: a plugin registers its
// autoscheduler when loaded, and registering a name twice is an error.
void load_plugin_once(const std::string &name) {
  static std::mutex mutex;
  static std::set<std::string> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded.count(name)) return;
  const std::string path = autoscheduler_plugin_path(name);
  if (!fs::exists(path))
    throw std::runtime_error("the Halide autoscheduler plugin for " + name + " is missing: " + path +
                             " does not exist (it comes with Debian's libhalide14-0-dev)");
  try {
    Halide::load_plugin(path);
  } catch (const Halide::Error &e) {
    throw std::runtime_error("cannot load the Halide autoscheduler plugin " + path + ": " + e.what());
  }
  loaded.insert(name);
}

void constrain(Halide::OutputImageParam p, const Shape &shape) {
  int64_t stride = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    p.dim(int(d)).set_bounds(0, int(shape[d])).set_stride(int(stride));
    stride *= shape[d];
  }
}

Halide::Region region_of(const Shape &shape) {
  Halide::Region r;
  for (int64_t e : shape) r.emplace_back(0, int(e));
  return r;
}

// An output with an update definition is wrapped in a pure copy, as Halide's
// own autoscheduler apps write their reductions: the autoschedulers can then
// compute the reduction at tiles of the copy (a register accumulator), which
// they cannot do to the pipeline's output itself. Without the copy Adams2019
// streams the whole K loop through memory (~7 GFLOP/s on matmul 1024^3 here).
Halide::Func output_for_autoscheduler(Halide::Func out) {
  if (!out.has_update_definition()) return out;
  Halide::Func copy(out.name() + "_out");
  copy(out.args()) = out(out.args());
  return copy;
}

}  // namespace

const std::vector<std::string> &halide_autoscheduler_names() {
  static const std::vector<std::string> names = {"Adams2019", "Mullapudi2016", "Li2018"};
  return names;
}

std::string canonical_autoscheduler_name(const std::string &name) {
  for (const auto &n : halide_autoscheduler_names())
    if (lowercase(n) == lowercase(name)) return n;
  return "";
}

std::string autoscheduler_plugin_path(const std::string &name) {
  return std::string(kPluginDir) + "/libautoschedule_" + lowercase(name) + ".so";
}

uint64_t last_level_cache_bytes() {
  uint64_t best = 0;
  int best_level = 0;
  std::error_code ec;
  const fs::path root = "/sys/devices/system/cpu/cpu0/cache";
  for (const auto &entry : fs::directory_iterator(root, ec)) {
    const std::string leaf = entry.path().filename().string();
    if (leaf.rfind("index", 0) != 0) continue;
    std::ifstream level_file(entry.path() / "level"), type_file(entry.path() / "type"),
        size_file(entry.path() / "size");
    int level = 0;
    std::string type, size;
    if (!(level_file >> level) || !(type_file >> type) || !std::getline(size_file, size)) continue;
    if (type == "Instruction") continue;
    const uint64_t bytes = parse_cache_size(size);
    if (bytes && (level > best_level || (level == best_level && bytes > best))) best_level = level, best = bytes;
  }
  return best;
}

Halide::MachineParams autoscheduler_machine_params(int threads) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  const uint64_t llc = last_level_cache_bytes();
  return Halide::MachineParams(threads, llc ? llc : kGenericLlcBytes, kGenericBalance);
}

LoweredKernel autoschedule_with_halide(const Operator &op, const std::string &plugin, const Halide::Target &target,
                                       int threads) {
  const std::string name = canonical_autoscheduler_name(plugin);
  if (name.empty())
    throw std::runtime_error("unknown Halide autoscheduler '" + plugin + "' (known: " + known_names() + ")");
  load_plugin_once(name);

  HalideAlgorithm alg = op.build();
  if (alg.stages.empty()) throw std::runtime_error(op.workload().key() + ": the operator built no stages");
  const auto in_shapes = op.input_shapes();
  if (in_shapes.size() != alg.inputs.size())
    throw std::runtime_error(op.workload().key() + ": the operator declares " + std::to_string(in_shapes.size()) +
                             " input shapes for " + std::to_string(alg.inputs.size()) + " inputs");
  const Shape out_shape = op.output_shape();

  LoweredKernel k;
  k.output = output_for_autoscheduler(alg.stages.back().func);
  k.inputs = alg.inputs;
  const Halide::MachineParams params = autoscheduler_machine_params(threads);
  Halide::AutoSchedulerResults results;
  try {
    for (size_t i = 0; i < k.inputs.size(); ++i) {
      k.inputs[i].set_estimates(region_of(in_shapes[i]));
      constrain(k.inputs[i], in_shapes[i]);
    }
    k.output.set_estimates(region_of(out_shape));
    constrain(k.output.output_buffer(), out_shape);
    Halide::Pipeline pipeline(k.output);
    results = pipeline.auto_schedule(name, target, params);
  } catch (const Halide::Error &e) {
    throw std::runtime_error("Halide's " + name + " autoscheduler failed on " + op.workload().key() + " for " +
                             target.to_string() + ": " + e.what());
  }
  k.schedule_source = "// Halide " + name + " autoscheduler, target " + target.to_string() + ", machine params " +
                      params.to_string() + "\n" +
                      "// Buffers are pinned to the operator's shapes (dense, zero-based) before scheduling.\n" +
                      results.schedule_source;
  if (!k.schedule_source.empty() && k.schedule_source.back() != '\n') k.schedule_source += '\n';
  return k;
}

}  // namespace tlp
