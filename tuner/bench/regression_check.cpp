#include "tuner/bench/regression_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tuner/bench/bench_report_internal.h"
#include "tuner/bench/json_file.h"

namespace tlp {

using namespace bench_detail;  // the shared private helpers

namespace {

using nlohmann::json;

const char *const kKind = "baseline file";

BenchBaseline::Entry read_entry(const std::string &path, const std::string &key, const json &j) {
  const std::string where = "entry \"" + key + "\"";
  if (!j.is_object())
    fail_file(kKind, path, where + " must be an object like {\"best_gflops\": 12.5, \"trials_to_target\": 40}, got " +
                               j.type_name());
  refuse_unknown_keys(kKind, path, where, j, {"best_gflops", "trials_to_target"});
  BenchBaseline::Entry entry;
  auto gflops = j.find("best_gflops");
  if (gflops == j.end()) fail_file(kKind, path, where + " has no \"best_gflops\"");
  if (!gflops->is_number() || !(gflops->get<double>() >= 0) || !std::isfinite(gflops->get<double>()))
    fail_file(kKind, path, where + ": \"best_gflops\" must be a number >= 0, got " + gflops->dump());
  entry.best_gflops = gflops->get<double>();
  auto trials = j.find("trials_to_target");
  if (trials != j.end()) {
    const bool valid = trials->is_number_integer() &&
                       (trials->get<int64_t>() == -1 ||
                        (trials->get<int64_t>() >= 1 && trials->get<int64_t>() <= 1000000000));
    if (!valid)
      fail_file(kKind, path, where + ": \"trials_to_target\" must be an integer >= 1, or -1 for unknown, got " +
                                 trials->dump());
    entry.trials_to_target = static_cast<int>(trials->get<int64_t>());
  }
  return entry;
}

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// "+12.3%" / "-30.0%": the change from `before` to `after`.
std::string percent_change(double before, double after) {
  if (before == 0) return "n/a";
  const double change = (after - before) / before * 100;
  return (change >= 0 ? "+" : "") + fixed(change, 1) + "%";
}

std::string tolerance_text(double tolerance) { return "tolerance " + fixed(tolerance * 100, 1) + "%"; }

Regression slower(const std::string &key, double before, double after, double tolerance) {
  return {Regression::Kind::kSlower, key, before, after,
          key + ": best " + fixed(after, 2) + " GFLOP/s, baseline " + fixed(before, 2) + " GFLOP/s (" +
              percent_change(before, after) + ", " + tolerance_text(tolerance) + ")"};
}

Regression more_trials(const std::string &key, int before, int after, double tolerance) {
  return {Regression::Kind::kMoreTrials, key, static_cast<double>(before), static_cast<double>(after),
          key + ": needed " + std::to_string(after) + " trials to reach the target, baseline " +
              std::to_string(before) + " (" + percent_change(before, after) + ", " + tolerance_text(tolerance) + ")"};
}

Regression missing(const std::string &key, const BenchBaseline::Entry &before) {
  return {Regression::Kind::kMissing, key, before.best_gflops, 0,
          key + ": in the baseline (best " + fixed(before.best_gflops, 2) +
              " GFLOP/s) but missing from this run (did it fail, or was it left out of the suite?)"};
}

}  // namespace

std::string baseline_key(const std::string &policy, const std::string &op, const std::string &label) {
  return policy + "|" + op + (label.empty() ? "" : "|" + label);
}

BenchBaseline read_baseline(const std::string &path) {
  const json root = read_json_object_file(kKind, path);
  refuse_unknown_keys(kKind, path, "the top level", root, {"format", "bests_measured_again", "entries"});
  check_format(kKind, path, root, kBenchBaselineFormat);
  BenchBaseline baseline;
  auto again = root.find("bests_measured_again");
  if (again != root.end()) {
    if (!again->is_boolean())
      fail_file(kKind, path, std::string("\"bests_measured_again\" must be true or false, got ") + again->dump());
    baseline.bests_measured_again = again->get<bool>();
  }
  auto entries = root.find("entries");
  if (entries == root.end())
    fail_file(kKind, path, "missing \"entries\" (an object of \"policy|op\": {\"best_gflops\": ...})");
  if (!entries->is_object())
    fail_file(kKind, path, std::string("\"entries\" must be an object, got ") + entries->type_name());
  for (const auto &item : entries->items())
    baseline.entries[item.key()] = read_entry(path, item.key(), item.value());
  return baseline;
}

void write_baseline(const BenchBaseline &baseline, const std::string &path) {
  json entries = json::object();
  for (const auto &[key, e] : baseline.entries)
    entries[key] = {{"best_gflops", e.best_gflops}, {"trials_to_target", e.trials_to_target}};
  const json root = {
      {"format", kBenchBaselineFormat}, {"bests_measured_again", baseline.bests_measured_again}, {"entries", entries}};
  write_file_atomically(path, root.dump(2) + "\n");
}

std::vector<Regression> find_regressions(const BenchBaseline &baseline, const BenchBaseline &current,
                                         double tolerance) {
  if (!(tolerance >= 0) || !std::isfinite(tolerance))
    throw std::invalid_argument("regression tolerance must be a fraction >= 0 (e.g. 0.15), got " +
                                std::to_string(tolerance));
  std::vector<Regression> found;
  for (const auto &[key, before] : baseline.entries) {
    auto it = current.entries.find(key);
    if (it == current.entries.end()) {
      found.push_back(missing(key, before));
      continue;
    }
    const BenchBaseline::Entry &after = it->second;
    if (after.best_gflops < before.best_gflops * (1 - tolerance))
      found.push_back(slower(key, before.best_gflops, after.best_gflops, tolerance));
    const bool both_known = before.trials_to_target >= 0 && after.trials_to_target >= 0;
    if (both_known && after.trials_to_target > before.trials_to_target * (1 + tolerance))
      found.push_back(more_trials(key, before.trials_to_target, after.trials_to_target, tolerance));
  }
  return found;
}

BenchBaseline best_of(const BenchBaseline &a, const BenchBaseline &b) {
  if (a.bests_measured_again != b.bests_measured_again)
    throw std::invalid_argument("cannot merge a baseline of re-measured bests with one of search bests");
  BenchBaseline merged = a;
  for (const auto &[key, e] : b.entries) {
    auto [it, inserted] = merged.entries.emplace(key, e);
    if (inserted) continue;
    BenchBaseline::Entry &m = it->second;
    m.best_gflops = std::max(m.best_gflops, e.best_gflops);
    if (m.trials_to_target < 0 || (e.trials_to_target >= 0 && e.trials_to_target < m.trials_to_target))
      m.trials_to_target = e.trials_to_target;
  }
  return merged;
}

BenchBaseline baseline_from_report(const BenchReport &r, double fraction, const BenchBaseline *reference,
                                   bool measured_again) {
  // Keys are "policy|op[|label]"; what follows the first '|' names the operator.
  auto operator_of = [](const std::string &key) { return key.substr(key.find('|') + 1); };
  std::map<std::string, std::vector<const PolicyResult *>> by_key;
  for (const PolicyResult &run : r.runs) by_key[baseline_key(run.policy, run.op, run.label)].push_back(&run);
  BenchBaseline out;
  out.bests_measured_again = measured_again;
  std::map<std::string, double> best_on_op;
  for (const auto &[key, runs] : by_key) {
    std::vector<double> bests;
    for (const PolicyResult *run : runs)
      bests.push_back(out.bests_measured_again ? run->remeasured_gflops : run->curve.best());
    out.entries[key].best_gflops = bench_detail::median(bests);
    best_on_op[operator_of(key)] = std::max(best_on_op[operator_of(key)], out.entries[key].best_gflops);
  }
  if (reference) {  // the target comes from the stored baseline, so it does not move with today's noise
    std::map<std::string, double> stored;
    for (const auto &[key, entry] : reference->entries)
      stored[operator_of(key)] = std::max(stored[operator_of(key)], entry.best_gflops);
    for (const auto &[op, best] : stored)
      if (best > 0) best_on_op[op] = best;
  }
  for (const auto &[key, runs] : by_key) {
    const double target = fraction * best_on_op[operator_of(key)];
    std::vector<double> trials;
    for (const PolicyResult *run : runs) {
      const auto hit = run->curve.first_reaching(target);
      trials.push_back(hit ? hit->trial : double(run->curve.points().size()) + 1);
    }
    out.entries[key].trials_to_target = int(bench_detail::median(trials) + 0.5);
  }
  return out;
}

}  // namespace tlp
