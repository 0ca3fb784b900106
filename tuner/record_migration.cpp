#include "tuner/current_split_extents.h"

#include "search/loop_state.h"
#include "tuner/compute_dag_cache.h"

namespace tlp {

size_t use_current_split_extents(std::vector<MeasureRecord> &records, ComputeDagCache &dags) {
  size_t changed = 0;
  for (MeasureRecord &r : records) {
    const ComputeDag *dag = dags.find(r.workload_key);
    if (!dag) continue;
    try {
      Schedule current = LoopState::with_current_extents(*dag, r.schedule);
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

}  // namespace tlp
