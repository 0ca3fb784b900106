#include "tuner/record_migration.h"

#include <cstdio>

#include "measure/record_log.h"
#include "search/loop_state.h"
#include "tuner/compute_dag_cache.h"

namespace tlp {

Schedule with_current_split_extents(const ComputeDag &dag, const Schedule &schedule) {
  LoopState state(dag);
  Schedule out = schedule;
  for (Step &step : out.steps) {
    if (step.kind == StepKind::SP && step.stage >= 0 && step.stage < state.num_stages() && step.iter >= 0 &&
        step.iter < int(state.stage(step.stage).iters.size()))
      step.extent = state.stage(step.stage).iters[size_t(step.iter)].extent;
    state.apply(step);
  }
  return out;
}

size_t migrate_records(std::vector<MeasureRecord> &records, ComputeDagCache &dags) {
  size_t changed = 0;
  for (MeasureRecord &r : records) {
    const ComputeDag *dag = dags.find(r.workload_key);
    if (!dag) continue;
    try {
      Schedule current = with_current_split_extents(*dag, r.schedule);
      if (current == r.schedule) continue;
      r.schedule = std::move(current);
      ++changed;
    } catch (const ScheduleError &) {
      // Not in this version's space (e.g. a split wider than its tile): the
      // measurement is still real, so it trains as recorded.
    }
  }
  return changed;
}

std::vector<MeasureRecord> read_migrated_logs(const std::vector<std::string> &paths,
                                              const std::vector<PlatformAlias> &aliases) {
  std::vector<MeasureRecord> all;
  for (const auto &p : paths) {
    LogReadResult r = read_record_log(p);
    for (const auto &w : r.warnings) fprintf(stderr, "warning: %s\n", w.c_str());
    all.insert(all.end(), r.records.begin(), r.records.end());
  }
  ComputeDagCache dags;
  if (const size_t n = migrate_records(all, dags))
    printf("%zu records of older logs read as this version writes them\n", n);
  if (const size_t n = apply_platform_aliases(all, aliases))
    printf("%zu records read as of another machine (--platform-alias)\n", n);
  return all;
}

}  // namespace tlp
