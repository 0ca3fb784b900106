// The builder's pool threads never let a failure escape: a worker that cannot
// even start costs its job a failed result, not the process.
#include "measure/builder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace tlp {
namespace {

TEST(Builder, AWorkerThatCannotStartFailsItsJobsInsteadOfAborting) {
  BuilderOptions o;
  o.workers = 2;
  o.worker_argv = {"/nonexistent/tlptune-build-worker"};
  Builder builder(o);
  const std::vector<BuildResult> results = builder.build({BuildJob{}, BuildJob{}, BuildJob{}});
  ASSERT_EQ(results.size(), 3u);
  for (const BuildResult &r : results) {
    EXPECT_EQ(r.error, MeasureError::CompileError);
    EXPECT_NE(r.message.find("cannot start a build worker"), std::string::npos) << r.message;
  }
}

TEST(Builder, AStopSetBeforehandBuildsNothing) {
  BuilderOptions o;
  o.worker_argv = {"/nonexistent/tlptune-build-worker"};  // starting one would fail the job differently
  Builder builder(o);
  const std::atomic<bool> stop{true};
  const std::vector<BuildResult> results = builder.build({BuildJob{}, BuildJob{}}, &stop);
  ASSERT_EQ(results.size(), 2u);
  for (const BuildResult &r : results) EXPECT_EQ(r.error, MeasureError::NotRun) << r.message;
}

TEST(Builder, AStopKillsTheBuildsInFlightInsteadOfWaitingForThem) {
  BuilderOptions o;
  o.workers = 2;
  o.timeout_seconds = 30;  // far longer than the stop takes; were it waited out, the jobs would time out
  o.worker_argv = {"/bin/sh", "-c", "sleep 60"};  // a worker that never answers
  Builder builder(o);
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  const std::vector<BuildResult> results = builder.build({BuildJob{}, BuildJob{}, BuildJob{}, BuildJob{}}, &stop);
  stopper.join();
  ASSERT_EQ(results.size(), 4u);
  for (const BuildResult &r : results) EXPECT_EQ(r.error, MeasureError::NotRun) << r.message;
}

}  // namespace
}  // namespace tlp
