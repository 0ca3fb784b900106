// A rank built from another tlptune: it joins the fleet and answers rank 0's
// hello as such a rank does, naming its version. Started beside tlptune in one
// MPI job (mpirun ... : -np 1 fleet_rank_of_another_version), it lets the tests
// see what rank 0 does with a fleet of mixed versions.
#include "fleet/fleet.h"
#include "fleet/fleet_messages.h"

int main(int argc, char **argv) {
  tlp::FleetRank f = tlp::join_fleet(&argc, &argv);
  if (!f.fleet() || f.rank == 0) return 2;
  for (;;) {
    const tlp::fleet::Received m = f.mailbox->receive_from(0);
    if (m.tag == tlp::fleet::kStop) break;
    if (m.tag == tlp::fleet::kHello)
      f.mailbox->post(0, tlp::fleet::kReady,
                      {{"session", m.message.at("session")}, {"platforms", {"cpu/elsewhere/x/threads=1"}},
                       {"version", "tlptune 0.0.1-other"}});
  }
  tlp::leave_fleet(f, 0);
  return 0;
}
