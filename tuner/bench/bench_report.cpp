#include "tuner/bench/bench_report.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "measure/median.h"
#include "tuner/bench/bench_report_internal.h"
#include "tuner/bench/json_file.h"

namespace tlp {
namespace {

using nlohmann::json;

json run_to_json(const PolicyResult &run) {
  return {{"policy", run.policy},
          {"op", run.op},
          {"label", run.label},
          {"seed", run.seed},
          {"wall_seconds", run.wall_seconds},
          {"search_seconds", run.search_seconds},
          {"model_seconds", run.model_seconds},
          {"build_seconds", run.build_seconds},
          {"run_seconds", run.run_seconds},
          {"remeasured_gflops", run.remeasured_gflops},
          {"early_trials", run.early_trials},
          {"remeasured_early_gflops", run.remeasured_early_gflops},
          {"curve", run.curve.to_json()}};
}

PolicyResult run_from_json(const json &j) {
  PolicyResult run;
  run.policy = j.at("policy").get<std::string>();
  run.op = j.at("op").get<std::string>();
  run.label = j.value("label", std::string());
  run.seed = j.at("seed").get<int>();
  run.wall_seconds = j.at("wall_seconds").get<double>();
  run.search_seconds = j.at("search_seconds").get<double>();
  run.model_seconds = j.at("model_seconds").get<double>();
  run.build_seconds = j.at("build_seconds").get<double>();
  run.run_seconds = j.at("run_seconds").get<double>();
  run.remeasured_gflops = j.value("remeasured_gflops", 0.0);  // absent in reports before 2026-12-01
  run.early_trials = j.value("early_trials", 0);  // absent before 2026-12-02
  run.remeasured_early_gflops = j.value("remeasured_early_gflops", 0.0);
  run.curve = TuningCurve::from_json(j.at("curve"));
  return run;
}

json peer_to_json(const BenchPeerResult &peer) {
  json j = {{"peer", peer.peer}, {"op", peer.op}, {"gflops", peer.gflops}, {"what_ran", peer.what_ran}};
  if (!peer.round_medians.empty()) j["round_medians"] = peer.round_medians;
  return j;
}

BenchPeerResult peer_from_json(const json &j) {
  return {j.at("peer").get<std::string>(), j.at("op").get<std::string>(), j.at("gflops").get<double>(),
          j.value("what_ran", std::string()),
          j.value("round_medians", std::vector<double>())};  // absent before 2026-12-07
}

void check_report_format(const json &j) {
  if (!j.is_object() || !j.contains("format") || !j["format"].is_number_integer())
    throw std::runtime_error("bench report: expected a JSON object with an integer \"format\"");
  const int64_t format = j["format"].get<int64_t>();
  if (format < 1 || format > kBenchReportFormat)
    throw std::runtime_error("bench report: format " + std::to_string(format) + " is not one this tlptune reads " +
                             "(format " + std::to_string(kBenchReportFormat) + "); use a matching tlptune");
}

}  // namespace

json BenchReport::to_json() const {
  json runs_json = json::array(), peers_json = json::array();
  for (const auto &run : runs) runs_json.push_back(run_to_json(run));
  for (const auto &peer : peers) peers_json.push_back(peer_to_json(peer));
  return {{"format", kBenchReportFormat}, {"suite", suite}, {"machine", machine}, {"command", command},
          {"date", date},         {"runs", runs_json}, {"peers", peers_json}};
}

BenchReport BenchReport::from_json(const json &j) {
  check_report_format(j);
  BenchReport r;
  try {
    r.suite = j.at("suite").get<std::string>();
    r.machine = j.value("machine", std::string());
    r.command = j.value("command", std::string());
    r.date = j.value("date", std::string());
    for (const auto &run : j.at("runs")) r.runs.push_back(run_from_json(run));
    if (j.contains("peers"))
      for (const auto &peer : j.at("peers")) r.peers.push_back(peer_from_json(peer));
  } catch (const json::exception &e) {
    throw std::runtime_error(std::string("bench report: ") + e.what());
  }
  return r;
}

namespace bench_detail {

std::vector<OperatorRuns> group_by_operator(const BenchReport &r) {
  std::vector<OperatorRuns> ops;
  for (const auto &run : r.runs) {
    auto op = std::find_if(ops.begin(), ops.end(),
                           [&](const OperatorRuns &o) { return o.op == run.op && o.label == run.label; });
    if (op == ops.end()) op = ops.insert(ops.end(), OperatorRuns{run.op, run.label, {}});
    auto policy = std::find_if(op->policies.begin(), op->policies.end(),
                               [&](const PolicyRuns &p) { return p.policy == run.policy; });
    if (policy == op->policies.end()) policy = op->policies.insert(op->policies.end(), PolicyRuns{run.policy, {}});
    policy->seeds.push_back(&run);
  }
  return ops;
}

double median(std::vector<double> values) {
  return values.empty() ? std::numeric_limits<double>::quiet_NaN() : median_of(std::move(values));
}

}  // namespace bench_detail
BenchReport BenchReport::read_part_file(const std::string &path) {
  try {
    return from_json(bench_detail::read_json_object_file("bench result", path));
  } catch (const std::runtime_error &e) {
    throw std::runtime_error(std::string(e.what()) + "; delete it to measure that part again");
  }
}

}  // namespace tlp
