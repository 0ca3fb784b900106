// depthwise_conv2d (channel multiplier 1, NCHW):
// out[n][c][oh][ow] = sum_{r,s} pad(data)[n][c][oh*st + r][ow*st + s] * w[c][r][s].
// In a channel-blocked layout (NCHW<b>c) the weights are packed to C/b, R, S, b, so a
// vector of one channel block is the unit of work whatever the image's width; in
// NHWC they are packed to R, S, C (channels innermost, as the data).
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class DepthwiseConv2d : public Operator {
 public:
  explicit DepthwiseConv2d(const Workload &w)
      : Operator(w),
        N_(w.get_int("N")), C_(w.get_int("C")), H_(w.get_int("H")), W_(w.get_int("W")),
        R_(w.get_int("R")), S_(w.get_int("S")), stride_(w.get_int("stride")), pad_(w.get_int("pad")),
        OH_(window_out_size(w.kind, "H", H_, pad_, R_, 1, stride_)),
        OW_(window_out_size(w.kind, "W", W_, pad_, S_, 1, stride_)),
        layout_(parse_activation_layout(w.get_str("layout"))) {
    check_channel_blocks(w.kind, layout_, {{"C", C_}}, window_layout_names());
  }

  std::vector<Shape> input_shapes() const override {
    if (layout_.blocked()) return {data_shape(), {layout_.block, S_, R_, C_ / layout_.block}};
    if (nhwc()) return {data_shape(), {C_, S_, R_}};
    return {data_shape(), {S_, R_, C_}};
  }
  Shape output_shape() const override { return activation_shape(layout_, N_, C_, OH_, OW_); }
  std::vector<PackedInput> packed_inputs() const override {
    if (nhwc()) return {PackedInput{1, {S_, R_, C_}, "CRS", "RSC"}};
    if (!layout_.blocked()) return {};
    return {PackedInput{1, {S_, R_, C_}, "CRS", "Chw" + std::to_string(layout_.block) + "c"}};
  }
  Halide::Func build_packing(size_t, const Halide::ImageParam &crs) const override {
    using namespace Halide;
    Var cb("cb"), s("s"), r("r"), c("c");
    Func packed = named_func("pack_weight");
    if (nhwc()) packed(c, s, r) = crs(s, r, c);
    else packed(cb, s, r, c) = crs(s, r, c * int(layout_.block) + cb);
    return packed;
  }
  double flops() const override { return 2.0 * N_ * C_ * OH_ * OW_ * R_ * S_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam data = make_input("data", data_shape()), weight = make_input("weight", input_shapes()[1]);
    alg.inputs = {data, weight};
    Func src = data;  // read directly when there is no padding
    int src_index = 0;
    const int x_dim = layout_.kind == ActivationLayout::Kind::NCHW ? 0 : 1;
    if (pad_ > 0) {
      src = make_pad("pad", data, x_dim, x_dim + 1, W_, H_, pad_, 0.0f);
      src_index = 2;
      alg.stages.push_back({src, padded_shape(layout_, data_shape(), pad_), {0}});
    }
    const int st = int(stride_);
    if (layout_.blocked()) {
      Var cb("cb"), ow("ow"), oh("oh"), c("c"), n("n");
      RDom r = named_rdom({{"rx", S_}, {"ry", R_}});
      Func dw = named_func("depthwise");
      dw(cb, ow, oh, c, n) = 0.0f;
      dw(cb, ow, oh, c, n) += src(cb, ow * st + r.x, oh * st + r.y, c, n) * weight(cb, r.x, r.y, c);
      alg.stages.push_back({dw, output_shape(), {src_index, 1}});
      return alg;
    }
    if (nhwc()) {
      Var c("c"), ow("ow"), oh("oh"), n("n");
      RDom r = named_rdom({{"rx", S_}, {"ry", R_}});
      Func dw = named_func("depthwise");
      dw(c, ow, oh, n) = 0.0f;
      dw(c, ow, oh, n) += src(c, ow * st + r.x, oh * st + r.y, n) * weight(c, r.x, r.y);
      alg.stages.push_back({dw, output_shape(), {src_index, 1}});
      return alg;
    }
    Var ow("ow"), oh("oh"), c("c"), n("n");
    RDom r = named_rdom({{"rx", S_}, {"ry", R_}});
    Func dw = named_func("depthwise");
    dw(ow, oh, c, n) = 0.0f;
    dw(ow, oh, c, n) += src(ow * st + r.x, oh * st + r.y, c, n) * weight(r.x, r.y, c);
    alg.stages.push_back({dw, {OW_, OH_, C_, N_}, {src_index, 1}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    if (layout_.kind == ActivationLayout::Kind::NCHW) return reference_nchw(in[0], in[1], out);
    const std::vector<float> nchw = activation_to_nchw(layout_, in[0], N_, C_, H_, W_);
    std::vector<float> out_nchw(size_t(N_ * C_ * OH_ * OW_));
    reference_nchw(nchw.data(), in[1], out_nchw.data());
    activation_from_nchw(layout_, out_nchw.data(), out, N_, C_, OH_, OW_);
  }

 private:
  Shape data_shape() const { return activation_shape(layout_, N_, C_, H_, W_); }
  bool nhwc() const { return layout_.kind == ActivationLayout::Kind::NHWC; }

  void reference_nchw(const float *data, const float *weight, float *out) const {
    std::vector<double> acc(OH_ * OW_);
    for (int64_t n = 0; n < N_; ++n)
      for (int64_t c = 0; c < C_; ++c) {
        std::fill(acc.begin(), acc.end(), 0.0);
        const float *plane = data + (n * C_ + c) * H_ * W_;
        for (int64_t r = 0; r < R_; ++r)
          for (int64_t s = 0; s < S_; ++s) {
            const double w = weight[(c * R_ + r) * S_ + s];
            for (int64_t oh = 0; oh < OH_; ++oh) {
              const int64_t ih = oh * stride_ + r - pad_;
              if (ih < 0 || ih >= H_) continue;
              for (int64_t ow = 0; ow < OW_; ++ow) {
                const int64_t iw = ow * stride_ + s - pad_;
                if (iw >= 0 && iw < W_) acc[oh * OW_ + ow] += w * plane[ih * W_ + iw];
              }
            }
          }
        float *o = out + (n * C_ + c) * OH_ * OW_;
        for (int64_t i = 0; i < OH_ * OW_; ++i) o[i] = float(acc[i]);
      }
  }

  int64_t N_, C_, H_, W_, R_, S_, stride_, pad_, OH_, OW_;
  ActivationLayout layout_;
};

}  // namespace

std::unique_ptr<Operator> make_depthwise_conv2d(const Workload &w) { return std::make_unique<DepthwiseConv2d>(w); }

}  // namespace ops
}  // namespace tlp
