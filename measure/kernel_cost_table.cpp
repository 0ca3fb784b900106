#include "measure/kernel_cost_table.h"

#include <algorithm>

#include "measure/median.h"

namespace tlp {

void KernelCostTable::add(const std::string &key, double median_cost, bool busy) {
  if (ruled_out(key)) return;
  auto [it, added] = entries_.try_emplace(key);
  Entry &e = it->second;
  if (added) e.order = added_++;
  (busy ? e.busy : e.quiet).push_back(median_cost);
  e.cost = median_of(e.quiet.empty() ? e.busy : e.quiet);
  if (best_stale_) return;
  if (entries_.size() == 1 || (key != best_ && cheaper(e, entries_.at(best_)))) best_ = key;
  else if (key == best_ && e.quiet.size() + e.busy.size() > 1) best_stale_ = true;  // its cost may have risen
}

void KernelCostTable::add(const MeasureRecord &r) { add(r, r.schedule.to_text()); }

void KernelCostTable::add(const MeasureRecord &r, const std::string &key) {
  switch (r.error) {
    case MeasureError::None:
      if (r.ok()) add(key, r.median_cost, r.timed_on_busy_machine());
      return;
    case MeasureError::RuntimeError:
    case MeasureError::WrongAnswer:
    case MeasureError::RunTimeout:
      rule_out(key);
      return;
    default:
      return;
  }
}

void KernelCostTable::rule_out(const std::string &key) {
  ruled_out_.insert(key);
  entries_.erase(key);
  if (key == best_) best_stale_ = true;
}

bool KernelCostTable::has_best() const { return !entries_.empty(); }

const std::string &KernelCostTable::best_key() const {
  if (best_stale_) {
    const Entry *best = nullptr;
    for (const auto &[key, e] : entries_)
      if (!best || cheaper(e, *best)) {
        best = &e;
        best_ = key;
      }
    best_stale_ = false;
  }
  return best_;
}

double KernelCostTable::cost(const std::string &key) const {
  const auto it = entries_.find(key);
  return it == entries_.end() ? 0 : it->second.cost;
}

int KernelCostTable::measurements(const std::string &key) const {
  const auto it = entries_.find(key);
  return it == entries_.end() ? 0 : int(it->second.quiet.size() + it->second.busy.size());
}

std::vector<std::string> KernelCostTable::cheapest(size_t n) const {
  std::vector<const std::pair<const std::string, Entry> *> all;
  for (const auto &kv : entries_) all.push_back(&kv);
  n = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + long(n), all.end(),
                    [&](const auto *a, const auto *b) { return cheaper(a->second, b->second); });
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(all[i]->first);
  return out;
}

}  // namespace tlp
