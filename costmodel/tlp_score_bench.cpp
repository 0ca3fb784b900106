// Scoring throughput of the TLP network: candidates per second for each
// architecture, inference path (our plain-C++ forward vs LibTorch's), thread
// count and chunk size, on schedules sampled from the search space. Also the
// whole CostModel::predict (featurization included) and, with --train, training
// throughput. A benchmark, not a test: the numbers depend on the machine and its load.
//
//   tlp_score_bench [--n N] [--dag 0|1|2 (matmul, dense+bias+relu, conv)] [--archs attention,lstm,transformer] [--paths fast,torch]
//                   [--chunks 64,256,1024] [--threads 1,2] [--min-seconds S] [--train]
//                   [--tile-rows N (tile rows after the 25 step rows; tile_footprint_features.h)]
//                   [--hidden 256,128,64 (widths to compare; default: 128, the default network's; the paper: 256)]
//                   [--split-tails] [--named-loops] (our improved step features; see tlp_featurizer.h)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "costmodel/tlp_cost_model.h"
#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_featurizer.h"
#include "costmodel/tlp_network.h"
#include "costmodel/tlp_trainer.h"
#include "search/compute_dag.h"
#include "search/schedule_space.h"

using namespace tlp;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// CPU seconds this process has used (all threads). Candidates per CPU-second
// estimate the throughput of an idle core when the machine is shared.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

DagIter sp(const std::string &n, int64_t e) { return {n, e, IterKind::Spatial}; }
DagIter rd(const std::string &n, int64_t e) { return {n, e, IterKind::Reduce}; }
DagStage stage(const std::string &name, std::vector<DagIter> iters, std::vector<int> reads, bool placeholder,
               bool output) {
  DagStage s;
  s.name = name;
  s.iters = std::move(iters);
  s.reads = std::move(reads);
  s.placeholder = placeholder;
  s.is_output = output;
  return s;
}

// Operators like the ones tlptune tunes: a matmul, a dense + bias + ReLU, a conv.
std::vector<ComputeDag> dags() {
  std::vector<ComputeDag> out;
  ComputeDag mm;
  mm.stages = {stage("A", {sp("i", 512), sp("k", 512)}, {}, true, false),
               stage("B", {sp("k", 512), sp("j", 512)}, {}, true, false),
               stage("C", {sp("i", 512), sp("j", 512), rd("k", 512)}, {0, 1}, false, true)};
  out.push_back(mm);
  ComputeDag dense;
  dense.stages = {stage("A", {sp("i", 128), sp("k", 768)}, {}, true, false),
                  stage("B", {sp("j", 3072), sp("k", 768)}, {}, true, false),
                  stage("bias", {sp("j", 3072)}, {}, true, false),
                  stage("dense", {sp("i", 128), sp("j", 3072), rd("k", 768)}, {0, 1}, false, false),
                  stage("add", {sp("i", 128), sp("j", 3072)}, {3, 2}, false, false),
                  stage("relu", {sp("i", 128), sp("j", 3072)}, {4}, false, true)};
  out.push_back(dense);
  ComputeDag conv;
  conv.stages = {stage("data", {sp("n", 1), sp("c", 64), sp("h", 56), sp("w", 56)}, {}, true, false),
                 stage("pad", {sp("n", 1), sp("c", 64), sp("h", 58), sp("w", 58)}, {0}, false, false),
                 stage("weight", {sp("f", 64), sp("c", 64), sp("ry", 3), sp("rx", 3)}, {}, true, false),
                 stage("conv", {sp("n", 1), sp("f", 64), sp("y", 56), sp("x", 56), rd("rc", 64), rd("ry", 3),
                                rd("rx", 3)},
                       {1, 2}, false, true)};
  out.push_back(conv);
  return out;
}

// n schedules of one operator (a predict() call scores one task's candidates).
std::vector<Schedule> sample_schedules(size_t n, int dag) {
  const ScheduleSpace space(dags().at(size_t(dag)), SpaceOptions{});
  std::mt19937_64 rng(7);
  std::vector<Schedule> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(space.sample(rng));
  return out;
}

// The share of distinct step rows among all real step rows, per chunk.
double distinct_rows(const std::vector<float> &features, size_t n, size_t per, int emb, size_t chunk) {
  size_t total = 0, distinct = 0;
  for (size_t b = 0; b < n; b += chunk) {
    std::set<std::vector<float>> seen;
    for (size_t i = b; i < std::min(n, b + chunk); ++i)
      for (size_t r = 0; r < per / size_t(emb); ++r) {
        std::vector<float> row(features.begin() + i * per + r * emb, features.begin() + i * per + (r + 1) * emb);
        if (std::all_of(row.begin(), row.end(), [](float v) { return v == 0.0f; })) continue;
        ++total;
        seen.insert(row);
      }
    distinct += seen.size();
  }
  return total ? double(distinct) / double(total) : 0.0;
}

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

std::vector<int> ints(const std::string &s) {
  std::vector<int> out;
  for (const std::string &x : split(s)) out.push_back(std::stoi(x));
  return out;
}

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a;
  f >> a;
  return a;
}

}  // namespace

// A measurement script rather than product code: its sections run in order
// and print as they go, so it stays one readable sequence.
int main(int argc, char **argv) {
  size_t n = 4096;
  std::vector<std::string> archs = {"attention", "lstm", "transformer"};
  std::vector<std::string> paths = {"fast", "torch"};
  std::vector<int> chunks = {64, 128, 256, 512, 1024, 2048, 4096};
  std::vector<int> threads = {1, 2};
  double min_seconds = 1.0;
  bool train = false;
  int dag = 1;
  int tile_rows = 0;
  bool named_loops = false, split_tails = false;
  std::vector<int> hiddens = {TlpNetworkConfig{}.hidden};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--n") n = size_t(std::stoul(next()));
    else if (a == "--archs") archs = split(next());
    else if (a == "--paths") paths = split(next());
    else if (a == "--chunks") chunks = ints(next());
    else if (a == "--threads") threads = ints(next());
    else if (a == "--min-seconds") min_seconds = std::stod(next());
    else if (a == "--train") train = true;
    else if (a == "--dag") dag = std::stoi(next());
    else if (a == "--tile-rows") tile_rows = std::stoi(next());
    else if (a == "--hidden") hiddens = ints(next());
    else if (a == "--named-loops") named_loops = true;
    else if (a == "--split-tails") split_tails = true;
    else {
      std::fprintf(stderr, "unknown option %s (see the comment at the top of tlp_score_bench.cpp)\n", a.c_str());
      return 2;
    }
  }

  FeaturizerOptions fo;  // the paper's CPU shape, 25 x 22, plus any tile rows
  fo.seq_len += tile_rows;
  fo.tile_rows = tile_rows;
  fo.named_loops = named_loops;
  fo.split_tails = split_tails;
  const ComputeDag the_dag = dags().at(size_t(dag));
  auto t0 = Clock::now();
  const std::vector<Schedule> schedules = sample_schedules(n, dag);
  const double sample_s = since(t0);
  double steps = 0;
  for (const Schedule &s : schedules) steps += double(std::min<size_t>(s.steps.size(), size_t(fo.step_rows())));
  const size_t per = size_t(fo.seq_len) * fo.emb_size;
  std::vector<float> features(n * per);
  t0 = Clock::now();
  for (size_t i = 0; i < n; ++i) {
    const std::vector<float> m = featurize(schedules[i], fo, &the_dag);
    std::copy(m.begin(), m.end(), features.begin() + i * per);
  }
  const double feat_s = since(t0);
  std::printf("%zu schedules (sampled in %.2f s), %.1f steps on average (of %d step rows, %d tile rows); load average "
              "%s\n",
              n, sample_s, steps / double(n), fo.step_rows(), fo.tile_rows, load_average().c_str());
  std::printf("featurization alone: %.0f schedules/s (1 thread)\n", double(n) / feat_s);
  for (size_t c : {64, 256, 1024, 4096})
    std::printf("distinct step rows in chunks of %zu: %.1f%%\n", c,
                100.0 * distinct_rows(features, n, per, fo.emb_size, c));
  std::printf("\n");

  std::printf("candidates/s: wall clock; per CPU-s: per second of CPU time, all threads together\n");
  std::printf("(x threads = what the threads would give on idle cores)\n");
  std::printf("%-12s %-6s %8s %6s %14s %12s\n", "arch", "path", "threads", "chunk", "candidates/s", "per CPU-s");
  for (int hidden : hiddens)
  for (const std::string &name : archs) {
    const std::string arch_name = hiddens.size() > 1 ? name + "/" + std::to_string(hidden) : name;
    TlpNetworkConfig cfg;
    cfg.arch = tlp_arch_from_name(name);
    cfg.hidden = hidden;
    cfg.seq_len = fo.seq_len;
    cfg.emb_size = fo.emb_size;
    TlpNetwork net(cfg, 1);
    for (const std::string &path : paths) {
      for (int th : threads) {
        for (int chunk : chunks) {
          InferenceOptions io;
          io.path = path == "torch" ? InferencePath::Torch : InferencePath::Fast;
          io.threads = th;
          io.chunk = chunk;
          net.predict(features.data(), std::min<size_t>(n, size_t(chunk)), io);  // warm-up
          size_t done = 0;
          t0 = Clock::now();
          const double c0 = cpu_seconds();
          do {
            net.predict(features.data(), n, io);
            done += n;
          } while (since(t0) < min_seconds);
          std::printf("%-12s %-6s %8d %6d %14.0f %12.0f\n", arch_name.c_str(), path.c_str(), th, chunk,
                      double(done) / since(t0), double(done) / (cpu_seconds() - c0));
          std::fflush(stdout);
        }
      }
    }
    // The whole CostModel::predict with the defaults: featurization + fast forward.
    TlpCostModelOptions mo;
    mo.dags = [&the_dag](const std::string &) { return &the_dag; };
    auto model = make_untrained_tlp_cost_model(cfg, fo, "bench", mo);
    model->predict("bench", schedules);
    size_t done = 0;
    t0 = Clock::now();
    const double c0 = cpu_seconds();
    do {
      model->predict("bench", schedules);
      done += n;
    } while (since(t0) < min_seconds);
    const InferenceOptions d;
    std::printf("%-12s CostModel::predict (defaults: fast, %d threads, chunk %d): %.0f candidates/s, %.0f per CPU-s\n\n",
                arch_name.c_str(), d.threads > 0 ? d.threads : int(std::thread::hardware_concurrency()), d.chunk,
                double(done) / since(t0), double(done) / (cpu_seconds() - c0));
    std::fflush(stdout);

    if (train) {
      // One epoch of LambdaRank training on synthetic costs, for the records/s.
      TlpTask task;
      task.workload_key = "bench";
      std::mt19937_64 rng(3);
      for (size_t i = 0; i < n; ++i) {
        task.schedules.push_back(schedules[i]);
        task.costs.push_back(1.0 + double(rng() % 1000) / 100.0);
      }
      compute_labels(task);
      std::vector<TlpTask> tasks;
      for (size_t b = 0; b < n; b += 256) {  // tasks of 256 records
        TlpTask t;
        t.workload_key = "bench" + std::to_string(b);
        for (size_t i = b; i < std::min(n, b + 256); ++i) {
          t.schedules.push_back(task.schedules[i]);
          t.costs.push_back(task.costs[i]);
        }
        compute_labels(t);
        tasks.push_back(std::move(t));
      }
      featurize_tasks(tasks, fo, [&the_dag](const std::string &) { return &the_dag; });
      for (int th : threads) {
        TrainOptions o;
        o.arch = cfg.arch;
        o.hidden = cfg.hidden;
        o.epochs = 1;
        o.threads = th;
        const TrainResult r = train_tlp(net, tasks, {}, o);
        std::printf("%-12s training: %.0f records/s (LambdaRank, batch %d, %d threads)\n", arch_name.c_str(),
                    double(r.train_records) / r.wall_seconds, o.batch, th);
      }
      std::printf("\n");
    }
  }
  return 0;
}
