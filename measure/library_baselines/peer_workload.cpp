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

bool is_gemm_kind(const std::string &kind) {
  return kind == "matmul" || kind == "batch_matmul" || kind == "dense_bias_relu";
}

std::string library_unsupported_reason(const std::string &library, const std::string &kind) {
  if (library == "openblas") {
    if (is_gemm_kind(kind)) return "";
    return "OpenBLAS is timed on GEMM workloads only (matmul, batch_matmul, dense_bias_relu), not " + kind;
  }
  if (library == "onednn") {
    if (kind == "conv2d" || kind == "conv2d_bias_relu" || kind == "conv2d_residual" || kind == "group_conv2d" ||
        kind == "depthwise_conv2d")
      return "";
    if (is_gemm_kind(kind)) return "";
    return "oneDNN is timed on convolutions and GEMMs only (conv2d, conv2d_bias_relu, conv2d_residual, group_conv2d, "
           "depthwise_conv2d, matmul, batch_matmul, dense_bias_relu), not " + kind;
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
  if (w.kind == "conv2d" || w.kind == "conv2d_bias_relu" || w.kind == "conv2d_residual") {
    c.N = w.get_int("N"), c.C = w.get_int("C"), c.H = w.get_int("H"), c.W = w.get_int("W");
    c.K = w.get_int("K"), c.R = w.get_int("R"), c.S = w.get_int("S");
    c.stride = w.get_int("stride"), c.pad = w.get_int("pad", 0), c.dilation = w.get_int("dilation");
    // NCHWgemm is NCHW in memory (codegen/layout_choice.h); the peer is given NCHW.
    const std::string layout = w.get_str("layout") == "NCHWgemm" ? "NCHW" : w.get_str("layout");
    if (layout != "NCHW" && layout != "NHWC")
      throw PeerWorkloadError("workload '" + w.key + "': layout must be NCHW or NHWC, not '" + layout + "'");
    c.nhwc = layout == "NHWC";
    c.bias = w.kind != "conv2d";
    c.relu = w.kind == "conv2d_bias_relu" || (w.kind == "conv2d_residual" && w.get_int("relu", 0) == 1);
    c.residual = w.kind == "conv2d_residual";
  } else if (w.kind == "group_conv2d") {
    c.N = w.get_int("N"), c.C = w.get_int("C"), c.H = w.get_int("H"), c.W = w.get_int("W");
    c.K = w.get_int("K"), c.R = w.get_int("R"), c.S = w.get_int("S");
    c.stride = w.get_int("stride"), c.pad = w.get_int("pad", 0), c.groups = w.get_int("groups");
  } else if (w.kind == "depthwise_conv2d") {
    c.N = w.get_int("N"), c.C = w.get_int("C"), c.H = w.get_int("H"), c.W = w.get_int("W");
    c.R = w.get_int("R"), c.S = w.get_int("S"), c.stride = w.get_int("stride"), c.pad = w.get_int("pad", 0);
    c.K = c.C, c.groups = c.C;
    // Its layout stays out of the key at NCHW; its weights are C x R x S in either layout.
    const std::string layout = w.has("layout") ? w.get_str("layout") : "NCHW";
    if (layout != "NCHW" && layout != "NHWC")
      throw PeerWorkloadError("workload '" + w.key + "': layout must be NCHW or NHWC, not '" + layout + "'");
    c.nhwc = layout == "NHWC";
  } else {
    throw PeerWorkloadError("workload '" + w.key +
                            "' is not a convolution (conv2d, conv2d_bias_relu, conv2d_residual, group_conv2d, "
                            "depthwise_conv2d)");
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
  if (c.bias) s.push_back(c.K);
  if (c.residual) s.push_back(conv_output_size(c));
  return s;
}
int64_t conv_output_size(const ConvShape &c) { return c.N * c.K * c.OH * c.OW; }

double workload_flops(const PeerWorkload &w) {
  if (is_gemm_kind(w.kind)) {
    const GemmShape g = gemm_shape(w);
    const double outputs = double(g.batch) * g.M * g.N;
    return 2.0 * outputs * g.K + (g.bias_relu ? 2.0 * outputs : 0.0);
  }
  const ConvShape c = conv_shape(w);
  const double outputs = double(c.N) * c.K * c.OH * c.OW;
  return 2.0 * outputs * (c.C / c.groups) * c.R * c.S + (double(c.bias) + c.relu + c.residual) * outputs;
}

}  // namespace peer
}  // namespace tlp
