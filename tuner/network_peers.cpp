#include "tuner/network_peers.h"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace tlp {

NetworkPeerSum sum_network_peer(const std::string &peer, const std::vector<std::string> &ops,
                                const std::vector<double> &weights, const std::vector<double> &tlptune_seconds,
                                const PeerOptions &base, void (*progress)(const std::string &)) {
  NetworkPeerSum s;
  s.peer = peer;
  for (size_t i = 0; i < ops.size(); ++i) {
    NetworkPeerTask t{ops[i], weights[i], tlptune_seconds[i], {}};
    PeerOptions o = base;
    o.op_spec = ops[i];  // run_peers gives a library the plain layout; it picks its own

    o.peers = {peer};
    o.refuse_when_none_applies = false;
    if (progress) progress("task " + std::to_string(i + 1) + " of " + std::to_string(ops.size()) + ": " + ops[i]);
    const PeersReport r = run_peers(o);
    t.peer = r.results.front();
    if (t.peer.ok() && t.tlptune_seconds > 0) {
      ++s.compared;
      s.peer_latency += t.weight * t.peer.median_seconds;
      s.tlptune_latency += t.weight * t.tlptune_seconds;
    } else if (t.tlptune_seconds > 0) {
      s.tlptune_rest += t.weight * t.tlptune_seconds;
    }
    s.tasks.push_back(std::move(t));
  }
  return s;
}

std::string format_network_peer_sum(const NetworkPeerSum &s) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "\n%-72s %6s %10s %10s %7s\n", ("beside " + s.peer).c_str(), "weight", "tlptune ms",
                (s.peer + " ms").c_str(), "ratio");
  out += line;
  for (const NetworkPeerTask &t : s.tasks) {
    const bool mine = t.tlptune_seconds > 0;
    if (t.peer.ok() && mine)
      std::snprintf(line, sizeof line, "%-72s %6g %10.4f %10.4f %6.2fx\n", t.op.c_str(), t.weight,
                    t.tlptune_seconds * 1e3, t.peer.median_seconds * 1e3, t.peer.median_seconds / t.tlptune_seconds);
    else
      std::snprintf(line, sizeof line, "%-72s %6g %10s %10s  (%s)\n", t.op.c_str(), t.weight,
                    mine ? std::to_string(t.tlptune_seconds * 1e3).substr(0, 6).c_str() : "none",
                    "-",
                    !mine ? "no tlptune kernel"
                    : t.peer.skipped ? "not in the library"
                                     : ("failed: " + t.peer.message.substr(0, 60)).c_str());
    out += line;
  }
  if (s.compared > 0) {
    std::snprintf(line, sizeof line,
                  "over the %d tasks both have: tlptune %.3f ms, %s %.3f ms: tlptune is %.2fx %s's speed "
                  "(the other tasks add %.3f ms of tlptune's)\n",
                  s.compared, s.tlptune_latency * 1e3, s.peer.c_str(), s.peer_latency * 1e3,
                  s.peer_latency / s.tlptune_latency, s.peer.c_str(), s.tlptune_rest * 1e3);
    out += line;
  } else {
    out += "no task has both a tlptune kernel and a " + s.peer + " result\n";
  }
  return out;
}

nlohmann::json NetworkPeerSum::to_json() const {
  nlohmann::json tasks = nlohmann::json::array();
  for (const NetworkPeerTask &t : this->tasks) {
    nlohmann::json j = {{"op", t.op}, {"weight", t.weight}, {"peer_ok", t.peer.ok()}, {"peer_skipped", t.peer.skipped}};
    j["tlptune_seconds"] = t.tlptune_seconds > 0 ? nlohmann::json(t.tlptune_seconds) : nlohmann::json(nullptr);
    j["peer_seconds"] = t.peer.ok() ? nlohmann::json(t.peer.median_seconds) : nlohmann::json(nullptr);
    if (!t.peer.what_ran.empty()) j["peer_kernel"] = t.peer.what_ran;
    if (!t.peer.ok()) j["peer_note"] = t.peer.skipped ? t.peer.note : t.peer.message;
    tasks.push_back(std::move(j));
  }
  return {{"peer", peer},
          {"compared_tasks", compared},
          {"peer_latency_seconds", peer_latency},
          {"tlptune_latency_seconds", tlptune_latency},
          {"tlptune_rest_seconds", tlptune_rest},
          {"speed_ratio", compared > 0 ? nlohmann::json(peer_latency / tlptune_latency) : nlohmann::json(nullptr)},
          {"tasks", tasks}};
}

}  // namespace tlp
