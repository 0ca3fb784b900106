// tlptune train: train a TLP (or MTL-TLP) cost model on measurement logs.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "costmodel/model_file.h"
#include "costmodel/mtl_dataset.h"
#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_trainer.h"
#include "tuner/command.h"
#include "tuner/compute_dag_cache.h"
#include "tuner/network_workloads.h"
#include "tuner/platform_alias.h"
#include "tuner/platform_spec.h"
#include "tuner/ranking_report.h"
#include "tuner/record_migration.h"
#include "tuner/train_recipe.h"

namespace tlp {
namespace {

// Everything `tlptune train` is told. CLI11 binds straight into `train` (the
// default recipe's settings until a recipe or an option changes them).
struct TrainCommandOptions {
  std::vector<std::string> logs;
  std::vector<std::string> platform_aliases;  // OLD=NEW (platform_alias.h)
  std::string out;
  std::string recipe = train_recipes().front().name;
  TrainOptions train = train_recipes().front().settings;
  double val_fraction = 0.1;
  std::vector<std::string> test_networks;
  std::string platform;          // the platform trained for (TLP) / the target head (MTL)
  double target_fraction = 1.0;  // share of that platform's records kept for training
  bool mtl = false;
  std::vector<std::string> mtl_platforms;  // heads besides the target; empty: every platform in the logs
  std::string init_from;                   // fine-tune from this model
};

// The options a recipe sets, each with how to take the recipe's value.
struct RecipeOption {
  const char *name;
  void (*take)(TrainOptions &to, const TrainOptions &recipe);
};
const RecipeOption kRecipeOptions[] = {
    {"--split-tails", [](TrainOptions &t, const TrainOptions &r) { t.featurizer.split_tails = r.featurizer.split_tails; }},
    {"--named-loops", [](TrainOptions &t, const TrainOptions &r) { t.featurizer.named_loops = r.featurizer.named_loops; }},
    {"--tile-rows", [](TrainOptions &t, const TrainOptions &r) { t.featurizer.tile_rows = r.featurizer.tile_rows; }},
    {"--scaling", [](TrainOptions &t, const TrainOptions &r) { t.featurizer.scaling = r.featurizer.scaling; }},
    {"--epochs", [](TrainOptions &t, const TrainOptions &r) { t.epochs = r.epochs; }},
    {"--patience", [](TrainOptions &t, const TrainOptions &r) { t.patience = r.patience; }},
    {"--ema", [](TrainOptions &t, const TrainOptions &r) { t.ema_epochs = r.ema_epochs; }},
    {"--batch", [](TrainOptions &t, const TrainOptions &r) { t.batch = r.batch; }},
};

// Fills in the recipe's settings where the command line gave none.
void apply_recipe(TrainCommandOptions &o, const CLI::App &app) {
  const TrainRecipe &r = train_recipe(o.recipe);
  for (const RecipeOption &option : kRecipeOptions)
    if (app.count(option.name) == 0) option.take(o.train, r.settings);
  FeaturizerOptions &f = o.train.featurizer;
  // The tile rows come on top of the paper's 25 steps unless the matrix's size is given.
  if (app.count("--seq-len") == 0) f.seq_len = kPaperStepRows + f.tile_rows;
  // --init-from keeps the source model's matrix (refuse_another_shape).
  if (o.init_from.empty() && f.step_rows() < 1)
    throw std::runtime_error("--seq-len " + std::to_string(f.seq_len) + " leaves no row for the steps after " +
                             std::to_string(f.tile_rows) + " tile rows" +
                             (app.count("--tile-rows") ? "" : " (the " + r.name + " recipe's; --tile-rows 0 drops them)") +
                             ": give --seq-len " + std::to_string(f.tile_rows + 1) +
                             " or more, or leave it out for 25 steps and those rows");
}

// --init-from keeps the source model's shape. A shape option given with it must
// repeat the source's value: training another shape than the one asked for
// would waste hours, so a different value is refused rather than ignored.
void refuse_another_shape(const TrainCommandOptions &o, const CLI::App &app, const TlpModelInfo &source) {
  const FeaturizerOptions &f = source.featurizer, &asked = o.train.featurizer;
  auto on = [](bool b) { return std::string(b ? "on" : "off"); };
  const std::pair<const char *, std::pair<std::string, std::string>> asked_and_kept[] = {
      {"--arch", {tlp_arch_name(o.train.arch), tlp_arch_name(source.network.arch)}},
      {"--hidden", {std::to_string(o.train.hidden), std::to_string(source.network.hidden)}},
      {"--heads", {std::to_string(o.train.heads), std::to_string(source.network.heads)}},
      {"--scaling", {feature_scaling_name(asked.scaling), feature_scaling_name(f.scaling)}},
      {"--seq-len", {std::to_string(asked.seq_len), std::to_string(f.seq_len)}},
      {"--emb-size", {std::to_string(asked.emb_size), std::to_string(f.emb_size)}},
      {"--tile-rows", {std::to_string(asked.tile_rows), std::to_string(f.tile_rows)}},
      {"--split-tails", {on(asked.split_tails), on(f.split_tails)}},
      {"--named-loops", {on(asked.named_loops), on(f.named_loops)}},
  };
  for (const auto &[name, values] : asked_and_kept)
    if (app.count(name) > 0 && values.first != values.second)
      throw std::runtime_error(std::string(name) + " " + values.first + " differs from " + values.second + " of " +
                               o.init_from + ": --init-from keeps that model's shape. Drop " + name +
                               ", or drop --init-from to train a new network");
}

std::string recipes_help() {
  std::string h = "Settings to start from; options given override them:";
  for (const TrainRecipe &r : train_recipes()) h += "\n  " + r.name + ": " + r.summary;
  return h;
}

template <typename Enum>
CLI::CheckedTransformer names_of(std::initializer_list<Enum> values, const char *(*name)(Enum)) {
  std::map<std::string, Enum> m;
  for (Enum v : values) m[name(v)] = v;
  return CLI::CheckedTransformer(m, CLI::ignore_case);
}

void add_network_options(CLI::App &cmd, TrainOptions &t) {
  cmd.add_option("--arch", t.arch, "Network: attention (the paper's; default), lstm or transformer")
      ->transform(names_of({TlpArch::Attention, TlpArch::Lstm, TlpArch::Transformer}, tlp_arch_name));
  cmd.add_option("--loss", t.loss, "rank (LambdaRank; default) or mse")
      ->transform(names_of({TlpLoss::Rank, TlpLoss::Mse}, tlp_loss_name));
  cmd.add_option("--hidden", t.hidden, "Width of the network's step vectors (the paper: 256)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--heads", t.heads, "Attention heads (the paper: 8); must divide --hidden")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

void add_feature_options(CLI::App &cmd, FeaturizerOptions &f) {
  cmd.add_option("--scaling", f.scaling, "Step features as the paper's raw numbers (raw) or log-scaled (log; default)")
      ->transform(names_of({FeatureScaling::Raw, FeatureScaling::Log}, feature_scaling_name));
  cmd.add_option("--seq-len", f.seq_len,
                 "Rows of the feature matrix: the steps kept per schedule and the --tile-rows (the paper: 25 steps "
                 "on CPU); default: 25 steps and the tile rows");
  cmd.add_option("--emb-size", f.emb_size, "Values kept per step (the paper: 22 on CPU)")->capture_default_str();
  cmd.add_option("--tile-rows", f.tile_rows,
                 "Rows, after the steps, that describe the loops of the operator's main computation, innermost "
                 "first: the work, bytes read and bytes written of each (ours; scoring is slower). 0 turns them "
                 "off; default: the recipe's");
  cmd.add_flag("--split-tails", f.split_tails,
               "Also mark each split whose factors leave a tail, and the share of iterations the tiling adds "
               "(ours). --split-tails=false turns it off; default: the recipe's");
  cmd.add_flag("--named-loops", f.named_loops,
               "Also end the row of each step that names a loop with what replaying the schedule on the operator "
               "says of it: extent, twos, how it walks the store and the reads (ours; scoring is slower). "
               "--named-loops=false turns it off; default: the recipe's");
}

void add_training_options(CLI::App &cmd, TrainOptions &t) {
  cmd.add_option("--epochs", t.epochs, "Training epochs; default: the recipe's");
  cmd.add_option("--batch", t.batch, "Records per training step (the paper: 1024, for millions of records)")
      ->capture_default_str();
  cmd.add_option("--patience", t.patience,
                 "Stop after this many epochs without a better validation loss (0: never); default: the recipe's");
  cmd.add_option("--ema", t.ema_epochs,
                 "Judge, keep and write a moving average of the weights over about this many epochs of steps "
                 "instead of each epoch's own (0: off); default: the recipe's")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--threads", t.threads, "LibTorch threads (0: default)")->capture_default_str();
  cmd.add_option("--seed", t.seed, "Seed of the split, the initial weights and shuffling")->capture_default_str();
}

void add_data_options(CLI::App &cmd, TrainCommandOptions &o) {
  cmd.add_option("--logs", o.logs, "Logs of measurements (several allowed)")->required();
  cmd.add_option("--platform-alias", o.platform_aliases, kPlatformAliasHelp);
  cmd.add_option("--out", o.out, "Model file to write")->required();
  cmd.add_option("--val-fraction", o.val_fraction, "Share of workloads held out for validation")->capture_default_str();
  cmd.add_option("--test-network", o.test_networks,
                 "Hold out every operator of these network files for testing (whole workloads, never trained on)");
  cmd.add_option("--platform", o.platform,
                 std::string("Platform to train for (MTL: the target head; default: the one with most records): ") +
                     kPlatformHelp);
  cmd.add_option("--target-fraction", o.target_fraction,
                 "Keep only this share of the platform's records (a new machine with little data)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_flag("--mtl", o.mtl, "MTL-TLP: a shared backbone and one head per platform, trained jointly");
  cmd.add_option("--mtl-platforms", o.mtl_platforms,
                 "With --mtl: the other platforms given a head (default: every platform in the logs)");
  cmd.add_option("--init-from", o.init_from,
                 "Start from this model's weights (fine-tuning). Its shape is kept: --arch, --hidden, --heads and "
                 "the featurizer options may only repeat that model's values");
}

// The records to train on, the platform trained for and the heads (head 0 is
// that platform).
struct TrainingRecords {
  std::vector<MeasureRecord> records;
  std::string target;
  std::vector<std::string> heads;
  std::map<std::string, WorkloadInNetwork> test_networks;
  std::vector<std::string> test_workloads;
};

TrainingRecords read_training_records(const TrainCommandOptions &o) {
  TrainingRecords t;
  if (o.target_fraction <= 0) throw std::runtime_error("--target-fraction must be above 0");
  t.records = read_migrated_logs(o.logs, parse_platform_aliases(o.platform_aliases));
  const std::set<std::string> known = platforms_of(t.records);
  if (known.empty()) throw std::runtime_error("the logs hold no records: collect some first (tlptune collect)");
  t.target = o.platform.empty() ? most_common_platform(t.records) : resolve_platform(o.platform, known);
  t.test_networks = network_workloads(o.test_networks);
  for (const auto &[w, n] : t.test_networks) t.test_workloads.push_back(w);
  if (o.target_fraction < 1)
    t.records = keep_platform_share(t.records, t.target, o.target_fraction, o.train.seed, t.test_workloads);
  t.heads = {t.target};
  if (!o.mtl) return t;
  for (const auto &p : o.mtl_platforms.empty() ? std::vector<std::string>(known.begin(), known.end())
                                               : o.mtl_platforms) {
    const std::string name = resolve_platform(p, known);
    if (std::find(t.heads.begin(), t.heads.end(), name) == t.heads.end()) t.heads.push_back(name);
  }
  if (t.heads.size() < 2) throw std::runtime_error("--mtl needs records of at least two platforms");
  return t;
}

// A fresh network of the shape asked for, or the --init-from model's, whose
// featurizer then replaces the one asked for.
std::unique_ptr<TlpNetwork> make_network(const TrainCommandOptions &o, size_t heads, TrainOptions &to) {
  if (!o.init_from.empty()) {
    LoadedTlpModel init = load_tlp_model(o.init_from);
    to.arch = init.info.network.arch;
    to.featurizer = init.info.featurizer;
    return std::make_unique<TlpNetwork>(std::move(init.network));
  }
  check_featurizer_options(to.featurizer);
  TlpNetworkConfig config = network_config(to);
  config.output_heads = int(heads);
  return std::make_unique<TlpNetwork>(config, o.train.seed);
}

TrainResult train_heads(TlpNetwork &net, const TrainingRecords &t, const TlpDataset &data,
                        const std::vector<TlpTask> &val, size_t tests, const TrainOptions &to, const DagLookup &dags) {
  if (t.heads.size() == 1) {
    const std::vector<TlpTask> train = tasks_of_platform(data.split.train, t.target);
    printf("split by workload: %zu train, %zu validation, %zu test tasks\n", train.size(), val.size(), tests);
    if (train.empty()) throw std::runtime_error("no training tasks: collect more data (tlptune collect)");
    return train_tlp(net, train, val, to);
  }
  std::vector<MtlTask> train = merge_platform_tasks(data.split.train, t.heads);
  featurize_mtl_tasks(train, to.featurizer, dags);
  size_t target_labels = 0, all_labels = 0;
  for (const auto &task : train)
    for (size_t k = 0; k < t.heads.size(); ++k) (k == 0 ? target_labels : all_labels) += task.labels_of(k);
  printf("MTL-TLP, %zu heads: %zu training workloads, %zu target labels, %zu labels of the other platforms\n",
         t.heads.size(), train.size(), target_labels, all_labels);
  printf("split by workload: %zu validation, %zu test tasks of the target\n", val.size(), tests);
  if (train.empty()) throw std::runtime_error("no training tasks: collect more data (tlptune collect)");
  std::vector<MtlTask> val_all = merge_platform_tasks(data.split.val, t.heads);
  featurize_mtl_tasks(val_all, to.featurizer, dags);
  return train_mtl(net, train, val_all, val, 0, to);
}

void save_trained_model(const TrainCommandOptions &o, const TrainingRecords &t, const TlpNetwork &net,
                        const TrainOptions &to, const TrainResult &tr) {
  TlpModelInfo info;
  info.network = net.config();
  info.featurizer = to.featurizer;
  info.platform = t.target;
  if (o.mtl) info.platforms = t.heads;
  info.training.records = int64_t(tr.train_records);
  info.training.tasks = int64_t(tr.train_tasks);
  info.training.created = utc_now();
  info.training.loss = tlp_loss_name(to.loss);
  info.training.epochs = int(tr.history.size());
  info.training.best_epoch = tr.best_epoch;
  info.training.best_val_loss = tr.best_val_loss;
  info.training.seconds = tr.wall_seconds;
  save_tlp_model(o.out, net, info);
  printf("wrote %s (%s%s, best epoch %d of %zu, %.1f s)\n", o.out.c_str(), tlp_arch_name(net.config().arch),
         o.mtl ? ", MTL-TLP" : "", tr.best_epoch, tr.history.size(), tr.wall_seconds);
}

int run_train(TrainCommandOptions &o, const CLI::App &app) {
  apply_recipe(o, app);
  // Refused before the logs are read: reading a large dataset takes a while.
  if (!o.init_from.empty()) {
    if (o.mtl) throw std::runtime_error("--init-from fine-tunes a TLP model; it does not combine with --mtl");
    refuse_another_shape(o, app, read_tlp_model_info(o.init_from));
  }
  const TrainingRecords t = read_training_records(o);
  TrainOptions to = o.train;
  std::unique_ptr<TlpNetwork> net = make_network(o, t.heads.size(), to);
  const FeaturizerOptions &f = to.featurizer;
  printf("settings: recipe %s, %d x %d matrix, split tails %s, named loops %s, %d tile rows, %d epochs, patience %d, "
         "ema %g%s\n",
         o.recipe.c_str(), f.seq_len, f.emb_size, f.split_tails ? "on" : "off", f.named_loops ? "on" : "off",
         f.tile_rows, to.epochs, to.patience, to.ema_epochs, o.init_from.empty() ? "" : " (features as the model fine-tuned)");

  SplitOptions so;
  so.val_fraction = o.val_fraction;
  so.seed = to.seed;
  so.test_workloads = t.test_workloads;
  const DagLookup dags = make_compute_dag_lookup();
  const TlpDataset data = make_tlp_dataset(t.records, so, f, dags);
  const std::vector<TlpTask> val = tasks_of_platform(data.split.val, t.target);
  const std::vector<TlpTask> test = tasks_of_platform(data.split.test, t.target);
  printf("records %zu: %zu failed, %zu in tasks too small, %zu measured a schedule again (one sample each); %zu "
         "tasks kept\n",
         data.stats.records, data.stats.failed_records, data.stats.small_task_records, data.stats.repeated_records,
         data.stats.tasks);
  printf("platform %s%s\n", t.target.c_str(),
         o.target_fraction < 1 ? (", keeping " + std::to_string(o.target_fraction) + " of its records").c_str() : "");
  to.on_epoch = print_epoch;
  const TrainResult tr = train_heads(*net, t, data, val, test.size(), to, dags);
  save_trained_model(o, t, *net, to, tr);
  if (!test.empty()) {
    TlpNetwork target_net = net->single_head(0);
    print_report("held-out test", topk_tasks(target_net, test, t.test_networks));
  }
  return kExitOk;
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
  c.app->add_option("--recipe", o->recipe, recipes_help())->capture_default_str();
  add_data_options(*c.app, *o);
  add_network_options(*c.app, o->train);
  add_feature_options(*c.app, o->train.featurizer);
  add_training_options(*c.app, o->train);
  c.run = [o, app = c.app] { return run_train(*o, *app); };
  return c;
}

}  // namespace tlp
