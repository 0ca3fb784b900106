// A rank on another kind of machine, for a fleet on one machine: it measures
// jobs for real, on this machine, but names its platform after a machine
// "othermachine", as a rank on such a machine would name its own. Started beside
// tlptune in one MPI job, it lets the tests see a fleet of two kinds of machine.
#include <atomic>
#include <map>
#include <memory>

#include "codegen/operator.h"
#include "fleet/fleet.h"
#include "fleet/fleet_messages.h"
#include "measure/measurer.h"
#include "measure/platform.h"
#include "search/tlptune_version.h"

namespace {

std::string elsewhere(const std::string &platform) { return tlp::with_platform_machine(platform, "othermachine"); }

}  // namespace

int main(int argc, char **argv) {
  tlp::FleetRank f = tlp::join_fleet(&argc, &argv);
  if (!f.fleet() || f.rank == 0) return 2;
  std::map<long, std::unique_ptr<tlp::Measurer>> sessions;
  const std::atomic<bool> never{false};
  for (;;) {
    const tlp::fleet::Received m = f.mailbox->receive_from(0);
    if (m.tag == tlp::fleet::kStop) break;
    const long session = m.message.value("session", -1L);
    if (m.tag == tlp::fleet::kHello) {
      tlp::MeasurerOptions mo;
      mo.target = m.message.at("target").get<std::string>();
      mo.threads = {m.message.at("threads").get<int>()};
      sessions[session] = std::make_unique<tlp::Measurer>(mo);
      f.mailbox->post(0, tlp::fleet::kReady,
                      {{"session", session},
                       {"platforms", {elsewhere(sessions[session]->platforms().at(0))}},
                       {"version", tlp::kTlptuneVersion}});
    } else if (m.tag == tlp::fleet::kJob) {
      const auto op = tlp::make_operator(m.message.at("workload").get<std::string>());
      std::vector<tlp::Schedule> schedules;
      for (const auto &s : m.message.at("schedules")) schedules.push_back(tlp::Schedule::from_text(s.get<std::string>()));
      nlohmann::json records = nlohmann::json::array();
      for (tlp::MeasureRecord r : sessions.at(session)->measure(*op, schedules, never, [](const tlp::MeasureRecord &) {})) {
        r.platform = elsewhere(r.platform);
        records.push_back(r.to_json());
      }
      f.mailbox->post(0, tlp::fleet::kDone, {{"session", session}, {"id", m.message.at("id")}, {"records", records}});
    }
  }
  tlp::leave_fleet(f, 0);
  return 0;
}
