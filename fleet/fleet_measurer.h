// Rank 0's MeasuringService on a fleet: every schedule is a job for one of the
// other ranks that measures the platform asked for; records come back and rank 0
// logs them (the only writer) before handing them on. A rank that outlives a
// job's time-out (counted from when the job was sent to an idle rank, i.e. from
// when it starts) is lost: its job goes to another rank, rank 0 says so, and the
// run goes on with the rest.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "fleet/fleet.h"
#include "fleet/fleet_messages.h"
#include "measure/measurer.h"
#include "measure/record_log.h"

namespace tlp {

class FleetMeasurer : public MeasuringService {
 public:
  // Greets every rank with the target, thread count and settings of `o` and keeps
  // those that measure the platform this machine would (the others stay idle).
  // Throws std::runtime_error, one line, when no rank does, when a rank runs
  // another tlptune version, or when none answers within `hello_timeout` seconds.
  FleetMeasurer(const FleetRank &f, const MeasurerOptions &o, double hello_timeout = 300);
  ~FleetMeasurer() override;  // the ranks are told to stop when tlptune ends (leave_fleet)

  std::vector<MeasureRecord> measure(const Operator &op, const std::vector<Schedule> &schedules,
                                     const std::atomic<bool> &stop,
                                     const std::function<void(const MeasureRecord &)> &on_record,
                                     const std::unordered_set<std::string> *skip = nullptr) override;
  // Not on a fleet yet: throws std::runtime_error saying so.
  void measure_side_by_side(const std::vector<const Operator *> &ops, const std::vector<Schedule> &schedules,
                            int rounds, const std::atomic<bool> &stop,
                            const std::function<void(size_t, const MeasureRecord &)> &on_record) override;
  const std::vector<std::string> &platforms() const override { return platforms_; }
  const MeasureTimes &times() const override { return times_; }
  int records_logged() const override { return logged_; }

  const std::vector<int> &serving_ranks() const { return serving_; }

 private:
  void lose(int rank, const std::string &why);

  FleetRank fleet_;
  fleet::Mailbox box_;
  std::vector<std::string> platforms_;
  std::vector<int> serving_;  // ranks that measure platforms_[0]
  std::set<int> lost_;
  double job_timeout_ = 0;
  RecordLog log_;
  MeasureTimes times_;
  int logged_ = 0;
  long next_id_ = 0;
};

}  // namespace tlp
