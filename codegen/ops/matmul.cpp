// matmul: C[m][n] = sum_k A[m][k] * B[k][n], row-major.
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class Matmul : public Operator {
 public:
  explicit Matmul(const Workload &w)
      : Operator(w), M_(w.get_int("M")), N_(w.get_int("N")), K_(w.get_int("K")) {}

  std::vector<Shape> input_shapes() const override { return {{K_, M_}, {N_, K_}}; }
  Shape output_shape() const override { return {N_, M_}; }
  double flops() const override { return 2.0 * M_ * N_ * K_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam A = make_input("A", {K_, M_}), B = make_input("B", {N_, K_});
    Var n("n"), m("m");
    RDom k = named_rdom({{"k", K_}});
    Func C = named_func("C");
    C(n, m) = 0.0f;
    C(n, m) += A(k, m) * B(n, k);
    alg.inputs = {A, B};
    alg.stages.push_back({C, {N_, M_}, {0, 1}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    const float *A = in[0], *B = in[1];
    std::vector<double> row(N_);
    for (int64_t m = 0; m < M_; ++m) {  // m, k, n: the inner loop streams rows of B
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t k = 0; k < K_; ++k) {
        const double a = A[m * K_ + k];
        const float *b = B + k * N_;
        for (int64_t n = 0; n < N_; ++n) row[n] += a * b[n];
      }
      for (int64_t n = 0; n < N_; ++n) out[m * N_ + n] = float(row[n]);
    }
  }

 private:
  int64_t M_, N_, K_;
};

}  // namespace

std::unique_ptr<Operator> make_matmul(const Workload &w) { return std::make_unique<Matmul>(w); }

}  // namespace ops
}  // namespace tlp
