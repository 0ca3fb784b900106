// conv2d_bias_relu: out = max(conv2d(data, weight) + bias[k], 0), bias per output channel.
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class Conv2dBiasRelu : public ConvOperator {
 public:
  explicit Conv2dBiasRelu(const Workload &w) : ConvOperator(w) {}

  std::vector<Shape> input_shapes() const override {
    return {conv_data_shape(g_), conv_weight_shape(g_), {g_.K}};
  }
  // 2 per multiply-add, plus the bias add and the max per output.
  double flops() const override {
    const double outputs = double(g_.N) * g_.K * g_.OH * g_.OW;
    return 2.0 * outputs * g_.C * g_.R * g_.S + 2.0 * outputs;
  }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam bias = make_input("bias", {g_.K});
    alg.inputs = {make_input("data", conv_data_shape(g_)), make_input("weight", conv_weight_shape(g_)), bias};
    Func conv = add_conv_stages(alg, g_);
    const int conv_index = int(alg.inputs.size() + alg.stages.size()) - 1;
    const ConvOutIndex o = conv_out_index(g_);
    Func out = named_func("out");
    out(o.vars) = max(conv(o.vars) + bias(o.channel), 0.0f);
    alg.stages.push_back({out, conv_out_shape(g_), {2, conv_index}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    std::vector<double> acc(g_.N * g_.K * g_.OH * g_.OW);
    conv_reference(g_, in[0], in[1], acc.data());
    const float *bias = in[2];
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t k = activation_channel(g_.layout, g_.K, g_.OH, g_.OW, int64_t(i));
      out[i] = float(std::max(acc[i] + bias[k], 0.0));
    }
  }
};

}  // namespace

std::unique_ptr<Operator> make_conv2d_bias_relu(const Workload &w) { return std::make_unique<Conv2dBiasRelu>(w); }

}  // namespace ops
}  // namespace tlp
