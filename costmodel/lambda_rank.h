// TLP's training losses on plain vectors, for tests and tools. Training itself
// uses the same LibTorch implementation on tensors (costmodel/torch/).
//
// LambdaRank, over one task's records (one group), labels in [0, 1] (normalized
// throughput, 1 = the task's fastest):
//
//   loss = sum over pairs (i, j) with label_i > label_j of
//          |G_i - G_j| * |1/D_i - 1/D_j| * log2(1 + exp(-sigma * (s_i - s_j)))
//
// where G = (2^label - 1) / ideal DCG (the DCG of the records sorted by label) and
// D_i = log2(1 + rank_i), rank_i being i's 1-based position when the records are
// sorted by score, highest first. The NDCG weights are constants for the
// gradient (the ranks move only by jumps). sigma = 1 as in the paper.
//
// MSE: the mean of (score - label)^2.
#pragma once

#include <vector>

namespace tlp {

struct LossAndGradient {
  double loss = 0;
  std::vector<double> gradient;  // d loss / d score, one per score
};

// The loss and its gradient by LibTorch's autograd (in double precision).
// Throws std::invalid_argument when the sizes differ.
LossAndGradient lambda_rank_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels,
                                              double sigma = 1.0);
LossAndGradient mse_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels);

// MTL-TLP's loss over one group, with one score and one label per record and
// head (record-major: entry i * heads + k). `labeled` says which labels exist: a
// record without a label for head k takes no part in head k's loss (it is not a
// label 0). Per head: LambdaRank over its labeled records (nothing when it has
// fewer than two); the heads' losses are summed.
LossAndGradient multi_head_rank_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels,
                                                  const std::vector<bool> &labeled, int heads);

}  // namespace tlp
