#include "tuner/ranking_report.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "costmodel/measurement_agreement.h"

namespace tlp {

// Names each task's group and weight from the network files; a workload of none
// is in group "other" with weight 1.
void place_in_networks(std::vector<TopkTask> &tasks, const std::vector<std::string> &workloads,
                       const std::map<std::string, WorkloadInNetwork> &networks) {
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto it = networks.find(workloads[i]);
    tasks[i].group = it == networks.end() ? "other" : it->second.network;
    tasks[i].weight = it == networks.end() ? 1.0 : it->second.weight;
  }
}

std::string most_common_platform(const std::vector<MeasureRecord> &records) {
  std::map<std::string, int> counts;
  for (const auto &r : records) ++counts[r.platform];
  std::string best;
  int n = 0;
  for (const auto &[p, c] : counts)
    if (c > n) best = p, n = c;
  return best;
}

std::set<std::string> platforms_of(const std::vector<MeasureRecord> &records) {
  std::set<std::string> out;
  for (const auto &r : records) out.insert(r.platform);
  return out;
}

std::vector<TlpTask> tasks_of_platform(std::vector<TlpTask> tasks, const std::string &platform) {
  std::vector<TlpTask> out;
  for (auto &t : tasks)
    if (t.platform == platform) out.push_back(std::move(t));
  return out;
}

std::vector<TopkTask> topk_tasks(TlpNetwork &net, const std::vector<TlpTask> &tasks,
                                 const std::map<std::string, WorkloadInNetwork> &networks) {
  std::vector<std::string> workloads;
  for (const auto &t : tasks) workloads.push_back(t.workload_key);
  std::vector<TopkTask> out = predict_tasks(net, tasks);
  place_in_networks(out, workloads, networks);
  return out;
}

namespace {

// The same tasks ranked at random, averaged over many draws: the floor a model must clear.
TopkReport random_ranking(std::vector<TopkTask> tasks) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(0, 1);
  TopkReport mean;
  const int draws = 50;
  for (int d = 0; d < draws; ++d) {
    for (auto &t : tasks)
      for (auto &p : t.predictions) p = u(rng);
    const TopkReport r = topk_report(tasks);
    mean.top1 += r.top1 / draws;
    mean.top5 += r.top5 / draws;
  }
  return mean;
}

}  // namespace

// One line per task: where a low score comes from. The score weighs tasks by
// latency, so the slow operators dominate it.
void print_per_task(const std::vector<TlpTask> &tasks, const std::vector<TopkTask> &tk) {
  printf("%-64s %5s %10s %10s %7s %7s\n", "task", "n", "best ms", "top-1 ms", "top-1", "top-5");
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TopkTask &t = tk[i];
    if (t.latencies.empty()) continue;
    const double best = *std::min_element(t.latencies.begin(), t.latencies.end());
    const double one = latency_at_k(t, 1), five = latency_at_k(t, 5);
    printf("%-64.64s %5zu %10.4f %10.4f %7.3f %7.3f\n", tasks[i].workload_key.c_str(), t.latencies.size(), best * 1e3,
           one * 1e3, best / one, best / five);
  }
}

// Every record of the tasks whose workload contains `needle`, in the model's
// order: to see which schedules a bad pick beat.
void print_ranking(const std::vector<TlpTask> &tasks, const std::vector<TopkTask> &tk, const std::string &needle) {
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].workload_key.find(needle) == std::string::npos || tk[i].latencies.empty()) continue;
    printf("ranking of %s (score, ms, schedule; best predicted first)\n", tasks[i].workload_key.c_str());
    const std::vector<size_t> order = ranking_order(tk[i]);
    for (size_t r = 0; r < order.size(); ++r) {
      const size_t j = order[r];
      printf("  %4zu %9.3f %10.4f  %s\n", r + 1, tk[i].predictions[j], tk[i].latencies[j] * 1e3,
             tasks[i].schedules[j].to_text().c_str());
    }
  }
}

void print_epoch(const EpochReport &e) {
  printf("epoch %3d  train %.5f  val %.5f  val top-1 %.4f  top-5 %.4f  lr %.2g  %.1f s%s", e.epoch, e.train_loss,
         e.val_loss, e.val_top1, e.val_top5, e.lr, e.seconds, e.best ? "  *" : "");
  printf("\n");
  fflush(stdout);
}

void print_report(const char *what, const std::vector<TopkTask> &tasks) {
  const TopkReport r = topk_report(tasks);
  const TopkReport floor = random_ranking(tasks);
  printf("%s: top-1 %.4f  top-5 %.4f   (random ranking: top-1 %.4f  top-5 %.4f)\n", what, r.top1, r.top5, floor.top1,
         floor.top5);
  for (const auto &[g, s] : r.top1_by_group) printf("  %-14s top-1 %.4f  top-5 %.4f\n", g.c_str(), s, r.top5_by_group.at(g));
}

// When the logs measured some schedules twice: the score of ranking them by one
// measurement, scored on the other. No model can be expected to beat it on
// these labels, so a model's score reads against it.
void print_measurement_agreement(const std::vector<MeasureRecord> &records, const std::string &platform,
                                 const std::map<std::string, WorkloadInNetwork> &networks) {
  AgreementTasks a = measurement_agreement_tasks(records, platform);
  if (a.tasks.empty()) return;
  place_in_networks(a.tasks, a.workloads, networks);
  const TopkReport r = topk_report(a.tasks);
  printf("measured twice: %zu schedules of %zu tasks; ranked by their first measurement and scored on their "
         "second: top-1 %.4f  top-5 %.4f (the ceiling these labels' noise leaves a model)\n",
         a.schedules, a.tasks.size(), r.top1, r.top5);
}

}  // namespace tlp
