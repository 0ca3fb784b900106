// group_conv2d: a convolution whose C input and K output channels split into G
// groups, each output channel reading only its group's C/G inputs (ResNeXt,
// ShuffleNet). NCHW data, weights K x C/G x R x S as ONNX and PyTorch hold them.
// G = 1 is conv2d; G = C = K is depthwise_conv2d, which has its own layouts.
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class GroupConv2d : public Operator {
 public:
  explicit GroupConv2d(const Workload &w)
      : Operator(w),
        N_(w.get_int("N")), C_(w.get_int("C")), H_(w.get_int("H")), W_(w.get_int("W")), K_(w.get_int("K")),
        R_(w.get_int("R")), S_(w.get_int("S")), stride_(w.get_int("stride")), pad_(w.get_int("pad")),
        G_(w.get_int("groups")) {
    if (C_ % G_ != 0 || K_ % G_ != 0)
      throw WorkloadError(w.kind + ": groups=" + std::to_string(G_) + " must divide C=" + std::to_string(C_) +
                          " and K=" + std::to_string(K_));
    OH_ = window_out_size(w.kind, "H", H_, pad_, R_, 1, stride_);
    OW_ = window_out_size(w.kind, "W", W_, pad_, S_, 1, stride_);
  }

  std::vector<Shape> input_shapes() const override { return {{W_, H_, C_, N_}, {S_, R_, C_ / G_, K_}}; }
  Shape output_shape() const override { return {OW_, OH_, K_, N_}; }
  double flops() const override { return 2.0 * N_ * K_ * OH_ * OW_ * (C_ / G_) * R_ * S_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam data = make_input("data", {W_, H_, C_, N_}), weight = make_input("weight", {S_, R_, C_ / G_, K_});
    alg.inputs = {data, weight};
    int src_index = 0;
    Func padded;
    if (pad_ > 0) {
      padded = make_pad("pad", data, 0, 1, W_, H_, pad_, 0.0f);
      src_index = int(alg.inputs.size() + alg.stages.size());
      alg.stages.push_back({padded, {W_ + 2 * pad_, H_ + 2 * pad_, C_, N_}, {0}});
    }
    const int st = int(stride_), cg = int(C_ / G_), kg = int(K_ / G_);
    Var ow("ow"), oh("oh"), k("k"), n("n");
    RDom r = named_rdom({{"rx", S_}, {"ry", R_}, {"rc", C_ / G_}});
    RVar rx = r[0], ry = r[1], rc = r[2];
    const Expr c = (k / kg) * cg + rc;
    const Expr x = ow * st + rx, y = oh * st + ry;
    Func conv = named_func("conv");
    conv(ow, oh, k, n) = 0.0f;
    conv(ow, oh, k, n) += (pad_ > 0 ? Expr(padded(x, y, c, n)) : Expr(data(x, y, c, n))) * weight(rx, ry, rc, k);
    alg.stages.push_back({conv, output_shape(), {src_index, 1}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    const float *data = in[0], *weight = in[1];
    const int64_t cg = C_ / G_, kg = K_ / G_;
    for (int64_t n = 0; n < N_; ++n)
      for (int64_t k = 0; k < K_; ++k)
        for (int64_t oh = 0; oh < OH_; ++oh)
          for (int64_t ow = 0; ow < OW_; ++ow) {
            double acc = 0;
            for (int64_t rc = 0; rc < cg; ++rc) {
              const int64_t c = (k / kg) * cg + rc;
              for (int64_t ry = 0; ry < R_; ++ry) {
                const int64_t ih = oh * stride_ + ry - pad_;
                if (ih < 0 || ih >= H_) continue;
                for (int64_t rx = 0; rx < S_; ++rx) {
                  const int64_t iw = ow * stride_ + rx - pad_;
                  if (iw < 0 || iw >= W_) continue;
                  acc += double(data[((n * C_ + c) * H_ + ih) * W_ + iw]) * weight[((k * cg + rc) * R_ + ry) * S_ + rx];
                }
              }
            }
            out[((n * K_ + k) * OH_ + oh) * OW_ + ow] = float(acc);
          }
  }

 private:
  int64_t N_, C_, H_, W_, K_, R_, S_, stride_, pad_, G_, OH_ = 0, OW_ = 0;
};

}  // namespace

std::unique_ptr<Operator> make_group_conv2d(const Workload &w) { return std::make_unique<GroupConv2d>(w); }

}  // namespace ops
}  // namespace tlp
