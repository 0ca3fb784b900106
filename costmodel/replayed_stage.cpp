#include "costmodel/replayed_stage.h"

namespace tlp {

std::string contiguous_loop(const ComputeDag &dag, const StageState &st) {
  if (st.dag_stage < 0 || st.dag_stage >= int(dag.stages.size())) return "";
  const DagStage &d = dag.stages[size_t(st.dag_stage)];
  for (auto it = d.iters.rbegin(); it != d.iters.rend(); ++it)
    if (it->kind == IterKind::Spatial) return it->name;
  return "";
}

bool computes_its_dag_stage(const LoopState &state, const StageState &st) {
  if (st.dag_stage < 0 || st.placeholder) return false;
  if (st.origin == StageOrigin::CacheWriteLocal) return true;
  if (st.origin != StageOrigin::Dag) return false;
  for (int r : st.reads)
    if (state.stage(r).origin == StageOrigin::CacheWriteLocal) return false;
  return true;
}

}  // namespace tlp
