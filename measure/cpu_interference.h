// Whether the CPUs were contended while a kernel was timed.
//
// A kernel timed while something else wants the same CPUs (a training, a build,
// a second tuning run) comes out slower than the machine can run it, and
// nothing in its timings says so. The runner therefore reads Linux's CPU
// pressure accounting (/proc/pressure/cpu, "some": time in which at least one
// runnable task waited for a CPU) around its timed runs and reports the share of
// that window spent waiting, so that a record can say it was taken on a busy
// machine. Unlike the machine's busy time, it counts contention only: two
// kernel threads on two CPUs wait for nothing. It sees the tasks of this
// machine only: another virtual machine on the same host, sharing its caches
// and memory, goes unseen.
//
// Nothing is reported where the kernel has no pressure accounting. libc only,
// so that the runner stays copyable to a bare machine.
#pragma once

#include <optional>

namespace tlp {

struct CpuSnapshot {
  double waiting = 0;  // seconds in which some runnable task waited for a CPU, since boot
  double wall = 0;     // a monotonic clock, seconds
};

// Now; nullopt where /proc/pressure/cpu cannot be read.
std::optional<CpuSnapshot> cpu_snapshot();

// The share of the time between two snapshots in which some runnable task
// waited for a CPU, in [0, 1]; 0 when no time passed. Linux averages it over
// the CPUs: three busy threads on two CPUs read about 0.5.
double cpu_wait_share(const CpuSnapshot &before, const CpuSnapshot &after);

// Linux brings the accounting up to date at scheduler ticks (a few ms), so a
// shorter window reads 0 under any load and a window of ten-odd milliseconds
// read up to 0.18 on an idle machine here. Windows shorter than this get no
// reading: a kernel timed 50 times for under 2 ms each says nothing.
constexpr double kMinCpuWaitWindow = 0.1;

// A kernel timed while tasks waited for a CPU this share of the time or more
// was timed on a busy machine (measure_record.h). One more busy thread than
// there are CPUs reads about 0.5, short scripts run beside a bench 0.18-0.52.
// With nothing else started, the 2,983 kernels of a 1,000-trial bench that got
// a reading read under 0.1 but for 10 (up to 0.22: the system's own background
// work), which should not make a user stop anything.
constexpr double kBusyCpuWait = 0.25;

// Whether a run warns that the machine is busy, once `busy` of the `timed` kernels
// that got a reading were timed on a busy machine: one is not enough (a run's
// first kernel is often timed while its own start-up still competes for the
// CPUs), a quarter of them, and at least two, is.
inline bool busy_enough_to_warn(int busy, int timed) { return busy >= 2 && 4 * busy >= timed; }

}  // namespace tlp
