#include "fleet/fleet_worker.h"

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <unistd.h>

#include "codegen/operator.h"
#include "fleet/fleet_messages.h"
#include "measure/measurer.h"
#include "search/tlptune_version.h"

namespace tlp {
namespace {

MeasureSettings settings_from(const nlohmann::json &j) {
  MeasureSettings s;
  s.build_workers = j.value("build_workers", s.build_workers);
  s.build_timeout = j.value("build_timeout", s.build_timeout);
  s.run_timeout = j.value("run_timeout", s.run_timeout);
  s.min_repeats = j.value("min_repeats", s.min_repeats);
  s.min_seconds = j.value("min_seconds", s.min_seconds);
  return s;
}

// A job's records, as kDone carries them.
nlohmann::json measure_job(Measurer &measurer, const fleet::Received &m) {
  const std::atomic<bool> never{false};
  nlohmann::json records = nlohmann::json::array();
  if (m.tag == fleet::kJob) {
    const auto op = make_operator(m.message.at("workload").get<std::string>());
    std::vector<Schedule> schedules;
    for (const auto &s : m.message.at("schedules")) schedules.push_back(Schedule::from_text(s.get<std::string>()));
    for (const MeasureRecord &r : measurer.measure(*op, schedules, never, [](const MeasureRecord &) {}))
      records.push_back(r.to_json());
    return {{"records", records}};
  }
  std::vector<std::unique_ptr<Operator>> ops;
  std::vector<const Operator *> op_of;
  std::vector<Schedule> schedules;
  for (const auto &w : m.message.at("workloads")) {
    ops.push_back(make_operator(w.get<std::string>()));
    op_of.push_back(ops.back().get());
  }
  for (const auto &s : m.message.at("schedules")) schedules.push_back(Schedule::from_text(s.get<std::string>()));
  nlohmann::json kernels = nlohmann::json::array();
  measurer.measure_side_by_side(op_of, schedules, m.message.at("rounds").get<int>(), never,
                                [&](size_t k, const MeasureRecord &r) {
                                  kernels.push_back(k);
                                  records.push_back(r.to_json());
                                },
                                {});
  return {{"records", records}, {"kernels", kernels}};
}

}  // namespace

int serve_fleet_jobs(const FleetRank &f) {
  fleet::Mailbox &box = *f.mailbox;
  std::map<long, std::unique_ptr<Measurer>> sessions;
  fprintf(stderr, "tlptune rank %d of %d: serving measurement jobs (pid %d)\n", f.rank, f.size, int(getpid()));
  for (;;) {
    const fleet::Received m = box.receive_from(0);
    if (m.tag == fleet::kStop) {
      *f.rank_lost = !m.message.value("finalize", true);
      return 0;
    }
    const long session = m.message.value("session", -1L);
    if (m.tag == fleet::kBye) {
      sessions.erase(session);
      continue;
    }
    if (m.tag == fleet::kHello) {
      try {
        MeasurerOptions mo;
        mo.target = m.message.at("target").get<std::string>();
        mo.threads = {m.message.at("threads").get<int>()};
        mo.settings = settings_from(m.message.at("settings"));
        sessions[session] = std::make_unique<Measurer>(mo);
        box.post(0, fleet::kReady,
                 {{"session", session}, {"platforms", sessions[session]->platforms()}, {"version", kTlptuneVersion}});
      } catch (const std::exception &e) {
        box.post(0, fleet::kReady, {{"session", session}, {"error", e.what()}});
      }
      continue;
    }
    if (m.tag != fleet::kJob && m.tag != fleet::kCompare) continue;
    nlohmann::json done;
    try {
      const auto it = sessions.find(session);
      if (it == sessions.end()) throw std::runtime_error("a job of session " + std::to_string(session) + ", which is not open");
      done = measure_job(*it->second, m);
    } catch (const std::exception &e) {
      done["error"] = std::string("rank ") + std::to_string(f.rank) + ": " + e.what();
    }
    done["session"] = session;
    done["id"] = m.message.at("id");
    box.post(0, fleet::kDone, done);
  }
}

}  // namespace tlp
