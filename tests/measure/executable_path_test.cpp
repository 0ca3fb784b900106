// Helper programs are found next to the running executable, and a missing one
// is named with the folder it was looked for in.
#include "measure/executable_path.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tlp {
namespace {

TEST(HelperExecutable, APresentHelperIsFoundBesideTheExecutable) {
  const std::string path = helper_executable("tlptune-runner");  // the build puts the tests beside it
  EXPECT_EQ(path.substr(path.rfind('/') + 1), "tlptune-runner");
  EXPECT_EQ(path, sibling_executable("tlptune-runner"));
}

TEST(HelperExecutable, AMissingHelperIsAnErrorNamingItAndItsFolder) {
  try {
    helper_executable("tlptune-no-such-helper");
    FAIL() << "no error for a missing helper";
  } catch (const std::runtime_error &e) {
    const std::string what = e.what();
    const std::string beside = sibling_executable("x");
    const std::string dir = beside.substr(0, beside.size() - 1);  // the folder, with its trailing '/
    EXPECT_NE(what.find("tlptune-no-such-helper is missing from " + dir), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tlp
