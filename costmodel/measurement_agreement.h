// How far two measurements of the same kernels agree, in the terms a cost model is
// scored in: rank each task's schedules by their first measurement and score that
// ranking (top-k, costmodel/topk_score.h) on their second. It is the score a model
// that knew one measurement perfectly would get on another: on a noisy machine no
// model can score much above it, so it is the ceiling to read a model's score
// against.
#pragma once

#include <string>
#include <vector>

#include "costmodel/topk_score.h"
#include "measure/measure_record.h"

namespace tlp {

// One task per workload of `platform` with at least two schedules measured
// validly at least twice: its latencies are the schedules' second measurements,
// its predictions rank their first ones (faster first). Later measurements and
// schedules measured once are left out; groups and weights are left to the caller.
// Returns the tasks in workload order, with their workload keys.
struct AgreementTasks {
  std::vector<TopkTask> tasks;
  std::vector<std::string> workloads;
  size_t schedules = 0;  // measured twice, over all tasks
};
AgreementTasks measurement_agreement_tasks(const std::vector<MeasureRecord> &records, const std::string &platform);

}  // namespace tlp
