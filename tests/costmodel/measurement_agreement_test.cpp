#include "costmodel/measurement_agreement.h"

#include <gtest/gtest.h>

#include "costmodel_fixtures.h"

namespace tlp {
namespace {

using testing::make_record;

Schedule schedule_n(int n) { return Schedule::from_text("SP(2,0,64,[" + std::to_string(n) + "])"); }

TEST(MeasurementAgreement, RanksByTheFirstMeasurementAndScoresOnTheSecond) {
  const std::string p = "cpu/test";
  std::vector<MeasureRecord> r;
  // First pass: s1 looks fastest; measured again, s2 is.
  for (int n = 1; n <= 3; ++n) r.push_back(make_record("mm", p, schedule_n(n), double(n)));
  r.push_back(make_record("mm", p, schedule_n(1), 2.0));
  r.push_back(make_record("mm", p, schedule_n(2), 1.0));
  r.push_back(make_record("mm", p, schedule_n(3), 3.0));
  r.push_back(make_record("mm", p, schedule_n(1), 0.1));  // a third measurement: left out
  const AgreementTasks a = measurement_agreement_tasks(r, p);
  ASSERT_EQ(a.tasks.size(), 1u);
  EXPECT_EQ(a.workloads, std::vector<std::string>{"mm"});
  EXPECT_EQ(a.schedules, 3u);
  EXPECT_EQ(a.tasks[0].latencies, (std::vector<double>{2.0, 1.0, 3.0}));
  EXPECT_DOUBLE_EQ(topk_score(a.tasks, 1), 0.5);  // the pick (s1) reads 2.0 against a best of 1.0
  EXPECT_DOUBLE_EQ(topk_score(a.tasks, 5), 1.0);
}

TEST(MeasurementAgreement, LeavesOutOnceMeasuredFailedAndOtherPlatformsRecords) {
  const std::string p = "cpu/test";
  std::vector<MeasureRecord> r;
  r.push_back(make_record("a", p, schedule_n(1), 1.0));
  r.push_back(make_record("a", p, schedule_n(1), 1.0));
  r.push_back(make_record("a", p, schedule_n(2), 2.0));  // once only
  r.push_back(make_record("a", p, schedule_n(3), 0.0, MeasureError::RuntimeError));
  r.push_back(make_record("a", p, schedule_n(3), 0.0, MeasureError::RuntimeError));
  r.push_back(make_record("a", "cpu/other", schedule_n(2), 2.0));
  const AgreementTasks a = measurement_agreement_tasks(r, p);
  EXPECT_TRUE(a.tasks.empty()) << "task 'a' has one schedule measured twice: nothing to rank";
  EXPECT_EQ(a.schedules, 0u);
}

}  // namespace
}  // namespace tlp
