// The operator table and the checked way to instantiate an operator.
#include <cstdio>
#include <stdexcept>

#include "codegen/operator.h"
#include "codegen/ops/matrix_b_layout.h"
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace {

OpParamInfo integer(const std::string &name, int64_t def, const std::string &help, int64_t min_value = 1) {
  return OpParamInfo{name, std::to_string(def), help, {}, min_value};
}

OpParamInfo conv_layout() {
  return OpParamInfo{"layout", "NCHW",
                     "data and output layout: NCHW (weights KCRS), NHWC (weights RSCK), channel-blocked "
                     "NCHW<b>c (weights given as KCRS, packed once at load time to OIhw<b>i<b>o), or NCHWgemm: "
                     "NCHW data read as the matrix product a 1x1 convolution (stride 1, pad 0) is, its buffers "
                     "N x C x (H*W) and K x C; NCHW<b>cgemm likewise in NCHW<b>c memory, the pixels one loop",
                     ops::conv_kernel_layout_names(), 1};
}

// A layout added after workload keys were first written: at its default it stays out
// of the key, so the keys of old records still name the same workloads.
OpParamInfo later_layout(const std::string &default_value, const std::string &help, std::vector<std::string> choices) {
  OpParamInfo p{"layout", default_value, help, std::move(choices), 1};
  p.in_key_at_default = false;
  return p;
}

OpParamInfo window_layout() {
  return later_layout("NCHW",
                      "data and output layout: NCHW, NHWC, or channel-blocked NCHW<b>c (a depthwise convolution's "
                      "weights given as C x R x S, packed once at load time in the last two)",
                      ops::window_layout_names());
}

OpParamInfo matrix_b_layout() {
  return later_layout("KN",
                      "how the kernel reads B (the weights): KN as given (row-major K x N), or NK<b>n, packed once "
                      "at load time into panels of b columns, each K rows of b contiguous floats",
                      ops::matrix_b_layout_names());
}

std::vector<OpParamInfo> conv_params() {
  std::vector<OpParamInfo> p = {
      integer("N", 1, "batch"),          integer("C", 64, "input channels"),
      integer("H", 56, "input height"),  integer("W", 56, "input width"),
      integer("K", 64, "output channels"), integer("R", 3, "kernel height"),
      integer("S", 3, "kernel width"),   integer("stride", 1, "stride"),
      integer("pad", 1, "zero padding on each side", 0), integer("dilation", 1, "dilation"),
      conv_layout()};
  return p;
}

std::vector<OpParamInfo> residual_conv_params() {
  std::vector<OpParamInfo> p = conv_params();
  p.push_back(integer("relu", 1, "1: relu after the residual add; 0: none", 0));
  return p;
}

std::vector<OpInfo> build_library() {
  return {
      {"matmul", "C = A x B (row-major, A is MxK, B is KxN)",
       {integer("M", 512, "rows of A and C"), integer("N", 512, "columns of B and C"),
        integer("K", 512, "reduced dimension"), matrix_b_layout()},
       ops::make_matmul},
      {"batch_matmul", "C[b] = A[b] x B[b] for each batch b",
       {integer("B", 12, "batch"), integer("M", 128, "rows of A and C"), integer("N", 128, "columns of B and C"),
        integer("K", 64, "reduced dimension")},
       ops::make_batch_matmul},
      {"conv2d", "2-D convolution (NCHW data with KCRS weights, or NHWC with RSCK)", conv_params(),
       ops::make_conv2d},
      {"depthwise_conv2d", "depthwise 2-D convolution, channel multiplier 1 (weights C x R x S)",
       {integer("N", 1, "batch"), integer("C", 32, "channels"), integer("H", 112, "input height"),
        integer("W", 112, "input width"), integer("R", 3, "kernel height"), integer("S", 3, "kernel width"),
        integer("stride", 1, "stride"), integer("pad", 1, "zero padding on each side", 0), window_layout()},
       ops::make_depthwise_conv2d},
      {"dense_bias_relu", "relu(A x B + bias), a fully connected layer",
       {integer("M", 128, "rows (batch)"), integer("N", 768, "output features"),
        integer("K", 768, "input features"), matrix_b_layout()},
       ops::make_dense_bias_relu},
      {"conv2d_bias_relu", "relu(conv2d + bias per output channel)", conv_params(),
       ops::make_conv2d_bias_relu},
      {"conv2d_residual", "conv2d + bias per output channel + a residual of the output's shape, then relu when relu=1",
       residual_conv_params(), ops::make_conv2d_residual},
      {"group_conv2d", "grouped 2-D convolution (NCHW data, weights K x C/groups x R x S)",
       {integer("N", 1, "batch"), integer("C", 64, "input channels"), integer("H", 56, "input height"),
        integer("W", 56, "input width"), integer("K", 64, "output channels"), integer("R", 3, "kernel height"),
        integer("S", 3, "kernel width"), integer("stride", 1, "stride"),
        integer("pad", 1, "zero padding on each side", 0), integer("groups", 2, "channel groups (dividing C and K)")},
       ops::make_group_conv2d},
      {"softmax", "softmax over the last axis of an MxN matrix",
       {integer("M", 128, "rows"), integer("N", 1000, "softmax length")}, ops::make_softmax},
      {"layernorm", "layer normalization over the last axis (eps 1e-5, with gamma and beta)",
       {integer("M", 128, "rows"), integer("N", 768, "normalized length")}, ops::make_layernorm},
      {"max_pool2d", "2-D max pooling, padding never wins",
       {integer("N", 1, "batch"), integer("C", 64, "channels"), integer("H", 112, "input height"),
        integer("W", 112, "input width"), integer("R", 3, "window height"), integer("S", 3, "window width"),
        integer("stride", 2, "stride"), integer("pad", 1, "padding on each side (at most half the window)", 0),
        window_layout()},
       ops::make_max_pool2d},
      {"avg_pool2d", "2-D average pooling (NCHW); padding counts in the divisor with count_pad=1",
       {integer("N", 1, "batch"), integer("C", 64, "channels"), integer("H", 56, "input height"),
        integer("W", 56, "input width"), integer("R", 3, "window height"), integer("S", 3, "window width"),
        integer("stride", 1, "stride"), integer("pad", 1, "zero padding on each side (at most half the window)", 0),
        integer("count_pad", 1, "1: divide by the whole window, padding included; 0: by its points inside the input",
                0)},
       ops::make_avg_pool2d},
      {"global_avg_pool2d", "the mean of each channel's plane (NCHW in, N x C out), before a classifier",
       {integer("N", 1, "batch"), integer("C", 2048, "channels"), integer("H", 7, "height"), integer("W", 7, "width")},
       ops::make_global_avg_pool2d},
      {"layout_convert", "an activation (N, C, H, W) rewritten from one layout to another; FLOPs count elements",
       {integer("N", 1, "batch"), integer("C", 64, "channels"), integer("H", 56, "height"), integer("W", 56, "width"),
        OpParamInfo{"from", "NCHW", "the input's layout", ops::conv_layout_names(), 1},
        OpParamInfo{"to", "NCHW16c", "the output's layout", ops::conv_layout_names(), 1}},
       ops::make_layout_convert},
  };
}

// Elements of a shape; double so absurd shapes cannot overflow before we reject them.
double elements(const Shape &s) {
  double n = 1;
  for (int64_t d : s) n *= double(d);
  return n;
}

std::string shape_text(const Shape &s) {
  std::string out;
  for (size_t i = s.size(); i-- > 0;) out += std::to_string(s[i]) + (i ? "x" : "");  // outermost first
  return out;
}

}  // namespace

const std::vector<OpInfo> &op_library() {
  static const std::vector<OpInfo> library = build_library();
  return library;
}

const OpInfo &find_op(const std::string &kind) {
  std::string known;
  for (const auto &op : op_library()) {
    if (op.kind == kind) return op;
    known += (known.empty() ? "" : ", ") + op.kind;
  }
  throw WorkloadError("unknown operator '" + kind + "' (known: " + known + "; run 'tlptune ops' to list them)");
}

std::unique_ptr<Operator> make_operator(const Workload &w) {
  // Re-parse the key: a hand-made Workload gets the same checks and defaults as a spec.
  const Workload canon = parse_workload(w.key());
  std::unique_ptr<Operator> op = find_op(canon.kind).make(canon);

  constexpr double kMaxElements = 2147483648.0;             // 2^31 per tensor
  constexpr double kMaxTotalBytes = 4.0 * 1024 * 1024 * 1024;  // 4 GiB in all
  std::vector<Shape> shapes = op->input_shapes();
  shapes.push_back(op->output_shape());
  double total = 0;
  for (const Shape &s : shapes) {
    const double n = elements(s);
    if (n > kMaxElements)
      throw WorkloadError(canon.key() + ": shape too large: a tensor of " + shape_text(s) +
                          " has more than 2^31 elements; use smaller parameters");
    total += n * sizeof(float);
  }
  if (total > kMaxTotalBytes)
  {
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.1f", total / (1024.0 * 1024 * 1024));
    throw WorkloadError(canon.key() + ": shape too large: its tensors need " + gib +
                        " GiB of float32 (limit 4 GiB); use smaller parameters");
  }
  return op;
}

std::unique_ptr<Operator> make_operator(const std::string &spec) { return make_operator(parse_workload(spec)); }

Halide::Func Operator::build_packing(size_t j, const Halide::ImageParam &) const {
  throw std::logic_error(workload().kind + " packs no input " + std::to_string(j));
}

std::vector<Shape> user_input_shapes(const Operator &op) {
  std::vector<Shape> shapes = op.input_shapes();
  for (const PackedInput &p : op.packed_inputs()) shapes.at(size_t(p.input)) = p.user_shape;
  return shapes;
}

}  // namespace tlp
