// A network's standing beside a library: each task's operator timed by a peer
// (oneDNN in its own preferred layouts, weights reordered before timing), summed
// with the network's weights, next to tlptune's best kernels over the same tasks.
// Tasks the peer does not cover (a pooling for a convolution library) are listed
// and left out of both sums, so the two sums compare the same operators.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tuner/peer_baselines.h"

namespace tlp {

struct NetworkPeerTask {
  std::string op;
  double weight = 1;
  double tlptune_seconds = -1;  // its best kernel's median; < 0: none
  PeerResult peer;
};

struct NetworkPeerSum {
  std::string peer;
  std::vector<NetworkPeerTask> tasks;
  int compared = 0;             // tasks with both a tlptune kernel and a peer result
  double peer_latency = 0;      // Σ weight × peer median over the compared tasks
  double tlptune_latency = 0;   // Σ weight × tlptune best over the same tasks
  double tlptune_rest = 0;      // Σ weight × tlptune best over the tasks not compared

  nlohmann::json to_json() const;
};

// `ops`, `weights` and `tlptune_seconds` are per task. `base` carries the target,
// threads and timing; its op_spec and peers are set per task here. `progress` as
// in run_peers.
NetworkPeerSum sum_network_peer(const std::string &peer, const std::vector<std::string> &ops,
                                const std::vector<double> &weights, const std::vector<double> &tlptune_seconds,
                                const PeerOptions &base, void (*progress)(const std::string &) = nullptr);

// Lines for a terminal: per task, then the two sums and their ratio.
std::string format_network_peer_sum(const NetworkPeerSum &s);

}  // namespace tlp
