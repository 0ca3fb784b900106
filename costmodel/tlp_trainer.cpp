#include "costmodel/tlp_trainer.h"

#include <stdexcept>

#include "costmodel/torch_module.h"

namespace tlp {

const char *tlp_loss_name(TlpLoss l) { return l == TlpLoss::Rank ? "rank" : "mse"; }

TlpLoss tlp_loss_from_name(const std::string &name) {
  if (name == "rank" || name == "lambdarank") return TlpLoss::Rank;
  if (name == "mse") return TlpLoss::Mse;
  throw std::invalid_argument("unknown TLP loss '" + name + "' (known: rank, mse)");
}

TlpNetworkConfig network_config(const TrainOptions &o) {
  TlpNetworkConfig c;
  c.arch = o.arch;
  c.hidden = o.hidden;
  c.heads = o.heads;
  c.seq_len = o.featurizer.seq_len;
  c.emb_size = o.featurizer.emb_size;
  return c;
}

TrainResult train_tlp(TlpNetwork &net, const std::vector<TlpTask> &train, const std::vector<TlpTask> &val,
                      const TrainOptions &options) {
  return detail::torch_module().train_tlp(net, train, val, options);
}

TrainResult train_mtl(TlpNetwork &net, const std::vector<MtlTask> &train, const std::vector<MtlTask> &val_all,
                      const std::vector<TlpTask> &val, int val_head, const TrainOptions &options) {
  return detail::torch_module().train_mtl(net, train, val_all, val, val_head, options);
}

double evaluate_loss(TlpNetwork &net, const std::vector<TlpTask> &tasks, TlpLoss loss, int batch) {
  return detail::torch_module().evaluate_loss(net, tasks, loss, batch);
}

std::vector<TopkTask> predict_tasks(TlpNetwork &net, const std::vector<TlpTask> &tasks,
                                    const InferenceOptions &inference, const std::vector<std::string> &groups) {
  std::vector<TopkTask> out(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    out[i].latencies = tasks[i].costs;
    out[i].predictions = net.predict(tasks[i].features, inference);
    if (i < groups.size()) out[i].group = groups[i];
  }
  return out;
}

}  // namespace tlp
