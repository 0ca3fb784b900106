#include "codegen/halide_autoscheduler.h"

#include <gtest/gtest.h>

#include "codegen/operator.h"
#include "codegen/target.h"

namespace tlp {
namespace {

// Halide's autoschedulers can only block a reduction into registers when a pure
// stage consumes it; the peer route adds that copy, as Halide's own apps do.
TEST(HalideAutoscheduler, WrapsAReductionOutputInAPureCopy) {
  auto op = make_operator("matmul:M=32,N=32,K=16");
  const LoweredKernel k = autoschedule_with_halide(*op, "Mullapudi2016", Halide::get_host_target(), 1);
  // Halide may suffix a name already taken in this process ("C_out$11").
  EXPECT_EQ(k.output.name().rfind("C_out", 0), 0u) << k.output.name();
  EXPECT_FALSE(k.output.has_update_definition());
  EXPECT_NE(k.schedule_source.find("C_out"), std::string::npos) << k.schedule_source;
}

TEST(HalideAutoscheduler, LeavesAPureOutputAlone) {
  auto op = make_operator("dense_bias_relu:M=16,N=16,K=8");
  const LoweredKernel k = autoschedule_with_halide(*op, "Mullapudi2016", Halide::get_host_target(), 1);
  EXPECT_EQ(k.output.name(), "out");
}

TEST(HalideAutoscheduler, RefusesAnUnknownNameListingTheKnownOnes) {
  auto op = make_operator("matmul:M=8,N=8,K=8");
  try {
    autoschedule_with_halide(*op, "Sioutas2020", Halide::get_host_target(), 1);
    FAIL() << "an unknown autoscheduler was accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("Adams2019"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tlp
