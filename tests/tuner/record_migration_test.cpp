// Old records read as this version writes them (tuner/record_migration.h).
#include <gtest/gtest.h>

#include <vector>

#include "tuner/compute_dag_cache.h"
#include "tuner/record_migration.h"

namespace tlp {
namespace {

MeasureRecord record_of(const std::string &workload, const std::string &schedule) {
  MeasureRecord r;
  r.workload_key = workload;
  r.schedule = Schedule::from_text(schedule);
  return r;
}

// softmax: 1 max, 2 expsum (rfactored: 2 expsum.rf, 3 expsum), 4 out. expsum
// sits at out's m_1, below which m_2 covers 8 rows; older logs recorded 128.
const char *kSoftmax = "softmax:M=128,N=1024";
const std::string kAtTile = "SP(2,1,1024,[256]); RF(2,1,1); SP(4,0,128,[2,8]); CA(3,4,1); ";

TEST(RecordMigration, RewritesTheExtentOfASplitInsideATile) {
  std::vector<MeasureRecord> records = {record_of(kSoftmax, kAtTile + "SP(3,0,128,[2])")};
  ComputeDagCache dags;
  EXPECT_EQ(migrate_records(records, dags), 1u);
  EXPECT_EQ(records[0].schedule.to_text(), Schedule::from_text(kAtTile + "SP(3,0,8,[2])").to_text());
  // Read again, nothing is left to change.
  EXPECT_EQ(migrate_records(records, dags), 0u);
}

TEST(RecordMigration, LeavesCurrentUnknownAndUnreplayableRecordsAsTheyWere) {
  const std::vector<MeasureRecord> before = {
      record_of(kSoftmax, kAtTile + "SP(3,0,8,[2])"),     // already current
      record_of(kSoftmax, kAtTile + "SP(3,0,128,[32])"),  // wider than the tile: not in this space
      record_of("no_such_op:X=1", "SP(0,0,4,[2])")};
  std::vector<MeasureRecord> records = before;
  ComputeDagCache dags;
  EXPECT_EQ(migrate_records(records, dags), 0u);
  for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].schedule, before[i].schedule) << i;
}

}  // namespace
}  // namespace tlp
