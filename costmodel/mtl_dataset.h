// MTL-TLP's data: the same schedules measured on several platforms, so each
// schedule carries one label per platform where it was measured and none where it
// was not (a missing label is ignored by the loss, never read as label 0).
//
// Built from TLP's per-(workload, platform) tasks (tlp_dataset.h): a label is
// still normalized within its own platform's task.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_featurizer.h"
#include "measure/measure_record.h"
#include "search/schedule.h"

namespace tlp {

struct MtlTask {
  std::string workload_key;
  size_t platforms = 0;             // heads, in the order given to merge_platform_tasks
  std::vector<Schedule> schedules;  // distinct schedules measured on at least one platform
  std::vector<float> labels;        // size() * platforms; 0 where there is no label
  std::vector<uint8_t> labeled;     // size() * platforms; 1 where the platform has a label
  std::vector<float> features;      // after featurize_mtl_tasks: size() * seq_len * emb_size

  size_t size() const { return schedules.size(); }
  size_t labels_of(size_t head) const;  // how many records head `head` has a label for
};

// One task per workload from the tasks of the listed platforms (tasks of other
// platforms are left out); head k is platforms[k]. Workload order is kept.
std::vector<MtlTask> merge_platform_tasks(const std::vector<TlpTask> &tasks, const std::vector<std::string> &platforms);

void featurize_mtl_tasks(std::vector<MtlTask> &tasks, const FeaturizerOptions &options, const DagLookup &dags = {});

// What a new platform with little data looks like: of `platform`'s usable records
// of each workload not in `keep_all_workloads`, a share `fraction` (rounded up, at
// least 2 where there are 2) chosen at random by `seed`; every other record is
// kept as is. Throws std::invalid_argument when fraction is outside (0, 1].
std::vector<MeasureRecord> keep_platform_share(const std::vector<MeasureRecord> &records, const std::string &platform,
                                               double fraction, uint64_t seed,
                                               const std::vector<std::string> &keep_all_workloads = {});

}  // namespace tlp
