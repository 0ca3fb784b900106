// Records used by the record and log tests.
#pragma once

#include "measure/measure_record.h"

namespace tlp::testing {

inline Schedule sample_schedule() {
  Step split;
  split.kind = StepKind::SP;
  split.stage = 2;
  split.iter = 0;
  split.extent = 512;
  split.factors = {8, 16};
  Step parallel;
  parallel.kind = StepKind::AN;
  parallel.stage = 2;
  parallel.iter = 0;
  parallel.annotation = Annotation::Parallel;
  Step root;
  root.kind = StepKind::CR;
  root.stage = 1;
  Schedule s;
  s.steps = {split, parallel, root};
  return s;
}

inline MeasureRecord sample_record(double median = 0.00125) {
  MeasureRecord r;
  r.workload_key = "matmul:M=512,N=512,K=512";
  r.target = "x86-64-linux-avx2";
  r.platform = "test-cpu";
  r.schedule = sample_schedule();
  r.costs = {0.0013, median, 0.0012};
  r.median_cost = median;
  r.error = MeasureError::None;
  r.build_seconds = 0.25;
  r.run_seconds = 0.5;
  r.timestamp = 1764470000.5;
  return r;
}

}  // namespace tlp::testing
