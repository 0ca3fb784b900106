// Training a TLP network on featurized tasks (tlp_dataset.h).
//
// Adam (lr 7e-4, weight decay 1e-6), gradient norm clipped to 0.5, 50 epochs,
// as in the paper. With the LambdaRank loss a batch is made of groups, each
// group the shuffled records of one task (at most `batch` of them), so the loss
// only ever compares records of the same task; groups are packed into batches of
// up to `batch` records. With MSE a batch is any `batch` records. The weights kept
// are those of the epoch with the best validation loss (or the last epoch's when
// there is no validation data); with ema_epochs, of a moving average of the
// weights rather than the epoch's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "costmodel/mtl_dataset.h"
#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_featurizer.h"
#include "costmodel/tlp_network.h"
#include "costmodel/topk_score.h"

namespace tlp {

enum class TlpLoss { Rank, Mse };

const char *tlp_loss_name(TlpLoss l);                // "rank", "mse"
TlpLoss tlp_loss_from_name(const std::string &name);  // throws std::invalid_argument

struct EpochReport {
  int epoch = 0;  // 1-based
  double train_loss = 0;
  double val_loss = std::numeric_limits<double>::quiet_NaN();  // NaN without validation data
  double val_top1 = std::numeric_limits<double>::quiet_NaN();  // top-k scores on validation
  double val_top5 = std::numeric_limits<double>::quiet_NaN();
  double lr = 0;       // the learning rate of this epoch's steps
  double seconds = 0;  // this epoch's wall time
  bool best = false;   // these weights are the best so far
};

struct TrainOptions {
  TlpArch arch = TlpArch::Attention;  // for a fresh network (network_config below)
  int hidden = TlpNetworkConfig{}.hidden;  // its width and attention heads (the paper's)
  int heads = TlpNetworkConfig{}.heads;
  TlpLoss loss = TlpLoss::Rank;
  int epochs = 50;
  int batch = 1024;  // records per step
  double lr = 7e-4;
  double weight_decay = 1e-6;
  double grad_clip = 0.5;  // max gradient norm; <= 0: no clipping
  uint64_t seed = 0;       // network init and shuffling
  int threads = 0;         // LibTorch intra-op threads; 0 leaves the current setting
  FeaturizerOptions featurizer;
  int patience = 0;  // stop after this many epochs without a better validation loss; 0: never
  // > 0: the weights judged on validation, kept and returned are an exponential
  // moving average of the weights after each step, with a time constant of this
  // many epochs; 0: the weights of the epoch itself.
  double ema_epochs = 0;
  std::function<void(const EpochReport &)> on_epoch;  // called after every epoch
};

struct TrainResult {
  std::vector<EpochReport> history;
  int best_epoch = 0;  // 1-based; the best validation epoch, whose weights were kept
  double best_val_loss = std::numeric_limits<double>::quiet_NaN();
  bool stopped_early = false;
  double wall_seconds = 0;
  size_t train_records = 0, val_records = 0;
  size_t train_tasks = 0, val_tasks = 0;
};

// The network shape TrainOptions asks for: its arch, width and heads, and the
// featurizer's sizes.
TlpNetworkConfig network_config(const TrainOptions &options);

// Trains `net` in place. The tasks' features must have been computed with
// options.featurizer, whose sizes must match the network's. Throws
// std::invalid_argument when there is nothing to train on or the sizes differ.
TrainResult train_tlp(TlpNetwork &net, const std::vector<TlpTask> &train, const std::vector<TlpTask> &val,
                      const TrainOptions &options);

// MTL-TLP: trains a network with one head per platform (output_heads) on tasks
// whose records carry a label for the platforms they were measured on; each
// head's LambdaRank (or MSE) sees only its labeled records, and the heads' losses
// are summed. The weights kept (and early stopping) follow the validation loss
// over every head on `val_all`, the validation workloads' records of all
// platforms: a target platform with a few percent of its data has too few
// validation records to judge by alone. The epochs' top-k scores are of `val`,
// one platform's tasks, scored by head `val_head`. Throws std::invalid_argument
// as train_tlp does, and when the tasks' platform count is not the head count.
TrainResult train_mtl(TlpNetwork &net, const std::vector<MtlTask> &train, const std::vector<MtlTask> &val_all,
                      const std::vector<TlpTask> &val, int val_head, const TrainOptions &options);

// The loss of `net` on featurized tasks, grouped as in training (no gradients).
double evaluate_loss(TlpNetwork &net, const std::vector<TlpTask> &tasks, TlpLoss loss, int batch = 1024);

// Predictions for every record of featurized tasks, ready for topk_score.
// `groups` (optional) names each task's group, e.g. its network.
std::vector<TopkTask> predict_tasks(TlpNetwork &net, const std::vector<TlpTask> &tasks,
                                    const InferenceOptions &inference = {},
                                    const std::vector<std::string> &groups = {});

}  // namespace tlp
