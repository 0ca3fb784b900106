// The one place where records of older logs become records as this version
// writes them. Every command that replays or featurizes logged schedules
// (resume, train, eval, measure --from-log) migrates what it reads here, so
// the schedule IR carries no legacy fields.
//
// Migrations, oldest first:
// - Machines. Records that predate machine names carry the CPU's brand string
//   where the machine goes; `--platform-alias` (platform_alias.h) names it.
// - Split extents. A split step records the extent of the loop it splits, and
//   the cost model reads that number. Logs written before bound inference at
//   compute_at covered a stage (a stage computed inside a consumer's tile has
//   only the tile's rows) record the unbounded extent; they get the extent the
//   loop has now.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "measure/measure_record.h"
#include "search/compute_dag.h"
#include "search/schedule.h"
#include "tuner/platform_alias.h"

namespace tlp {

class ComputeDagCache;

// The schedule with each split's extent replaced by the extent its loop has
// when the schedule is replayed on `dag`. Throws ScheduleError if it does not
// replay.
Schedule with_current_split_extents(const ComputeDag &dag, const Schedule &schedule);

// Migrates each record in place. Records of unknown operators, or that no
// longer replay, are left as they were (the measurement is still real).
// Returns how many records changed.
size_t migrate_records(std::vector<MeasureRecord> &records, ComputeDagCache &dags);

// Every record of the logs, migrated and with `aliases` applied; warnings about
// damaged lines go to stderr, and the counts of changed records to stdout.
std::vector<MeasureRecord> read_migrated_logs(const std::vector<std::string> &paths,
                                              const std::vector<PlatformAlias> &aliases = {});

}  // namespace tlp
