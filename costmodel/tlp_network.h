// TLP's network: a schedule's feature matrix (seq_len x emb_size, one row per
// step) in, one score out (higher means faster).
//
//   per-step MLP  emb -> 64 -> 128 -> hidden -> hidden (ReLU after each)
//   attention     MultiheadAttention(hidden, heads) + residual      (paper)
//     | lstm      LSTM(hidden), its outputs replace the steps' vectors
//     | transformer  2 post-norm TransformerEncoder layers (d = hidden, ff = hidden,
//                    heads, ReLU, no dropout)
//   2 residual blocks  x + ReLU(Linear(x))
//   per-step decoder   hidden -> hidden -> 128 -> 64 -> 1 (ReLU between)
//   sum over the steps
//
// MTL-TLP (output_heads > 1): everything up to the residual blocks is shared and
// each platform has its own decoder (a "head"). A multi-head network scores with
// head 0; single_head(k) makes the plain TLP network of head k, which is how a
// multi-task model predicts for one platform.
//
// Padding. A matrix's rows after its last non-zero row are padding (the
// featurizer pads with zero rows). They are masked out of the sum over steps and,
// as keys, out of attention; the LSTM is causal and padding trails, so its real
// steps never see padding. A padding row therefore never changes a score: the
// score of a schedule does not depend on seq_len beyond its own steps, and an
// empty schedule scores 0.
//
// This header is plain C++. The network's LibTorch side is a module loaded when
// the first network is made (costmodel/torch_module.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tlp {

enum class TlpArch { Attention, Lstm, Transformer };

const char *tlp_arch_name(TlpArch a);                // "attention", "lstm", "transformer"
TlpArch tlp_arch_from_name(const std::string &name);  // throws std::invalid_argument

struct TlpNetworkConfig {
  TlpArch arch = TlpArch::Attention;
  int seq_len = 25;  // must match the featurizer's
  int emb_size = 22;
  // The paper uses 256. Half of it ranks as well on our data and scores 2.5
  // times faster, and scoring speed bounds how many candidates a round sees.
  int hidden = 128;
  int heads = 8;         // attention heads
  int output_heads = 1;  // decoders, one per platform (MTL-TLP); 1: TLP

  // Throws std::invalid_argument naming the bad field (sizes must be positive,
  // hidden divisible by heads).
  void validate() const;
  bool operator==(const TlpNetworkConfig &o) const;
  bool operator!=(const TlpNetworkConfig &o) const { return !(*this == o); }
};

// How predict() runs the network. Fast is our own plain-C++ forward (OpenBLAS
// sgemm for the matrix products; padding skipped and repeated step rows computed
// once). Torch is LibTorch's straightforward padded forward, the reference.
// TorchPacked is the LibTorch forward that training uses (padding skipped,
// repeated rows once). All give the same scores within float rounding.
enum class InferencePath { Fast, Torch, TorchPacked };

// The defaults were picked with costmodel/tlp_score_bench on the 2-core machine.
struct InferenceOptions {
  InferencePath path = InferencePath::Fast;
  int chunk = 256;  // schedules per forward pass
  // Worker threads (Fast; each runs OpenBLAS single-threaded) or LibTorch's
  // intra-op threads (Torch, TorchPacked: a process-wide setting). 0: one per
  // hardware thread.
  int threads = 0;
};

// Not thread-safe: one caller at a time.
class TlpNetwork {
 public:
  // Fresh weights, initialized deterministically from `seed`.
  explicit TlpNetwork(const TlpNetworkConfig &config, uint64_t seed = 0);
  ~TlpNetwork();
  TlpNetwork(TlpNetwork &&) noexcept;
  TlpNetwork &operator=(TlpNetwork &&) noexcept;

  const TlpNetworkConfig &config() const;
  size_t num_parameters() const;

  // Scores of `n` feature matrices stored one after another (n * seq_len *
  // emb_size floats, row-major). No gradients are kept.
  std::vector<float> predict(const float *features, size_t n, const InferenceOptions &options = {});
  std::vector<float> predict(const std::vector<float> &features, const InferenceOptions &options = {});

  // The weights as bytes (a LibTorch archive), and back. load_weights throws
  // std::runtime_error when the bytes are not an archive of this architecture.
  std::string save_weights() const;
  void load_weights(const std::string &bytes);

  // A deep copy (same config, same weights).
  TlpNetwork clone() const;

  // The values of one parameter by its name ("enc0.weight", "head1_dec0.bias"),
  // for tests and tools. Throws std::out_of_range for an unknown name.
  std::vector<float> parameter(const std::string &name) const;

  // The single-head network of decoder `head` (0 <= head < output_heads): the
  // shared weights and that head's decoder. Throws std::out_of_range.
  TlpNetwork single_head(int head) const;

  // For costmodel's own .cpp files: what the network is made of (tlp_network_impl.h).
  struct Impl;
  Impl &impl() { return *impl_; }
  const Impl &impl() const { return *impl_; }

 private:
  explicit TlpNetwork(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tlp
