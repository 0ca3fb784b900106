// tlptune train / eval: train a TLP cost model on measurement logs, and report
// how well a model ranks the schedules of operators it never saw (top-k scores).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>

#include "codegen/workload.h"
#include "costmodel/model_file.h"
#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_trainer.h"
#include "measure/record_log.h"
#include "search/network_spec.h"
#include "tuner/command.h"

namespace tlp {
namespace {

std::vector<MeasureRecord> read_logs(const std::vector<std::string> &paths) {
  std::vector<MeasureRecord> all;
  for (const auto &p : paths) {
    LogReadResult r = read_record_log(p);
    for (const auto &w : r.warnings) fprintf(stderr, "warning: %s\n", w.c_str());
    all.insert(all.end(), r.records.begin(), r.records.end());
  }
  return all;
}

// Network files name ops as written; records carry canonical workload keys.
std::string canonical(const std::string &spec) { return parse_workload(spec).key(); }

// The workloads of network files, each named by its network (for test splits and
// per-network scores).
std::map<std::string, std::string> network_of_workloads(const std::vector<std::string> &network_files) {
  std::map<std::string, std::string> out;
  for (const auto &f : network_files)
    for (const auto &t : read_network_spec(f).tasks) out.emplace(canonical(t.op), read_network_spec(f).name);
  return out;
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

std::vector<TopkTask> topk_tasks(TlpNetwork &net, const std::vector<TlpTask> &tasks,
                                 const std::map<std::string, std::string> &groups) {
  std::vector<std::string> names;
  for (const auto &t : tasks) {
    auto it = groups.find(t.workload_key);
    names.push_back(it == groups.end() ? "other" : it->second);
  }
  return predict_tasks(net, tasks, InferenceOptions{}, names);
}

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

void print_report(const char *what, const std::vector<TopkTask> &tasks) {
  const TopkReport r = topk_report(tasks);
  const TopkReport floor = random_ranking(tasks);
  printf("%s: top-1 %.4f  top-5 %.4f   (random ranking: top-1 %.4f  top-5 %.4f)\n", what, r.top1, r.top5, floor.top1,
         floor.top5);
  for (const auto &[g, s] : r.top1_by_group) printf("  %-14s top-1 %.4f  top-5 %.4f\n", g.c_str(), s, r.top5_by_group.at(g));
}

}  // namespace

Command add_train_command(CLI::App &app) {
  struct Options {
    std::vector<std::string> logs;
    std::string out;
    std::string arch = "attention", loss = "rank", scaling = "log";
    int epochs = 50, batch = 256, seq_len = 25, emb_size = 22, threads = 0, patience = 10;
    double val_fraction = 0.1;
    std::vector<std::string> test_networks;
    uint64_t seed = 1;
  };
  auto o = std::make_shared<Options>();
  Command c;
  c.app = app.add_subcommand("train", "Train a TLP cost model on measurement logs (see 'tlptune collect')");
  c.app->add_option("--logs", o->logs, "Logs of measurements (several allowed)")->required();
  c.app->add_option("--out", o->out, "Model file to write")->required();
  c.app->add_option("--arch", o->arch, "Network: attention (the paper's), lstm or transformer")->capture_default_str();
  c.app->add_option("--loss", o->loss, "rank (LambdaRank) or mse")->capture_default_str();
  c.app->add_option("--scaling", o->scaling, "Step features as the paper's raw numbers or log-scaled (log)")
      ->capture_default_str();
  c.app->add_option("--seq-len", o->seq_len, "Steps kept per schedule (the paper: 25 on CPU)")->capture_default_str();
  c.app->add_option("--emb-size", o->emb_size, "Values kept per step (the paper: 22 on CPU)")->capture_default_str();
  c.app->add_option("--epochs", o->epochs, "Training epochs (the weights of the best validation epoch are kept)")
      ->capture_default_str();
  c.app->add_option("--batch", o->batch, "Records per training step (the paper: 1024, for millions of records)")
      ->capture_default_str();
  c.app->add_option("--patience", o->patience, "Stop after this many epochs without a better validation loss (0: never)")
      ->capture_default_str();
  c.app->add_option("--val-fraction", o->val_fraction, "Share of workloads held out for validation")->capture_default_str();
  c.app->add_option("--test-network", o->test_networks,
                    "Hold out every operator of these network files for testing (whole workloads, never trained on)");
  c.app->add_option("--threads", o->threads, "LibTorch threads (0: default)")->capture_default_str();
  c.app->add_option("--seed", o->seed, "Seed of the split, the initial weights and shuffling")->capture_default_str();
  c.run = [o] {
    const auto records = read_logs(o->logs);
    const auto groups = network_of_workloads(o->test_networks);
    SplitOptions so;
    so.val_fraction = o->val_fraction;
    so.seed = o->seed;
    for (const auto &[w, n] : groups) so.test_workloads.push_back(w);
    TrainOptions to;
    to.arch = tlp_arch_from_name(o->arch);
    to.loss = tlp_loss_from_name(o->loss);
    to.epochs = o->epochs;
    to.batch = o->batch;
    to.patience = o->patience;
    to.seed = o->seed;
    to.threads = o->threads;
    to.featurizer.seq_len = o->seq_len;
    to.featurizer.emb_size = o->emb_size;
    to.featurizer.scaling = feature_scaling_from_name(o->scaling);
    TlpDataset data = make_tlp_dataset(records, so, to.featurizer);
    printf("records %zu: %zu failed, %zu in tasks too small; %zu tasks kept\n", data.stats.records,
           data.stats.failed_records, data.stats.small_task_records, data.stats.tasks);
    printf("split by workload: %zu train, %zu validation, %zu test tasks\n", data.split.train.size(),
           data.split.val.size(), data.split.test.size());
    if (data.split.train.empty()) throw std::runtime_error("no training tasks: collect more data (tlptune collect)");
    to.on_epoch = [](const EpochReport &e) {
      printf("epoch %3d  train %.5f  val %.5f  val top-1 %.4f  top-5 %.4f  %.1f s%s\n", e.epoch, e.train_loss,
             e.val_loss, e.val_top1, e.val_top5, e.seconds, e.best ? "  *" : "");
      fflush(stdout);
    };
    TlpNetwork net(network_config(to), o->seed);
    TrainResult tr = train_tlp(net, data.split.train, data.split.val, to);
    TlpModelInfo info;
    info.network = net.config();
    info.featurizer = to.featurizer;
    info.platform = most_common_platform(records);
    info.training.records = int64_t(tr.train_records);
    info.training.tasks = int64_t(tr.train_tasks);
    info.training.created = utc_now();
    info.training.loss = o->loss;
    info.training.epochs = int(tr.history.size());
    info.training.best_epoch = tr.best_epoch;
    info.training.best_val_loss = tr.best_val_loss;
    info.training.seconds = tr.wall_seconds;
    save_tlp_model(o->out, net, info);
    printf("wrote %s (%s, best epoch %d of %zu, %.1f s)\n", o->out.c_str(), tlp_arch_name(net.config().arch),
           tr.best_epoch, tr.history.size(), tr.wall_seconds);
    if (!data.split.test.empty()) print_report("held-out test", topk_tasks(net, data.split.test, groups));
    return kExitOk;
  };
  return c;
}

Command add_eval_command(CLI::App &app) {
  struct Options {
    std::string model;
    std::vector<std::string> logs;
    std::vector<std::string> networks;
  };
  auto o = std::make_shared<Options>();
  Command c;
  c.app = app.add_subcommand("eval", "Top-1 and top-5 scores of a cost model on the tasks of some logs");
  c.app->add_option("--model", o->model, "A model file written by 'tlptune train'")->required();
  c.app->add_option("--logs", o->logs, "Logs of measurements to rank (several allowed)")->required();
  c.app->add_option("--network", o->networks, "Network files: scores per network and task weights from them");
  c.run = [o] {
    LoadedTlpModel m = load_tlp_model(o->model);
    const auto records = read_logs(o->logs);
    std::vector<TlpTask> tasks = build_tasks(records);
    featurize_tasks(tasks, m.info.featurizer);
    const auto groups = network_of_workloads(o->networks);
    std::vector<TopkTask> tk = topk_tasks(m.network, tasks, groups);
    printf("model %s (%s, trained on %lld records for %s)\n%zu tasks\n", o->model.c_str(),
           tlp_arch_name(m.info.network.arch), (long long)m.info.training.records, m.info.platform.c_str(),
           tasks.size());
    print_report("all tasks", tk);
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
