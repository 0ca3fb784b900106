#include "costmodel/lambda_rank.h"

#include "costmodel/torch_module.h"

namespace tlp {

LossAndGradient lambda_rank_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels,
                                              double sigma) {
  return detail::torch_module().lambda_rank(scores, labels, sigma);
}

LossAndGradient mse_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels) {
  return detail::torch_module().mse(scores, labels);
}

LossAndGradient multi_head_rank_loss_and_gradient(const std::vector<double> &scores, const std::vector<double> &labels,
                                                  const std::vector<bool> &labeled, int heads) {
  return detail::torch_module().multi_head_rank(scores, labels, labeled, heads);
}

}  // namespace tlp
