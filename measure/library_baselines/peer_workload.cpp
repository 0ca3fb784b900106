#include "measure/library_baselines/peer_workload.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

namespace tlp {
namespace peer {
namespace {

bool is_name(const std::string &s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool is_value(const std::string &s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

std::string trim(const std::string &s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

int64_t out_size(const PeerWorkload &w, const char *axis, int64_t in, int64_t pad, int64_t window, int64_t dilation,
                 int64_t stride) {
  const int64_t span = dilation * (window - 1) + 1;
  if (in + 2 * pad < span)
    throw PeerWorkloadError("workload '" + w.key + "': the window along " + axis + " (" + std::to_string(span) +
                            ") is larger than the padded input (" + std::to_string(in + 2 * pad) + ")");
  return (in + 2 * pad - span) / stride + 1;
}

std::string read_text(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<float> read_floats(const std::string &path, int64_t count) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("cannot read '" + path + "'");
  const std::streamoff bytes = f.tellg();
  if (bytes != std::streamoff(count * int64_t(sizeof(float))))
    throw std::runtime_error("'" + path + "' holds " + std::to_string(bytes) + " bytes; its shape needs " +
                             std::to_string(count * int64_t(sizeof(float))));
  std::vector<float> v(static_cast<size_t>(count));
  f.seekg(0);
  f.read(reinterpret_cast<char *>(v.data()), std::streamsize(bytes));
  if (!f) throw std::runtime_error("cannot read '" + path + "'");
  return v;
}

std::vector<float> load_tensor(const nlohmann::json &spec, const std::string &dir, const std::string &where) {
  if (!spec.is_object() || !spec.contains("file") || !spec["file"].is_string() || !spec.contains("shape") ||
      !spec["shape"].is_array())
    throw std::runtime_error(where + ": needs \"file\" and \"shape\"");
  int64_t count = 1;
  for (const auto &e : spec["shape"]) {
    if (!e.is_number_integer() || e.get<int64_t>() < 1) throw std::runtime_error(where + ": bad shape");
    count *= e.get<int64_t>();
  }
  std::string file = spec["file"].get<std::string>();
  if (file.empty() || file[0] != '/') file = dir + "/" + file;
  return read_floats(file, count);
}

}  // namespace

bool PeerWorkload::has(const std::string &name) const {
  for (const auto &p : params)
    if (p.first == name) return true;
  return false;
}

const std::string &PeerWorkload::get_str(const std::string &name) const {
  for (const auto &p : params)
    if (p.first == name) return p.second;
  throw PeerWorkloadError("workload '" + key + "' lacks parameter '" + name +
                          "' (a key must carry every parameter, as tlptune writes it: " + kind +
                          ":P=V,... from 'tlptune show' or a log)");
}

int64_t PeerWorkload::get_int(const std::string &name, int64_t min_value) const {
  const std::string &text = get_str(name);
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception &) {
    used = 0;
  }
  if (used != text.size() || text.empty())
    throw PeerWorkloadError("workload '" + key + "': parameter " + name + "='" + text + "' is not a whole number");
  if (v < min_value || v >= (1ll << 31))
    throw PeerWorkloadError("workload '" + key + "': parameter " + name + "=" + text + " is out of range (at least " +
                            std::to_string(min_value) + ", below 2^31)");
  return v;
}

PeerWorkload parse_peer_workload(const std::string &key_in) {
  PeerWorkload w;
  w.key = trim(key_in);
  const size_t colon = w.key.find(':');
  if (colon == std::string::npos)
    throw PeerWorkloadError("workload '" + w.key + "' has no ':'; write it as KIND:P=V,... (e.g. matmul:M=64,N=64,K=64)");
  w.kind = w.key.substr(0, colon);
  if (!is_name(w.kind)) throw PeerWorkloadError("workload '" + w.key + "': '" + w.kind + "' is not an operator name");
  const std::string rest = w.key.substr(colon + 1);
  if (rest.empty()) throw PeerWorkloadError("workload '" + w.key + "' has no parameters after ':'");
  size_t start = 0;
  while (start <= rest.size()) {
    const size_t comma = std::min(rest.find(',', start), rest.size());
    const std::string item = rest.substr(start, comma - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw PeerWorkloadError("workload '" + w.key + "': '" + item + "' is not PARAM=VALUE");
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (!is_name(name) || !is_value(value))
      throw PeerWorkloadError("workload '" + w.key + "': '" + item + "' is not PARAM=VALUE");
    if (w.has(name)) throw PeerWorkloadError("workload '" + w.key + "' gives parameter '" + name + "' twice");
    w.params.emplace_back(name, value);
    start = comma + 1;
  }
  return w;
}

const std::vector<std::string> &peer_libraries() {
  static const std::vector<std::string> libs = {"openblas", "onednn"};
  return libs;
}

std::string library_unsupported_reason(const std::string &library, const std::string &kind) {
  if (library == "openblas") {
    if (kind == "matmul" || kind == "batch_matmul" || kind == "dense_bias_relu") return "";
    return "OpenBLAS is timed on GEMM workloads only (matmul, batch_matmul, dense_bias_relu), not " + kind;
  }
  if (library == "onednn") {
    if (kind == "conv2d" || kind == "conv2d_bias_relu" || kind == "depthwise_conv2d") return "";
    return "oneDNN is timed on convolutions only (conv2d, conv2d_bias_relu, depthwise_conv2d), not " + kind;
  }
  return "unknown library '" + library + "' (known: openblas, onednn)";
}

GemmShape gemm_shape(const PeerWorkload &w) {
  GemmShape g;
  if (w.kind == "matmul" || w.kind == "dense_bias_relu") {
    g.M = w.get_int("M"), g.N = w.get_int("N"), g.K = w.get_int("K");
    g.bias_relu = w.kind == "dense_bias_relu";
  } else if (w.kind == "batch_matmul") {
    g.batch = w.get_int("B"), g.M = w.get_int("M"), g.N = w.get_int("N"), g.K = w.get_int("K");
  } else {
    throw PeerWorkloadError("workload '" + w.key + "' is not a GEMM (matmul, batch_matmul, dense_bias_relu)");
  }
  return g;
}

ConvShape conv_shape(const PeerWorkload &w) {
  ConvShape c;
  if (w.kind == "conv2d" || w.kind == "conv2d_bias_relu") {
    c.N = w.get_int("N"), c.C = w.get_int("C"), c.H = w.get_int("H"), c.W = w.get_int("W");
    c.K = w.get_int("K"), c.R = w.get_int("R"), c.S = w.get_int("S");
    c.stride = w.get_int("stride"), c.pad = w.get_int("pad", 0), c.dilation = w.get_int("dilation");
    const std::string &layout = w.get_str("layout");
    if (layout != "NCHW" && layout != "NHWC")
      throw PeerWorkloadError("workload '" + w.key + "': layout must be NCHW or NHWC, not '" + layout + "'");
    c.nhwc = layout == "NHWC";
    c.bias_relu = w.kind == "conv2d_bias_relu";
  } else if (w.kind == "depthwise_conv2d") {
    c.N = w.get_int("N"), c.C = w.get_int("C"), c.H = w.get_int("H"), c.W = w.get_int("W");
    c.R = w.get_int("R"), c.S = w.get_int("S"), c.stride = w.get_int("stride"), c.pad = w.get_int("pad", 0);
    c.K = c.C, c.groups = c.C;
  } else {
    throw PeerWorkloadError("workload '" + w.key + "' is not a convolution (conv2d, conv2d_bias_relu, depthwise_conv2d)");
  }
  c.OH = out_size(w, "H", c.H, c.pad, c.R, c.dilation, c.stride);
  c.OW = out_size(w, "W", c.W, c.pad, c.S, c.dilation, c.stride);
  return c;
}

std::vector<int64_t> gemm_input_sizes(const GemmShape &g) {
  std::vector<int64_t> s = {g.batch * g.M * g.K, g.batch * g.K * g.N};
  if (g.bias_relu) s.push_back(g.N);
  return s;
}
int64_t gemm_output_size(const GemmShape &g) { return g.batch * g.M * g.N; }

std::vector<int64_t> conv_input_sizes(const ConvShape &c) {
  std::vector<int64_t> s = {c.N * c.C * c.H * c.W, c.K * (c.C / c.groups) * c.R * c.S};
  if (c.bias_relu) s.push_back(c.K);
  return s;
}
int64_t conv_output_size(const ConvShape &c) { return c.N * c.K * c.OH * c.OW; }

double workload_flops(const PeerWorkload &w) {
  if (w.kind == "matmul" || w.kind == "batch_matmul" || w.kind == "dense_bias_relu") {
    const GemmShape g = gemm_shape(w);
    const double outputs = double(g.batch) * g.M * g.N;
    return 2.0 * outputs * g.K + (g.bias_relu ? 2.0 * outputs : 0.0);
  }
  const ConvShape c = conv_shape(w);
  const double outputs = double(c.N) * c.K * c.OH * c.OW;
  return 2.0 * outputs * (c.C / c.groups) * c.R * c.S + (c.bias_relu ? 2.0 * outputs : 0.0);
}

PeerTaskData read_peer_task_data(const std::string &dir) {
  const std::string path = dir + "/task.json";
  nlohmann::json task;
  try {
    task = nlohmann::json::parse(read_text(path));
  } catch (const nlohmann::json::exception &e) {
    throw std::runtime_error("'" + path + "' is not valid JSON: " + e.what());
  }
  if (task.value("format", 0) != 1) throw std::runtime_error("'" + path + "' is not task data of format 1");
  if (!task.contains("inputs") || !task["inputs"].is_array() || !task.contains("output"))
    throw std::runtime_error("'" + path + "' needs an \"inputs\" array and an \"output\"");
  PeerTaskData data;
  if (task.contains("workload") && task["workload"].is_string()) data.workload = task["workload"].get<std::string>();
  for (size_t i = 0; i < task["inputs"].size(); ++i)
    data.inputs.push_back(load_tensor(task["inputs"][i], dir, path + ": inputs[" + std::to_string(i) + "]"));
  data.reference = load_tensor(task["output"], dir, path + ": output");
  double sum = 0;
  int64_t finite = 0;
  for (float v : data.reference)
    if (std::isfinite(v)) sum += std::fabs(v), ++finite;
  data.mean_abs_reference = finite ? sum / double(finite) : 0.0;
  return data;
}

PeerCheck check_against_reference(const std::vector<float> &out, const PeerTaskData &task, double rtol) {
  PeerCheck check;
  if (out.size() != task.reference.size()) {
    check.ok = false;
    check.max_abs_error = std::numeric_limits<double>::infinity();
    check.message = "the output has " + std::to_string(out.size()) + " elements, the reference " +
                    std::to_string(task.reference.size());
    return check;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const double expected = task.reference[i];
    if (!std::isfinite(expected)) continue;
    const double got = out[i];
    const double error = std::isfinite(got) ? std::fabs(got - expected) : std::numeric_limits<double>::infinity();
    check.max_abs_error = std::max(check.max_abs_error, error);
    const double tolerance = rtol * (std::fabs(expected) + task.mean_abs_reference) + 1e-6;
    if (check.ok && !(error <= tolerance)) {
      check.ok = false;
      char text[160];
      std::snprintf(text, sizeof text, "output[%zu] expected %.9g got %.9g (tolerance %.9g)", i, expected, got,
                    tolerance);
      check.message = text;
    }
  }
  return check;
}

std::vector<double> time_repeats(const std::function<void()> &run, const TimingOptions &o) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < o.warmup; ++i) run();
  std::vector<double> costs;
  double total = 0;
  while (int(costs.size()) < o.max_repeats && (int(costs.size()) < o.min_repeats || total < o.min_seconds)) {
    const auto start = Clock::now();
    run();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    costs.push_back(seconds);
    total += seconds;
  }
  return costs;
}

}  // namespace peer
}  // namespace tlp
