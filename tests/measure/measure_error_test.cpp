#include "measure/measure_error.h"

#include <stdexcept>

#include <gtest/gtest.h>

namespace tlp {
namespace {

TEST(MeasureError, EveryErrorRoundTripsThroughItsName) {
  for (int i = 0; i <= 9; ++i) {
    const auto e = static_cast<MeasureError>(i);
    EXPECT_EQ(measure_error_from_name(measure_error_name(e)), e) << i;
  }
}

TEST(MeasureError, NamesAreTheStableSnakeCaseOnes) {
  EXPECT_STREQ(measure_error_name(MeasureError::None), "none");
  EXPECT_STREQ(measure_error_name(MeasureError::InvalidSchedule), "invalid_schedule");
  EXPECT_STREQ(measure_error_name(MeasureError::CompileError), "compile_error");
  EXPECT_STREQ(measure_error_name(MeasureError::BuildTimeout), "build_timeout");
  EXPECT_STREQ(measure_error_name(MeasureError::RuntimeError), "runtime_error");
  EXPECT_STREQ(measure_error_name(MeasureError::WrongAnswer), "wrong_answer");
  EXPECT_STREQ(measure_error_name(MeasureError::RunTimeout), "run_timeout");
  EXPECT_STREQ(measure_error_name(MeasureError::Unknown), "unknown");
  EXPECT_STREQ(measure_error_name(MeasureError::LaunchLimit), "launch_limit");
  EXPECT_STREQ(measure_error_name(MeasureError::NotRun), "not_run");
}

TEST(MeasureError, UnknownNameThrows) {
  EXPECT_THROW(measure_error_from_name("segfault"), std::runtime_error);
  EXPECT_THROW(measure_error_from_name(""), std::runtime_error);
}

}  // namespace
}  // namespace tlp
