#include "fleet/fleet_measurer.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <set>
#include <stdexcept>
#include <thread>

#include "search/tlptune_version.h"

namespace tlp {

namespace fleet {

// One measuring setup on every rank; the ranks drop theirs when the last
// FleetMeasurer of the session goes.
struct Session {
  FleetRank fleet;
  long id = 0;
  ~Session() {
    for (int r = 1; r < fleet.size; ++r)
      if (!fleet.lost_ranks->count(r)) fleet.mailbox->post(r, kBye, {{"session", id}});
  }
};

}  // namespace fleet

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void nap() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }

nlohmann::json settings_json(const MeasureSettings &s) {
  return {{"build_workers", s.build_workers}, {"build_timeout", s.build_timeout}, {"run_timeout", s.run_timeout},
          {"min_repeats", s.min_repeats},     {"min_seconds", s.min_seconds}};
}

// Whether `m` answers job `id` of `session`: answers of jobs given up on, of other
// sessions, or from ranks given up on, are ignored.
bool answers(const fleet::Received &m, long session, long id) {
  return m.tag == fleet::kDone && m.message.value("session", -1L) == session && m.message.value("id", -1L) == id;
}

// The platform of `o` as this machine would measure it; empty where this machine
// cannot say (a GPU target on a rank 0 without a GPU).
std::string own_platform(const MeasurerOptions &o) {
  try {
    return measurement_platform(o.target, o.threads.at(0), false, "");
  } catch (const std::exception &) {
    return "";
  }
}

struct Greeting {
  std::shared_ptr<fleet::Session> session;
  std::map<std::string, std::vector<int>> ranks_of;  // platform -> ranks measuring it
};

// Opens a session on every rank and hears which platform each measures.
Greeting greet(const FleetRank &f, const MeasurerOptions &o, double timeout) {
  if (o.threads.size() != 1)
    throw std::runtime_error("a fleet measures one thread count per session; give one --threads (or one per "
                             "--platforms entry)");
  Greeting g;
  g.session = std::make_shared<fleet::Session>();
  g.session->fleet = f;
  g.session->id = (*f.next_session)++;
  const long session = g.session->id;
  for (int r = 1; r < f.size; ++r)
    if (!f.lost_ranks->count(r))
      f.mailbox->post(r, fleet::kHello,
                      {{"session", session}, {"target", o.target}, {"threads", o.threads[0]},
                       {"settings", settings_json(o.settings)}});
  std::set<int> answered;
  const auto start = Clock::now();
  while (int(answered.size() + f.lost_ranks->size()) < f.size - 1 && seconds_since(start) < timeout) {
    const auto m = f.mailbox->poll();
    if (!m) {
      nap();
      continue;
    }
    if (m->tag != fleet::kReady || m->message.value("session", -1L) != session) continue;
    answered.insert(m->from);
    const nlohmann::json &j = m->message;
    if (j.contains("error")) {
      fprintf(stderr, "fleet: rank %d cannot measure: %s\n", m->from, j.at("error").get<std::string>().c_str());
      continue;
    }
    if (j.value("version", "") != kTlptuneVersion)
      throw std::runtime_error("fleet: rank " + std::to_string(m->from) + " runs " + j.value("version", "?") +
                               ", rank 0 runs " + kTlptuneVersion + "; install one tlptune on every host");
    g.ranks_of[j.at("platforms").at(0).get<std::string>()].push_back(m->from);
  }
  for (int r = 1; r < f.size; ++r)
    if (!answered.count(r) && !f.lost_ranks->count(r))
      fprintf(stderr, "fleet: rank %d did not answer in %.0f s; it is left out\n", r, timeout);
  if (g.ranks_of.empty())
    throw std::runtime_error("fleet: no rank can measure " + o.target + " (see each rank's line above)");
  return g;
}

// The ranks of the platform this run tunes for, from those that answered; says
// which other ranks stay idle.
FleetMeasurer::Assignment own_platform_ranks(const Greeting &g, const MeasurerOptions &o) {
  std::string wanted = own_platform(o);
  if (wanted.empty() && g.ranks_of.size() == 1) wanted = g.ranks_of.begin()->first;  // rank 0 cannot tell: the fleet's
  const auto it = g.ranks_of.find(wanted);
  if (it == g.ranks_of.end()) {
    std::string have;
    for (const auto &[p, ranks] : g.ranks_of) have += (have.empty() ? "" : ", ") + p;
    throw std::runtime_error("fleet: no rank measures " + (wanted.empty() ? o.target : wanted) + " (the ranks measure " +
                             have + "); start rank 0 on a machine of the platform to tune for, or ranks on machines "
                             "of this one");
  }
  for (const auto &[p, ranks] : g.ranks_of)
    if (p != wanted)
      for (int r : ranks) fprintf(stderr, "fleet: rank %d measures %s, not this run's platform: idle\n", r, p.c_str());
  return {g.session, wanted, it->second};
}

}  // namespace

FleetMeasurer::FleetMeasurer(const FleetRank &f, Assignment a, const MeasurerOptions &o)
    : fleet_(f),
      session_(std::move(a.session)),
      platforms_{std::move(a.platform)},
      serving_(std::move(a.ranks)),
      build_timeout_(o.settings.build_timeout),
      run_timeout_(o.settings.run_timeout),
      log_(o.log_path) {
  fprintf(stderr, "fleet: %zu of %d ranks measure %s\n", serving_.size(), f.size - 1, platforms_[0].c_str());
}

// The log opens only once the fleet has ranks for the run: a refused run leaves
// no file behind.
FleetMeasurer::FleetMeasurer(const FleetRank &f, const MeasurerOptions &o, double hello_timeout)
    : FleetMeasurer(f, own_platform_ranks(greet(f, o, hello_timeout), o), o) {}

std::vector<std::unique_ptr<FleetMeasurer>> FleetMeasurer::per_platform(const FleetRank &f, const MeasurerOptions &o,
                                                                        double hello_timeout) {
  Greeting g = greet(f, o, hello_timeout);
  const std::string mine = own_platform(o);
  std::vector<std::unique_ptr<FleetMeasurer>> out;
  auto add = [&](const std::string &platform, const std::vector<int> &ranks) {
    out.push_back(std::unique_ptr<FleetMeasurer>(new FleetMeasurer(f, {g.session, platform, ranks}, o)));
  };
  if (g.ranks_of.count(mine)) add(mine, g.ranks_of.at(mine));
  for (const auto &[p, ranks] : g.ranks_of)
    if (p != mine) add(p, ranks);
  return out;
}

FleetMeasurer::~FleetMeasurer() = default;

void FleetMeasurer::lose(int rank, const std::string &why) {
  *fleet_.rank_lost = true;
  fleet_.lost_ranks->insert(rank);
  fprintf(stderr, "fleet: rank %d lost (%s); its job goes to another rank\n", rank, why.c_str());
}

void FleetMeasurer::throw_if_all_lost(size_t logged_this_call) const {
  for (int r : serving_)
    if (!lost(r)) return;
  throw std::runtime_error("fleet: every rank that measures " + platforms_[0] + " was lost; " +
                           std::to_string(logged_this_call) + " records of this round are logged, run again with "
                           "--resume (or the same collect) to continue");
}

MeasureRecord FleetMeasurer::take(const nlohmann::json &record) {
  MeasureRecord rec = MeasureRecord::from_json(record);
  log_.append(rec);
  ++logged_;
  times_.build += rec.build_seconds;
  times_.run += rec.run_seconds;
  return rec;
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
  // A job is one schedule: its build, its run, and room for the messages.
  const double job_timeout = build_timeout_ + run_timeout_ + 10;
  std::map<int, InFlight> busy;
  std::vector<MeasureRecord> out;
  while ((!todo.empty() || !busy.empty()) && !stop) {
    bool acted = false;
    for (int r : serving_) {
      if (todo.empty()) break;
      if (lost(r) || busy.count(r)) continue;
      const size_t s = todo.front();
      todo.pop_front();
      const long id = next_id_++;
      fleet_.mailbox->post(r, fleet::kJob,
                           {{"session", session_->id}, {"id", id}, {"workload", workload},
                            {"schedules", {schedules[s].to_text()}}});
      busy[r] = {id, s, Clock::now()};
      acted = true;
    }
    if (const auto m = fleet_.mailbox->poll()) {
      acted = true;
      const auto it = busy.find(m->from);
      if (it != busy.end() && answers(*m, session_->id, it->second.id)) {
        busy.erase(it);
        if (m->message.contains("error")) {
          fprintf(stderr, "fleet: %s\n", m->message.at("error").get<std::string>().c_str());
        } else {
          for (const auto &j : m->message.at("records")) {
            out.push_back(take(j));
            on_record(out.back());
          }
        }
      }
    }
    for (auto it = busy.begin(); it != busy.end();) {
      if (seconds_since(it->second.since) > job_timeout) {
        lose(it->first, "no answer " + std::to_string(int(job_timeout)) + " s after its job started");
        todo.push_front(it->second.schedule);
        it = busy.erase(it);
      } else {
        ++it;
      }
    }
    throw_if_all_lost(out.size());
    if (!acted) nap();
  }
  return out;
}

void FleetMeasurer::measure_side_by_side(const std::vector<const Operator *> &ops, const std::vector<Schedule> &schedules,
                                         int rounds, const std::atomic<bool> &stop,
                                         const std::function<void(size_t, const MeasureRecord &)> &on_record,
                                         const std::function<void(int)> &after_round) {
  if (schedules.empty() || rounds <= 0) return;
  nlohmann::json job = {{"session", session_->id}, {"rounds", rounds}};
  for (size_t i = 0; i < schedules.size(); ++i) {
    job["workloads"].push_back(ops[i]->workload().key());
    job["schedules"].push_back(schedules[i].to_text());
  }
  // Every kernel built, then run `rounds` times; the worst case of each, and room for the messages.
  const double n = double(schedules.size());
  const double timeout = n * build_timeout_ + rounds * n * run_timeout_ + 10;
  while (!stop) {
    throw_if_all_lost(0);
    int rank = 0;
    for (int r : serving_)
      if (!lost(r)) {
        rank = r;
        break;
      }
    job["id"] = next_id_++;
    fleet_.mailbox->post(rank, fleet::kCompare, job);
    const auto since = Clock::now();
    while (!stop) {
      const auto m = fleet_.mailbox->poll();
      if (m && m->from == rank && answers(*m, session_->id, job["id"].get<long>())) {
        if (m->message.contains("error")) {
          fprintf(stderr, "fleet: %s\n", m->message.at("error").get<std::string>().c_str());
          return;
        }
        const auto &records = m->message.at("records");
        const auto &kernels = m->message.at("kernels");
        for (size_t i = 0; i < records.size(); ++i) on_record(kernels.at(i).get<size_t>(), take(records[i]));
        for (int round = 0; round < rounds && after_round && !stop; ++round) after_round(round);
        return;
      }
      if (seconds_since(since) > timeout) {
        lose(rank, "no answer " + std::to_string(int(timeout)) + " s after its kernels went to it");
        break;
      }
      if (!m) nap();
    }
  }
}

std::unique_ptr<MeasuringService> make_measuring_service(const FleetRank &f, const MeasurerOptions &o) {
  if (!f.fleet()) return std::make_unique<Measurer>(o);
  if (!o.runner_command.empty())
    throw std::runtime_error("on a fleet every rank runs the tlptune-runner beside it; drop --runner");
  if (o.build_only) throw std::runtime_error("--build-only measures nothing to share out: run it without mpirun");
  return std::make_unique<FleetMeasurer>(f, o);
}

}  // namespace tlp
