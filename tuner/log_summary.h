// Groups a log's records by task (workload, target and platform: one build target
// run with 1 and 2 threads is two tasks) and finds each task's best kernel: the
// lowest median over each kernel's measurements (measure/kernel_cost_table.h).
// Shared by `show` and `replay`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "measure/measure_record.h"

namespace tlp {

struct TaskSummary {
  std::string workload;
  std::string target;
  std::string platform;  // empty in logs older than platforms
  int records = 0;
  int ok = 0;
  int busy = 0;  // valid records timed on a busy machine (MeasureRecord::timed_on_busy_machine)
  std::map<std::string, int> errors;
  std::vector<const MeasureRecord *> failures;  // in log order; point into the records passed in
  const MeasureRecord *best = nullptr;  // a valid record of the best kernel; points into the records passed in
  double best_cost = 0;                 // seconds: the median over the best kernel's measurements
  int best_measurements = 0;            // how many there are
  const MachineIdentity *machine = nullptr;  // of its first record that names one; into the records passed in
};

// The tasks of one platform; a log may hold several (thread counts, machines).
struct PlatformGroup {
  std::string platform;
  const MachineIdentity *machine = nullptr;  // null: records older than machine names, or a GPU
  std::vector<const TaskSummary *> tasks;    // point into the tasks passed in
  int records = 0;
};

// In order of first appearance in the log.
std::vector<TaskSummary> summarize_tasks(const std::vector<MeasureRecord> &records);

// In order of first appearance among the tasks.
std::vector<PlatformGroup> group_by_platform(const std::vector<TaskSummary> &tasks);

}  // namespace tlp
