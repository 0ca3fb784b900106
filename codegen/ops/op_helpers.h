// Private to codegen: the operator factories and what several operators share.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "Halide.h"
#include "codegen/operator.h"
#include "codegen/ops/activation_layout.h"

namespace tlp {
namespace ops {

// One factory per operator, defined in codegen/ops/<kind>.cpp.
std::unique_ptr<Operator> make_matmul(const Workload &w);
std::unique_ptr<Operator> make_batch_matmul(const Workload &w);
std::unique_ptr<Operator> make_conv2d(const Workload &w);
std::unique_ptr<Operator> make_depthwise_conv2d(const Workload &w);
std::unique_ptr<Operator> make_dense_bias_relu(const Workload &w);
std::unique_ptr<Operator> make_conv2d_bias_relu(const Workload &w);
std::unique_ptr<Operator> make_conv2d_residual(const Workload &w);
std::unique_ptr<Operator> make_group_conv2d(const Workload &w);
std::unique_ptr<Operator> make_softmax(const Workload &w);
std::unique_ptr<Operator> make_layernorm(const Workload &w);
std::unique_ptr<Operator> make_max_pool2d(const Workload &w);
std::unique_ptr<Operator> make_global_avg_pool2d(const Workload &w);
std::unique_ptr<Operator> make_avg_pool2d(const Workload &w);
std::unique_ptr<Operator> make_layout_convert(const Workload &w);

// A Func named exactly `name`. Func(name) would append "$N" to a name already used in
// this process, so the same workload's stages would be named differently on every build
// (the searcher builds thousands); the names only need to be distinct within one build.
inline Halide::Func named_func(const std::string &name) { return Halide::Func(Halide::Internal::Function(name)); }

// A constant-extent RDom over [0, extent) per dimension, innermost first, whose RVars carry
// exactly these names (a plain RDom would call them "r$x", "r$y", ...).
inline Halide::RDom named_rdom(const std::vector<std::pair<std::string, int64_t>> &dims) {
  std::vector<Halide::Internal::ReductionVariable> vars;
  for (const auto &d : dims) vars.push_back({d.first, 0, int(d.second)});
  return Halide::RDom(Halide::Internal::ReductionDomain(vars));
}

// An ImageParam of `shape` (Halide order). Its bounds are pinned to the shape, so a
// wrongly sized buffer fails loudly instead of being read out of bounds.
inline Halide::ImageParam make_input(const std::string &name, const Shape &shape) {
  Halide::ImageParam p(Halide::Float(32), int(shape.size()), name);
  for (size_t d = 0; d < shape.size(); ++d) p.dim(int(d)).set_bounds(0, int(shape[d]));
  return p;
}

// Output size of a window along one axis; throws when no window fits.
inline int64_t window_out_size(const std::string &kind, const std::string &axis, int64_t in, int64_t pad,
                               int64_t window, int64_t dilation, int64_t stride) {
  const int64_t span = dilation * (window - 1) + 1;
  if (in + 2 * pad < span)
    throw WorkloadError(kind + ": the window along " + axis + " (" + std::to_string(span) +
                        " after dilation) is larger than the padded input (" + std::to_string(in + 2 * pad) +
                        "), so the output would be empty; use a smaller kernel or more padding");
  return (in + 2 * pad - span) / stride + 1;
}

// A zero-based padded copy of a 4-D (NCHW, NHWC) or 5-D (channel-blocked) input, as
// a plain pure Func: out-of-range points take `value`. Keeping every domain start at 0
// lets the DAG describe it by extents only. x_dim/y_dim are the argument positions of
// the width and height axes.
inline Halide::Func make_pad(const std::string &name, const Halide::ImageParam &in, int x_dim, int y_dim,
                             int64_t W, int64_t H, int64_t pad, Halide::Expr value) {
  using namespace Halide;
  // The other axes, innermost first: c then n, or (blocked) the channel within its
  // block, the block, then n.
  const std::vector<const char *> rest =
      in.dimensions() == 4 ? std::vector<const char *>{"c", "n"} : std::vector<const char *>{"cb", "c", "n"};
  std::vector<Var> v;
  for (int d = 0, j = 0; d < in.dimensions(); ++d) v.push_back(Var(d == x_dim ? "x" : d == y_dim ? "y" : rest[j++]));
  std::vector<Expr> idx(v.begin(), v.end());
  Expr x = v[x_dim] - int(pad), y = v[y_dim] - int(pad);
  idx[x_dim] = clamp(x, 0, int(W) - 1);
  idx[y_dim] = clamp(y, 0, int(H) - 1);
  Func f = named_func(name);
  f(v) = select(x >= 0 && x < int(W) && y >= 0 && y < int(H), in(idx), value);
  return f;
}

// The padded shape of an activation of `shape` (Halide order) in `layout`.
inline Shape padded_shape(const ActivationLayout &layout, Shape shape, int64_t pad) {
  const int x_dim = layout.kind == ActivationLayout::Kind::NCHW ? 0 : 1;
  shape[x_dim] += 2 * pad, shape[x_dim + 1] += 2 * pad;
  return shape;
}

// conv2d and conv2d_bias_relu share their geometry and their convolution stage.
struct ConvGeometry {
  int64_t N, C, H, W, K, R, S, stride, pad, dilation, OH, OW;
  ActivationLayout layout;  // of the data and the output
  // A gemm layout (NCHWgemm, NCHW<b>cgemm; `layout` is then its memory, NCHW or
  // NCHW<b>c): a 1x1 convolution (stride 1, no padding) read as the matrix product
  // it is, every image's pixels one loop p = h*W + w, so tiles and vectors span the
  // whole image, not one row. NCHWgemm's buffers are C x (H*W) and K x C per image.
  bool gemm = false;
  bool nhwc() const { return layout.kind == ActivationLayout::Kind::NHWC; }
};
// The activation layouts the convolutions read and write (what layout_convert
// converts between), and those of depthwise_conv2d and max_pool2d (defined in
// activation_layout.cpp).
std::vector<std::string> conv_layout_names();
std::vector<std::string> window_layout_names();
// conv2d's, conv2d_bias_relu's and conv2d_residual's layout parameter: the
// activation layouts and their matrix-product forms (NCHWgemm, NCHW<b>cgemm).
std::vector<std::string> conv_kernel_layout_names();
ConvGeometry conv_geometry(const Workload &w);  // validates; throws WorkloadError
Shape conv_data_shape(const ConvGeometry &g);
// The weights as the kernel reads them: KCRS (NCHW), RSCK (NHWC), or packed
// OIhw<b>i<b>o (blocked), whose user form is KCRS.
Shape conv_weight_shape(const ConvGeometry &g);
Shape conv_out_shape(const ConvGeometry &g);
// The output's pure variables in Halide order (those of conv_out_shape) and the
// output channel they address, for the epilogues that index by channel.
struct ConvOutIndex {
  std::vector<Halide::Var> vars;
  Halide::Expr channel;
};
ConvOutIndex conv_out_index(const ConvGeometry &g);
std::vector<PackedInput> conv_packed_inputs(const ConvGeometry &g);
Halide::Func pack_conv_weight(const ConvGeometry &g, const Halide::ImageParam &kcrs);
// Appends the pad stage (when pad > 0) and the reduction "conv" to `alg`, whose
// inputs 0 and 1 are the data and the weights. Returns the conv Func.
Halide::Func add_conv_stages(HalideAlgorithm &alg, const ConvGeometry &g);
// The convolution in double, into `out` (dense, Halide order of conv_out_shape), with
// the weights in their user form.
void conv_reference(const ConvGeometry &g, const float *data, const float *weight, double *out);

// What the convolutions over a ConvGeometry share: the geometry, the output's shape,
// and the weights (kernel input 1) packed when the layout is blocked.
class ConvOperator : public Operator {
 public:
  explicit ConvOperator(const Workload &w) : Operator(w), g_(conv_geometry(w)) {}
  Shape output_shape() const override { return conv_out_shape(g_); }
  std::vector<PackedInput> packed_inputs() const override { return conv_packed_inputs(g_); }
  Halide::Func build_packing(size_t, const Halide::ImageParam &user) const override {
    return pack_conv_weight(g_, user);
  }

 protected:
  ConvGeometry g_;
};

}  // namespace ops
}  // namespace tlp
