// How many jobs a second rank 0 can hand out and log, and the memory it holds,
// when the ranks answer at once (no kernels): the ceiling a fleet's size meets.
// Rank 0 runs the real FleetMeasurer (messages, bookkeeping, the log); every
// other rank answers each job with a record copied from a template.
//
//   mpirun --oversubscribe -np 65 fleet_dispatch_bench JOBS LOG
//
// Prints one JSON line: ranks, jobs, seconds, jobs_per_second, rank0_peak_rss_kib.
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "codegen/operator.h"
#include "fleet/fleet.h"
#include "fleet/fleet_measurer.h"
#include "fleet/fleet_messages.h"
#include "measure/platform.h"
#include "search/tlptune_version.h"

namespace {

long peak_rss_kib() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// A rank that answers at once: ready for the hello, one record per job.
void echo(tlp::fleet::Mailbox &box, const std::string &platform, const std::string &workload) {
  for (;;) {
    const tlp::fleet::Received m = box.receive_from(0);
    if (m.tag == tlp::fleet::kStop) return;
    if (m.tag == tlp::fleet::kHello) box.post(0, tlp::fleet::kReady, {{"session", m.message.at("session")}, {"platforms", {platform}}, {"version", tlp::kTlptuneVersion}});
    if (m.tag != tlp::fleet::kJob) continue;
    tlp::MeasureRecord r;
    r.workload_key = workload;
    r.target = "x86-64-linux-avx2";
    r.platform = platform;
    r.schedule = tlp::Schedule::from_text(m.message.at("schedules").at(0).get<std::string>());
    r.error = tlp::MeasureError::None;
    r.costs = {1e-3};
    r.median_cost = 1e-3;
    box.post(0, tlp::fleet::kDone, {{"session", m.message.at("session")}, {"id", m.message.at("id")}, {"records", {r.to_json()}}});
  }
}

}  // namespace

int main(int argc, char **argv) {
  tlp::FleetRank f = tlp::join_fleet(&argc, &argv);
  if (!f.fleet() || argc != 3) {
    fprintf(stderr, "usage: mpirun -np RANKS+1 fleet_dispatch_bench JOBS LOG\n");
    return 2;
  }
  const std::string target = "x86-64-linux-avx2";
  const std::string platform = tlp::cpu_platform(target, 1);
  const auto op = tlp::make_operator("matmul:M=64,N=64,K=64");
  if (f.rank > 0) {
    echo(*f.mailbox, platform, op->workload().key());
    MPI_Finalize();
    return 0;
  }
  tlp::MeasurerOptions mo;
  mo.target = target;
  mo.threads = {1};
  mo.log_path = argv[2];
  {
  tlp::FleetMeasurer fleet(f, mo);
  // Distinct schedules (the tile sizes differ), as a search would send.
  const int jobs = std::atoi(argv[1]);
  std::vector<tlp::Schedule> schedules;
  for (int i = 0; i < jobs; ++i)
    schedules.push_back(tlp::Schedule::from_text("SP(2,0,64,[" + std::to_string(1 + i % 64) + "]); AN(2,0,parallel)"));
  const std::atomic<bool> never{false};
  const auto start = std::chrono::steady_clock::now();
  const auto records = fleet.measure(*op, schedules, never, [](const tlp::MeasureRecord &) {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printf("%s\n", nlohmann::json{{"ranks", f.size - 1},
                                {"jobs", records.size()},
                                {"seconds", seconds},
                                {"jobs_per_second", double(records.size()) / seconds},
                                {"rank0_peak_rss_kib", peak_rss_kib()}}
                     .dump()
                     .c_str());
  }  // the measurer says goodbye to the ranks before MPI ends
  tlp::leave_fleet(f, 0);
  return 0;
}
