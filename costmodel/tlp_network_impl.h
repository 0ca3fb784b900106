// PRIVATE to costmodel/: what a TlpNetwork is made of. The LibTorch module
// (costmodel/torch/, loaded on first use by torch_module.h) implements this
// interface; everything else sees only the interface, so a process that never
// builds, loads or trains a network never loads LibTorch.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "costmodel/tlp_fast_forward.h"
#include "costmodel/tlp_network.h"

namespace tlp {

struct TlpNetwork::Impl {
  virtual ~Impl() = default;

  virtual const TlpNetworkConfig &config() const = 0;
  virtual size_t num_parameters() const = 0;
  // The weights as our own forward pass reads them, rebuilt after they change.
  virtual const detail::FastNet &fast_net() = 0;
  // LibTorch's forward (InferencePath::Torch or TorchPacked); chunk and threads
  // are already resolved (positive).
  virtual std::vector<float> predict_torch(const float *features, size_t n, const InferenceOptions &options) = 0;
  virtual std::string save_weights() const = 0;
  virtual void load_weights(const std::string &bytes) = 0;
  virtual std::unique_ptr<Impl> clone() const = 0;
  virtual std::vector<float> parameter(const std::string &name) const = 0;
  virtual std::unique_ptr<Impl> single_head(int head) const = 0;
};

}  // namespace tlp
