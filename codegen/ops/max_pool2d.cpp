// max_pool2d (NCHW): out[n][c][oh][ow] = max_{r,s} pad(data)[n][c][oh*st + r][ow*st + s],
// where padding is -infinity, so it never wins.
#include <limits>

#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class MaxPool2d : public Operator {
 public:
  explicit MaxPool2d(const Workload &w)
      : Operator(w),
        N_(w.get_int("N")), C_(w.get_int("C")), H_(w.get_int("H")), W_(w.get_int("W")),
        R_(w.get_int("R")), S_(w.get_int("S")), stride_(w.get_int("stride")), pad_(w.get_int("pad")),
        OH_(window_out_size(w.kind, "H", H_, pad_, R_, 1, stride_)),
        OW_(window_out_size(w.kind, "W", W_, pad_, S_, 1, stride_)),
        layout_(parse_activation_layout(w.get_str("layout"))) {
    check_channel_blocks(w.kind, layout_, {{"C", C_}}, window_layout_names());
    // As in PyTorch: a window must never lie wholly in the padding (its max would be -inf).
    if (2 * pad_ > R_ || 2 * pad_ > S_)
      throw WorkloadError(w.kind + ": pad (" + std::to_string(pad_) + ") must be at most half the window (R=" +
                          std::to_string(R_) + ", S=" + std::to_string(S_) + "); use a smaller pad");
  }

  std::vector<Shape> input_shapes() const override { return {activation_shape(layout_, N_, C_, H_, W_)}; }
  Shape output_shape() const override { return activation_shape(layout_, N_, C_, OH_, OW_); }
  double flops() const override { return double(N_) * C_ * OH_ * OW_ * R_ * S_; }  // one max per window element

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam data = make_input("data", input_shapes()[0]);
    alg.inputs = {data};
    Func src = data;  // read directly when there is no padding
    int src_index = 0;
    const int x_dim = layout_.kind == ActivationLayout::Kind::NCHW ? 0 : 1;
    if (pad_ > 0) {
      src = make_pad("pad", data, x_dim, x_dim + 1, W_, H_, pad_, Float(32).min());
      src_index = 1;
      alg.stages.push_back({src, padded_shape(layout_, input_shapes()[0], pad_), {0}});
    }
    const int st = int(stride_);
    if (layout_.blocked()) {
      Var cb("cb"), ow("ow"), oh("oh"), c("c"), n("n");
      RDom r = named_rdom({{"rx", S_}, {"ry", R_}});
      Func pool = named_func("pool");
      pool(cb, ow, oh, c, n) = Float(32).min();
      pool(cb, ow, oh, c, n) = max(pool(cb, ow, oh, c, n), src(cb, ow * st + r.x, oh * st + r.y, c, n));
      alg.stages.push_back({pool, output_shape(), {src_index}});
      return alg;
    }
    if (layout_.kind == ActivationLayout::Kind::NHWC) {
      Var c("c"), ow("ow"), oh("oh"), n("n");
      RDom r = named_rdom({{"rx", S_}, {"ry", R_}});
      Func pool = named_func("pool");
      pool(c, ow, oh, n) = Float(32).min();
      pool(c, ow, oh, n) = max(pool(c, ow, oh, n), src(c, ow * st + r.x, oh * st + r.y, n));
      alg.stages.push_back({pool, output_shape(), {src_index}});
      return alg;
    }
    Var ow("ow"), oh("oh"), c("c"), n("n");
    RDom r = named_rdom({{"rx", S_}, {"ry", R_}});
    Func pool = named_func("pool");
    pool(ow, oh, c, n) = Float(32).min();
    pool(ow, oh, c, n) = max(pool(ow, oh, c, n), src(ow * st + r.x, oh * st + r.y, c, n));
    alg.stages.push_back({pool, {OW_, OH_, C_, N_}, {src_index}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    if (layout_.kind == ActivationLayout::Kind::NCHW) return reference_nchw(in[0], out);
    const std::vector<float> nchw = activation_to_nchw(layout_, in[0], N_, C_, H_, W_);
    std::vector<float> out_nchw(size_t(N_ * C_ * OH_ * OW_));
    reference_nchw(nchw.data(), out_nchw.data());
    activation_from_nchw(layout_, out_nchw.data(), out, N_, C_, OH_, OW_);
  }

 private:
  void reference_nchw(const float *data, float *out) const {
    for (int64_t nc = 0; nc < N_ * C_; ++nc) {
      const float *plane = data + nc * H_ * W_;
      float *o = out + nc * OH_ * OW_;
      for (int64_t oh = 0; oh < OH_; ++oh)
        for (int64_t ow = 0; ow < OW_; ++ow) {
          float best = -std::numeric_limits<float>::infinity();
          for (int64_t r = 0; r < R_; ++r) {
            const int64_t ih = oh * stride_ + r - pad_;
            if (ih < 0 || ih >= H_) continue;
            for (int64_t s = 0; s < S_; ++s) {
              const int64_t iw = ow * stride_ + s - pad_;
              if (iw >= 0 && iw < W_) best = std::max(best, plane[ih * W_ + iw]);
            }
          }
          o[oh * OW_ + ow] = best;
        }
    }
  }

  int64_t N_, C_, H_, W_, R_, S_, stride_, pad_, OH_, OW_;
  ActivationLayout layout_;
};

}  // namespace

std::unique_ptr<Operator> make_max_pool2d(const Workload &w) { return std::make_unique<MaxPool2d>(w); }

}  // namespace ops
}  // namespace tlp
