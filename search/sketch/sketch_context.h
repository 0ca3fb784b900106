// What the sketch rules share while they build one schedule: the live loop
// state, the steps emitted so far, the options and the random generator.
//
// Rules emit steps through push(), which applies each step to the loop state
// before recording it, so every stage and loop index a rule reads is the one in
// force at that point (stage indices shift when CHW or RF insert a stage, which
// is why rules hold on to stage names and look indices up with index()).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "search/compute_dag.h"
#include "search/loop_state.h"
#include "search/schedule.h"
#include "search/schedule_space.h"

namespace tlp {

class SketchContext {
 public:
  SketchContext(const ComputeDag &dag, const SpaceOptions &options, std::mt19937_64 &rng);

  const ComputeDag &dag() const { return dag_; }
  const SpaceOptions &options() const { return options_; }
  std::mt19937_64 &rng() { return rng_; }
  const LoopState &state() const { return state_; }
  const StageState &stage(int s) const { return state_.stage(s); }
  const Schedule &schedule() const { return schedule_; }

  // The current index of the stage called `name`; throws ScheduleError if none.
  int index(const std::string &name) const;

  // Applies `step` to the loop state (throwing ScheduleError if it is invalid)
  // and appends it to the schedule.
  void push(Step step);

  // The stages the rfactor rule split, by name (their partial stages are
  // "<name>.rf"), in the order they were split.
  void note_rfactored(const std::string &name) { rfactored_.push_back(name); }
  const std::vector<std::string> &rfactored() const { return rfactored_; }

 private:
  const ComputeDag &dag_;
  const SpaceOptions &options_;
  std::mt19937_64 &rng_;
  LoopState state_;
  Schedule schedule_;
  std::vector<std::string> rfactored_;
};

}  // namespace tlp
