// PRIVATE to costmodel/: our own forward pass of the TLP network, in plain C++
// with OpenBLAS's sgemm for the matrix products. It reads a copy of the LibTorch
// module's weights (built in costmodel/torch/torch_network.cpp) and
//   - computes only the real steps of each schedule (rows up to its last non-zero
//     row), packed one after another, so padding costs nothing;
//   - computes what depends on a row alone (the per-step MLP, then the attention's
//     q/k/v projection or the LSTM's input gates) once per distinct row of a
//     chunk: one task's candidates share most steps (only ~10% of the rows of a
//     chunk of 256 are distinct), which halves the work.
// Equal to the LibTorch forward within float rounding (tests/costmodel checks 1e-4).
#pragma once

#include <cstddef>
#include <vector>

#include "costmodel/tlp_network.h"

namespace tlp::detail {

struct FastLinear {
  int in = 0, out = 0;
  std::vector<float> w;  // out x in, row-major (LibTorch's layout)
  std::vector<float> b;  // out
};

struct FastLayerNorm {
  std::vector<float> gamma, beta;
  float eps = 1e-5f;
};

struct FastAttention {
  int heads = 1;
  FastLinear in_proj;   // 3*hidden x hidden: q, k, v stacked
  FastLinear out_proj;  // hidden x hidden
};

struct FastTransformerLayer {
  FastAttention attn;
  FastLinear lin1, lin2;
  FastLayerNorm norm1, norm2;
};

struct FastLstm {
  int hidden = 0;
  std::vector<float> w_ih, w_hh;  // 4*hidden x hidden, gates i, f, g, o
  std::vector<float> bias;        // b_ih + b_hh
};

struct FastNet {
  TlpNetworkConfig config;
  FastLinear enc[4];
  FastAttention attn;
  FastLstm lstm;
  FastTransformerLayer tf[2];
  FastLinear res[2];
  FastLinear dec[4];
};

// Scores of n matrices into out[0..n). Splits the schedules over `threads`
// workers (OpenBLAS runs single-threaded inside each; its thread count is restored
// afterwards), each taking `chunk` schedules per pass.
void fast_predict(const FastNet &net, const float *features, size_t n, float *out, int chunk, int threads);

}  // namespace tlp::detail
