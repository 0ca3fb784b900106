// tlptune merge: joins logs (the shards of a Slurm job array, collections from
// several machines) into one, each measurement once. Records are deduplicated by
// task, schedule and platform, keeping the first (logs in the order given). The
// inputs are only read; --out is appended to, and what it holds counts as present.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>

#include "measure/measurer.h"
#include "measure/record_log.h"
#include "tuner/command.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

std::string versions_text(const std::set<int> &v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
};

int run_merge(const MergeOptions &o) {
  std::error_code ec;
  const fs::path out_path = fs::weakly_canonical(o.out, ec);
  for (const std::string &in : o.inputs)
    if (fs::weakly_canonical(in, ec) == out_path)
      throw std::runtime_error("--out " + o.out + " is also an input; merge into a new file (inputs are never changed)");
  // Every log is read before anything is written: a bad one stops the merge untouched.
  std::vector<LogReadResult> logs;
  std::map<std::string, std::set<int>> versions;  // per log
  for (const std::string &in : o.inputs) {
    logs.push_back(read_record_log(in));
    for (const auto &w : logs.back().warnings) fprintf(stderr, "warning: %s\n", w.c_str());
    for (const MeasureRecord &r : logs.back().records) versions[in].insert(r.version);
  }
  std::unordered_set<std::string> present;
  std::set<int> all;
  for (const auto &[log, v] : versions) all.insert(v.begin(), v.end());
  if (fs::exists(o.out)) {
    const LogReadResult existing = read_record_log(o.out);
    for (const MeasureRecord &r : existing.records) {
      present.insert(Measurer::run_key(r.platform, r.workload_key, r.schedule));
      versions[o.out].insert(r.version);
      all.insert(r.version);
    }
  }
  if (all.size() > 1) {
    std::string which;
    for (const auto &[log, v] : versions) which += (which.empty() ? "" : "; ") + log + ": " + versions_text(v);
    throw std::runtime_error("the logs hold records of different formats (" + which +
                             "); measure the older ones again into the newer format with 'tlptune measure "
                             "--from-log OLD --log NEW', then merge");
  }
  RecordLog out(o.out);
  int added = 0, duplicates = 0;
  const size_t present_before = present.size();
  for (size_t i = 0; i < logs.size(); ++i) {
    int from_this = 0;
    for (const MeasureRecord &r : logs[i].records) {
      if (!present.insert(Measurer::run_key(r.platform, r.workload_key, r.schedule)).second) {
        ++duplicates;
        continue;
      }
      out.append(r);
      ++added, ++from_this;
    }
    printf("  %-50s %zu records, %d new\n", o.inputs[i].c_str(), logs[i].records.size(), from_this);
  }
  out.sync();
  printf("merged %d records into %s (%d duplicates skipped; it held %d before)\n", added, o.out.c_str(), duplicates,
         int(present_before));
  return kExitOk;
}

}  // namespace

Command add_merge_command(CLI::App &app) {
  auto o = std::make_shared<MergeOptions>();
  Command c;
  c.app = app.add_subcommand("merge",
                             "Join logs into one, each measurement (task, schedule, platform) once; the inputs are "
                             "never changed");
  c.app->add_option("logs", o->inputs, "The logs to join, in order (the first of duplicates is kept)")
      ->required()
      ->check(CLI::ExistingFile);
  c.app->add_option("--out", o->out, "The merged log: created, or appended to with what it lacks")->required();
  c.app->footer("\nWith 'collect --shard I/N' (one log per shard, e.g. one per Slurm array task):\n"
                "  tlptune merge shard-*.jsonl --out all.jsonl");
  c.run = [o] { return run_merge(*o); };
  return c;
}

}  // namespace tlp
