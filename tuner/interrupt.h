// Ctrl-C (SIGINT) and SIGTERM for the long-running subcommands: the signal only
// raises a flag, which the tuning loops poll between candidates, so everything
// measured so far is on disk when tlptune stops.
#pragma once

#include <atomic>

namespace tlp {

// Installs the handlers (once) and returns the flag they raise. A signal
// handler can only reach a global, so this is the one global in tlptune.
const std::atomic<bool> &stop_on_interrupt();

}  // namespace tlp
