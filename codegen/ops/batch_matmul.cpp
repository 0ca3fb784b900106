// batch_matmul: per batch b, C[b][m][n] = sum_k A[b][m][k] * B[b][k][n], row-major.
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

class BatchMatmul : public Operator {
 public:
  explicit BatchMatmul(const Workload &w)
      : Operator(w), B_(w.get_int("B")), M_(w.get_int("M")), N_(w.get_int("N")), K_(w.get_int("K")) {}

  std::vector<Shape> input_shapes() const override { return {{K_, M_, B_}, {N_, K_, B_}}; }
  Shape output_shape() const override { return {N_, M_, B_}; }
  double flops() const override { return 2.0 * B_ * M_ * N_ * K_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam A = make_input("A", {K_, M_, B_}), B = make_input("B", {N_, K_, B_});
    Var n("n"), m("m"), b("b");
    RDom k = named_rdom({{"k", K_}});
    Func C = named_func("C");
    C(n, m, b) = 0.0f;
    C(n, m, b) += A(k, m, b) * B(n, k, b);
    alg.inputs = {A, B};
    alg.stages.push_back({C, {N_, M_, B_}, {0, 1}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    std::vector<double> row(N_);
    for (int64_t b = 0; b < B_; ++b) {
      const float *A = in[0] + b * M_ * K_, *Bm = in[1] + b * K_ * N_;
      float *C = out + b * M_ * N_;
      for (int64_t m = 0; m < M_; ++m) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int64_t k = 0; k < K_; ++k) {
          const double a = A[m * K_ + k];
          const float *brow = Bm + k * N_;
          for (int64_t n = 0; n < N_; ++n) row[n] += a * brow[n];
        }
        for (int64_t n = 0; n < N_; ++n) C[m * N_ + n] = float(row[n]);
      }
    }
  }

 private:
  int64_t B_, M_, N_, K_;
};

}  // namespace

std::unique_ptr<Operator> make_batch_matmul(const Workload &w) { return std::make_unique<BatchMatmul>(w); }

}  // namespace ops
}  // namespace tlp
