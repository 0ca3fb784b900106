// matmul: C[m][n] = sum_k A[m][k] * B[k][n], row-major; B plain (KN) or packed
// in panels of columns (NK<b>n, codegen/ops/matrix_b_layout.h).
#include "codegen/ops/matrix_b_layout.h"
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class Matmul : public MatrixOperator {
 public:
  explicit Matmul(const Workload &w) : MatrixOperator(w) {}

  std::vector<Shape> input_shapes() const override { return {{K_, M_}, matrix_b_shape(b_layout_, K_, N_)}; }
  Shape output_shape() const override { return {N_, M_}; }
  double flops() const override { return 2.0 * M_ * N_ * K_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam A = make_input("A", {K_, M_}), B = make_input("B", matrix_b_shape(b_layout_, K_, N_));
    Var n("n"), m("m");
    RDom k = named_rdom({{"k", K_}});
    Func C = named_func("C");
    C(n, m) = 0.0f;
    C(n, m) += A(k, m) * read_matrix_b(b_layout_, B, n, k);
    alg.inputs = {A, B};
    alg.stages.push_back({C, {N_, M_}, {0, 1}});
    return alg;
  }

  // B comes as the user holds it (K x N), whatever the kernel's layout.
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
};

}  // namespace

std::unique_ptr<Operator> make_matmul(const Workload &w) { return std::make_unique<Matmul>(w); }

}  // namespace ops
}  // namespace tlp
