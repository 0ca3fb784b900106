// TLP model files: everything needed to predict, in one file.
//
// Layout (integers little-endian):
//   8 bytes   magic "TLPMODEL"
//   u32       format version (kTlpModelFormatVersion)
//   u64 + N   metadata, JSON: architecture, featurizer settings, platform,
//             training metadata
//   u64 + M   weights: a LibTorch archive (torch::serialize::OutputArchive)
//   u64       FNV-1a 64 checksum of every byte before it
//
// Loading refuses, with a ModelFileError saying what is wrong and what to do:
// a file that is not a tlptune model, a newer format version, a truncated or
// corrupt file, weights that do not fit the architecture, and (when the caller
// names its platform) a model trained for another platform.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/tlp_featurizer.h"
#include "costmodel/tlp_network.h"

namespace tlp {

// 2: every featurizer and architecture key is written, and a reader refuses
// keys it does not know; 1 is read by migrating it (model_file.cpp).
constexpr int kTlpModelFormatVersion = 2;

class ModelFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TlpTrainingInfo {
  int64_t records = 0;  // training records
  int64_t tasks = 0;    // training tasks
  std::string created;  // UTC, "2026-11-30T12:00:00Z"
  std::string loss;     // "rank", "mse"
  int epochs = 0;       // epochs run
  int best_epoch = 0;   // the epoch whose weights these are
  double best_val_loss = std::numeric_limits<double>::quiet_NaN();
  double seconds = 0;  // training wall time
  std::string note;    // free text, e.g. the command line
};

struct TlpModelInfo {
  int format_version = kTlpModelFormatVersion;
  TlpNetworkConfig network;
  FeaturizerOptions featurizer;
  std::string platform;  // the hardware the training data was measured on
  // MTL-TLP: the platform of each output head, in head order (empty for TLP).
  // A model loaded for one of them has `platform` set to it.
  std::vector<std::string> platforms;
  TlpTrainingInfo training;
};

// The current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now();

// Writes the model (to PATH.tmp, then renamed over PATH). Throws ModelFileError
// when the file cannot be written, or when info's network or featurizer sizes do
// not match the network.
void save_tlp_model(const std::string &path, const TlpNetwork &network, const TlpModelInfo &info);

struct LoadedTlpModel {
  TlpModelInfo info;
  TlpNetwork network;
};

// Reads and checks a model file. With a non-empty `platform`, a model trained for
// another platform is refused. An MTL-TLP model needs a platform: the network
// returned is that platform's head (TlpNetwork::single_head), and a platform it
// has no head for is refused. Throws ModelFileError.
LoadedTlpModel load_tlp_model(const std::string &path, const std::string &platform = "");

// The metadata alone (the whole file is still checked, the weights are not loaded).
TlpModelInfo read_tlp_model_info(const std::string &path);

}  // namespace tlp
