#include "measure/task_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "measure/generated_task_data.h"
#include "measure/timing_protocol.h"

namespace tlp {

using nlohmann::json;

int64_t element_count(const std::vector<int32_t> &shape) {
  int64_t n = 1;
  for (int32_t e : shape) n *= e;
  return n;
}

namespace {

std::string join_path(const std::string &dir, const std::string &file) {
  if (!file.empty() && file[0] == '/') return file;
  if (dir.empty() || dir.back() == '/') return dir + file;
  return dir + "/" + file;
}

std::vector<int32_t> parse_shape(const json &j, const std::string &where) {
  if (!j.is_array()) throw std::runtime_error(where + ": 'shape' must be an array");
  std::vector<int32_t> shape;
  int64_t total = 1;
  for (const json &e : j) {
    if (!e.is_number_integer() || e.get<int64_t>() < 1 ||
        e.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      throw std::runtime_error(where + ": shape extents must be positive 32-bit integers, got " +
                               j.dump());
    }
    shape.push_back(e.get<int32_t>());
    total *= e.get<int64_t>();
    // Halide strides are int32: the innermost-to-outermost product must fit.
    if (total > std::numeric_limits<int32_t>::max()) {
      throw std::runtime_error(where + ": tensor too large for 32-bit strides: " + j.dump());
    }
  }
  return shape;
}

std::vector<float> read_floats(const std::string &path, int64_t count) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    throw std::runtime_error("cannot open data file '" + path + "': " + std::strerror(errno));
  }
  struct stat st;
  const bool sized = ::fstat(fileno(f), &st) == 0;
  const int64_t expected = count * static_cast<int64_t>(sizeof(float));
  if (!sized || st.st_size != expected) {
    std::fclose(f);
    throw std::runtime_error("data file '" + path + "' has " +
                             (sized ? std::to_string(st.st_size) : std::string("?")) +
                             " bytes, its shape needs " + std::to_string(expected));
  }
  std::vector<float> data(static_cast<size_t>(count));
  const size_t got = std::fread(data.data(), sizeof(float), data.size(), f);
  std::fclose(f);
  if (got != data.size()) throw std::runtime_error("cannot read data file '" + path + "'");
  return data;
}

uint64_t seed_field(const json &spec, const char *key, const std::string &where) {
  if (!spec.is_object() || !spec.contains(key) || !spec[key].is_number_unsigned())
    throw std::runtime_error(where + " needs a non-negative integer \"" + key + "\"");
  return spec[key].get<uint64_t>();
}

// A tensor from its file, or generated from its seed (the portable form).
TaskTensor load_tensor(const json &spec, const std::string &dir, const std::string &where, size_t count = 0) {
  if (!spec.is_object() || !spec.contains("shape"))
    throw std::runtime_error(where + " needs a \"shape\" array");
  TaskTensor t;
  t.shape = parse_shape(spec["shape"], where);
  if (spec.contains("generate")) {
    const json &g = spec["generate"];
    t.data.resize(element_count(t.shape));
    generate_task_input(seed_field(g, "seed", where + ".generate"), int(seed_field(g, "index", where + ".generate")),
                        t.data.data(), t.data.size());
    return t;
  }
  if (!spec.contains("file") || !spec["file"].is_string())
    throw std::runtime_error(where + " needs a \"file\" string or a \"generate\" object");
  t.data = read_floats(join_path(dir, spec["file"].get<std::string>()), count ? int64_t(count) : element_count(t.shape));
  return t;
}

json read_task_json(const std::string &path) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  std::string text;
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) text.append(chunk, n);
  std::fclose(f);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw std::runtime_error("'" + path + "' is not a JSON object");
  }
  return j;
}

std::string format_value(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

std::string coordinates(int64_t flat, const std::vector<int32_t> &shape) {
  std::string text;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d) text += ",";
    text += std::to_string(flat % shape[d]);
    flat /= shape[d];
  }
  return text;
}

}  // namespace

std::string task_file_path(const std::string &data_dir) { return join_path(data_dir, "task.json"); }

TaskData load_task_data(const std::string &data_dir) {
  const std::string task_path = task_file_path(data_dir);
  const json task = read_task_json(task_path);
  const int format = task.value("format", 0);
  if (format != 1 && format != 2) {
    throw std::runtime_error("'" + task_path + "' has format " + std::to_string(format) +
                             "; this runner reads formats 1 and 2");
  }
  if (!task.contains("inputs") || !task["inputs"].is_array() || !task.contains("output")) {
    throw std::runtime_error("'" + task_path + "' needs an \"inputs\" array and an \"output\"");
  }
  TaskData data;
  if (task.contains("workload") && task["workload"].is_string()) data.workload = task["workload"].get<std::string>();
  for (size_t i = 0; i < task["inputs"].size(); ++i) {
    const std::string where = task_path + ": inputs[" + std::to_string(i) + "]";
    const json &spec = task["inputs"][i];
    data.inputs.push_back(load_tensor(spec, data_dir, where));
    if (!spec.contains("pack")) continue;
    const json &pack = spec["pack"];
    if (format < 2) throw std::runtime_error(where + ": \"pack\" needs format 2");
    if (!pack.is_object() || !pack.contains("entry_suffix") || !pack["entry_suffix"].is_string() ||
        !pack.contains("shape"))
      throw std::runtime_error(where + ".pack needs an \"entry_suffix\" string and a \"shape\" array");
    TaskPacking p{i, pack["entry_suffix"].get<std::string>(), parse_shape(pack["shape"], where + ".pack")};
    if (element_count(p.packed_shape) != element_count(data.inputs.back().shape))
      throw std::runtime_error(where + ".pack: the packed shape must hold as many elements as the input");
    data.packings.push_back(std::move(p));
  }
  const json &output = task["output"];
  size_t sampled = 0;
  if (output.is_object() && output.contains("sample")) {
    const std::string where = task_path + ": output.sample";
    sampled = size_t(seed_field(output["sample"], "count", where));
    if (sampled == 0) throw std::runtime_error(where + ": \"count\" must be at least 1");
  }
  data.reference = load_tensor(output, data_dir, task_path + ": output", sampled);
  if (sampled)
    data.reference_positions = reference_sample_positions(seed_field(output["sample"], "seed", task_path),
                                                          sampled, size_t(element_count(data.reference.shape)));
  double sum = 0;
  int64_t finite = 0;
  for (float v : data.reference.data) {
    if (std::isfinite(v)) {
      sum += std::fabs(v);
      ++finite;
    }
  }
  data.mean_abs_reference = finite ? sum / static_cast<double>(finite) : 0.0;
  return data;
}

OutputCheck check_output(const float *out, const TaskTensor &ref, double mean_abs_ref,
                         double rtol, const std::vector<size_t> &positions) {
  OutputCheck check;
  for (size_t i = 0; i < ref.data.size(); ++i) {
    const double expected = ref.data[i];
    if (!std::isfinite(expected)) continue;
    const size_t at = positions.empty() ? i : positions[i];
    const double got = out[at];
    const double error = std::isfinite(got) ? std::fabs(got - expected)
                                            : std::numeric_limits<double>::infinity();
    check.max_abs_error = std::max(check.max_abs_error, error);
    const double tolerance = rtol * (std::fabs(expected) + mean_abs_ref) + kCheckAbsoluteFloor;
    if (check.ok && !(error <= tolerance)) {
      check.ok = false;
      check.message = "output[" + std::to_string(at) + "] (coordinates " +
                      coordinates(static_cast<int64_t>(at), ref.shape) + ") expected " +
                      format_value(expected) + " got " + format_value(got) + " (tolerance " +
                      format_value(tolerance) + ")";
    }
  }
  return check;
}

}  // namespace tlp
