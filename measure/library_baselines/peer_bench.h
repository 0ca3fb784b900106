// Private to tlptune-peer-bench: one timing function per library. Each gets the
// inputs in the operator's order (dense, the layouts of codegen/ops), times the
// library's kernel with the runner's warm-up/repeat rule, and returns the costs
// and the output of the last run.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "measure/library_baselines/peer_workload.h"
#include "measure/timing_protocol.h"

namespace tlp {
namespace peer {

struct BenchResult {
  std::vector<double> costs;  // seconds per timed run
  std::vector<float> output;  // the output of the last run, dense, the operator's layout
  std::string kernel;         // what ran, for people
  std::string note;           // a caveat for the comparison, if any
  int threads = 0;            // threads the library was told to use
  std::vector<std::pair<std::string, std::string>> details;  // extra JSON fields (core name, version...)
};

// Throws std::runtime_error (PeerWorkloadError for the workload) on failure.
BenchResult bench_openblas(const PeerWorkload &w, const std::vector<std::vector<float>> &inputs,
                           const TimingOptions &timing, int threads);
BenchResult bench_onednn(const PeerWorkload &w, const std::vector<std::vector<float>> &inputs,
                         const TimingOptions &timing, int threads);

}  // namespace peer
}  // namespace tlp
