#include "costmodel/tlp_network.h"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "costmodel/tlp_fast_forward.h"
#include "costmodel/tlp_network_impl.h"
#include "costmodel/torch_module.h"

namespace tlp {

const char *tlp_arch_name(TlpArch a) {
  switch (a) {
    case TlpArch::Attention: return "attention";
    case TlpArch::Lstm: return "lstm";
    case TlpArch::Transformer: return "transformer";
  }
  return "?";
}

TlpArch tlp_arch_from_name(const std::string &name) {
  for (TlpArch a : {TlpArch::Attention, TlpArch::Lstm, TlpArch::Transformer})
    if (name == tlp_arch_name(a)) return a;
  throw std::invalid_argument("unknown TLP architecture '" + name + "' (known: attention, lstm, transformer)");
}

void TlpNetworkConfig::validate() const {
  auto positive = [](int v, const char *what) {
    if (v <= 0) throw std::invalid_argument(std::string("TLP network ") + what + " must be positive, got " +
                                            std::to_string(v));
  };
  positive(seq_len, "seq_len");
  positive(emb_size, "emb_size");
  positive(hidden, "hidden");
  positive(heads, "heads");
  positive(output_heads, "output_heads");
  if (hidden % heads != 0)
    throw std::invalid_argument("TLP network hidden size " + std::to_string(hidden) +
                                " is not divisible by the number of heads " + std::to_string(heads));
}

bool TlpNetworkConfig::operator==(const TlpNetworkConfig &o) const {
  return arch == o.arch && seq_len == o.seq_len && emb_size == o.emb_size && hidden == o.hidden && heads == o.heads &&
         output_heads == o.output_heads;
}

TlpNetwork::TlpNetwork(const TlpNetworkConfig &config, uint64_t seed) {
  config.validate();
  impl_ = detail::torch_module().new_network(config, seed);
}

TlpNetwork::TlpNetwork(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TlpNetwork::~TlpNetwork() = default;
TlpNetwork::TlpNetwork(TlpNetwork &&) noexcept = default;
TlpNetwork &TlpNetwork::operator=(TlpNetwork &&) noexcept = default;

const TlpNetworkConfig &TlpNetwork::config() const { return impl_->config(); }
size_t TlpNetwork::num_parameters() const { return impl_->num_parameters(); }

std::vector<float> TlpNetwork::predict(const std::vector<float> &features, const InferenceOptions &options) {
  const size_t per = size_t(config().seq_len) * config().emb_size;
  if (features.size() % per != 0)
    throw std::invalid_argument("TLP features hold " + std::to_string(features.size()) +
                                " values, not a multiple of seq_len x emb_size = " + std::to_string(per));
  return predict(features.data(), features.size() / per, options);
}

std::vector<float> TlpNetwork::predict(const float *features, size_t n, const InferenceOptions &options) {
  if (n == 0) return {};
  InferenceOptions o = options;
  o.chunk = std::max(1, o.chunk);
  if (o.threads <= 0) o.threads = std::max(1, int(std::thread::hardware_concurrency()));
  if (o.path != InferencePath::Fast) return impl_->predict_torch(features, n, o);
  std::vector<float> out(n, 0.0f);
  detail::fast_predict(impl_->fast_net(), features, n, out.data(), o.chunk, o.threads);
  return out;
}

std::string TlpNetwork::save_weights() const { return impl_->save_weights(); }
void TlpNetwork::load_weights(const std::string &bytes) { impl_->load_weights(bytes); }
TlpNetwork TlpNetwork::clone() const { return TlpNetwork(impl_->clone()); }

std::vector<float> TlpNetwork::parameter(const std::string &name) const { return impl_->parameter(name); }

TlpNetwork TlpNetwork::single_head(int head) const {
  const int heads = config().output_heads;
  if (head < 0 || head >= heads)
    throw std::out_of_range("head " + std::to_string(head) + " of a network with " + std::to_string(heads) +
                            " output heads");
  return TlpNetwork(impl_->single_head(head));
}

}  // namespace tlp
