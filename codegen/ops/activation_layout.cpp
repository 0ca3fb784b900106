#include "codegen/ops/activation_layout.h"

#include "codegen/ops/op_helpers.h"

namespace tlp {
namespace ops {

std::string ActivationLayout::name() const {
  switch (kind) {
    case Kind::NCHW: return "NCHW";
    case Kind::NHWC: return "NHWC";
    case Kind::Blocked: return "NCHW" + std::to_string(block) + "c";
  }
  return "?";
}

const std::vector<int64_t> &channel_blocks() {
  static const std::vector<int64_t> blocks = {8, 16, 32};
  return blocks;
}

std::vector<std::string> blocked_layout_names() {
  std::vector<std::string> names;
  for (int64_t b : channel_blocks()) names.push_back("NCHW" + std::to_string(b) + "c");
  return names;
}

std::vector<std::string> window_layout_names() {
  std::vector<std::string> names = {"NCHW", "NHWC"};
  for (const std::string &b : blocked_layout_names()) names.push_back(b);
  return names;
}

ActivationLayout parse_activation_layout(const std::string &name) {
  ActivationLayout l;
  if (name == "NCHW") return l;
  if (name == "NHWC") {
    l.kind = ActivationLayout::Kind::NHWC;
    return l;
  }
  for (int64_t b : channel_blocks())
    if (name == "NCHW" + std::to_string(b) + "c") {
      l.kind = ActivationLayout::Kind::Blocked;
      l.block = b;
      return l;
    }
  throw WorkloadError("unknown layout '" + name + "'");  // the workload parser lists the choices first
}

void check_channel_blocks(const std::string &kind, const ActivationLayout &layout,
                          const std::vector<std::pair<std::string, int64_t>> &channels,
                          const std::vector<std::string> &offered) {
  if (!layout.blocked()) return;
  auto fits = [&](const ActivationLayout &l) {
    for (const auto &c : channels)
      if (l.blocked() && c.second % l.block != 0) return false;
    return true;
  };
  if (fits(layout)) return;
  std::string counts, fitting;
  for (const auto &c : channels) counts += (counts.empty() ? "" : ", ") + c.first + "=" + std::to_string(c.second);
  for (const std::string &name : offered)
    if (fits(parse_activation_layout(name))) fitting += (fitting.empty() ? "" : ", ") + name;
  throw WorkloadError(kind + ": layout " + layout.name() + " needs channel counts divisible by " +
                      std::to_string(layout.block) + " (" + counts + "); layouts that fit: " + fitting);
}

Shape activation_shape(const ActivationLayout &l, int64_t N, int64_t C, int64_t H, int64_t W) {
  switch (l.kind) {
    case ActivationLayout::Kind::NCHW: return {W, H, C, N};
    case ActivationLayout::Kind::NHWC: return {C, W, H, N};
    case ActivationLayout::Kind::Blocked: return {l.block, W, H, C / l.block, N};
  }
  return {};
}

int64_t activation_offset(const ActivationLayout &l, int64_t, int64_t C, int64_t H, int64_t W, int64_t n, int64_t c,
                          int64_t h, int64_t w) {
  switch (l.kind) {
    case ActivationLayout::Kind::NCHW: return ((n * C + c) * H + h) * W + w;
    case ActivationLayout::Kind::NHWC: return ((n * H + h) * W + w) * C + c;
    case ActivationLayout::Kind::Blocked:
      return (((n * (C / l.block) + c / l.block) * H + h) * W + w) * l.block + c % l.block;
  }
  return 0;
}

int64_t activation_channel(const ActivationLayout &l, int64_t C, int64_t H, int64_t W, int64_t flat) {
  switch (l.kind) {
    case ActivationLayout::Kind::NCHW: return flat / (H * W) % C;
    case ActivationLayout::Kind::NHWC: return flat % C;
    case ActivationLayout::Kind::Blocked: return flat / (l.block * W * H) % (C / l.block) * l.block + flat % l.block;
  }
  return 0;
}

std::vector<float> activation_to_nchw(const ActivationLayout &l, const float *src, int64_t N, int64_t C, int64_t H,
                                      int64_t W) {
  std::vector<float> out(size_t(N * C * H * W));
  size_t i = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) out[i++] = src[activation_offset(l, N, C, H, W, n, c, h, w)];
  return out;
}

void activation_from_nchw(const ActivationLayout &l, const float *nchw, float *dst, int64_t N, int64_t C, int64_t H,
                          int64_t W) {
  size_t i = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) dst[activation_offset(l, N, C, H, W, n, c, h, w)] = nchw[i++];
}

}  // namespace ops
}  // namespace tlp
