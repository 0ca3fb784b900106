#include "fleet/fleet_worker.h"

#include <atomic>
#include <cstdio>
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

}  // namespace

int serve_fleet_jobs(const FleetRank &f) {
  fleet::Mailbox box;
  std::unique_ptr<Measurer> measurer;
  const std::atomic<bool> never{false};
  fprintf(stderr, "tlptune rank %d of %d: serving measurement jobs (pid %d)\n", f.rank, f.size, int(getpid()));
  for (;;) {
    const fleet::Received m = box.receive_from(0);
    if (m.tag == fleet::kStop) {
      *f.rank_lost = !m.message.value("finalize", true);
      return 0;
    }
    if (m.tag == fleet::kHello) {
      try {
        MeasurerOptions mo;
        mo.target = m.message.at("target").get<std::string>();
        mo.threads = {m.message.at("threads").get<int>()};
        mo.settings = settings_from(m.message.at("settings"));
        measurer = std::make_unique<Measurer>(mo);
        box.post(0, fleet::kReady, {{"platforms", measurer->platforms()}, {"version", kTlptuneVersion}});
      } catch (const std::exception &e) {
        box.post(0, fleet::kReady, {{"error", e.what()}});
      }
      continue;
    }
    if (m.tag != fleet::kJob) continue;
    nlohmann::json done = {{"id", m.message.at("id")}};
    try {
      if (!measurer) throw std::runtime_error("a job came before the fleet's hello");
      const auto op = make_operator(m.message.at("workload").get<std::string>());
      std::vector<Schedule> schedules;
      for (const auto &s : m.message.at("schedules")) schedules.push_back(Schedule::from_text(s.get<std::string>()));
      nlohmann::json records = nlohmann::json::array();
      for (const MeasureRecord &r : measurer->measure(*op, schedules, never, [](const MeasureRecord &) {}))
        records.push_back(r.to_json());
      done["records"] = records;
    } catch (const std::exception &e) {
      done["error"] = std::string("rank ") + std::to_string(f.rank) + ": " + e.what();
    }
    box.post(0, fleet::kDone, done);
  }
}

}  // namespace tlp
