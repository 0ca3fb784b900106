// The measurer's side-by-side runs: each kernel built once, run once per round
// with the order rotating, every record logged; a kernel that fails to build
// costs one failed record and the others still run.
#include "measure/measurer.h"

#include <gtest/gtest.h>

#include "codegen/operator.h"
#include "measure/record_log.h"
#include "tests/temp_dir.h"

namespace tlp {
namespace {

TEST(Measurer, SideBySideRunsEachKernelOncePerRoundInRotationThenTheRoundsOwnWorkAndLogsABrokenOneOnce) {
  testing::TempDir d;
  const auto op = make_operator("matmul:M=32,N=32,K=16");
  MeasurerOptions mo;
  mo.target = "host";
  mo.threads = {1};
  mo.log_path = d / "l.jsonl";
  mo.settings.min_repeats = 1;
  mo.settings.min_seconds = 0.001;
  Measurer m(mo);
  const std::vector<Schedule> schedules = {Schedule::from_text("SP(2,0,32,[8,4])"),
                                           Schedule::from_text("SP(2,0,32,[4,8])"),
                                           Schedule::from_text("SP(9,0,32,[4,8])")};  // no stage 9
  const std::vector<const Operator *> ops(3, op.get());
  std::atomic<bool> stop{false};
  std::vector<size_t> order;
  std::vector<MeasureError> errors;
  m.measure_side_by_side(ops, schedules, 2, stop, [&](size_t k, const MeasureRecord &r) {
    order.push_back(k);
    errors.push_back(r.error);
    EXPECT_EQ(r.schedule, schedules[k]);
  }, [&](int round) { order.push_back(100 + size_t(round)); });
  // The broken kernel first, once; then round 0 from kernel 0, round 1 from kernel 1, each
  // followed by what else is timed in that round.
  EXPECT_EQ(order, (std::vector<size_t>{2, 0, 1, 100, 1, 0, 101}));
  ASSERT_EQ(errors.size(), 5u);
  EXPECT_NE(errors[0], MeasureError::None);
  for (size_t i = 1; i < errors.size(); ++i) EXPECT_EQ(errors[i], MeasureError::None) << i;
  EXPECT_EQ(read_record_log(d / "l.jsonl").records.size(), 5u) << "every record is logged";
  EXPECT_GT(m.times().build, 0.0);
}

}  // namespace
}  // namespace tlp
