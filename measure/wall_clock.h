// Clocks for the time splits users see.
#pragma once

#include <chrono>

namespace tlp {

// Seconds on a monotonic clock: for durations.
inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds since the Unix epoch: for timestamps in records.
inline double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace tlp
