// The messages between rank 0 and the ranks that measure, as JSON text over MPI
// (point to point, one tag each). Rank 0 never blocks on a rank: it sends without
// waiting for delivery and polls for answers.
//
//   kHello (0 -> r)  {"target", "threads", "settings": {...}}
//   kReady (r -> 0)  {"platforms": [...], "version": "tlptune X"}  or {"error": "..."}
//   kJob   (0 -> r)  {"id", "workload", "schedules": [text, ...]}
//   kDone  (r -> 0)  {"id", "records": [record, ...]}  or {"id", "error": "..."}
//   kStop  (0 -> r)  {"finalize": false after a rank was lost, when no rank may call MPI_Finalize}
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tlp::fleet {

enum Tag : int { kHello = 1, kReady, kJob, kDone, kStop };

struct Received {
  int from = 0;
  Tag tag = kDone;
  nlohmann::json message;
};

// One rank's end of the messages.
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
