// What train and eval print about how a model ranks the tasks of some logs,
// and the record queries both need.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_network.h"
#include "costmodel/tlp_trainer.h"
#include "costmodel/topk_score.h"
#include "measure/measure_record.h"
#include "tuner/network_workloads.h"

namespace tlp {

// Names each task's group and weight from the network files; a workload of none
// is in group "other" with weight 1.
void place_in_networks(std::vector<TopkTask> &tasks, const std::vector<std::string> &workloads,
                       const std::map<std::string, WorkloadInNetwork> &networks);

std::string most_common_platform(const std::vector<MeasureRecord> &records);
std::set<std::string> platforms_of(const std::vector<MeasureRecord> &records);

// The tasks of records of `platform`.
std::vector<TlpTask> tasks_of_platform(std::vector<TlpTask> tasks, const std::string &platform);

// The network's predictions for featurized tasks, grouped by network.
std::vector<TopkTask> topk_tasks(TlpNetwork &net, const std::vector<TlpTask> &tasks,
                                 const std::map<std::string, WorkloadInNetwork> &networks);

// One line per task: its best latency, the model's pick's, their ratio.
void print_per_task(const std::vector<TlpTask> &tasks, const std::vector<TopkTask> &tk);

// Every record of the tasks whose workload contains `needle`, in the model's order.
void print_ranking(const std::vector<TlpTask> &tasks, const std::vector<TopkTask> &tk, const std::string &needle);

void print_epoch(const EpochReport &e);

// Top-1 and top-5, beside a random ranking's, overall and per group.
void print_report(const char *what, const std::vector<TopkTask> &tasks);

// When the logs measured some schedules twice: the score of ranking them by one
// measurement, scored on the other (the ceiling the labels' noise leaves).
void print_measurement_agreement(const std::vector<MeasureRecord> &records, const std::string &platform,
                                 const std::map<std::string, WorkloadInNetwork> &networks);

}  // namespace tlp
