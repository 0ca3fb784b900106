// depthwise_conv2d (channel multiplier 1, NCHW):
// out[n][c][oh][ow] = sum_{r,s} pad(data)[n][c][oh*st + r][ow*st + s] * w[c][r][s].
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
        OW_(window_out_size(w.kind, "W", W_, pad_, S_, 1, stride_)) {}

  std::vector<Shape> input_shapes() const override { return {{W_, H_, C_, N_}, {S_, R_, C_}}; }
  Shape output_shape() const override { return {OW_, OH_, C_, N_}; }
  double flops() const override { return 2.0 * N_ * C_ * OH_ * OW_ * R_ * S_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam data = make_input("data", {W_, H_, C_, N_}), weight = make_input("weight", {S_, R_, C_});
    alg.inputs = {data, weight};
    Func src = data;  // read directly when there is no padding
    int src_index = 0;
    if (pad_ > 0) {
      src = make_pad("pad", data, 0, 1, W_, H_, pad_, 0.0f);
      src_index = 2;
      alg.stages.push_back({src, {W_ + 2 * pad_, H_ + 2 * pad_, C_, N_}, {0}});
    }
    const int st = int(stride_);
    Var ow("ow"), oh("oh"), c("c"), n("n");
    RDom r = named_rdom({{"rx", S_}, {"ry", R_}});
    Func dw = named_func("depthwise");
    dw(ow, oh, c, n) = 0.0f;
    dw(ow, oh, c, n) += src(ow * st + r.x, oh * st + r.y, c, n) * weight(r.x, r.y, c);
    alg.stages.push_back({dw, {OW_, OH_, C_, N_}, {src_index, 1}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    std::vector<double> acc(OH_ * OW_);
    for (int64_t n = 0; n < N_; ++n)
      for (int64_t c = 0; c < C_; ++c) {
        std::fill(acc.begin(), acc.end(), 0.0);
        const float *plane = in[0] + (n * C_ + c) * H_ * W_;
        for (int64_t r = 0; r < R_; ++r)
          for (int64_t s = 0; s < S_; ++s) {
            const double w = in[1][(c * R_ + r) * S_ + s];
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

 private:
  int64_t N_, C_, H_, W_, R_, S_, stride_, pad_, OH_, OW_;
};

}  // namespace

std::unique_ptr<Operator> make_depthwise_conv2d(const Workload &w) { return std::make_unique<DepthwiseConv2d>(w); }

}  // namespace ops
}  // namespace tlp
