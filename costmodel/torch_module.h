// PRIVATE to costmodel/: the LibTorch side of the cost model (networks, their
// weights' files, losses, training) lives in a shared module,
// libtlptune-torch.so, that a process loads the first time it needs it.
// LibTorch costs about a second to load (hundreds of libraries and its operator
// registry); show, export, measure and the rest never pay for it.
//
// The module is found beside the running executable (a build's bin/) or in
// ../lib/tlptune/ (an install). It comes from the same build as the program:
// the table below carries a version and its size, and a module whose table
// differs is refused rather than called.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "costmodel/lambda_rank.h"
#include "costmodel/tlp_network_impl.h"
#include "costmodel/tlp_trainer.h"

namespace tlp::detail {

// Bump when a member below changes.
inline constexpr int kTorchModuleVersion = 1;

struct TorchModule {
  int version = kTorchModuleVersion;
  size_t size = sizeof(TorchModule);

  std::unique_ptr<TlpNetwork::Impl> (*new_network)(const TlpNetworkConfig &config, uint64_t seed) = nullptr;
  TrainResult (*train_tlp)(TlpNetwork &net, const std::vector<TlpTask> &train, const std::vector<TlpTask> &val,
                           const TrainOptions &options) = nullptr;
  TrainResult (*train_mtl)(TlpNetwork &net, const std::vector<MtlTask> &train, const std::vector<MtlTask> &val_all,
                           const std::vector<TlpTask> &val, int val_head, const TrainOptions &options) = nullptr;
  double (*evaluate_loss)(TlpNetwork &net, const std::vector<TlpTask> &tasks, TlpLoss loss, int batch) = nullptr;
  LossAndGradient (*lambda_rank)(const std::vector<double> &scores, const std::vector<double> &labels,
                                 double sigma) = nullptr;
  LossAndGradient (*mse)(const std::vector<double> &scores, const std::vector<double> &labels) = nullptr;
  LossAndGradient (*multi_head_rank)(const std::vector<double> &scores, const std::vector<double> &labels,
                                     const std::vector<bool> &labeled, int heads) = nullptr;
};

// The name of the function the module exports, which returns its table.
inline constexpr const char *kTorchModuleEntry = "tlp_torch_module_v1";

// The module's table, loading the module on the first call (thread-safe). Throws
// std::runtime_error naming where it looked and what to do when the module is
// missing, fails to load (a missing LibTorch) or is from another build.
const TorchModule &torch_module();

}  // namespace tlp::detail

// Defined by the module (costmodel/torch/module_entry.cpp), never by a program.
extern "C" const tlp::detail::TorchModule *tlp_torch_module_v1();
