// PRIVATE to costmodel/torch/, the LibTorch module: the TLP network, its losses
// and training on tensors. Only files under costmodel/torch/ include LibTorch;
// they are built into libtlptune-torch.so, never into a program.
#pragma once

#include <torch/nn.h>
#include <torch/serialize.h>

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "costmodel/lambda_rank.h"
#include "costmodel/tlp_fast_forward.h"
#include "costmodel/tlp_network.h"
#include "costmodel/tlp_network_impl.h"
#include "costmodel/tlp_trainer.h"

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

namespace tlp::torch_side {

// A TlpNetwork on LibTorch: the module and, built from its weights on demand,
// the copy our own forward pass reads.
class TorchNetwork final : public TlpNetwork::Impl {
 public:
  explicit TorchNetwork(const TlpNetworkConfig &config);

  const TlpNetworkConfig &config() const override;
  size_t num_parameters() const override;
  const detail::FastNet &fast_net() override;
  std::vector<float> predict_torch(const float *features, size_t n, const InferenceOptions &options) override;
  std::string save_weights() const override;
  void load_weights(const std::string &bytes) override;
  std::unique_ptr<TlpNetwork::Impl> clone() const override;
  std::vector<float> parameter(const std::string &name) const override;
  std::unique_ptr<TlpNetwork::Impl> single_head(int head) const override;

  // Call after changing the module's weights (training, loading).
  void weights_changed() { fast_.reset(); }

  detail::TlpNetModule module;

 private:
  TlpNetworkConfig config_;
  std::unique_ptr<detail::FastNet> fast_;
};

// The network a TlpNetwork made by this module holds.
inline TorchNetwork &torch_network(TlpNetwork &net) { return static_cast<TorchNetwork &>(net.impl()); }

// What the module's table points to (torch_module.h), each the implementation
// of the public function of the same name.
std::unique_ptr<TlpNetwork::Impl> new_network(const TlpNetworkConfig &config, uint64_t seed);
TrainResult train_tlp(TlpNetwork &net, const std::vector<TlpTask> &train, const std::vector<TlpTask> &val,
                      const TrainOptions &options);
TrainResult train_mtl(TlpNetwork &net, const std::vector<MtlTask> &train, const std::vector<MtlTask> &val_all,
                      const std::vector<TlpTask> &val, int val_head, const TrainOptions &options);
double evaluate_loss(TlpNetwork &net, const std::vector<TlpTask> &tasks, TlpLoss loss, int batch);
LossAndGradient lambda_rank_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels,
                                              double sigma);
LossAndGradient mse_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels);
LossAndGradient multi_head_rank_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels,
                                                  const std::vector<bool> &labeled, int heads);

}  // namespace tlp::torch_side
