// The peers of a bench's operators (see peer_baselines.h), stored per operator in
// OUT/peers/ so that a resumed bench reads them back instead of timing them again.
//
// A peer is compared with the runs' best kernels as re-measured at the end, so it
// is timed inside those rounds whenever they run (PeersInRounds): a small VM's
// speed drifts by tens of percent within minutes, and only figures taken in the
// same rounds compare. Each peer then gets as many timings as a run's re-measured
// kernels get together, and keeps its fastest, as they do.
#pragma once

#include <vector>

#include "tuner/bench/bench_report.h"
#include "tuner/bench/bench_suite.h"
#include "tuner/bench_session.h"
#include "tuner/peer_baselines.h"

namespace tlp {

// OUT/peers/<operator>.json.
std::string bench_peers_path(const BenchOptions &o, const BenchOperator &op);

// The stored figures of `op`'s peers; when none are stored, times them first, on
// their own, in final_rounds x final_top rounds, and stores them.
std::vector<BenchPeerResult> bench_peers_of(const BenchOptions &o, const BenchOperator &op);

// The peers of `ops`, timed a round at a time: each time_round() times every
// peer final_top times and keeps its fastest round; store() writes what was
// timed, replacing what was stored (figures from other rounds do not compare).
// Nothing to time when o.peers is empty.
class PeersInRounds {
 public:
  PeersInRounds(const BenchOptions &o, const std::vector<BenchOperator> &ops);
  size_t operators() const { return ops_.size(); }
  void time_round();
  void store() const;

 private:
  const BenchOptions &o_;
  std::vector<BenchOperator> ops_;
  std::vector<std::vector<PeerResult>> best_;  // per operator, its peers' fastest rounds so far
};

}  // namespace tlp
