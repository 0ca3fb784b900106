#include "codegen/ops/matrix_b_layout.h"

#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {

std::string MatrixBLayout::name() const { return packed() ? "NK" + std::to_string(block) + "n" : "KN"; }

std::vector<std::string> matrix_b_layout_names() {
  std::vector<std::string> names = {"KN"};
  for (int64_t b : channel_blocks()) names.push_back(MatrixBLayout{b}.name());
  return names;
}

MatrixBLayout parse_matrix_b_layout(const std::string &kind, const std::string &name, int64_t N) {
  MatrixBLayout l;
  if (name != "KN") {
    for (int64_t b : channel_blocks())
      if (name == MatrixBLayout{b}.name()) l.block = b;
    if (!l.packed()) throw WorkloadError("unknown layout '" + name + "'");  // the parser lists the choices first
  }
  if (!l.packed() || N % l.block == 0) return l;
  std::string fitting;
  for (int64_t b : channel_blocks())
    if (N % b == 0) fitting += ", " + MatrixBLayout{b}.name();
  throw WorkloadError(kind + ": layout " + name + " packs B in panels of " + std::to_string(l.block) +
                      " columns, which must divide N=" + std::to_string(N) + "; layouts that fit: KN" + fitting);
}

Shape matrix_b_shape(const MatrixBLayout &l, int64_t K, int64_t N) {
  return l.packed() ? Shape{l.block, K, N / l.block} : Shape{N, K};
}

Halide::Expr read_matrix_b(const MatrixBLayout &l, const Halide::ImageParam &B, const Halide::Expr &n,
                           const Halide::Expr &k) {
  if (!l.packed()) return B(n, k);
  const int b = int(l.block);
  return B(n % b, k, n / b);
}

std::vector<PackedInput> matrix_b_packed_inputs(const MatrixBLayout &l, int input, int64_t K, int64_t N) {
  if (!l.packed()) return {};
  return {PackedInput{input, {N, K}, "KN", l.name()}};
}

Halide::Func pack_matrix_b(const MatrixBLayout &l, const Halide::ImageParam &kn) {
  using namespace Halide;
  Var ni("ni"), k("k"), no("no");
  Func packed = named_func("pack_b");
  packed(ni, k, no) = kn(no * int(l.block) + ni, k);
  return packed;
}

MatrixOperator::MatrixOperator(const Workload &w)
    : Operator(w),
      M_(w.get_int("M")),
      N_(w.get_int("N")),
      K_(w.get_int("K")),
      b_layout_(parse_matrix_b_layout(w.kind, w.get_str("layout"), N_)) {}

}  // namespace ops
}  // namespace tlp
