#include "measure/cpu_interference.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

namespace tlp {
namespace {

TEST(CpuInterference, TheShareIsTheWaitingTimeOverTheWallTime) {
  EXPECT_DOUBLE_EQ(cpu_wait_share({10.0, 50.0}, {10.25, 51.0}), 0.25);
  EXPECT_EQ(cpu_wait_share({10.0, 50.0}, {10.0, 50.0}), 0.0) << "no time passed";
  EXPECT_EQ(cpu_wait_share({10.0, 50.0}, {13.0, 51.0}), 1.0) << "clamped: several CPUs' waiting";
}

// Forks `n` processes that spin until killed.
std::vector<pid_t> spin(unsigned n) {
  std::vector<pid_t> pids;
  for (unsigned i = 0; i < n; ++i) {
    const pid_t child = fork();
    if (child == 0)
      for (volatile unsigned long k = 0;; k = k + 1) {
      }
    if (child > 0) pids.push_back(child);
  }
  return pids;
}

void stop(const std::vector<pid_t> &pids) {
  for (pid_t p : pids) kill(p, SIGKILL);
  for (pid_t p : pids) waitpid(p, nullptr, 0);
}

TEST(CpuInterference, ARunWarnsOfABusyMachineOnlyOnceAQuarterOfItsKernelsAndTwoAtLeastWereBusy) {
  EXPECT_FALSE(busy_enough_to_warn(0, 0));
  EXPECT_FALSE(busy_enough_to_warn(1, 1)) << "a run's first kernel alone says little";
  EXPECT_TRUE(busy_enough_to_warn(2, 2));
  EXPECT_TRUE(busy_enough_to_warn(2, 8));
  EXPECT_FALSE(busy_enough_to_warn(2, 9));
  EXPECT_FALSE(busy_enough_to_warn(30, 1000)) << "the system's own background work now and then";
}

TEST(CpuInterference, MoreSpinningProcessesThanCpusReadAsABusyMachine) {
  if (!cpu_snapshot()) GTEST_SKIP() << "no /proc/pressure/cpu here";
  const std::vector<pid_t> spinners = spin(std::thread::hardware_concurrency() + 1);
  ASSERT_EQ(spinners.size(), std::thread::hardware_concurrency() + 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let them start
  const std::optional<CpuSnapshot> before = cpu_snapshot();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::optional<CpuSnapshot> after = cpu_snapshot();
  stop(spinners);
  ASSERT_TRUE(before && after);
  // One runnable task too many always waits; a busier machine only waits more.
  EXPECT_GE(cpu_wait_share(*before, *after), kBusyCpuWait);
}

}  // namespace
}  // namespace tlp
