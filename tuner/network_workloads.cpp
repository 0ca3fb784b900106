#include "tuner/network_workloads.h"

#include "codegen/layout_choice.h"
#include "codegen/workload.h"
#include "search/network_spec.h"

namespace tlp {

std::map<std::string, WorkloadInNetwork> network_workloads(const std::vector<std::string> &network_files) {
  std::map<std::string, WorkloadInNetwork> out;
  for (const auto &f : network_files) {
    const NetworkSpec spec = read_network_spec(f);
    for (const auto &t : spec.tasks) {
      out.emplace(parse_workload(t.op).key(), WorkloadInNetwork{spec.name, t.weight});
      // Its kernels in other layouts serve the same operator of the same network.
      for (const std::string &key : every_layout_variant(t.op)) out.emplace(key, WorkloadInNetwork{spec.name, t.weight});
    }
  }
  return out;
}

}  // namespace tlp
