// PRIVATE to costmodel's .cpp files: the LibTorch side of the TLP network and
// losses. Including this pulls in LibTorch; never include it from a public header
// or from another module.
#pragma once

#include <torch/nn.h>
#include <torch/serialize.h>

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "costmodel/tlp_fast_forward.h"
#include "costmodel/tlp_network.h"

namespace tlp::detail {

// A batch of feature matrices with their padding taken out and repeated step
// rows stored once: rows [U, E] are the distinct real rows, map [N, L] gives the
// row of every position (any valid index at padding), real [N, L] marks the real
// steps (those up to the last non-zero row of each matrix).
struct PackedSteps {
  torch::Tensor rows, map, real;
};
PackedSteps pack_steps(const std::vector<const float *> &matrices, int64_t seq_len, int64_t emb_size);

struct TlpNetModuleImpl : torch::nn::Module {
  explicit TlpNetModuleImpl(const TlpNetworkConfig &config);

  // x: [N, seq_len, emb_size] float -> scores [N]. The straightforward padded
  // forward: the reference for the other two.
  torch::Tensor forward(const torch::Tensor &x);

  // The same function on packed steps (what training runs): the per-step MLP and
  // the attention's q/k/v projection (or the LSTM's input) are computed once per
  // distinct row, and everything after the sequence layer only for real rows.
  torch::Tensor forward_packed(const PackedSteps &p);
  // forward_packed for every decoder: scores [N, output_heads].
  torch::Tensor forward_packed_heads(const PackedSteps &p);
  // Residual blocks and head 0's decoder: one score per step row (the last axis dropped).
  torch::Tensor step_scores(torch::Tensor h);
  torch::Tensor residual_blocks(torch::Tensor h);
  torch::Tensor decode(const torch::Tensor &h, int head);

  // After the sequence layer, for the real rows of p: hidden [R, H], and the
  // sample each row belongs to [R].
  std::pair<torch::Tensor, torch::Tensor> packed_hidden(const PackedSteps &p);

  TlpNetworkConfig config;
  torch::nn::Linear enc0{nullptr}, enc1{nullptr}, enc2{nullptr}, enc3{nullptr};
  torch::nn::MultiheadAttention attn{nullptr};
  torch::nn::LSTM lstm{nullptr};
  torch::nn::TransformerEncoderLayer tf0{nullptr}, tf1{nullptr};
  torch::nn::Linear res0{nullptr}, res1{nullptr};
  torch::nn::Linear dec0{nullptr}, dec1{nullptr}, dec2{nullptr}, dec3{nullptr};
  // Heads 1.. of MTL-TLP, each like dec0..dec3 (named "head<k>_dec<i>").
  std::vector<std::array<torch::nn::Linear, 4>> more_decoders;
};
TORCH_MODULE(TlpNetModule);

// Which rows of x [N, L, E] are real steps: those up to the last non-zero row.
// Returns a bool tensor [N, L].
torch::Tensor real_step_mask(const torch::Tensor &x);

// LambdaRank over groups (one row per group, padded): scores, labels [G, n],
// valid bool [G, n]. Per group: the sum over pairs (i, j) with label_i > label_j of
// |dG| * |1/D_i - 1/D_j| * log2(1 + exp(-sigma (s_i - s_j))), where G = (2^label
// - 1) / ideal DCG and D = log2(1 + rank by score). The ranks and weights are constants for autograd. Returns the mean
// over groups.
torch::Tensor lambda_rank_loss(const torch::Tensor &scores, const torch::Tensor &labels, const torch::Tensor &valid,
                               double sigma = 1.0);

// Per head of MTL-TLP: scores, labels and valid [G, n, heads]. Each head's loss
// over its valid entries (rank: the mean over the groups with at least two of
// them), summed over the heads.
torch::Tensor multi_head_loss(const torch::Tensor &scores, const torch::Tensor &labels, const torch::Tensor &valid,
                              bool rank);

// Mean squared error over the valid entries.
torch::Tensor mse_loss(const torch::Tensor &scores, const torch::Tensor &labels, const torch::Tensor &valid);

}  // namespace tlp::detail

namespace tlp {

struct TlpNetwork::Impl {
  TlpNetworkConfig config;
  detail::TlpNetModule module{nullptr};
  std::unique_ptr<detail::FastNet> fast;  // built from the module's weights on demand

  // Call after changing the module's weights (training, loading).
  void weights_changed() { fast.reset(); }
};

}  // namespace tlp
