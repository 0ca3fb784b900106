// What a rank other than 0 does: serve measurement jobs until told to stop. It
// builds and measures on its own machine (its own builders, its own isolated
// runner, so a crashing kernel never takes the rank down) and sends the records to
// rank 0, which logs them. Its records name its own platform.
#pragma once

#include "fleet/fleet.h"

namespace tlp {

// Returns the process's exit code.
int serve_fleet_jobs(const FleetRank &f);

}  // namespace tlp
