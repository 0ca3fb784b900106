#include "tuner/compute_dag_cache.h"

#include "codegen/operator.h"

namespace tlp {

const ComputeDag *ComputeDagCache::find(const std::string &workload_key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = dags_.find(workload_key);
  if (it == dags_.end()) {
    std::unique_ptr<ComputeDag> dag;
    try {
      dag = std::make_unique<ComputeDag>(make_compute_dag(*make_operator(workload_key)));
    } catch (const WorkloadError &) {
      // unknown kind or parameters: no DAG
    }
    it = dags_.emplace(workload_key, std::move(dag)).first;
  }
  return it->second.get();
}

DagLookup make_compute_dag_lookup() {
  auto cache = std::make_shared<ComputeDagCache>();
  return [cache](const std::string &key) { return cache->find(key); };
}

}  // namespace tlp
