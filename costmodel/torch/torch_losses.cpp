#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "costmodel/torch/tlp_torch_internal.h"

namespace tlp {
namespace detail {

torch::Tensor lambda_rank_loss(const torch::Tensor &scores, const torch::Tensor &labels, const torch::Tensor &valid,
                               double sigma) {
  const int64_t n = scores.size(1);
  const auto opts = scores.options();
  torch::Tensor gains_denominator, gains, inv_discount, pair_weight;
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor y = torch::where(valid, labels.to(scores.dtype()), torch::zeros_like(scores));
    const torch::Tensor discount = torch::log2(torch::arange(2, n + 2, opts));  // log2(1 + position)
    // Ideal DCG: labels sorted from best to worst (padding has gain 0).
    const torch::Tensor ideal = std::get<0>(torch::sort(y, /*dim=*/1, /*descending=*/true));
    const torch::Tensor idcg = ((torch::pow(2.0, ideal) - 1) / discount).sum(1, /*keepdim=*/true).clamp_min(1e-10);
    gains = (torch::pow(2.0, y) - 1) / idcg;  // [G, n]
    // Rank by score, padding last.
    const torch::Tensor s = torch::where(valid, scores.detach(),
                                         torch::full_like(scores, -std::numeric_limits<double>::infinity()));
    const torch::Tensor order = torch::argsort(s, /*dim=*/1, /*descending=*/true);
    const torch::Tensor rank = torch::argsort(order, /*dim=*/1, /*descending=*/false);  // 0-based position of each entry
    inv_discount = 1.0 / torch::log2(rank.to(scores.dtype()) + 2.0);
    const torch::Tensor better = (y.unsqueeze(2) > y.unsqueeze(1)) & valid.unsqueeze(2) & valid.unsqueeze(1);
    pair_weight = (gains.unsqueeze(2) - gains.unsqueeze(1)).abs() *
                  (inv_discount.unsqueeze(2) - inv_discount.unsqueeze(1)).abs() * better.to(scores.dtype());
  }
  const torch::Tensor diff = scores.unsqueeze(2) - scores.unsqueeze(1);  // s_i - s_j
  // log2(1 + exp(-sigma * diff)) = softplus(-sigma * diff) / ln 2
  const torch::Tensor pair_loss = torch::softplus(-sigma * diff) / std::log(2.0);
  const torch::Tensor per_group = (pair_weight * pair_loss).sum({1, 2});
  return per_group.mean();
}

torch::Tensor mse_loss(const torch::Tensor &scores, const torch::Tensor &labels, const torch::Tensor &valid) {
  const torch::Tensor m = valid.to(scores.dtype());
  const torch::Tensor d = (scores - labels.to(scores.dtype())) * m;
  return (d * d).sum() / m.sum().clamp_min(1.0);
}

torch::Tensor multi_head_loss(const torch::Tensor &scores, const torch::Tensor &labels, const torch::Tensor &valid,
                              bool rank) {
  torch::Tensor total = torch::zeros({}, scores.options());
  for (int64_t k = 0; k < scores.size(2); ++k) {
    const torch::Tensor s = scores.select(2, k), y = labels.select(2, k), v = valid.select(2, k);
    if (!rank) {
      if (v.any().item<bool>()) total = total + mse_loss(s, y, v);
      continue;
    }
    const torch::Tensor rows = (v.sum(1) >= 2).nonzero().squeeze(1);
    if (rows.numel() > 0)
      total = total + lambda_rank_loss(s.index_select(0, rows), y.index_select(0, rows), v.index_select(0, rows),
                                       /*sigma=*/1.0);
  }
  return total;
}

}  // namespace detail

namespace torch_side {
namespace {

LossAndGradient with_autograd(const std::vector<double> &scores, const std::vector<double> &labels, bool rank,
                              double sigma) {
  if (scores.size() != labels.size())
    throw std::invalid_argument("loss: " + std::to_string(scores.size()) + " scores but " +
                                std::to_string(labels.size()) + " labels");
  const int64_t n = int64_t(scores.size());
  LossAndGradient out;
  if (n == 0) return out;
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  torch::Tensor s = torch::tensor(scores, f64).reshape({1, n}).requires_grad_(true);
  const torch::Tensor y = torch::tensor(labels, f64).reshape({1, n});
  const torch::Tensor valid = torch::ones({1, n}, torch::TensorOptions().dtype(torch::kBool));
  const torch::Tensor loss = rank ? detail::lambda_rank_loss(s, y, valid, sigma) : detail::mse_loss(s, y, valid);
  loss.backward();
  out.loss = loss.item<double>();
  const torch::Tensor g = s.grad().reshape({n}).contiguous();
  out.gradient.assign(g.data_ptr<double>(), g.data_ptr<double>() + n);
  return out;
}

}  // namespace

LossAndGradient multi_head_rank_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels,
                                                  const std::vector<bool> &labeled, int heads) {
  if (heads < 1 || scores.size() != labels.size() || scores.size() != labeled.size() || scores.size() % size_t(heads))
    throw std::invalid_argument("multi-head loss: " + std::to_string(scores.size()) + " scores, " +
                                std::to_string(labels.size()) + " labels and " + std::to_string(labeled.size()) +
                                " label flags do not make whole records of " + std::to_string(heads) + " heads");
  const int64_t n = int64_t(scores.size()) / heads;
  LossAndGradient out;
  if (n == 0) return out;
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  torch::Tensor s = torch::tensor(scores, f64).reshape({1, n, heads}).requires_grad_(true);
  const torch::Tensor y = torch::tensor(labels, f64).reshape({1, n, heads});
  const torch::Tensor v = torch::tensor(std::vector<int64_t>(labeled.begin(), labeled.end()))
                              .to(torch::kBool)
                              .reshape({1, n, heads});
  const torch::Tensor loss = detail::multi_head_loss(s, y, v, true);
  out.loss = loss.item<double>();
  out.gradient.assign(scores.size(), 0.0);
  if (loss.requires_grad()) {
    loss.backward();
    const torch::Tensor g = s.grad().reshape({-1}).contiguous();
    out.gradient.assign(g.data_ptr<double>(), g.data_ptr<double>() + g.numel());
  }
  return out;
}

LossAndGradient lambda_rank_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels,
                                              double sigma) {
  return with_autograd(scores, labels, true, sigma);
}

LossAndGradient mse_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels) {
  return with_autograd(scores, labels, false, 0.0);
}

}  // namespace torch_side
}  // namespace tlp
