// Rank 0's MeasuringService on a fleet: every schedule is a job for one of the
// other ranks that measures the platform asked for; records come back and rank 0
// logs them (the only writer) before handing them on. Kernels measured side by
// side go together to one rank, so that their timings stay comparable. A rank
// that outlives a job's time-out (counted from when the job was sent to an idle
// rank, i.e. from when it starts) is lost: its job goes to another rank, rank 0
// says so, and the run goes on with the rest.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fleet/fleet.h"
#include "fleet/fleet_messages.h"
#include "measure/measurer.h"
#include "measure/record_log.h"

namespace tlp {

namespace fleet {
struct Session;
}

class FleetMeasurer : public MeasuringService {
 public:
  // A greeting's outcome for one platform: the session and the ranks measuring it.
  struct Assignment {
    std::shared_ptr<fleet::Session> session;
    std::string platform;
    std::vector<int> ranks;
  };

  // Greets every rank with the target, thread count and settings of `o` and keeps
  // those that measure the platform this machine would (the others stay idle).
  // Throws std::runtime_error, one line, when no rank does, when a rank runs
  // another tlptune version, or when none answers within `hello_timeout` seconds.
  FleetMeasurer(const FleetRank &f, const MeasurerOptions &o, double hello_timeout = 300);

  // One per platform the ranks measure for the target and thread count of `o`
  // (a fleet of several kinds of machine measures several): the one of this
  // machine's platform first when some rank has it. Throws like the constructor
  // when no rank can measure.
  static std::vector<std::unique_ptr<FleetMeasurer>> per_platform(const FleetRank &f, const MeasurerOptions &o,
                                                                  double hello_timeout = 300);
  ~FleetMeasurer() override;

  std::vector<MeasureRecord> measure(const Operator &op, const std::vector<Schedule> &schedules,
                                     const std::atomic<bool> &stop,
                                     const std::function<void(const MeasureRecord &)> &on_record,
                                     const std::unordered_set<std::string> *skip = nullptr) override;
  // On one rank of the platform, all kernels together; another rank starts over
  // when that one is lost. The rounds run there, so `after_round` is called for
  // each of them only once all have come back.
  void measure_side_by_side(const std::vector<const Operator *> &ops, const std::vector<Schedule> &schedules,
                            int rounds, const std::atomic<bool> &stop,
                            const std::function<void(size_t, const MeasureRecord &)> &on_record,
                            const std::function<void(int)> &after_round) override;
  const std::vector<std::string> &platforms() const override { return platforms_; }
  const MeasureTimes &times() const override { return times_; }
  int records_logged() const override { return logged_; }

  const std::vector<int> &serving_ranks() const { return serving_; }

 private:
  FleetMeasurer(const FleetRank &f, Assignment a, const MeasurerOptions &o);
  void lose(int rank, const std::string &why);
  bool lost(int rank) const { return fleet_.lost_ranks->count(rank) > 0; }
  void throw_if_all_lost(size_t logged_this_call) const;
  MeasureRecord take(const nlohmann::json &record);  // logs it and counts its times

  FleetRank fleet_;
  std::shared_ptr<fleet::Session> session_;
  std::vector<std::string> platforms_;
  std::vector<int> serving_;  // ranks that measure platforms_[0]
  double build_timeout_ = 0, run_timeout_ = 0;
  RecordLog log_;
  MeasureTimes times_;
  int logged_ = 0;
  long next_id_ = 0;
};

// What tuning measures through: a FleetMeasurer on rank 0 of a fleet, a Measurer
// on this machine otherwise. Throws std::runtime_error for what a fleet does not
// do: --runner (every rank runs its own runner) and --build-only.
std::unique_ptr<MeasuringService> make_measuring_service(const FleetRank &f, const MeasurerOptions &o);

}  // namespace tlp
