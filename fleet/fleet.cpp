#include "fleet/fleet.h"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fleet/fleet_messages.h"

namespace tlp {

namespace {

// Set by Open MPI's mpirun, by PMIx (srun --mpi=pmix) or PMI launchers.
bool launched_by_mpi() {
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace

FleetRank join_fleet(int *argc, char ***argv) {
  FleetRank f;
  if (!launched_by_mpi()) return f;
  MPI_Init(argc, argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &f.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &f.size);
  if (f.size == 1) {  // mpirun -np 1: one process, as without a launcher
    MPI_Finalize();
    f = FleetRank{};
  } else {
    f.mailbox = std::make_shared<fleet::Mailbox>();
  }
  return f;
}

void leave_fleet(const FleetRank &f, int exit_code) {
  if (!f.fleet()) return;
  if (f.rank == 0 && exit_code != 0) MPI_Abort(MPI_COMM_WORLD, exit_code);
  if (f.rank == 0) {  // the ranks wait for this to end
    // After a loss no rank may finalize: MPI_Finalize would wait for the lost one.
    static char finalize[] = R"({"finalize": true})", no_finalize[] = R"({"finalize": false})";
    char *stop = *f.rank_lost ? no_finalize : finalize;
    std::vector<MPI_Request> sent;
    for (int r = 1; r < f.size; ++r) {
      MPI_Request req = MPI_REQUEST_NULL;
      MPI_Isend(stop, int(std::strlen(stop)), MPI_CHAR, r, fleet::kStop, MPI_COMM_WORLD, &req);
      if (!f.lost_ranks->count(r)) sent.push_back(req);  // a send to a lost rank never completes
    }
    MPI_Waitall(int(sent.size()), sent.data(), MPI_STATUSES_IGNORE);
  }
  if (!*f.rank_lost) MPI_Finalize();
}

}  // namespace tlp
