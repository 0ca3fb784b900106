// layernorm over the last axis: out[m][n] = (x[m][n] - mean[m]) / sqrt(var[m] + 1e-5) * gamma[n] + beta[n].
#include <cmath>

#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

constexpr float kEps = 1e-5f;

class Layernorm : public Operator {
 public:
  explicit Layernorm(const Workload &w) : Operator(w), M_(w.get_int("M")), N_(w.get_int("N")) {}

  std::vector<Shape> input_shapes() const override { return {{N_, M_}, {N_}, {N_}}; }
  Shape output_shape() const override { return {N_, M_}; }
  // Per element: 1 for the mean, 3 for the variance (sub, mul, add), 4 for the output (sub, div, mul, add).
  double flops() const override { return 8.0 * M_ * N_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam x = make_input("x", {N_, M_}), gamma = make_input("gamma", {N_}), beta = make_input("beta", {N_});
    Var n("n"), m("m");
    RDom rn = named_rdom({{"rn", N_}});
    const float inv_n = float(1.0 / double(N_));
    // Each term is scaled by 1/N so that every reduction has a single update.
    Func mean = named_func("mean");
    Func var = named_func("var");
    Func out = named_func("out");
    mean(m) = 0.0f;
    mean(m) += x(rn, m) * inv_n;
    Expr d = x(rn, m) - mean(m);
    var(m) = 0.0f;
    var(m) += d * d * inv_n;
    out(n, m) = (x(n, m) - mean(m)) / sqrt(var(m) + kEps) * gamma(n) + beta(n);
    alg.inputs = {x, gamma, beta};
    alg.stages.push_back({mean, {M_}, {0}});   // DAG index 3
    alg.stages.push_back({var, {M_}, {0, 3}});  // 4
    alg.stages.push_back({out, {N_, M_}, {0, 1, 2, 3, 4}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    const float *gamma = in[1], *beta = in[2];
    for (int64_t m = 0; m < M_; ++m) {
      const float *x = in[0] + m * N_;
      double mean = 0.0, var = 0.0;
      for (int64_t n = 0; n < N_; ++n) mean += x[n];
      mean /= double(N_);
      for (int64_t n = 0; n < N_; ++n) var += (x[n] - mean) * (x[n] - mean);
      var /= double(N_);
      const double inv = 1.0 / std::sqrt(var + kEps);
      for (int64_t n = 0; n < N_; ++n) out[m * N_ + n] = float((x[n] - mean) * inv * gamma[n] + beta[n]);
    }
  }

 private:
  int64_t M_, N_;
};

}  // namespace

std::unique_ptr<Operator> make_layernorm(const Workload &w) { return std::make_unique<Layernorm>(w); }

}  // namespace ops
}  // namespace tlp
