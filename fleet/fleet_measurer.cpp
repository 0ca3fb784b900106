#include "fleet/fleet_measurer.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <stdexcept>
#include <thread>

#include "search/tlptune_version.h"

namespace tlp {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

nlohmann::json settings_json(const MeasureSettings &s) {
  return {{"build_workers", s.build_workers}, {"build_timeout", s.build_timeout}, {"run_timeout", s.run_timeout},
          {"min_repeats", s.min_repeats},     {"min_seconds", s.min_seconds}};
}

}  // namespace

FleetMeasurer::FleetMeasurer(const FleetRank &f, const MeasurerOptions &o, double hello_timeout)
    : fleet_(f), log_(o.log_path) {
  if (o.threads.size() != 1)
    throw std::runtime_error("a fleet measures one thread count per run; give one --threads (or one --platforms entry)");
  const std::string wanted = measurement_platform(o.target, o.threads[0], false, "");
  platforms_ = {wanted};
  // A job is one schedule: its build, its run, and room for the messages.
  job_timeout_ = o.settings.build_timeout + o.settings.run_timeout + 10;
  for (int r = 1; r < f.size; ++r)
    box_.post(r, fleet::kHello, {{"target", o.target}, {"threads", o.threads[0]}, {"settings", settings_json(o.settings)}});
  std::map<int, std::string> other_platforms;
  std::set<int> answered;
  const auto start = Clock::now();
  while (int(answered.size()) < f.size - 1 && seconds_since(start) < hello_timeout) {
    const auto m = box_.poll();
    if (!m) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    if (m->tag != fleet::kReady) continue;
    answered.insert(m->from);
    const nlohmann::json &j = m->message;
    if (j.contains("error")) {
      fprintf(stderr, "fleet: rank %d cannot measure: %s\n", m->from, j.at("error").get<std::string>().c_str());
      continue;
    }
    if (j.value("version", "") != kTlptuneVersion)
      throw std::runtime_error("fleet: rank " + std::to_string(m->from) + " runs " + j.value("version", "?") +
                               ", rank 0 runs " + kTlptuneVersion + "; install one tlptune on every host");
    const std::string p = j.at("platforms").at(0).get<std::string>();
    if (p == wanted) serving_.push_back(m->from);
    else other_platforms[m->from] = p;
  }
  for (int r = 1; r < f.size; ++r)
    if (!answered.count(r)) fprintf(stderr, "fleet: rank %d did not answer in %.0f s; it is left out\n", r, hello_timeout);
  for (const auto &[r, p] : other_platforms) fprintf(stderr, "fleet: rank %d measures %s, not this run's platform: idle\n", r, p.c_str());
  if (serving_.empty()) {
    std::string have;
    for (const auto &[r, p] : other_platforms) have += (have.empty() ? "" : ", ") + ("rank " + std::to_string(r) + ": " + p);
    throw std::runtime_error("fleet: no rank measures " + wanted + (have.empty() ? "" : " (" + have + ")") +
                             "; start ranks on machines of that platform");
  }
  fprintf(stderr, "fleet: %zu of %d ranks measure %s\n", serving_.size(), f.size - 1, wanted.c_str());
}

FleetMeasurer::~FleetMeasurer() = default;

void FleetMeasurer::lose(int rank, const std::string &why) {
  lost_.insert(rank);
  *fleet_.rank_lost = true;
  fleet_.lost_ranks->insert(rank);
  fprintf(stderr, "fleet: rank %d lost (%s); its job goes to another rank\n", rank, why.c_str());
}

std::vector<MeasureRecord> FleetMeasurer::measure(const Operator &op, const std::vector<Schedule> &schedules,
                                                  const std::atomic<bool> &stop,
                                                  const std::function<void(const MeasureRecord &)> &on_record,
                                                  const std::unordered_set<std::string> *skip) {
  const std::string workload = op.workload().key();
  std::deque<size_t> todo;
  for (size_t i = 0; i < schedules.size(); ++i)
    if (!skip || !skip->count(Measurer::run_key(platforms_[0], workload, schedules[i]))) todo.push_back(i);
  struct InFlight {
    long id;
    size_t schedule;
    Clock::time_point since;
  };
  std::map<int, InFlight> busy;
  std::vector<MeasureRecord> out;
  while ((!todo.empty() || !busy.empty()) && !stop) {
    bool acted = false;
    for (int r : serving_) {
      if (todo.empty()) break;
      if (lost_.count(r) || busy.count(r)) continue;
      const size_t s = todo.front();
      todo.pop_front();
      const long id = next_id_++;
      box_.post(r, fleet::kJob, {{"id", id}, {"workload", workload}, {"schedules", {schedules[s].to_text()}}});
      busy[r] = {id, s, Clock::now()};
      acted = true;
    }
    if (const auto m = box_.poll()) {
      acted = true;
      const auto it = busy.find(m->from);
      // Late answers from a rank given up on, or of a job given to another: ignored.
      if (m->tag == fleet::kDone && it != busy.end() && m->message.value("id", -1L) == it->second.id) {
        busy.erase(it);
        if (m->message.contains("error")) {
          fprintf(stderr, "fleet: %s\n", m->message.at("error").get<std::string>().c_str());
        } else {
          for (const auto &j : m->message.at("records")) {
            const MeasureRecord rec = MeasureRecord::from_json(j);
            log_.append(rec);
            ++logged_;
            times_.build += rec.build_seconds;
            times_.run += rec.run_seconds;
            on_record(rec);
            out.push_back(rec);
          }
        }
      }
    }
    for (auto it = busy.begin(); it != busy.end();) {
      if (seconds_since(it->second.since) > job_timeout_) {
        lose(it->first, "no answer " + std::to_string(int(job_timeout_)) + " s after its job started");
        todo.push_front(it->second.schedule);
        it = busy.erase(it);
      } else {
        ++it;
      }
    }
    if (lost_.size() == serving_.size())
      throw std::runtime_error("fleet: every rank that measures " + platforms_[0] + " was lost; " +
                               std::to_string(out.size()) + " records of this round are logged, run again with "
                               "--resume (or the same collect) to continue");
    if (!acted) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return out;
}

void FleetMeasurer::measure_side_by_side(const std::vector<const Operator *> &, const std::vector<Schedule> &, int,
                                         const std::atomic<bool> &,
                                         const std::function<void(size_t, const MeasureRecord &)> &) {
  throw std::runtime_error("measuring kernels side by side on a fleet is not built yet; give --final-top 0");
}

}  // namespace tlp
