// Mutation and crossover of schedules, in the manner of Ansor's evolutionary
// search: change a tile size, an auto-unroll limit or a compute location, or mix
// two parents' decisions, or change the parallel granularity. Every result is repaired (split extents re-derived from
// the loops they now split) and replayed, so it is a valid schedule or nothing.
#pragma once

#include <optional>
#include <random>

#include "search/compute_dag.h"
#include "search/schedule.h"
#include "search/schedule_space.h"

namespace tlp {

struct MutationWeights {
  // Ansor's CPU weights (REFERENCES.md).
  double tile_size = 0.90;
  double auto_unroll = 0.04;
  double compute_location = 0.05;
  double parallel = 0.01;  // how many outer loops are fused into the parallel one
};

class ScheduleMutator {
 public:
  ScheduleMutator(const ComputeDag &dag, const SpaceOptions &options, MutationWeights weights = {});

  // A mutated copy, or nullopt if no valid mutation was found in a few tries.
  std::optional<Schedule> mutate(const Schedule &s, std::mt19937_64 &rng) const;
  // A child taking each split, unroll and compute-location decision from either
  // parent; nullopt when the parents differ in structure.
  std::optional<Schedule> crossover(const Schedule &a, const Schedule &b, std::mt19937_64 &rng) const;

  // Re-derives every SP step's extent from the loop it splits (after an earlier
  // change resized that loop) and shrinks factors that no longer fit; nullopt if
  // the schedule still does not replay.
  std::optional<Schedule> repair(Schedule s) const;

 private:
  std::optional<Schedule> mutate_tile_size(Schedule s, std::mt19937_64 &rng) const;
  std::optional<Schedule> mutate_auto_unroll(Schedule s, std::mt19937_64 &rng) const;
  std::optional<Schedule> mutate_compute_location(Schedule s, std::mt19937_64 &rng) const;
  std::optional<Schedule> mutate_parallel(const Schedule &s, std::mt19937_64 &rng) const;

  const ComputeDag &dag_;
  SpaceOptions options_;
  MutationWeights weights_;
};

}  // namespace tlp
