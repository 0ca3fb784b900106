#include "measure/worker_process.h"

#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "test_util.h"

namespace tlp {
namespace {

using ReadStatus = WorkerProcess::ReadStatus;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// True when pid no longer runs (gone, or a zombie waiting for a reaper).
bool process_is_dead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

// Whether pid is dead within two seconds (a SIGKILL takes a moment to land).
bool dies_soon(pid_t pid) {
  for (int i = 0; i < 200; ++i) {
    if (process_is_dead(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(WorkerProcess, SendsAndReadsLines) {
  WorkerProcess p({"cat"});
  ASSERT_TRUE(p.send("hello"));
  ASSERT_TRUE(p.send("second line\n"));
  ReadStatus why;
  EXPECT_EQ(p.read_line(2.0, &why), std::optional<std::string>("hello"));
  EXPECT_EQ(why, ReadStatus::Line);
  EXPECT_EQ(p.read_line(2.0), std::optional<std::string>("second line"));
  EXPECT_TRUE(p.alive());
}

TEST(WorkerProcess, ReadTimesOutWhenTheChildIsSilent) {
  WorkerProcess p({"sleep", "30"});
  const auto start = std::chrono::steady_clock::now();
  ReadStatus why;
  EXPECT_FALSE(p.read_line(0.2, &why).has_value());
  EXPECT_EQ(why, ReadStatus::Timeout);
  EXPECT_GE(seconds_since(start), 0.19);
  EXPECT_TRUE(p.alive());
}

TEST(WorkerProcess, ReportsTheExitCodeOfAChildThatExits) {
  WorkerProcess p({"sh", "-c", "exit 3"});
  ReadStatus why;
  EXPECT_FALSE(p.read_line(2.0, &why).has_value());
  EXPECT_EQ(why, ReadStatus::Closed);
  EXPECT_TRUE(p.wait_exit(2.0));
  p.kill();
  EXPECT_EQ(p.exit_description(), "exited with code 3");
  EXPECT_FALSE(p.alive());
}

TEST(WorkerProcess, ReportsTheSignalThatKilledTheChild) {
  WorkerProcess p({"sh", "-c", "kill -SEGV $$"});
  EXPECT_TRUE(p.wait_exit(2.0));
  // Known before kill() too; "..., core dumped" may follow where cores are enabled.
  EXPECT_EQ(p.exit_description().rfind("killed by signal 11 (Segmentation fault)", 0), 0u)
      << p.exit_description();
  p.kill();
  EXPECT_EQ(p.exit_description().rfind("killed by signal 11 (Segmentation fault)", 0), 0u)
      << p.exit_description();
}

TEST(WorkerProcess, KillEndsTheChildAndEverythingItStarted) {
  WorkerProcess p({"sh", "-c", "sleep 30 & echo $!; wait"});
  const std::optional<std::string> grandchild = p.read_line(2.0);
  ASSERT_TRUE(grandchild.has_value());
  const pid_t pid = std::stoi(*grandchild);
  p.kill();
  EXPECT_FALSE(p.alive());
  EXPECT_EQ(p.exit_description(), "killed by signal 9 (Killed)");
  // The grandchild was in the child's process group, so the same SIGKILL reached it.
  EXPECT_TRUE(dies_soon(pid)) << "grandchild " << pid << " survived kill()";
}

TEST(WorkerProcess, SendToADeadChildFailsWithoutKillingTheParent) {
  WorkerProcess p({"true"});
  ASSERT_TRUE(p.wait_exit(2.0));
  // Without SIGPIPE protection this write would terminate the test process.
  std::string big(1 << 20, 'x');
  EXPECT_FALSE(p.send(big));
  EXPECT_FALSE(p.send("again"));
}

TEST(WorkerProcess, MissingProgramThrowsNamingIt) {
  try {
    WorkerProcess p({"/no/such/tlptune-program"});
    FAIL() << "expected WorkerError";
  } catch (const WorkerError &e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/tlptune-program"), std::string::npos)
        << e.what();
  }
}

TEST(WorkerProcess, StderrCanGoToAFile) {
  testing::TempDir dir;
  const std::string log = dir.file("stderr.txt");
  {
    WorkerProcess p({"sh", "-c", "echo oops >&2"}, log);
    EXPECT_TRUE(p.wait_exit(2.0));
  }
  EXPECT_EQ(testing::read_file(log), "oops\n");
}

TEST(WorkerProcess, ChildrenDoNotInheritEachOthersPipes) {
  // If the second child inherited the first child's stdin pipe, closing it here
  // would not give the first child end of input.
  WorkerProcess first({"sh", "-c", "cat >/dev/null; echo saw-eof"});
  WorkerProcess second({"sleep", "30"});
  first.close_stdin();
  EXPECT_EQ(first.read_line(2.0), std::optional<std::string>("saw-eof"));
}

TEST(WorkerProcess, KeepsLinesThatArriveTogether) {
  WorkerProcess p({"sh", "-c", "printf 'a\\nb\\nc'"});
  EXPECT_EQ(p.read_line(2.0), std::optional<std::string>("a"));
  EXPECT_EQ(p.read_line(2.0), std::optional<std::string>("b"));
  ReadStatus why;
  // "c" has no newline: the child closed its output mid-line, so it is dropped.
  EXPECT_FALSE(p.read_line(2.0, &why).has_value());
  EXPECT_EQ(why, ReadStatus::Closed);
}

TEST(WorkerProcess, DestructorKillsAHungChild) {
  pid_t pid;
  {
    WorkerProcess p({"sleep", "30"});
    pid = p.pid();
  }
  EXPECT_TRUE(process_is_dead(pid));
}

TEST(RunChild, CapturesBothStreamsTheExitAndExactlyTheEnvironmentGiven) {
  const ChildRun r = run_child({"sh", "-c", "echo out $TLP_X; echo err >&2; exit 3"}, {"TLP_X=given", "PATH=/usr/bin:/bin"},
                               10.0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.out, "out given\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_description, "exited with code 3");
}

TEST(RunChild, PastItsTimeoutTheChildAndEverythingItStartedAreKilled) {
  const ChildRun r = run_child({"sh", "-c", "sleep 30 & echo $!; wait"}, {"PATH=/usr/bin:/bin"}, 0.5);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_description, "killed by signal 9 (Killed)");
  const pid_t grandchild = std::stoi(r.out);
  EXPECT_TRUE(dies_soon(grandchild)) << "grandchild " << grandchild << " survived the timeout";
}

TEST(RunChild, TheChildStartsWithNoSignalBlockedThatTheParentBlocked) {
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old);
  const ChildRun r = run_child({"sh", "-c", "grep SigBlk /proc/self/status"}, {"PATH=/usr/bin:/bin"}, 10.0);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  EXPECT_EQ(r.out, "SigBlk:\t0000000000000000\n");
}

TEST(RunChild, AMissingProgramThrowsNamingIt) {
  EXPECT_THROW(run_child({"/no/such/tlptune-program"}, {}, 1.0), WorkerError);
}

}  // namespace
}  // namespace tlp
