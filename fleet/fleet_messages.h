// The messages between rank 0 and the ranks that measure, as JSON text over MPI
// (point to point, one tag each). Rank 0 never blocks on a rank: it sends without
// waiting for delivery and polls for answers.
//
// A session is one measuring setup (target, threads, settings) on every rank;
// a run may hold several (one per platform it collects), each job names its own.
//
//   kHello   (0 -> r)  {"session", "target", "threads", "settings": {...}}
//   kReady   (r -> 0)  {"session", "platforms": [...], "version": "tlptune X"}  or {"session", "error": "..."}
//   kJob     (0 -> r)  {"session", "id", "workload", "schedules": [text, ...]}
//   kCompare (0 -> r)  {"session", "id", "workloads": [...], "schedules": [text, ...], "rounds"}:
//                      the kernels measured side by side, `rounds` times each
//   kDone    (r -> 0)  {"session", "id", "records": [record, ...], "kernels": [index, ...] (kCompare only)}
//                      or {"session", "id", "error": "..."}
//   kBye     (0 -> r)  {"session"}: the session is over, its builders and runner can go
//   kStop    (0 -> r)  {"finalize": false after a rank was lost, when no rank may call MPI_Finalize}
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tlp::fleet {

enum Tag : int { kHello = 1, kReady, kJob, kDone, kStop, kCompare, kBye };

struct Received {
  int from = 0;
  Tag tag = kDone;
  nlohmann::json message;
};

// One rank's end of the messages: one per process (FleetRank holds it), living
// until MPI ends, so that no text is freed while MPI may still be sending it.
class Mailbox {
 public:
  Mailbox();
  ~Mailbox();

  // Sends without waiting for delivery; the text is kept until MPI is done with it
  // (for ever, for a rank that was lost).
  void post(int rank, Tag tag, const nlohmann::json &message);
  // Blocks until a message from `rank` arrives (any tag).
  Received receive_from(int rank);
  // A message from any rank, if one is waiting.
  std::optional<Received> poll();

 private:
  struct Pending;
  std::vector<std::unique_ptr<Pending>> pending_;
};

}  // namespace tlp::fleet
