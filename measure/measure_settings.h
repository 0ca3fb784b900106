// How a run builds and times its candidates. The options of tune, collect,
// bench and bundle hold one, filled from the command line, and the Measurer
// takes it as it is.
#pragma once

#include "measure/timing_protocol.h"

namespace tlp {

struct MeasureSettings {
  int build_workers = 0;  // parallel build processes; 0: one per core
  double build_timeout = kDefaultBuildTimeout;
  double run_timeout = kDefaultRunTimeout;
  int min_repeats = kDefaultMinRepeats;
  double min_seconds = kDefaultMinSeconds;  // per candidate, after warm-up
};

}  // namespace tlp
