#include "search/sketch/sketch_context.h"

#include <utility>

namespace tlp {

SketchContext::SketchContext(const ComputeDag &dag, const SpaceOptions &options, std::mt19937_64 &rng)
    : dag_(dag), options_(options), rng_(rng), state_(dag) {}

int SketchContext::index(const std::string &name) const {
  const int s = state_.find_stage(name);
  if (s < 0) throw ScheduleError("internal: no stage " + name);
  return s;
}

void SketchContext::push(Step step) {
  state_.apply(step);
  schedule_.steps.push_back(std::move(step));
}

}  // namespace tlp
