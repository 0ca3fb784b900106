#include "tuner/bench_peers.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "tuner/bench/json_file.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

PeerOptions peer_options(const BenchOptions &o, const BenchOperator &op, int rounds) {
  PeerOptions po;
  po.op_spec = op.op;
  po.peers = parse_peer_list(o.peers);
  po.target = o.runs.target;
  po.min_seconds = o.runs.measure.min_seconds;
  po.rounds = std::max(1, rounds);
  po.refuse_when_none_applies = false;  // one operator of a suite: its peers are skipped
  return po;
}

void store_peers(const BenchOptions &o, const BenchOperator &op, const std::vector<PeerResult> &results) {
  BenchReport holder;
  for (const PeerResult &p : results) {
    if (p.skipped) continue;
    std::string what = p.what_ran;
    if (!p.ok()) what += (what.empty() ? "" : "; ") + std::string("failed: ") + p.message;
    holder.peers.push_back({p.peer, op.op, p.ok() ? p.gflops : 0, what, p.round_medians});
  }
  bench_detail::write_json_file(bench_peers_path(o, op), holder.to_json());
}

// `now` replaces `best` when it ran cleanly and faster, or when `best` never ran
// cleanly; either way `best` keeps every round's median.
void keep_faster(PeerResult &best, const PeerResult &now) {
  std::vector<double> medians = best.round_medians;
  medians.insert(medians.end(), now.round_medians.begin(), now.round_medians.end());
  if (now.ok() && (!best.ok() || now.median_seconds < best.median_seconds)) best = now;
  best.round_medians = std::move(medians);
}

}  // namespace

std::string bench_peers_path(const BenchOptions &o, const BenchOperator &op) {
  return o.out_dir + "/peers/" + plot_file_stem(op.op, "") + ".json";
}

std::vector<BenchPeerResult> bench_peers_of(const BenchOptions &o, const BenchOperator &op) {
  const std::string path = bench_peers_path(o, op);
  if (fs::exists(path)) return BenchReport::read_part_file(path).peers;
  const PeerOptions po = peer_options(o, op, o.final_rounds * std::max(1, o.final_top));
  const PeersReport report = run_peers(po, [](const std::string &what) { fprintf(stderr, "%s\n", what.c_str()); });
  store_peers(o, op, report.results);
  return BenchReport::read_part_file(path).peers;
}

PeersInRounds::PeersInRounds(const BenchOptions &o, const std::vector<BenchOperator> &ops) : o_(o) {
  if (o.peers.empty()) return;
  ops_ = ops;
  best_.resize(ops_.size());
}

void PeersInRounds::time_round() {
  for (size_t i = 0; i < ops_.size(); ++i) {
    const PeersReport now = run_peers(peer_options(o_, ops_[i], o_.final_top));
    if (best_[i].empty()) {
      best_[i] = now.results;
      continue;
    }
    for (size_t k = 0; k < now.results.size() && k < best_[i].size(); ++k) keep_faster(best_[i][k], now.results[k]);
  }
}

void PeersInRounds::store() const {
  fs::create_directories(o_.out_dir + "/peers");
  for (size_t i = 0; i < ops_.size(); ++i)
    if (!best_[i].empty()) store_peers(o_, ops_[i], best_[i]);
}

}  // namespace tlp
