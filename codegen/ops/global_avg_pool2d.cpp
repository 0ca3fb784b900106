// global_avg_pool2d (NCHW in, N x C out): out[n][c] = mean over h, w of data[n][c][h][w],
// the pooling before a CNN's classifier.
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class GlobalAvgPool2d : public Operator {
 public:
  explicit GlobalAvgPool2d(const Workload &w)
      : Operator(w), N_(w.get_int("N")), C_(w.get_int("C")), H_(w.get_int("H")), W_(w.get_int("W")) {}

  std::vector<Shape> input_shapes() const override { return {{W_, H_, C_, N_}}; }
  Shape output_shape() const override { return {C_, N_}; }
  double flops() const override { return double(N_) * C_ * (H_ * W_ + 1); }  // the adds, then one divide

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam data = make_input("data", input_shapes()[0]);
    Var c("c"), n("n");
    RDom r = named_rdom({{"rx", W_}, {"ry", H_}});
    Func sum = named_func("sum");
    Func mean = named_func("mean");
    sum(c, n) = 0.0f;
    sum(c, n) += data(r.x, r.y, c, n);
    mean(c, n) = sum(c, n) * (1.0f / float(H_ * W_));
    alg.inputs = {data};
    alg.stages.push_back({sum, {C_, N_}, {0}});   // DAG index 1
    alg.stages.push_back({mean, {C_, N_}, {1}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    for (int64_t nc = 0; nc < N_ * C_; ++nc) {
      const float *plane = in[0] + nc * H_ * W_;
      double s = 0;
      for (int64_t i = 0; i < H_ * W_; ++i) s += plane[i];
      out[nc] = float(s / double(H_ * W_));
    }
  }

 private:
  int64_t N_, C_, H_, W_;
};

}  // namespace

std::unique_ptr<Operator> make_global_avg_pool2d(const Workload &w) { return std::make_unique<GlobalAvgPool2d>(w); }

}  // namespace ops
}  // namespace tlp
