#include "search/compute_dag.h"

#include <sstream>
#include <stdexcept>

namespace tlp {

bool DagStage::has_reduction() const {
  for (const auto &it : iters)
    if (it.kind == IterKind::Reduce) return true;
  return false;
}

int64_t DagStage::points() const {
  int64_t p = 1;
  for (const auto &it : iters)
    if (it.kind == IterKind::Spatial) p *= it.extent;
  return p;
}

bool DagAccess::uses(const std::string &loop) const {
  for (const auto &dim : dims)
    for (const auto &term : dim)
      if (term.first == loop) return true;
  return false;
}

std::vector<const DagAccess *> DagStage::accesses_of(int producer) const {
  std::vector<const DagAccess *> out;
  for (const DagAccess &a : accesses)
    if (a.producer == producer) out.push_back(&a);
  return out;
}

int ComputeDag::output() const {
  for (size_t i = 0; i < stages.size(); ++i)
    if (stages[i].is_output) return int(i);
  throw std::logic_error("ComputeDag has no output stage");
}

std::vector<int> ComputeDag::consumers(int s) const {
  std::vector<int> out;
  for (size_t i = 0; i < stages.size(); ++i)
    for (int r : stages[i].reads)
      if (r == s) {
        out.push_back(int(i));
        break;
      }
  return out;
}

bool ComputeDag::is_inlinable(int s) const {
  const DagStage &st = stages[s];
  return !st.placeholder && !st.is_output && !st.has_reduction();
}

std::string ComputeDag::to_text() const {
  std::ostringstream os;
  for (size_t i = 0; i < stages.size(); ++i) {
    const auto &st = stages[i];
    os << i << ": " << st.name << (st.placeholder ? " (input)" : "") << (st.is_output ? " (output)" : "") << " [";
    for (size_t j = 0; j < st.iters.size(); ++j)
      os << (j ? ", " : "") << st.iters[j].name << (st.iters[j].kind == IterKind::Reduce ? "~" : "") << ":"
         << st.iters[j].extent;
    os << "]";
    if (!st.reads.empty()) {
      os << " reads";
      for (int r : st.reads) os << " " << stages[r].name;
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace tlp
