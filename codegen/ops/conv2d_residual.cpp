// conv2d_residual: out = conv2d(data, weight) + bias[k] + residual, then max(., 0)
// when relu=1. The residual has the output's shape and layout: the skip connection
// of a residual block, added where the convolution writes its output instead of in a
// separate pass over memory (an elementwise epilogue, as oneDNN's sum post-op).
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class Conv2dResidual : public ConvOperator {
 public:
  explicit Conv2dResidual(const Workload &w) : ConvOperator(w), relu_(w.get_int("relu")) {
    if (relu_ > 1) throw WorkloadError(w.kind + ": relu must be 0 or 1");
  }

  std::vector<Shape> input_shapes() const override {
    return {conv_data_shape(g_), conv_weight_shape(g_), {g_.K}, conv_out_shape(g_)};
  }
  // 2 per multiply-add, plus the bias and residual adds (and the max) per output.
  double flops() const override {
    const double outputs = double(g_.N) * g_.K * g_.OH * g_.OW;
    return 2.0 * outputs * g_.C * g_.R * g_.S + (2.0 + double(relu_)) * outputs;
  }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam bias = make_input("bias", {g_.K}), residual = make_input("residual", conv_out_shape(g_));
    alg.inputs = {make_input("data", conv_data_shape(g_)), make_input("weight", conv_weight_shape(g_)), bias, residual};
    Func conv = add_conv_stages(alg, g_);
    const int conv_index = int(alg.inputs.size() + alg.stages.size()) - 1;
    const ConvOutIndex o = conv_out_index(g_);
    Func out = named_func("out");
    const Expr sum = conv(o.vars) + bias(o.channel) + residual(o.vars);
    out(o.vars) = relu_ ? max(sum, 0.0f) : sum;
    alg.stages.push_back({out, conv_out_shape(g_), {2, 3, conv_index}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    std::vector<double> acc(g_.N * g_.K * g_.OH * g_.OW);
    conv_reference(g_, in[0], in[1], acc.data());
    const float *bias = in[2], *residual = in[3];
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t k = activation_channel(g_.layout, g_.K, g_.OH, g_.OW, int64_t(i));
      const double v = acc[i] + bias[k] + residual[i];
      out[i] = float(relu_ ? std::max(v, 0.0) : v);
    }
  }

 private:
  int64_t relu_;
};

}  // namespace

std::unique_ptr<Operator> make_conv2d_residual(const Workload &w) { return std::make_unique<Conv2dResidual>(w); }

}  // namespace ops
}  // namespace tlp
