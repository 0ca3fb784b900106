// conv2d: out[n][k][oh][ow] = sum_{c,r,s} pad(data)[n][c][oh*st + r*dil][ow*st + s*dil] * w[k][c][r][s]
// (NCHW data, KCRS weights), or the same in NHWC data with RSCK weights, or in
// channel-blocked data (NCHW<b>c, output likewise) with weights packed OIhw<b>i<b>o,
// or, for a 1x1 convolution, NCHW or NCHW<b>c read as a matrix product per image
// (NCHWgemm, NCHW<b>cgemm).
// Also the convolution shared with conv2d_bias_relu (declared in op_helpers.h).
#include <functional>

#include "codegen/layout_choice.h"
#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {

std::vector<std::string> conv_layout_names() {
  std::vector<std::string> names = {"NCHW", "NHWC"};
  for (const std::string &b : blocked_layout_names()) names.push_back(b);
  return names;
}

std::vector<std::string> conv_kernel_layout_names() {
  std::vector<std::string> names = conv_layout_names();
  names.push_back(kGemmLayout);
  for (const std::string &b : blocked_layout_names()) names.push_back(b + "gemm");
  return names;
}

ConvGeometry conv_geometry(const Workload &w) {
  ConvGeometry g;
  g.N = w.get_int("N"), g.C = w.get_int("C"), g.H = w.get_int("H"), g.W = w.get_int("W");
  g.K = w.get_int("K"), g.R = w.get_int("R"), g.S = w.get_int("S");
  g.stride = w.get_int("stride"), g.pad = w.get_int("pad"), g.dilation = w.get_int("dilation");
  const std::string layout = w.get_str("layout");
  g.gemm = is_gemm_layout(layout);
  g.layout = parse_activation_layout(activation_memory_layout(layout));
  if (g.gemm && (g.R != 1 || g.S != 1 || g.stride != 1 || g.pad != 0))
    throw WorkloadError(w.kind + ": layout " + layout + " is for 1x1 convolutions with stride 1 and pad 0 (this one has R=" +
                        std::to_string(g.R) + ", S=" + std::to_string(g.S) + ", stride=" + std::to_string(g.stride) +
                        ", pad=" + std::to_string(g.pad) + "); the other layouts fit: NCHW, NHWC, NCHW<b>c");
  check_channel_blocks(w.kind, g.layout, {{"C", g.C}, {"K", g.K}}, conv_layout_names());
  g.OH = window_out_size(w.kind, "H", g.H, g.pad, g.R, g.dilation, g.stride);
  g.OW = window_out_size(w.kind, "W", g.W, g.pad, g.S, g.dilation, g.stride);
  return g;
}

Shape conv_data_shape(const ConvGeometry &g) {
  if (g.gemm && g.layout.blocked()) return {g.layout.block, g.H * g.W, g.C / g.layout.block, g.N};
  if (g.gemm) return {g.H * g.W, g.C, g.N};
  return activation_shape(g.layout, g.N, g.C, g.H, g.W);
}
Shape conv_weight_shape(const ConvGeometry &g) {
  if (g.gemm && !g.layout.blocked()) return {g.C, g.K};  // KCRS with R = S = 1
  if (g.layout.blocked()) {
    const int64_t b = g.layout.block;
    return {b, b, g.S, g.R, g.C / b, g.K / b};
  }
  return g.nhwc() ? Shape{g.K, g.C, g.S, g.R} : Shape{g.S, g.R, g.C, g.K};
}
Shape conv_out_shape(const ConvGeometry &g) {
  if (g.gemm && g.layout.blocked()) return {g.layout.block, g.OH * g.OW, g.K / g.layout.block, g.N};
  if (g.gemm) return {g.OH * g.OW, g.K, g.N};
  return activation_shape(g.layout, g.N, g.K, g.OH, g.OW);
}

std::vector<PackedInput> conv_packed_inputs(const ConvGeometry &g) {
  if (!g.layout.blocked()) return {};
  const std::string b = std::to_string(g.layout.block);
  return {PackedInput{1, {g.S, g.R, g.C, g.K}, "KCRS", "OIhw" + b + "i" + b + "o"}};
}

ConvOutIndex conv_out_index(const ConvGeometry &g) {
  using Halide::Var;
  const Var ki("ki"), ko("ko"), k("k"), ow("ow"), oh("oh"), p("p"), n("n");
  const int b = int(g.layout.block);
  if (g.gemm && g.layout.blocked()) return {{ki, p, ko, n}, ko * b + ki};
  if (g.gemm) return {{p, k, n}, k};
  if (g.layout.blocked()) return {{ki, ow, oh, ko, n}, ko * b + ki};
  if (g.nhwc()) return {{k, ow, oh, n}, k};
  return {{ow, oh, k, n}, k};
}

Halide::Func pack_conv_weight(const ConvGeometry &g, const Halide::ImageParam &kcrs) {
  using namespace Halide;
  const int b = int(g.layout.block);
  Var ki("ki"), ci("ci"), s("s"), r("r"), co("co"), ko("ko");
  Func packed = named_func("pack_weight");
  packed(ki, ci, s, r, co, ko) = kcrs(s, r, co * b + ci, ko * b + ki);
  return packed;
}

namespace {

// The blocked convolution: for each output block, a vector of `block` output
// channels accumulates input-channel by input-channel, which is how oneDNN's direct
// convolution feeds its FMAs.
Halide::Func blocked_conv(const ConvGeometry &g, const Halide::ImageParam &weight,
                          const std::function<Halide::Expr(std::vector<Halide::Expr>)> &src) {
  using namespace Halide;
  const int st = int(g.stride), dil = int(g.dilation);
  Var ki("ki"), ow("ow"), oh("oh"), ko("ko"), n("n");
  RDom r = named_rdom({{"ci", g.layout.block}, {"rx", g.S}, {"ry", g.R}, {"co", g.C / g.layout.block}});
  RVar ci = r[0], rx = r[1], ry = r[2], co = r[3];
  Func conv = named_func("conv");
  conv(ki, ow, oh, ko, n) = 0.0f;
  conv(ki, ow, oh, ko, n) += src({ci, ow * st + rx * dil, oh * st + ry * dil, co, n}) * weight(ki, ci, rx, ry, co, ko);
  return conv;
}

}  // namespace

Halide::Func add_conv_stages(HalideAlgorithm &alg, const ConvGeometry &g) {
  using namespace Halide;
  const ImageParam data = alg.inputs[0], weight = alg.inputs[1];
  if (g.gemm && g.layout.blocked()) {
    // out[n][ko][p][ki] = sum_{co,ci} data[n][co][p][ci] * w[ko][co][ci][ki]: a block of
    // output channels accumulates over input channels for each pixel, as in the
    // blocked convolution, with the pixels one loop. Reads clamp p to the last pixel,
    // so a register block may round the pixels up (196 has no divisor 6 or 12).
    const int b = int(g.layout.block);
    const ConvOutIndex o = conv_out_index(g);
    const Var &ki = o.vars[0], &p = o.vars[1], &ko = o.vars[2], &n = o.vars[3];
    RDom r = named_rdom({{"ci", b}, {"co", g.C / b}});
    Func conv = named_func("conv");
    conv(o.vars) = 0.0f;
    conv(o.vars) += data(r[0], min(p, int(g.H * g.W) - 1), r[1], n) * weight(ki, r[0], 0, 0, r[1], ko);
    alg.stages.push_back({conv, conv_out_shape(g), {0, 1}});
    return conv;
  }
  if (g.gemm) {
    // out[n][k][p] = sum_c data[n][c][p] * w[k][c]: a matmul per image, p innermost.
    Var p("p"), k("k"), n("n");
    RDom r = named_rdom({{"rc", g.C}});
    Func conv = named_func("conv");
    conv(p, k, n) = 0.0f;
    conv(p, k, n) += data(p, r[0], n) * weight(r[0], k);
    alg.stages.push_back({conv, conv_out_shape(g), {0, 1}});
    return conv;
  }
  const int x_dim = g.layout.kind == ActivationLayout::Kind::NCHW ? 0 : 1, y_dim = x_dim + 1;

  // Without padding the convolution reads the input directly (no copy stage).
  int src_index = 0;
  Func padded;
  if (g.pad > 0) {
    padded = make_pad("pad", data, x_dim, y_dim, g.W, g.H, g.pad, 0.0f);
    src_index = int(alg.inputs.size() + alg.stages.size());
    alg.stages.push_back({padded, padded_shape(g.layout, conv_data_shape(g), g.pad), {0}});
  }
  auto read = [&](std::vector<Expr> a) -> Expr { return g.pad > 0 ? Expr(padded(a)) : Expr(data(a)); };
  auto src = [&](Expr c, Expr x, Expr y, Expr n) -> Expr {
    return read(g.nhwc() ? std::vector<Expr>{c, x, y, n} : std::vector<Expr>{x, y, c, n});
  };

  if (g.layout.blocked()) {
    Func conv = blocked_conv(g, weight, read);
    alg.stages.push_back({conv, conv_out_shape(g), {src_index, 1}});
    return conv;
  }
  const int st = int(g.stride), dil = int(g.dilation);
  Var k("k"), ow("ow"), oh("oh"), n("n");
  Func conv = named_func("conv");
  if (g.nhwc()) {
    // rc innermost: contiguous in NHWC data and RSCK weights.
    RDom r = named_rdom({{"rc", g.C}, {"rx", g.S}, {"ry", g.R}});
    RVar rc = r[0], rx = r[1], ry = r[2];
    conv(k, ow, oh, n) = 0.0f;
    conv(k, ow, oh, n) += src(rc, ow * st + rx * dil, oh * st + ry * dil, n) * weight(k, rc, rx, ry);
  } else {
    // rx innermost: contiguous in NCHW data and KCRS weights.
    RDom r = named_rdom({{"rx", g.S}, {"ry", g.R}, {"rc", g.C}});
    RVar rx = r[0], ry = r[1], rc = r[2];
    conv(ow, oh, k, n) = 0.0f;
    conv(ow, oh, k, n) += src(rc, ow * st + rx * dil, oh * st + ry * dil, n) * weight(rx, ry, rc, k);
  }
  alg.stages.push_back({conv, conv_out_shape(g), {src_index, 1}});
  return conv;
}

namespace {

// The output positions o in [lo, hi) whose input index o*stride + off lies in [0, size).
void valid_range(int64_t off, int64_t size, int64_t stride, int64_t out, int64_t &lo, int64_t &hi) {
  lo = 0, hi = out;
  while (lo < hi && lo * stride + off < 0) ++lo;
  while (hi > lo && (hi - 1) * stride + off >= size) --hi;
}

}  // namespace

void conv_reference(const ConvGeometry &g, const float *data, const float *weight, double *out) {
  if (g.layout.blocked()) {
    // The plain NCHW convolution (weights come as KCRS), then the output into blocks.
    ConvGeometry plain = g;
    plain.layout = ActivationLayout{};
    const std::vector<float> nchw = activation_to_nchw(g.layout, data, g.N, g.C, g.H, g.W);
    std::vector<double> acc(size_t(g.N * g.K * g.OH * g.OW));
    conv_reference(plain, nchw.data(), weight, acc.data());
    size_t i = 0;
    for (int64_t n = 0; n < g.N; ++n)
      for (int64_t k = 0; k < g.K; ++k)
        for (int64_t h = 0; h < g.OH; ++h)
          for (int64_t w = 0; w < g.OW; ++w) out[activation_offset(g.layout, g.N, g.K, g.OH, g.OW, n, k, h, w)] = acc[i++];
    return;
  }
  std::fill(out, out + g.N * g.K * g.OH * g.OW, 0.0);
  int64_t lo, hi;
  if (!g.nhwc()) {
    for (int64_t n = 0; n < g.N; ++n)
      for (int64_t k = 0; k < g.K; ++k) {
        double *acc = out + (n * g.K + k) * g.OH * g.OW;
        for (int64_t c = 0; c < g.C; ++c)
          for (int64_t r = 0; r < g.R; ++r)
            for (int64_t s = 0; s < g.S; ++s) {
              const double w = weight[((k * g.C + c) * g.R + r) * g.S + s];
              valid_range(s * g.dilation - g.pad, g.W, g.stride, g.OW, lo, hi);
              for (int64_t oh = 0; oh < g.OH; ++oh) {
                const int64_t ih = oh * g.stride + r * g.dilation - g.pad;
                if (ih < 0 || ih >= g.H) continue;
                const float *row = data + ((n * g.C + c) * g.H + ih) * g.W + s * g.dilation - g.pad;
                for (int64_t ow = lo; ow < hi; ++ow) acc[oh * g.OW + ow] += w * row[ow * g.stride];
              }
            }
      }
    return;
  }
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        double *acc = out + ((n * g.OH + oh) * g.OW + ow) * g.K;
        for (int64_t r = 0; r < g.R; ++r) {
          const int64_t ih = oh * g.stride + r * g.dilation - g.pad;
          if (ih < 0 || ih >= g.H) continue;
          for (int64_t s = 0; s < g.S; ++s) {
            const int64_t iw = ow * g.stride + s * g.dilation - g.pad;
            if (iw < 0 || iw >= g.W) continue;
            const float *x = data + ((n * g.H + ih) * g.W + iw) * g.C;
            for (int64_t c = 0; c < g.C; ++c) {
              const double xv = x[c];
              const float *w = weight + ((r * g.S + s) * g.C + c) * g.K;
              for (int64_t k = 0; k < g.K; ++k) acc[k] += xv * w[k];
            }
          }
        }
      }
}

namespace {

class Conv2d : public ConvOperator {
 public:
  explicit Conv2d(const Workload &w) : ConvOperator(w) {}

  std::vector<Shape> input_shapes() const override { return {conv_data_shape(g_), conv_weight_shape(g_)}; }
  double flops() const override { return 2.0 * g_.N * g_.K * g_.OH * g_.OW * g_.C * g_.R * g_.S; }

  HalideAlgorithm build() const override {
    HalideAlgorithm alg;
    alg.inputs = {make_input("data", conv_data_shape(g_)), make_input("weight", conv_weight_shape(g_))};
    add_conv_stages(alg, g_);
    return alg;
  }

  void reference(const std::vector<const float *> &in, float *out) const override {
    std::vector<double> acc(g_.N * g_.K * g_.OH * g_.OW);
    conv_reference(g_, in[0], in[1], acc.data());
    for (size_t i = 0; i < acc.size(); ++i) out[i] = float(acc[i]);
  }
};

}  // namespace

std::unique_ptr<Operator> make_conv2d(const Workload &w) { return std::make_unique<Conv2d>(w); }

}  // namespace ops
}  // namespace tlp
