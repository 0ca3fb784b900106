// The small core of tlptune-peer-bench, which times library kernels (OpenBLAS,
// oneDNN) on tlptune's workloads. It links no Halide, no Torch and no tlptune
// codegen, so the workload key is parsed here by a small parser of its own, and
// the shapes are re-derived from the key with the same conventions as the
// operator library (codegen/ops): matrices row-major, convolutions NCHW with KCRS
// weights (or NHWC with RSCK weights), depthwise weights C x R x S.
//
// Everything here is plain C++ so tests can exercise it without the libraries.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tlp {
namespace peer {

// A malformed key, a missing or malformed parameter, a shape that cannot work.
class PeerWorkloadError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A workload key "kind:P=V,..." as tlptune writes it (every parameter present).
struct PeerWorkload {
  std::string key;   // as given
  std::string kind;
  std::vector<std::pair<std::string, std::string>> params;  // in key order

  bool has(const std::string &name) const;
  // Throws PeerWorkloadError naming the key and the parameter when it is absent
  // or (for get_int) not a whole number in [min_value, 2^31).
  int64_t get_int(const std::string &name, int64_t min_value = 1) const;
  const std::string &get_str(const std::string &name) const;
};

// Throws PeerWorkloadError saying what is wrong with the key.
PeerWorkload parse_peer_workload(const std::string &key);

// The libraries the peer bench knows, in listing order: "openblas", "onednn".
const std::vector<std::string> &peer_libraries();

// matmul, batch_matmul and dense_bias_relu: the workloads gemm_shape takes.
bool is_gemm_kind(const std::string &kind);

// Empty when `library` can run `kind`; otherwise the reason it cannot (for a
// skip note). An unknown library name is a reason too.
std::string library_unsupported_reason(const std::string &library, const std::string &kind);

// A GEMM workload: `batch` independent row-major C[MxN] = A[MxK] * B[KxN].
struct GemmShape {
  int64_t batch = 1, M = 0, N = 0, K = 0;
  bool bias_relu = false;  // dense_bias_relu: the library times the GEMM alone
};
GemmShape gemm_shape(const PeerWorkload &w);  // matmul, batch_matmul, dense_bias_relu

// A convolution workload. Depthwise is groups == C == K.
struct ConvShape {
  int64_t N = 1, C = 0, H = 0, W = 0, K = 0, R = 0, S = 0, stride = 1, pad = 0, dilation = 1, groups = 1;
  int64_t OH = 0, OW = 0;
  bool nhwc = false;       // data NHWC and weights RSCK; else NCHW data and KCRS (or C,R,S) weights
  bool bias = false;      // a bias per output channel (conv2d_bias_relu, conv2d_residual)
  bool relu = false;      // then relu
  bool residual = false;  // + a residual of the output's shape, before the relu (conv2d_residual)
};
ConvShape conv_shape(const PeerWorkload &w);  // conv2d, conv2d_bias_relu, conv2d_residual, group_conv2d, depthwise_conv2d

// Element counts of each input and the output, in the operator's order.
std::vector<int64_t> gemm_input_sizes(const GemmShape &g);
int64_t gemm_output_size(const GemmShape &g);
std::vector<int64_t> conv_input_sizes(const ConvShape &c);
int64_t conv_output_size(const ConvShape &c);

// FLOPs as tlptune's operators count them (bias add and relu count 2 per output).
double workload_flops(const PeerWorkload &w);

}  // namespace peer
}  // namespace tlp
