// layout_convert: the same activation (N, C, H, W) rewritten from one layout to
// another, e.g. NCHW -> NCHW16c. What a network pays where two operators disagree
// on a layout; tuned and measured like any operator. Its "FLOPs" are the elements
// moved, so its GFLOP/s read as giga-elements per second.
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {
namespace {

// The value at logical (n, c, h, w) of an ImageParam in layout `l`.
Halide::Expr read_logical(const Halide::ImageParam &in, const ActivationLayout &l, Halide::Expr n, Halide::Expr c,
                          Halide::Expr h, Halide::Expr w) {
  switch (l.kind) {
    case ActivationLayout::Kind::NCHW: return in(w, h, c, n);
    case ActivationLayout::Kind::NHWC: return in(c, w, h, n);
    case ActivationLayout::Kind::Blocked: {
      const int b = int(l.block);
      return in(c % b, w, h, c / b, n);
    }
  }
  return Halide::Expr();
}

class LayoutConvert : public Operator {
 public:
  explicit LayoutConvert(const Workload &w)
      : Operator(w),
        N_(w.get_int("N")), C_(w.get_int("C")), H_(w.get_int("H")), W_(w.get_int("W")),
        from_(parse_activation_layout(w.get_str("from"))), to_(parse_activation_layout(w.get_str("to"))) {
    if (from_.name() == to_.name())
      throw WorkloadError(w.kind + ": from and to are both " + from_.name() + ": there is nothing to convert");
    check_channel_blocks(w.kind, from_, {{"C", C_}}, conv_layout_names());
    check_channel_blocks(w.kind, to_, {{"C", C_}}, conv_layout_names());
  }

  std::vector<Shape> input_shapes() const override { return {activation_shape(from_, N_, C_, H_, W_)}; }
  Shape output_shape() const override { return activation_shape(to_, N_, C_, H_, W_); }
  double flops() const override { return double(N_) * C_ * H_ * W_; }

  HalideAlgorithm build() const override {
    using namespace Halide;
    HalideAlgorithm alg;
    ImageParam in = make_input("data", input_shapes()[0]);
    alg.inputs = {in};
    Var n("n"), c("c"), h("h"), w("w"), cb("cb");
    Func out = named_func("convert");
    switch (to_.kind) {
      case ActivationLayout::Kind::NCHW: out(w, h, c, n) = read_logical(in, from_, n, c, h, w); break;
      case ActivationLayout::Kind::NHWC: out(c, w, h, n) = read_logical(in, from_, n, c, h, w); break;
      case ActivationLayout::Kind::Blocked:
        out(cb, w, h, c, n) = read_logical(in, from_, n, c * int(to_.block) + cb, h, w);
        break;
    }
    alg.stages.push_back({out, output_shape(), {0}});
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    const std::vector<float> nchw = activation_to_nchw(from_, in[0], N_, C_, H_, W_);
    activation_from_nchw(to_, nchw.data(), out, N_, C_, H_, W_);
  }

 private:
  int64_t N_, C_, H_, W_;
  ActivationLayout from_, to_;
};

}  // namespace

std::unique_ptr<Operator> make_layout_convert(const Workload &w) { return std::make_unique<LayoutConvert>(w); }

}  // namespace ops
}  // namespace tlp
