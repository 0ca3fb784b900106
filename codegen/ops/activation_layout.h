// How a 4-D activation (logically N, C, H, W) lies in memory, and the plain-loop
// conversions the reference checks need. Blocked layouts ("NCHW16c") keep channels
// in blocks of `block` innermost, so a vector register holds one block: what
// oneDNN calls nChw16c. Private to codegen/ops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/operator.h"

namespace tlp {
namespace ops {

struct ActivationLayout {
  enum class Kind { NCHW, NHWC, Blocked };
  Kind kind = Kind::NCHW;
  int64_t block = 0;  // channels per block, for Blocked

  bool blocked() const { return kind == Kind::Blocked; }
  std::string name() const;  // "NCHW", "NHWC", "NCHW16c"
};

// The channel blocks the library offers: one, two and four AVX2 vectors of fp32,
// one and two AVX-512 vectors.
const std::vector<int64_t> &channel_blocks();
// "NCHW8c", "NCHW16c", ... in the order of channel_blocks().
std::vector<std::string> blocked_layout_names();

// "NCHW", "NHWC" or "NCHW<b>c" with b from channel_blocks(); throws WorkloadError.
ActivationLayout parse_activation_layout(const std::string &name);

// Refuses a blocked layout whose block does not divide every listed channel count,
// naming the counts and the layouts of `offered` that would fit.
void check_channel_blocks(const std::string &kind, const ActivationLayout &layout,
                          const std::vector<std::pair<std::string, int64_t>> &channels,
                          const std::vector<std::string> &offered);

// The dense buffer's shape in Halide order (innermost first): NCHW {W,H,C,N},
// NHWC {C,W,H,N}, blocked {b,W,H,C/b,N}.
Shape activation_shape(const ActivationLayout &l, int64_t N, int64_t C, int64_t H, int64_t W);

// Element offset of logical (n, c, h, w) in that buffer.
int64_t activation_offset(const ActivationLayout &l, int64_t N, int64_t C, int64_t H, int64_t W, int64_t n,
                          int64_t c, int64_t h, int64_t w);

// The channel of the element at `flat` (a dense offset in layout `l`).
int64_t activation_channel(const ActivationLayout &l, int64_t C, int64_t H, int64_t W, int64_t flat);

// A tensor in layout `l` as NCHW, and back. Exact (a permutation).
std::vector<float> activation_to_nchw(const ActivationLayout &l, const float *src, int64_t N, int64_t C, int64_t H,
                                      int64_t W);
void activation_from_nchw(const ActivationLayout &l, const float *nchw, float *dst, int64_t N, int64_t C, int64_t H,
                          int64_t W);

}  // namespace ops
}  // namespace tlp
