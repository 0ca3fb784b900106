// A fleet: tlptune started by an MPI launcher (mpirun, srun), one process per
// rank. Rank 0 runs the command (search, cost model, the log: it is the only
// writer); every other rank serves measurement jobs with its own builders and
// isolated runner (fleet_worker.h). Started without a launcher, tlptune is one
// process and MPI is never initialized.
//
// Losing a rank: Open MPI 4.1 ends the whole job when a rank dies unless it was
// launched with --enable-recovery (or OMPI_MCA_orte_enable_recovery=1); then rank
// 0, which never blocks on a rank, treats a rank whose job outlives its time-out
// as lost and gives the job to another (docs/results/mpi-rank-loss-2026-12-06).
#pragma once

#include <memory>
#include <set>

namespace tlp {

namespace fleet {
class Mailbox;
}

struct FleetRank {
  int rank = 0;
  int size = 1;  // 1: not a fleet
  // Set when a rank was given up on: by rank 0's FleetMeasurer (with which ranks),
  // and on the others by rank 0's stop message. Read by leave_fleet.
  std::shared_ptr<bool> rank_lost = std::make_shared<bool>(false);
  std::shared_ptr<std::set<int>> lost_ranks = std::make_shared<std::set<int>>();
  // This process's end of the messages (on a fleet; null otherwise), and the
  // number of the next measuring session rank 0 opens (fleet_messages.h).
  std::shared_ptr<fleet::Mailbox> mailbox;
  std::shared_ptr<long> next_session = std::make_shared<long>(0);
  bool fleet() const { return size > 1; }
};

// Initializes MPI when a launcher started this process (its environment says so),
// with errors returned rather than fatal; otherwise a FleetRank of size 1.
FleetRank join_fleet(int *argc, char ***argv);

// Ends MPI when join_fleet started it, with rank 0's exit code. A failed rank 0
// aborts the job (MPI_Abort), so that mpirun exits with its code. Under
// --enable-recovery Open MPI 4.1's mpirun exits 0 whatever rank 0 returned: read
// rank 0's last line (or its --json) there. After a rank was lost,
// MPI_Finalize could wait for it forever: it is skipped then (the launcher reaps
// the processes).
void leave_fleet(const FleetRank &f, int exit_code);

}  // namespace tlp
