// The ComputeDAGs of workloads, built once each from their keys.
//
// The cost model's loop-nest features need the operator of every task it
// scores or trains on, and only codegen can build one (from the Halide
// algorithm), so the tuner, which knows both, hands costmodel a lookup backed
// by this cache.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "costmodel/tlp_featurizer.h"
#include "search/compute_dag.h"

namespace tlp {

class ComputeDagCache {
 public:
  // The DAG of a workload key, or nullptr when the key names no operator of
  // this build (a failed lookup is remembered too).
  const ComputeDag *find(const std::string &workload_key);

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<ComputeDag>> dags_;
};

// A lookup that owns its cache (copies share it).
DagLookup make_compute_dag_lookup();

}  // namespace tlp
