// softmax over the last axis: out[m][n] = exp(x[m][n] - max_n x[m]) / sum_n exp(x[m][n] - max_n x[m]).
#include <cmath>

#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class Softmax : public Operator {
 public:
  explicit Softmax(const Workload &w) : Operator(w), M_(w.get_int("M")), N_(w.get_int("N")) {}

  std::vector<Shape> input_shapes() const override { return {{N_, M_}}; }
  Shape output_shape() const override { return {N_, M_}; }
  // Per element: 1 for the max, 3 for the sum (sub, exp, add), 3 for the output (sub, exp, div).
  double flops() const override { return 7.0 * M_ * N_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam x = make_input("x", {N_, M_});
    Var n("n"), m("m");
    RDom rn = named_rdom({{"rn", N_}});
    Func rowmax = named_func("rowmax");
    Func expsum = named_func("expsum");
    Func out = named_func("out");
    rowmax(m) = Float(32).min();
    rowmax(m) = max(rowmax(m), x(rn, m));
    expsum(m) = 0.0f;
    expsum(m) += exp(x(rn, m) - rowmax(m));
    out(n, m) = exp(x(n, m) - rowmax(m)) / expsum(m);
    alg.inputs = {x};
    alg.stages.push_back({rowmax, {M_}, {0}});      // DAG index 1
    alg.stages.push_back({expsum, {M_}, {0, 1}});   // 2
    alg.stages.push_back({out, {N_, M_}, {0, 1, 2}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    for (int64_t m = 0; m < M_; ++m) {
      const float *x = in[0] + m * N_;
      float *o = out + m * N_;
      double mx = x[0], sum = 0.0;
      for (int64_t n = 1; n < N_; ++n) mx = std::max(mx, double(x[n]));
      for (int64_t n = 0; n < N_; ++n) sum += std::exp(x[n] - mx);
      for (int64_t n = 0; n < N_; ++n) o[n] = float(std::exp(x[n] - mx) / sum);
    }
  }

 private:
  int64_t M_, N_;
};

}  // namespace

std::unique_ptr<Operator> make_softmax(const Workload &w) { return std::make_unique<Softmax>(w); }

}  // namespace ops
}  // namespace tlp
