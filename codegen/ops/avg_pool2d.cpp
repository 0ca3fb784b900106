// avg_pool2d (NCHW): out[n][c][oh][ow] = the mean of the window over pad(data), where
// padding counts as zeros in the divisor when count_pad=1 (PyTorch's default) and is
// left out of it when count_pad=0 (ONNX's default).
#include <algorithm>

#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class AvgPool2d : public Operator {
 public:
  explicit AvgPool2d(const Workload &w)
      : Operator(w),
        N_(w.get_int("N")), C_(w.get_int("C")), H_(w.get_int("H")), W_(w.get_int("W")),
        R_(w.get_int("R")), S_(w.get_int("S")), stride_(w.get_int("stride")), pad_(w.get_int("pad")),
        count_pad_(w.get_int("count_pad")),
        OH_(window_out_size(w.kind, "H", H_, pad_, R_, 1, stride_)),
        OW_(window_out_size(w.kind, "W", W_, pad_, S_, 1, stride_)) {
    if (count_pad_ > 1) throw WorkloadError(w.kind + ": count_pad must be 0 or 1");
    if (2 * pad_ > R_ || 2 * pad_ > S_)
      throw WorkloadError(w.kind + ": pad (" + std::to_string(pad_) + ") must be at most half the window (R=" +
                          std::to_string(R_) + ", S=" + std::to_string(S_) + "); use a smaller pad");
  }

  std::vector<Shape> input_shapes() const override { return {{W_, H_, C_, N_}}; }
  Shape output_shape() const override { return {OW_, OH_, C_, N_}; }
  double flops() const override { return double(N_) * C_ * OH_ * OW_ * (R_ * S_ + 1); }  // adds, one multiply

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam data = make_input("data", input_shapes()[0]);
    alg.inputs = {data};
    Func src = data;
    int src_index = 0;
    if (pad_ > 0) {
      src = make_pad("pad", data, 0, 1, W_, H_, pad_, 0.0f);
      src_index = 1;
      alg.stages.push_back({src, {W_ + 2 * pad_, H_ + 2 * pad_, C_, N_}, {0}});
    }
    const int st = int(stride_), p = int(pad_);
    Var ow("ow"), oh("oh"), c("c"), n("n");
    RDom r = named_rdom({{"rx", S_}, {"ry", R_}});
    Func sum = named_func("sum");
    Func mean = named_func("mean");
    sum(ow, oh, c, n) = 0.0f;
    sum(ow, oh, c, n) += src(ow * st + r.x, oh * st + r.y, c, n);
    Expr window = float(R_ * S_);
    if (!count_pad_) {  // the window's points inside the input
      Expr h = min(oh * st - p + int(R_), int(H_)) - max(oh * st - p, 0);
      Expr w = min(ow * st - p + int(S_), int(W_)) - max(ow * st - p, 0);
      window = cast<float>(h * w);
    }
    mean(ow, oh, c, n) = sum(ow, oh, c, n) / window;
    alg.stages.push_back({sum, output_shape(), {src_index}});
    alg.stages.push_back({mean, output_shape(), {src_index + 1}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    for (int64_t nc = 0; nc < N_ * C_; ++nc) {
      const float *plane = in[0] + nc * H_ * W_;
      float *o = out + nc * OH_ * OW_;
      for (int64_t oh = 0; oh < OH_; ++oh)
        for (int64_t ow = 0; ow < OW_; ++ow) {
          double s = 0;
          int64_t inside = 0;
          for (int64_t r = 0; r < R_; ++r) {
            const int64_t ih = oh * stride_ + r - pad_;
            for (int64_t q = 0; q < S_; ++q) {
              const int64_t iw = ow * stride_ + q - pad_;
              if (ih < 0 || ih >= H_ || iw < 0 || iw >= W_) continue;
              s += plane[ih * W_ + iw];
              ++inside;
            }
          }
          o[oh * OW_ + ow] = float(s / double(count_pad_ ? R_ * S_ : inside));
        }
    }
  }

 private:
  int64_t N_, C_, H_, W_, R_, S_, stride_, pad_, count_pad_, OH_, OW_;
};

}  // namespace

std::unique_ptr<Operator> make_avg_pool2d(const Workload &w) { return std::make_unique<AvgPool2d>(w); }

}  // namespace ops
}  // namespace tlp
