// The one symbol libtlptune-torch.so exports: its table (costmodel/torch_module.h).
#include "costmodel/torch/tlp_torch_internal.h"
#include "costmodel/torch_module.h"

namespace {

tlp::detail::TorchModule make_table() {
  namespace ts = tlp::torch_side;
  tlp::detail::TorchModule t;
  t.new_network = ts::new_network;
  t.train_tlp = ts::train_tlp;
  t.train_mtl = ts::train_mtl;
  t.evaluate_loss = ts::evaluate_loss;
  t.lambda_rank = ts::lambda_rank_loss_and_gradient;
  t.mse = ts::mse_loss_and_gradient;
  t.multi_head_rank = ts::multi_head_rank_loss_and_gradient;
  return t;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const tlp::detail::TorchModule *tlp_torch_module_v1() {
  static const tlp::detail::TorchModule table = make_table();
  return &table;
}
