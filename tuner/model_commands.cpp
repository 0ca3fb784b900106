// tlptune train / eval: train a TLP cost model on measurement logs, and report
// how well a model ranks the schedules of operators it never saw (top-k scores).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "costmodel/measurement_agreement.h"
#include "costmodel/model_file.h"
#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_trainer.h"
#include "measure/record_log.h"
#include "tuner/command.h"
#include "tuner/compute_dag_cache.h"
#include "tuner/current_split_extents.h"
#include "tuner/network_workloads.h"
#include "tuner/platform_spec.h"
#include "tuner/train_recipe.h"

namespace tlp {
namespace {

// All records of the logs, their split extents as this version writes them.
std::vector<MeasureRecord> read_logs(const std::vector<std::string> &paths) {
  std::vector<MeasureRecord> all;
  for (const auto &p : paths) {
    LogReadResult r = read_record_log(p);
    for (const auto &w : r.warnings) fprintf(stderr, "warning: %s\n", w.c_str());
    all.insert(all.end(), r.records.begin(), r.records.end());
  }
  ComputeDagCache dags;
  if (const size_t n = use_current_split_extents(all, dags))
    printf("%zu records of older logs read with this version's split extents\n", n);
  return all;
}

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

// A platform named on the command line: a platform string of the logs, a
// TARGET@THREADS spec of this machine, or a part of exactly one platform string
// (e.g. "sse41/threads=2").
std::string resolve_platform(const std::string &text, const std::set<std::string> &known) {
  if (known.count(text)) return text;
  try {
    const std::string name = parse_platform_spec(text).name();
    if (known.count(name)) return name;
  } catch (const std::exception &) {
  }
  std::vector<std::string> matches;
  for (const auto &p : known)
    if (p.find(text) != std::string::npos) matches.push_back(p);
  if (matches.size() == 1) return matches[0];
  std::string list;
  for (const auto &p : known) list += "\n  " + p;
  throw std::runtime_error("platform '" + text + "' " + (matches.empty() ? "is not in the logs" : "is ambiguous") +
                           "; the logs hold records of:" + list);
}

template <typename Pred>
std::vector<TlpTask> tasks_where(std::vector<TlpTask> tasks, Pred keep) {
  std::vector<TlpTask> out;
  for (auto &t : tasks)
    if (keep(t)) out.push_back(std::move(t));
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
  if (std::isfinite(e.watch_top1)) printf("  test top-1 %.4f  top-5 %.4f", e.watch_top1, e.watch_top5);
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

struct TrainCommandOptions {
  std::vector<std::string> logs;
  std::string out;
  std::string arch = "attention", loss = "rank", scaling = "log";
  std::string recipe = train_recipes().front().name;
  // The recipe's settings, unless given (apply_recipe); these initial values
  // are the default recipe's, for --help.
  int epochs = train_recipes().front().epochs, patience = train_recipes().front().patience;
  bool split_tails = train_recipes().front().split_tails, named_loops = train_recipes().front().named_loops;
  int tile_rows = train_recipes().front().tile_rows, seq_len = kPaperStepRows + train_recipes().front().tile_rows;
  double ema_epochs = train_recipes().front().ema_epochs;
  int batch = 256, emb_size = 22, nest_rows = 0, workload_rows = 0, threads = 0, average_from = 0,
      hidden = TrainOptions{}.hidden, heads = TrainOptions{}.heads;
  bool cosine_lr = false, watch_test = false;
  double val_fraction = 0.1;
  double gain_base = TrainOptions{}.rank_gain_base;
  std::vector<std::string> test_networks;
  uint64_t seed = 1;
  std::string platform;             // the platform trained for (TLP) / the target head (MTL)
  double target_fraction = 1.0;     // share of that platform's records kept for training
  bool mtl = false;
  std::vector<std::string> mtl_platforms;  // heads besides the target; empty: every platform in the logs
  std::string init_from;            // fine-tune from this model
};

// --init-from keeps the source model's shape. A shape option given with it must
// repeat the source's value: training another shape than the one asked for
// would waste hours, so a different value is refused rather than ignored.
void refuse_another_shape(const TrainCommandOptions &o, const CLI::App &app, const TlpModelInfo &source) {
  const FeaturizerOptions &f = source.featurizer;
  const std::pair<const char *, std::pair<std::string, std::string>> asked_and_kept[] = {
      {"--arch", {o.arch, tlp_arch_name(source.network.arch)}},
      {"--hidden", {std::to_string(o.hidden), std::to_string(source.network.hidden)}},
      {"--heads", {std::to_string(o.heads), std::to_string(source.network.heads)}},
      {"--scaling", {o.scaling, feature_scaling_name(f.scaling)}},
      {"--seq-len", {std::to_string(o.seq_len), std::to_string(f.seq_len)}},
      {"--emb-size", {std::to_string(o.emb_size), std::to_string(f.emb_size)}},
      {"--nest-rows", {std::to_string(o.nest_rows), std::to_string(f.nest_rows)}},
      {"--workload-rows", {std::to_string(o.workload_rows), std::to_string(f.workload_rows)}},
      {"--tile-rows", {std::to_string(o.tile_rows), std::to_string(f.tile_rows)}},
      {"--split-tails", {o.split_tails ? "on" : "off", f.split_tails ? "on" : "off"}},
      {"--named-loops", {o.named_loops ? "on" : "off", f.named_loops ? "on" : "off"}},
  };
  for (const auto &[name, values] : asked_and_kept)
    if (app.count(name) > 0 && values.first != values.second)
      throw std::runtime_error(std::string(name) + " " + values.first + " differs from " + values.second + " of " +
                               o.init_from + ": --init-from keeps that model's shape. Drop " + name +
                               ", or drop --init-from to train a new network");
}

// Fills in the recipe's settings where the command line gave none.
void apply_recipe(TrainCommandOptions &o, const CLI::App &app) {
  const TrainRecipe &r = train_recipe(o.recipe);
  auto unless_given = [&app](const char *option, auto &field, auto value) {
    if (app.count(option) == 0) field = value;
  };
  unless_given("--split-tails", o.split_tails, r.split_tails);
  unless_given("--named-loops", o.named_loops, r.named_loops);
  unless_given("--tile-rows", o.tile_rows, r.tile_rows);
  // The rows describing the operator or its loops come on top of the paper's 25
  // steps unless the matrix's size is given.
  unless_given("--seq-len", o.seq_len, kPaperStepRows + o.tile_rows + o.nest_rows + o.workload_rows);
  unless_given("--epochs", o.epochs, r.epochs);
  unless_given("--patience", o.patience, r.patience);
  unless_given("--ema", o.ema_epochs, r.ema_epochs);
  const int other_rows = o.tile_rows + o.nest_rows + o.workload_rows;
  // --init-from keeps the source model's matrix (refuse_another_shape).
  if (o.init_from.empty() && o.seq_len - other_rows < 1)
    throw std::runtime_error("--seq-len " + std::to_string(o.seq_len) + " leaves no row for the steps after " +
                             std::to_string(o.tile_rows) + " tile rows" +
                             (app.count("--tile-rows") ? "" : " (the " + r.name + " recipe's; --tile-rows 0 drops them)") +
                             ", " + std::to_string(o.nest_rows) + " nest rows and " + std::to_string(o.workload_rows) +
                             " workload rows: give --seq-len " + std::to_string(other_rows + 1) +
                             " or more, or leave it out for 25 steps and those rows");
}

std::string recipes_help() {
  std::string h = "Settings to start from; options given override them:";
  for (const TrainRecipe &r : train_recipes()) h += "\n  " + r.name + ": " + r.summary;
  return h;
}

}  // namespace

Command add_train_command(CLI::App &app) {
  auto o = std::make_shared<TrainCommandOptions>();
  Command c;
  c.app = app.add_subcommand("train", "Train a TLP (or MTL-TLP) cost model on measurement logs (see 'tlptune collect')");
  c.app->footer(
      "TLP trains on one platform's records (--platform; default: the platform with most records).\n"
      "MTL-TLP (--mtl) trains one shared network with a head per platform on logs from 'collect --platforms':\n"
      "  tlptune train --mtl --logs L --platform x86-64-linux-sse41@2 --target-fraction 0.07 --out m.tlpm\n"
      "keeps only 7% of the target platform's records (per workload; held-out test workloads keep all) and\n"
      "reports the target head's scores. --target-fraction alone (without --mtl) trains TLP on that share, and\n"
      "--init-from SOURCE.tlpm fine-tunes another platform's model on it.");
  c.app->add_option("--logs", o->logs, "Logs of measurements (several allowed)")->required();
  c.app->add_option("--out", o->out, "Model file to write")->required();
  c.app->add_option("--recipe", o->recipe, recipes_help())->capture_default_str();
  c.app->add_option("--arch", o->arch, "Network: attention (the paper's), lstm or transformer")->capture_default_str();
  c.app->add_option("--loss", o->loss, "rank (LambdaRank) or mse")->capture_default_str();
  c.app->add_option("--gain-base", o->gain_base,
                    "LambdaRank's gain of a record is this to the power of its label, minus 1 (labels are in [0, 1]; "
                    "the paper: 2). A larger base weighs the order among the fastest schedules more")
      ->capture_default_str()
      ->check(CLI::Range(1.0 + 1e-9, 1e6));
  c.app->add_option("--hidden", o->hidden,
                    "Width of the network's step vectors. The paper's 256 ranked no better here and scores 2.5 times "
                    "slower (README: \"The default width\")")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  c.app->add_option("--heads", o->heads, "Attention heads (the paper: 8); must divide --hidden")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  c.app->add_option("--scaling", o->scaling, "Step features as the paper's raw numbers or log-scaled (log)")
      ->capture_default_str();
  c.app->add_option("--seq-len", o->seq_len,
                    "Rows of the feature matrix: the steps kept per schedule and the rows of --tile-rows, --nest-rows "
                    "and --workload-rows (the paper: 25 steps on CPU); default: 25 steps and those rows")
      ->capture_default_str();
  c.app->add_option("--emb-size", o->emb_size, "Values kept per step (the paper: 22 on CPU)")->capture_default_str();
  c.app->add_option("--nest-rows", o->nest_rows,
                    "Rows of seq_len that describe the loop nest the schedule builds (our improved features; "
                    "0: the paper's steps only). Try --nest-rows 24 --emb-size 34")
      ->capture_default_str();
  c.app->add_option("--workload-rows", o->workload_rows,
                    "Rows of seq_len, at its start, that describe the operator: sizes and access strides of each "
                    "computed stage (our improved features; 0: the paper's steps only). Try --workload-rows 4")
      ->capture_default_str();
  c.app->add_option("--tile-rows", o->tile_rows,
                    "Rows of seq_len, after the steps, that describe the loops of the operator's main computation, "
                    "innermost first: the work, bytes read and bytes written of each (our improved features; scoring "
                    "is slower). 8 in the tlptune recipe; --tile-rows 0 turns them off; default: the recipe's")
      ->capture_default_str();
  c.app->add_flag("--split-tails", o->split_tails,
                  "Also mark each split whose factors leave a tail, and the share of iterations the tiling adds "
                  "(our improved features; the paper's steps carry only the numbers). On in the tlptune recipe; "
                  "--split-tails=false turns it off");
  c.app->add_flag("--named-loops", o->named_loops,
                  "Also end the row of each step that names a loop (annotate, fuse, compute-at) with what replaying "
                  "the schedule on the operator says of it: extent, twos, how it walks the store and the reads, how "
                  "often a stage is computed (our improved features; scoring is slower). On in the tlptune recipe; "
                  "--named-loops=false turns it off");
  c.app->add_option("--epochs", o->epochs,
                    "Training epochs (the weights of the best validation epoch are kept); default: the recipe's")
      ->capture_default_str();
  c.app->add_option("--batch", o->batch, "Records per training step (the paper: 1024, for millions of records)")
      ->capture_default_str();
  c.app->add_option("--patience", o->patience,
                    "Stop after this many epochs without a better validation loss (0: never); default: the recipe's")
      ->capture_default_str();
  c.app->add_flag("--cosine-lr", o->cosine_lr,
                  "Lower the learning rate from its start to 0 along half a cosine over --epochs (the paper: constant)");
  c.app->add_option("--average-from", o->average_from,
                    "Average the weights of every epoch from this one on, and keep the average when its validation "
                    "loss is no worse than the best epoch's (0: keep the best epoch)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  c.app->add_option("--ema", o->ema_epochs,
                    "Judge, keep and write a moving average of the weights over about this many epochs of steps "
                    "instead of each epoch's own (0: off); default: the recipe's. Steadier on small datasets")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  c.app->add_option("--val-fraction", o->val_fraction, "Share of workloads held out for validation")->capture_default_str();
  c.app->add_option("--test-network", o->test_networks,
                    "Hold out every operator of these network files for testing (whole workloads, never trained on)");
  c.app->add_flag("--watch-test", o->watch_test,
                  "Also print the held-out test split's top-1/top-5 after every epoch, to study how well the "
                  "validation picks the epoch (the test scores never pick weights)");
  c.app->add_option("--platform", o->platform,
                    "Platform to train for (MTL: the target head): a platform string of the logs, TARGET@THREADS, "
                    "or a unique part of one");
  c.app->add_option("--target-fraction", o->target_fraction,
                    "Keep only this share of the platform's records (a new machine with little data)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  c.app->add_flag("--mtl", o->mtl, "MTL-TLP: a shared backbone and one head per platform, trained jointly");
  c.app->add_option("--mtl-platforms", o->mtl_platforms,
                    "With --mtl: the other platforms given a head (default: every platform in the logs)");
  c.app->add_option("--init-from", o->init_from,
                    "Start from this model's weights (fine-tuning). Its shape is kept: --arch, --hidden, --heads and "
                    "the featurizer options may only repeat that model's values");
  c.app->add_option("--threads", o->threads, "LibTorch threads (0: default)")->capture_default_str();
  c.app->add_option("--seed", o->seed, "Seed of the split, the initial weights and shuffling")->capture_default_str();
  c.run = [o, app = c.app] {
    apply_recipe(*o, *app);
    // Refused before the logs are read: reading a large dataset takes a while.
    if (!o->init_from.empty()) {
      if (o->mtl) throw std::runtime_error("--init-from fine-tunes a TLP model; it does not combine with --mtl");
      refuse_another_shape(*o, *app, read_tlp_model_info(o->init_from));
    }
    std::vector<MeasureRecord> records = read_logs(o->logs);
    const std::set<std::string> known = platforms_of(records);
    if (known.empty()) throw std::runtime_error("the logs hold no records: collect some first (tlptune collect)");
    const std::string target = o->platform.empty() ? most_common_platform(records) : resolve_platform(o->platform, known);
    const auto groups = network_workloads(o->test_networks);
    std::vector<std::string> test_workloads;
    for (const auto &[w, n] : groups) test_workloads.push_back(w);
    if (o->target_fraction <= 0) throw std::runtime_error("--target-fraction must be above 0");
    if (o->target_fraction < 1) records = keep_platform_share(records, target, o->target_fraction, o->seed, test_workloads);

    std::vector<std::string> heads{target};  // head 0 is the target
    if (o->mtl) {
      for (const auto &p : o->mtl_platforms.empty() ? std::vector<std::string>(known.begin(), known.end())
                                                    : o->mtl_platforms) {
        const std::string name = resolve_platform(p, known);
        if (std::find(heads.begin(), heads.end(), name) == heads.end()) heads.push_back(name);
      }
      if (heads.size() < 2) throw std::runtime_error("--mtl needs records of at least two platforms");
    }

    TrainOptions to;
    TlpNetworkConfig config;
    std::unique_ptr<TlpNetwork> net;
    if (!o->init_from.empty()) {
      LoadedTlpModel init = load_tlp_model(o->init_from);
      to.arch = init.info.network.arch;
      to.featurizer = init.info.featurizer;
      config = init.info.network;
      net = std::make_unique<TlpNetwork>(std::move(init.network));
    } else {
      to.arch = tlp_arch_from_name(o->arch);
      to.hidden = o->hidden;
      to.heads = o->heads;
      to.featurizer.seq_len = o->seq_len;
      to.featurizer.emb_size = o->emb_size;
      to.featurizer.scaling = feature_scaling_from_name(o->scaling);
      to.featurizer.nest_rows = o->nest_rows;
      to.featurizer.workload_rows = o->workload_rows;
      to.featurizer.tile_rows = o->tile_rows;
      to.featurizer.split_tails = o->split_tails;
      to.featurizer.named_loops = o->named_loops;
      check_featurizer_options(to.featurizer);
      config = network_config(to);
      config.output_heads = int(heads.size());
      net = std::make_unique<TlpNetwork>(config, o->seed);
    }
    to.loss = tlp_loss_from_name(o->loss);
    to.rank_gain_base = o->gain_base;
    to.epochs = o->epochs;
    to.batch = o->batch;
    to.patience = o->patience;
    to.average_from = o->average_from;
    to.cosine_lr = o->cosine_lr;
    to.ema_epochs = o->ema_epochs;
    to.seed = o->seed;
    to.threads = o->threads;
    printf("settings: recipe %s, %d x %d matrix, split tails %s, named loops %s, %d tile rows, %d epochs, patience %d, "
           "ema %g%s\n",
           o->recipe.c_str(), to.featurizer.seq_len, to.featurizer.emb_size, to.featurizer.split_tails ? "on" : "off",
           to.featurizer.named_loops ? "on" : "off", to.featurizer.tile_rows, to.epochs, to.patience, to.ema_epochs,
           o->init_from.empty() ? "" : " (features as the model fine-tuned)");

    SplitOptions so;
    so.val_fraction = o->val_fraction;
    so.seed = o->seed;
    so.test_workloads = test_workloads;
    const DagLookup dags = make_compute_dag_lookup();
    TlpDataset data = make_tlp_dataset(records, so, to.featurizer, dags);
    auto on = [](const std::string &platform) { return [platform](const TlpTask &t) { return t.platform == platform; }; };
    const std::vector<TlpTask> val = tasks_where(data.split.val, on(target));
    const std::vector<TlpTask> test = tasks_where(data.split.test, on(target));
    printf("records %zu: %zu failed, %zu in tasks too small, %zu measured a schedule again (one sample each); %zu "
           "tasks kept\n",
           data.stats.records, data.stats.failed_records, data.stats.small_task_records, data.stats.repeated_records,
           data.stats.tasks);
    if (o->watch_test) {
      if (test.empty()) throw std::runtime_error("--watch-test needs held-out test tasks: give --test-network");
      to.watch = &test;
    }
    printf("platform %s%s\n", target.c_str(),
           o->target_fraction < 1 ? (", keeping " + std::to_string(o->target_fraction) + " of its records").c_str() : "");
    TrainResult tr;
    if (o->mtl) {
      std::vector<MtlTask> train = merge_platform_tasks(data.split.train, heads);
      featurize_mtl_tasks(train, to.featurizer, dags);
      size_t target_labels = 0, all_labels = 0;
      for (const auto &t : train)
        for (size_t k = 0; k < heads.size(); ++k) (k == 0 ? target_labels : all_labels) += t.labels_of(k);
      printf("MTL-TLP, %zu heads: %zu training workloads, %zu target labels, %zu labels of the other platforms\n",
             heads.size(), train.size(), target_labels, all_labels);
      printf("split by workload: %zu validation, %zu test tasks of the target\n", val.size(), test.size());
      if (train.empty()) throw std::runtime_error("no training tasks: collect more data (tlptune collect)");
      to.on_epoch = print_epoch;
      std::vector<MtlTask> val_all = merge_platform_tasks(data.split.val, heads);
      featurize_mtl_tasks(val_all, to.featurizer, dags);
      tr = train_mtl(*net, train, val_all, val, 0, to);
    } else {
      const std::vector<TlpTask> train = tasks_where(data.split.train, on(target));
      printf("split by workload: %zu train, %zu validation, %zu test tasks\n", train.size(), val.size(), test.size());
      if (train.empty()) throw std::runtime_error("no training tasks: collect more data (tlptune collect)");
      to.on_epoch = print_epoch;
      tr = train_tlp(*net, train, val, to);
    }
    TlpModelInfo info;
    info.network = net->config();
    info.featurizer = to.featurizer;
    info.platform = target;
    if (o->mtl) info.platforms = heads;
    info.training.records = int64_t(tr.train_records);
    info.training.tasks = int64_t(tr.train_tasks);
    info.training.created = utc_now();
    info.training.loss = o->loss;
    info.training.epochs = int(tr.history.size());
    info.training.best_epoch = tr.best_epoch;
    info.training.best_val_loss = tr.best_val_loss;
    info.training.seconds = tr.wall_seconds;
    save_tlp_model(o->out, *net, info);
    if (o->average_from > 0 && int(tr.history.size()) >= o->average_from)
      printf("weight average of epochs %d..%zu: validation loss %.5f (best epoch: %.5f), %s\n", o->average_from,
             tr.history.size(), tr.average_val_loss, tr.best_val_loss,
             tr.averaged_epochs > 0 ? "kept" : "not kept");
    printf("wrote %s (%s%s, best epoch %d of %zu%s, %.1f s)\n", o->out.c_str(), tlp_arch_name(net->config().arch),
           o->mtl ? ", MTL-TLP" : "", tr.best_epoch, tr.history.size(),
           tr.averaged_epochs > 0 ? (", weights averaged over " + std::to_string(tr.averaged_epochs) + " epochs").c_str()
                                  : "",
           tr.wall_seconds);
    if (!test.empty()) {
      TlpNetwork target_net = net->single_head(0);
      print_report("held-out test", topk_tasks(target_net, test, groups));
    }
    return kExitOk;
  };
  return c;
}

Command add_eval_command(CLI::App &app) {
  struct Options {
    std::vector<std::string> models;
    std::vector<std::string> logs;
    std::vector<std::string> networks;
    std::string platform;
    bool per_task = false;
    std::string show_ranking;
  };
  auto o = std::make_shared<Options>();
  Command c;
  c.app = app.add_subcommand("eval", "Top-1 and top-5 scores of a cost model on the tasks of some logs");
  c.app->add_option("--platform", o->platform,
                    "Rank this platform's records (default: the model's platform; an MTL-TLP model uses its head)");
  c.app->add_option("--model", o->models,
                    "A model file written by 'tlptune train'; several rank as one ensemble (the mean of each "
                    "model's scores, standardized within a task)")
      ->required();
  c.app->add_option("--logs", o->logs, "Logs of measurements to rank (several allowed)")->required();
  c.app->add_option("--network", o->networks,
                    "Network files: scores per network, and each task weighted by how often it occurs (TenSet's "
                    "top-k score); tasks of no network weigh 1");
  c.app->add_flag("--per-task", o->per_task,
                  "Also print each task's best latency, that of the model's pick and their ratio");
  c.app->add_option("--show-ranking", o->show_ranking,
                    "Also print every record of the tasks whose workload contains this text, in the model's "
                    "order (score, latency, schedule), e.g. --show-ranking stride=2");
  c.run = [o] {
    const TlpModelInfo info = read_tlp_model_info(o->models.front());
    const auto records = read_logs(o->logs);
    const std::set<std::string> known = platforms_of(records);
    const std::string platform = o->platform.empty() ? info.platform : resolve_platform(o->platform, known);
    std::vector<TlpTask> tasks =
        tasks_where(build_tasks(records), [&](const TlpTask &t) { return t.platform == platform; });
    if (tasks.empty()) throw std::runtime_error("the logs hold no tasks of platform '" + platform + "' to rank");
    const auto groups = network_workloads(o->networks);
    const DagLookup dags = make_compute_dag_lookup();  // one cache for every model
    std::vector<std::vector<TopkTask>> per_model;
    for (const std::string &path : o->models) {
      const TlpModelInfo mi = read_tlp_model_info(path);
      // A TLP model may rank another platform's records (how well it transfers); an
      // MTL-TLP model is loaded with that platform's head.
      LoadedTlpModel m = load_tlp_model(path, mi.platforms.empty() ? "" : platform);
      featurize_tasks(tasks, m.info.featurizer, dags);
      per_model.push_back(topk_tasks(m.network, tasks, groups));
      printf("model %s (%s, trained on %lld records for %s)\n", path.c_str(), tlp_arch_name(m.info.network.arch),
             (long long)m.info.training.records, mi.platform.c_str());
    }
    std::vector<TopkTask> tk = ensemble_predictions(per_model);
    printf("%zu tasks of %s\n", tasks.size(), platform.c_str());
    print_report(per_model.size() == 1 ? "all tasks" : "all tasks, ensemble", tk);
    print_measurement_agreement(records, platform, groups);
    if (o->per_task) print_per_task(tasks, tk);
    if (!o->show_ranking.empty()) print_ranking(tasks, tk, o->show_ranking);
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
