// dense_bias_relu: out[m][n] = max(sum_k A[m][k] * B[k][n] + bias[n], 0); B plain (KN)
// or packed in panels of columns (NK<b>n, codegen/ops/matrix_b_layout.h).
#include "codegen/ops/matrix_b_layout.h"
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class DenseBiasRelu : public MatrixOperator {
 public:
  explicit DenseBiasRelu(const Workload &w) : MatrixOperator(w) {}

  std::vector<Shape> input_shapes() const override { return {{K_, M_}, matrix_b_shape(b_layout_, K_, N_), {N_}}; }
  Shape output_shape() const override { return {N_, M_}; }
  // 2 per multiply-add, plus the bias add and the max per output.
  double flops() const override { return 2.0 * M_ * N_ * K_ + 2.0 * M_ * N_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam A = make_input("A", {K_, M_}), B = make_input("B", matrix_b_shape(b_layout_, K_, N_)), bias = make_input("bias", {N_});
    Var n("n"), m("m");
    RDom k = named_rdom({{"k", K_}});
    Func dense = named_func("dense");
    Func out = named_func("out");
    dense(n, m) = 0.0f;
    dense(n, m) += A(k, m) * read_matrix_b(b_layout_, B, n, k);
    out(n, m) = max(dense(n, m) + bias(n), 0.0f);
    alg.inputs = {A, B, bias};
    alg.stages.push_back({dense, {N_, M_}, {0, 1}});  // DAG index 3
    alg.stages.push_back({out, {N_, M_}, {2, 3}});
    return alg;
  }

  // B comes as the user holds it (K x N), whatever the kernel's layout.
  void reference(const std::vector<const float *> &in, float *out) const override {
    const float *A = in[0], *B = in[1], *bias = in[2];
    std::vector<double> row(N_);
    for (int64_t m = 0; m < M_; ++m) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t k = 0; k < K_; ++k) {
        const double a = A[m * K_ + k];
        const float *b = B + k * N_;
        for (int64_t n = 0; n < N_; ++n) row[n] += a * b[n];
      }
      for (int64_t n = 0; n < N_; ++n) out[m * N_ + n] = float(std::max(row[n] + bias[n], 0.0));
    }
  }
};

}  // namespace

std::unique_ptr<Operator> make_dense_bias_relu(const Workload &w) { return std::make_unique<DenseBiasRelu>(w); }

}  // namespace ops
}  // namespace tlp
