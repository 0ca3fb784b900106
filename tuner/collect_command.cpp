// tlptune collect: measures randomly sampled schedules of many operators into a
// log, as training data for the cost model. It runs for hours, so it is resumable
// by design: each task is topped up to --per-task valid-or-failed records, and what
// the log already holds is never measured again.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <unordered_set>

#include "codegen/layout_choice.h"
#include "codegen/target.h"
#include "fleet/fleet_measurer.h"
#include "measure/measurer.h"
#include "measure/record_log.h"
#include "search/network_spec.h"
#include "tuner/command.h"
#include "tuner/interrupt.h"
#include "tuner/measure_settings_options.h"
#include "tuner/platform_alias.h"
#include "tuner/platform_spec.h"
#include "tuner/progress_bar.h"
#include "tuner/task_tuner.h"

namespace tlp {
namespace {


struct CollectOptions {
  std::vector<std::string> ops;
  std::vector<std::string> networks;
  std::vector<std::string> platforms;
  int per_task = 100;
  std::string layouts = "fixed";  // any: every layout variant of an operator with a layout
  std::string shard;              // "I/N": every N-th task from the I-th (1-based); empty: all
  TuneOptions tune;
};

struct Shard {
  size_t index = 0, count = 1;  // 0-based index
  bool holds(size_t task) const { return task % count == index; }
};

// "2/4" -> the second of four. Throws naming the spec and the form that works.
Shard parse_shard(const std::string &spec) {
  if (spec.empty()) return {};
  const size_t slash = spec.find('/');
  const auto number = [&](const std::string &t) -> long {
    if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stol(t);
  };
  const long i = slash == std::string::npos ? -1 : number(spec.substr(0, slash));
  const long n = slash == std::string::npos ? -1 : number(spec.substr(slash + 1));
  if (i < 1 || n < 1 || i > n)
    throw std::runtime_error("--shard " + spec + ": give I/N with 1 <= I <= N, e.g. --shard 1/4 ... --shard 4/4 "
                             "(shard I takes tasks I, I+N, I+2N, ...)");
  return {size_t(i - 1), size_t(n)};
}

// With --layouts any, each operator with a layout becomes the variants a tuner
// searches for `target` (codegen/layout_choice.h); so does a spec with layout=any.
std::vector<std::string> with_layouts(const std::vector<std::string> &specs, const std::string &layouts,
                                      const Halide::Target &target) {
  std::vector<std::string> out;
  for (const std::string &s : specs) {
    if (!chooses_layout(s) && (layouts != "any" || !has_layout(s.substr(0, s.find(':'))))) {
      out.push_back(s);
      continue;
    }
    for (const std::string &v : layout_variants(with_any_layout(s), target)) out.push_back(v);
  }
  return out;
}

std::vector<std::string> task_specs(const CollectOptions &c) {
  std::vector<std::string> specs = c.ops;
  for (const auto &n : c.networks)
    for (const auto &t : read_network_spec(n).tasks) specs.push_back(t.op);
  if (specs.empty()) throw std::runtime_error("name what to collect: --ops SPEC ... and/or --network FILE ...");
  return specs;
}

std::vector<PlatformSpec> platforms(const CollectOptions &c) {
  std::vector<PlatformSpec> out;
  for (const auto &text : c.platforms) out.push_back(parse_platform_spec(text));
  if (out.empty()) out.push_back(parse_platform_spec(c.tune.target));
  return out;
}

// One measurer per target; the first serves the first platform, which drives
// sampling, and any other thread counts of its target.
std::vector<std::unique_ptr<MeasuringService>> make_measurers(const std::vector<TargetPlatforms> &groups,
                                                               const TuneOptions &o) {
  std::vector<std::unique_ptr<MeasuringService>> out;
  if (o.fleet.fleet()) {
    // Rank 0: per platform, the ranks that have it; ranks of other kinds of
    // machine measure the same schedules for theirs.
    for (const TargetPlatforms &g : groups)
      for (int threads : g.threads) {
        MeasurerOptions mo = measurer_options(o, g.target);
        mo.threads = {threads};
        for (auto &m : FleetMeasurer::per_platform(o.fleet, mo)) out.push_back(std::move(m));
      }
    const std::string driver = measurement_platform(groups[0].target, groups[0].threads[0], false, "");
    if (out[0]->platforms()[0] != driver)
      throw std::runtime_error("fleet: no rank measures " + driver + ", the first platform, whose measurements guide "
                               "the sampling; start rank 0 on a machine of the kind the ranks run on");
    return out;
  }
  for (const TargetPlatforms &g : groups) {
    MeasurerOptions mo = measurer_options(o, g.target);
    mo.threads = g.threads;
    out.push_back(std::make_unique<Measurer>(mo));
  }
  return out;
}

// What the log already holds, as Measurer::run_key()s, and per workload the
// schedules measured on the first platform (in log order).
struct PriorRuns {
  std::unordered_set<std::string> runs;
  std::map<std::string, std::vector<Schedule>> on_first_platform;
};

PriorRuns prior_runs(const std::vector<MeasureRecord> &prior, const std::string &first_platform) {
  PriorRuns p;
  for (const MeasureRecord &r : prior) {
    if (!p.runs.insert(Measurer::run_key(r.platform, r.workload_key, r.schedule)).second) continue;
    if (r.platform == first_platform) p.on_first_platform[r.workload_key].push_back(r.schedule);
  }
  return p;
}

int run_collect(const CollectOptions &c) {
  const std::atomic<bool> &stop = stop_on_interrupt();
  const std::vector<PlatformSpec> plats = platforms(c);
  const std::vector<TargetPlatforms> groups = group_by_target(plats);
  TuneOptions driver = c.tune;  // sampling runs on the first platform
  driver.target = plats[0].target;
  driver.threads = plats[0].threads;
  const Halide::Target target = parse_target(driver.target);
  const auto specs = with_layouts(task_specs(c), c.layouts, target);
  const Shard shard = parse_shard(c.shard);
  std::vector<MeasureRecord> prior;
  if (std::filesystem::exists(c.tune.log_path)) prior = read_record_log(c.tune.log_path).records;
  apply_platform_aliases(prior, parse_platform_aliases(c.tune.platform_aliases));
  PriorRuns known = prior_runs(prior, plats[0].name());
  std::vector<std::unique_ptr<TaskTuner>> tasks;
  int missing = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!shard.holds(i)) continue;
    // Seeded by the task's place among all of them, so the shards together sample what one run would.
    tasks.push_back(std::make_unique<TaskTuner>(specs[i], target, driver, c.tune.seed + i, nullptr));
    tasks.back()->load_prior(prior, true);
    missing += std::max(0, c.per_task - tasks.back()->summary().trials_total);
  }
  prior.clear();
  auto measurers = make_measurers(groups, driver);
  ProgressBar bar("collecting", missing);
  int done = 0;
  auto remember = [&](const MeasureRecord &r) {
    known.runs.insert(Measurer::run_key(r.platform, r.workload_key, r.schedule));
  };
  // The first platform's schedules, on every other platform, skipping runs
  // already logged; in batches, so that Ctrl-C is never far away.
  auto on_other_platforms = [&](TaskTuner &t, const std::vector<Schedule> &schedules) {
    const size_t batch = size_t(std::max(1, c.tune.batch));
    for (size_t i = 0; i < schedules.size() && !stop; i += batch) {
      const std::vector<Schedule> part(schedules.begin() + long(i),
                                       schedules.begin() + long(std::min(schedules.size(), i + batch)));
      for (auto &m : measurers) m->measure(t.op(), part, stop, remember, &known.runs);
    }
  };
  for (auto &t : tasks) {
    on_other_platforms(*t, known.on_first_platform[t->summary().workload]);  // what a stop left behind
    while (t->summary().trials_total < c.per_task && !stop) {
      const int want = std::min(c.tune.batch, c.per_task - t->summary().trials_total);
      const int measured = t->round(*measurers[0], want, stop, [&] {
        ++done;
        if (c.tune.progress) bar.update(done, t->summary().workload.substr(0, 40));
      });
      if (measured == 0) break;
      for (const Schedule &s : t->last_round())  // the first measurer ran all its platforms
        for (const std::string &p : measurers[0]->platforms())
          known.runs.insert(Measurer::run_key(p, t->summary().workload, s));
      on_other_platforms(*t, t->last_round());
    }
    if (stop) break;
  }
  if (c.tune.progress) bar.finish();
  printf("collected %d new records for %zu operators into %s", done, tasks.size(), c.tune.log_path.c_str());
  size_t platform_count = 0;
  int logged = 0;
  for (const auto &m : measurers) {
    platform_count += m->platforms().size();
    logged += m->records_logged();
  }
  if (platform_count > 1) printf(", and %d on the other %zu platforms", logged - done, platform_count - 1);
  printf("\n");
  if (stop) {
    fprintf(stderr, "interrupted: run the same command again to continue where it stopped\n");
    return kExitInterrupted;
  }
  return kExitOk;
}

}  // namespace

Command add_collect_command(CLI::App &app, const FleetRank &fleet) {
  auto c = std::make_shared<CollectOptions>();
  c->tune.policy = "random";
  Command cmd;
  cmd.app = app.add_subcommand("collect",
                               "Measure random schedules of many operators into a log (training data for the cost "
                               "model); resumable: run it again to top up");
  auto *sub = cmd.app;
  sub->footer(
      "Several platforms (for MTL-TLP): --platforms host@2 host@1 x86-64-linux-sse41@2 measures every sampled\n"
      "schedule on each (one build per target, one run per thread count). The first platform drives sampling and\n"
      "--per-task; a rerun first measures what an interrupted run left unmeasured on the others.");
  sub->add_option("--ops", c->ops, "Operators, KIND:PARAM=VALUE,... (several allowed)");
  sub->add_option("--network", c->networks, "Network files whose operators to collect (several allowed)");
  sub->add_option("--layouts", c->layouts,
                  "fixed (each operator in the layout its spec names) or any (each convolution and pooling in every "
                  "layout the tuner searches for the first platform's target: NCHW, NHWC, channel blocks of one and "
                  "two vectors)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fixed", "any"}));
  sub->add_option("--shard", c->shard,
                  "I/N: collect only every N-th task, from the I-th (1 <= I <= N), into this log; for job arrays "
                  "(Slurm: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=1-N), then 'tlptune "
                  "merge' the logs");
  sub->add_option("--per-task", c->per_task, "Records wanted per operator")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--log", c->tune.log_path, "JSON-lines log to append to")->required();
  sub->add_option("--platform-alias", c->tune.platform_aliases, kPlatformAliasHelp);
  sub->add_option("--target", c->tune.target, "Compile target (with every hardware thread; see --platforms)")
      ->capture_default_str();
  sub->add_option("--platforms", c->platforms,
                  "Measure each schedule on these platforms, TARGET@THREADS (e.g. host@2 host@1 x86-64-linux-sse41@2)");
  sub->add_option("--seed", c->tune.seed, "Random seed")->capture_default_str();
  sub->add_option("--batch", c->tune.batch, "Candidates built and measured per round")->capture_default_str();
  add_measure_settings_options(*sub, c->tune.measure);
  sub->add_flag("!--no-progress", c->tune.progress, "Do not draw the progress bar");
  cmd.run = [c, fleet] {
    c->tune.fleet = fleet;
    return run_collect(*c);
  };
  return cmd;
}

}  // namespace tlp
