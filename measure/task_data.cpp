#include "measure/task_data.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "codegen/weight_packing.h"
#include "measure/generated_task_data.h"

namespace tlp {
namespace {

size_t elements(const Shape &s) {
  size_t n = 1;
  for (int64_t e : s) n *= size_t(e);
  return n;
}

void write_floats(const std::string &path, const std::vector<float> &v) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char *>(v.data()), std::streamsize(v.size() * sizeof(float)));
  if (!f) throw std::runtime_error("cannot write " + path);
}

// task.json last: its presence means the data is complete.
void write_task_json(const nlohmann::json &task, const std::string &dir) {
  namespace fs = std::filesystem;
  const std::string tmp = (fs::path(dir) / "task.json.tmp").string();
  std::ofstream(tmp) << task.dump(1) << "\n";
  fs::rename(tmp, fs::path(dir) / "task.json");
}

}  // namespace

namespace {

// Both forms: inputs from generate_task_input (non-zero, so a kernel that skips
// work or writes nothing cannot match by accident), written as files or named by
// seed; the reference dense, or sampled when it has more than max_reference values.
void write_task(const Operator &op, const std::string &dir, uint64_t seed, bool portable, size_t max_reference) {
  namespace fs = std::filesystem;
  if (fs::exists(fs::path(dir) / "task.json")) return;
  fs::create_directories(dir);
  // Packed inputs are stored plain, as users hold them; the runner packs them.
  const auto shapes = user_input_shapes(op);
  std::vector<std::vector<float>> inputs;
  nlohmann::json task = {{"format", 2}, {"workload", op.workload().key()}, {"inputs", nlohmann::json::array()}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::vector<float> v(elements(shapes[i]));
    generate_task_input(seed, int(i), v.data(), v.size());
    if (portable) {
      task["inputs"].push_back({{"generate", {{"seed", seed}, {"index", i}}}, {"shape", shapes[i]}});
    } else {
      const std::string file = "in" + std::to_string(i) + ".f32";
      write_floats((fs::path(dir) / file).string(), v);
      task["inputs"].push_back({{"file", file}, {"shape", shapes[i]}});
    }
    inputs.push_back(std::move(v));
  }
  for (const PackedInput &p : op.packed_inputs())
    task["inputs"][size_t(p.input)]["pack"] = {{"entry_suffix", packing_entry("", p)},
                                               {"shape", op.input_shapes().at(size_t(p.input))}};
  std::vector<const float *> ptrs;
  for (const auto &v : inputs) ptrs.push_back(v.data());
  std::vector<float> ref(elements(op.output_shape()));
  op.reference(ptrs, ref.data());
  task["output"] = {{"file", "ref.f32"}, {"shape", op.output_shape()}};
  if (ref.size() > max_reference) {
    std::vector<float> sample;
    for (size_t p : reference_sample_positions(seed, max_reference, ref.size())) sample.push_back(ref[p]);
    ref = std::move(sample);
    task["output"]["sample"] = {{"seed", seed}, {"count", max_reference}};
  }
  write_floats((fs::path(dir) / "ref.f32").string(), ref);
  write_task_json(task, dir);
}

}  // namespace

void write_task_data(const Operator &op, const std::string &dir, uint64_t seed) {
  write_task(op, dir, seed, /*portable=*/false, std::numeric_limits<size_t>::max());
}

void write_portable_task_data(const Operator &op, const std::string &dir, uint64_t seed, size_t max_reference) {
  write_task(op, dir, seed, /*portable=*/true, max_reference);
}

}  // namespace tlp
