// The builder's pool threads never let a failure escape: a worker that cannot
// even start costs its job a failed result, not the process.
#include "measure/builder.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tlp
