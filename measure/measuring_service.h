// What tuning measures through. Today the one implementation is the Measurer
// (measure/measurer.h: builders and an isolated runner on this machine); a fleet
// of machines (MPI ranks, each with its own Measurer) is meant to stand behind the
// same calls, so search and tuning never know where a kernel ran. Every
// implementation logs each record before handing it on, and names in it the
// platform that measured it.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "codegen/operator.h"
#include "measure/measure_record.h"
#include "search/schedule.h"

namespace tlp {

// Seconds spent building and running, summed over every call so far.
struct MeasureTimes {
  double build = 0, run = 0;
};

class MeasuringService {
 public:
  virtual ~MeasuringService() = default;

  // Measures each schedule of `op` once per platform; each record is logged, then
  // passed to `on_record`. Runs whose run_key() is in `skip` are left out. Stops
  // early (returning fewer records) when `stop` turns true.
  virtual std::vector<MeasureRecord> measure(const Operator &op, const std::vector<Schedule> &schedules,
                                             const std::atomic<bool> &stop,
                                             const std::function<void(const MeasureRecord &)> &on_record,
                                             const std::unordered_set<std::string> *skip = nullptr) = 0;

  // schedules[i] of ops[i], each built once, then run `rounds` times round after
  // round, so that their timings are comparable; `on_record` gets the kernel index.
  // `after_round` (may be empty) is called with each round's index once its kernels
  // ran: what else should be timed under the same conditions runs there.
  virtual void measure_side_by_side(const std::vector<const Operator *> &ops, const std::vector<Schedule> &schedules,
                                    int rounds, const std::atomic<bool> &stop,
                                    const std::function<void(size_t, const MeasureRecord &)> &on_record,
                                    const std::function<void(int)> &after_round) = 0;

  // The platforms the records carry, one per thread count.
  virtual const std::vector<std::string> &platforms() const = 0;
  virtual const MeasureTimes &times() const = 0;
  virtual int records_logged() const = 0;
};

}  // namespace tlp
