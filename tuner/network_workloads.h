// The workloads of network files, keyed as records key them: network files name
// each op as written ("conv2d:N=1,C=64,..."), records carry the canonical
// workload key, so everything that matches records to networks goes through here.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tlp {

// A workload of a network file: the network's name (for test splits and
// per-network scores) and how often the workload occurs in it (its weight in the
// top-k score, as in TenSet).
struct WorkloadInNetwork {
  std::string network;
  double weight = 1;
};

// Every workload of the files by canonical key, and every layout variant of one
// (codegen/layout_choice.h) as the same workload; a workload in several networks
// keeps the first file's entry. Throws std::runtime_error naming a bad file or op.
std::map<std::string, WorkloadInNetwork> network_workloads(const std::vector<std::string> &network_files);

}  // namespace tlp
