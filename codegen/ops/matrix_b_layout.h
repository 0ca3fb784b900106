// How a matrix operator whose B is a weight (matmul, dense_bias_relu) reads it:
// plain row-major "KN", as the user holds it, or packed "NK<b>n": panels of b
// columns, each panel K rows of b contiguous floats. A register tile of b output
// columns then streams its panel front to back instead of striding by N floats
// per k (the layout oneDNN's and Ansor's packed dense weights take). The user
// still hands B over as K x N; a packing routine reorders it once, at load time.
// Private to codegen/ops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "Halide.h"
#include "codegen/operator.h"

namespace tlp {
namespace ops {

struct MatrixBLayout {
  int64_t block = 0;  // columns per panel; 0: plain KN

  bool packed() const { return block > 0; }
  std::string name() const;  // "KN", "NK16n"
};

// "KN", then "NK<b>n" for the library's channel blocks (codegen/ops/activation_layout.h).
std::vector<std::string> matrix_b_layout_names();

// Parses `name`; refuses a panel that does not divide N, naming the layouts that do.
MatrixBLayout parse_matrix_b_layout(const std::string &kind, const std::string &name, int64_t N);

// B as the kernel reads it, Halide order: plain {N, K}, packed {b, K, N/b}.
Shape matrix_b_shape(const MatrixBLayout &l, int64_t K, int64_t N);

// B[k][n] in the kernel's B.
Halide::Expr read_matrix_b(const MatrixBLayout &l, const Halide::ImageParam &B, const Halide::Expr &n,
                           const Halide::Expr &k);

// The packed input (kernel input `input`) of a packed layout; none for KN.
std::vector<PackedInput> matrix_b_packed_inputs(const MatrixBLayout &l, int input, int64_t K, int64_t N);

// The packing: the kernel's B from the user's K x N matrix.
Halide::Func pack_matrix_b(const MatrixBLayout &l, const Halide::ImageParam &kn);

// What matmul and dense_bias_relu share: M, N, K, and B (kernel input 1) packed
// when its layout is.
class MatrixOperator : public Operator {
 public:
  explicit MatrixOperator(const Workload &w);
  std::vector<PackedInput> packed_inputs() const override { return matrix_b_packed_inputs(b_layout_, 1, K_, N_); }
  Halide::Func build_packing(size_t, const Halide::ImageParam &user) const override {
    return pack_matrix_b(b_layout_, user);
  }

 protected:
  int64_t M_, N_, K_;
  MatrixBLayout b_layout_;
};

}  // namespace ops
}  // namespace tlp
