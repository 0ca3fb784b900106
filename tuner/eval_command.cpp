// tlptune eval: how well a model ranks the schedules of operators it never
// saw (top-k scores), alone or as an ensemble.
#include <cstdio>
#include <memory>
#include <set>

#include "costmodel/model_file.h"
#include "costmodel/tlp_dataset.h"
#include "costmodel/topk_score.h"
#include "tuner/command.h"
#include "tuner/compute_dag_cache.h"
#include "tuner/network_workloads.h"
#include "tuner/platform_alias.h"
#include "tuner/platform_spec.h"
#include "tuner/ranking_report.h"
#include "tuner/record_migration.h"

namespace tlp {
namespace {

struct EvalOptions {
  std::vector<std::string> models;
  std::vector<std::string> logs;
  std::vector<std::string> platform_aliases;
  std::vector<std::string> networks;
  std::string platform;
  bool per_task = false;
  std::string show_ranking;
};

}  // namespace

Command add_eval_command(CLI::App &app) {
  auto o = std::make_shared<EvalOptions>();
  Command c;
  c.app = app.add_subcommand("eval", "Top-1 and top-5 scores of a cost model on the tasks of some logs");
  c.app->add_option("--platform", o->platform,
                    std::string("Rank this platform's records (default: the model's platform; an MTL-TLP model uses "
                                "its head): ") + kPlatformHelp);
  c.app->add_option("--model", o->models,
                    "A model file written by 'tlptune train'; several rank as one ensemble (the mean of each "
                    "model's scores, standardized within a task)")
      ->required();
  c.app->add_option("--logs", o->logs, "Logs of measurements to rank (several allowed)")->required();
  c.app->add_option("--platform-alias", o->platform_aliases, kPlatformAliasHelp);
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
    const auto records = read_migrated_logs(o->logs, parse_platform_aliases(o->platform_aliases));
    const std::set<std::string> known = platforms_of(records);
    const std::string platform = o->platform.empty() ? info.platform : resolve_platform(o->platform, known);
    std::vector<TlpTask> tasks = tasks_of_platform(build_tasks(records), platform);
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
