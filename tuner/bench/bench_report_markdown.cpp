// render_markdown: the report's tables (see bench_report.h for what each cell holds).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>

#include "tuner/bench/bench_report.h"
#include "tuner/bench/bench_report_internal.h"

namespace tlp {

using namespace bench_detail;  // the shared private helpers

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kTargets[] = {0.50, 0.90, 0.95};

std::string fixed(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "∞" : "-∞";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Trials are whole numbers, but the median of an even count may end in .5.
std::string trials_text(double v) {
  if (std::isinf(v) || std::isnan(v)) return "n/r";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string seconds_text(double v) { return std::isinf(v) || std::isnan(v) ? "n/r" : fixed(v, 1); }

std::string ratio_text(double v) { return fixed(v, 2) + "×"; }

// Text inside a table cell: a '|' would end the cell and a newline the row.
std::string cell(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string row(const std::vector<std::string> &cells) {
  std::string out = "|";
  for (const auto &c : cells) out += " " + c + " |";
  return out + "\n";
}

std::string header(const std::vector<std::string> &cells) {
  std::string out = row(cells) + "|";
  for (size_t i = 0; i < cells.size(); ++i) out += "---|";
  return out + "\n";
}

std::string operator_title(const OperatorRuns &op) {
  return op.label.empty() ? "`" + op.op + "`" : op.label + " — `" + op.op + "`";
}

std::vector<double> final_bests(const PolicyRuns &p) {
  std::vector<double> bests;
  for (const PolicyResult *run : p.seeds) bests.push_back(run->curve.best());
  return bests;
}

// One figure of each seed's run, e.g. &PolicyResult::remeasured_gflops.
std::vector<double> per_seed(const PolicyRuns &p, double PolicyResult::*figure) {
  std::vector<double> out;
  for (const PolicyResult *run : p.seeds) out.push_back(run->*figure);
  return out;
}

std::vector<double> remeasured_bests(const PolicyRuns &p) { return per_seed(p, &PolicyResult::remeasured_gflops); }

bool any_remeasured(const BenchReport &r) {
  return std::any_of(r.runs.begin(), r.runs.end(), [](const PolicyResult &run) { return run.remeasured_gflops > 0; });
}

std::vector<double> early_bests(const PolicyRuns &p) { return per_seed(p, &PolicyResult::remeasured_early_gflops); }

bool any_early(const BenchReport &r) {
  return std::any_of(r.runs.begin(), r.runs.end(), [](const PolicyResult &run) { return run.early_trials > 0; });
}

double best_of_operator(const OperatorRuns &op) {
  double best = 0;
  for (const auto &p : op.policies)
    for (const PolicyResult *run : p.seeds) best = std::max(best, run->curve.best());
  return best;
}

const PolicyRuns *find_policy(const OperatorRuns &op, const std::string &policy) {
  for (const auto &p : op.policies)
    if (p.policy == policy) return &p;
  return nullptr;
}

// "151.0 (146.3–155.6)": the median, and the range when there are several.
std::string best_cell(const std::vector<double> &bests) {
  std::string out = fixed(median(bests), 1);
  if (bests.size() > 1) {
    const auto [lo, hi] = std::minmax_element(bests.begin(), bests.end());
    out += " (" + fixed(*lo, 1) + "–" + fixed(*hi, 1) + ")";
  }
  return out;
}

// "12 / 40 / 63": per target, the median over seeds of the trials (or seconds) to
// reach that fraction of `best`; a seed that never got there counts as infinite.
std::string to_targets_cell(const PolicyRuns &p, double best, bool seconds) {
  std::string out;
  for (double fraction : kTargets) {
    std::vector<double> costs;
    for (const PolicyResult *run : p.seeds) {
      const auto hit = best > 0 ? run->curve.first_reaching(fraction * best) : std::nullopt;
      costs.push_back(!hit ? kInf : seconds ? hit->seconds : hit->trial);
    }
    const double m = median(costs);
    out += (out.empty() ? "" : " / ") + (seconds ? seconds_text(m) : trials_text(m));
  }
  return out;
}

// "search 5% · model 1% · build 70% · run 24%": the parts of the summed wall time.
std::string time_split_cell(const PolicyRuns &p) {
  double wall = 0, search = 0, model = 0, build = 0, run = 0;
  for (const PolicyResult *r : p.seeds) {
    wall += r->wall_seconds, search += r->search_seconds, model += r->model_seconds;
    build += r->build_seconds, run += r->run_seconds;
  }
  if (!(wall > 0)) return "—";
  auto pct = [&](double part) { return fixed(part / wall * 100, 0) + "%"; };
  return "search " + pct(search) + " · model " + pct(model) + " · build " + pct(build) + " · run " + pct(run);
}

double median_wall(const PolicyRuns &p) {
  std::vector<double> walls;
  for (const PolicyResult *r : p.seeds) walls.push_back(r->wall_seconds);
  return median(walls);
}

// The median of speedups where 0 stands for "not reached": when either middle value
// is 0 the median did not get there, so it is 0 rather than half a speedup.
double median_speedup(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  if (n % 2) return values[n / 2];
  if (values[n / 2 - 1] == 0 || values[n / 2] == 0) return 0;
  return (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct SpeedupSummary {
  int pairs = 0, reached = 0;
  double trials = 0, seconds = 0;  // medians; 0 when the median did not reach
};

// Pairs each seed of `p` with the baseline run of the same seed, or with every
// baseline run when the baseline has no such seed.
SpeedupSummary summarize_speedup(const PolicyRuns &p, const PolicyRuns &baseline) {
  std::vector<double> trials, seconds;
  int reached = 0;
  for (const PolicyResult *run : p.seeds) {
    std::vector<const PolicyResult *> partners;
    for (const PolicyResult *b : baseline.seeds)
      if (b->seed == run->seed) partners.push_back(b);
    if (partners.empty()) partners = baseline.seeds;
    for (const PolicyResult *b : partners) {
      const Speedup s = speedup_to_reach(run->curve, b->curve);
      reached += s.reached;
      trials.push_back(s.reached ? s.trials_ratio : 0);
      seconds.push_back(s.reached ? s.seconds_ratio : 0);
    }
  }
  return {static_cast<int>(trials.size()), reached, median_speedup(trials), median_speedup(seconds)};
}

std::string speedup_cell(const SpeedupSummary &s, double value) {
  if (s.pairs == 0) return "—";
  std::string out = value > 0 ? ratio_text(value) : "not reached";
  if (s.reached < s.pairs) out += " (" + std::to_string(s.reached) + "/" + std::to_string(s.pairs) + " reached)";
  return out;
}

// "first 100: 96.3 (93.0–99.5)": the re-measured best of the first trials.
std::string early_cell(const PolicyRuns &p) {
  std::vector<int> trials;
  for (const PolicyResult *run : p.seeds)
    if (run->early_trials > 0) trials.push_back(run->early_trials);
  if (trials.empty()) return "—";
  const auto [lo, hi] = std::minmax_element(trials.begin(), trials.end());
  const std::string first = *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + "–" + std::to_string(*hi);
  return "first " + first + ": " + best_cell(early_bests(p));
}

// The median over seeds of a run's re-measured best of its first trials over the
// baseline run's re-measured best of all its trials (same seed), and how many
// seeds got at least as fast: "1.04× (2/2 seeds ≥)".
std::string early_vs_baseline_cell(const PolicyRuns &p, const PolicyRuns &baseline) {
  std::vector<double> ratios;
  int at_least = 0;
  for (const PolicyResult *run : p.seeds) {
    if (run->early_trials == 0) continue;
    for (const PolicyResult *base : baseline.seeds) {
      if (base->seed != run->seed || base->remeasured_gflops <= 0) continue;
      ratios.push_back(run->remeasured_early_gflops / base->remeasured_gflops);
      at_least += ratios.back() >= 1;
    }
  }
  if (ratios.empty()) return "—";
  return ratio_text(median(ratios)) + " (" + std::to_string(at_least) + "/" + std::to_string(ratios.size()) +
         " seeds ≥)";
}

std::string policy_row(const OperatorRuns &op, const PolicyRuns &p, const std::string &baseline_policy,
                       bool remeasured, bool early) {
  const double best = best_of_operator(op);
  std::vector<std::string> cells = {cell(p.policy), std::to_string(p.seeds.size()), best_cell(final_bests(p))};
  if (remeasured) cells.push_back(best_cell(remeasured_bests(p)));
  if (early) cells.push_back(early_cell(p));
  cells.insert(cells.end(), {to_targets_cell(p, best, false), to_targets_cell(p, best, true),
                             fixed(median_wall(p), 1), time_split_cell(p)});
  const PolicyRuns *baseline = find_policy(op, baseline_policy);
  if (p.policy == baseline_policy) {
    cells.insert(cells.end(), {"baseline", "baseline"});
    if (early) cells.push_back("baseline");
  } else if (!baseline) {
    cells.insert(cells.end(), {"no baseline run", "no baseline run"});
    if (early) cells.push_back("no baseline run");
  } else {
    const SpeedupSummary s = summarize_speedup(p, *baseline);
    cells.insert(cells.end(), {speedup_cell(s, s.trials), speedup_cell(s, s.seconds)});
    if (early) cells.push_back(early_vs_baseline_cell(p, *baseline));
  }
  return row(cells);
}

// The best of the policies' re-measured bests (each the median over its seeds).
double best_remeasured_of_operator(const OperatorRuns &op) {
  double best = 0;
  for (const auto &p : op.policies) best = std::max(best, median(remeasured_bests(p)));
  return best;
}

std::string peers_table(const BenchReport &r, const OperatorRuns &op, bool remeasured) {
  std::string out;
  const double best = best_of_operator(op), best_again = best_remeasured_of_operator(op);
  auto ratio = [](double mine, double theirs) { return mine > 0 && theirs > 0 ? ratio_text(mine / theirs) : "—"; };
  for (const auto &peer : r.peers) {
    if (peer.op != op.op) continue;
    std::vector<std::string> cells = {cell(peer.peer), peer.gflops > 0 ? fixed(peer.gflops, 1) : "failed",
                                      ratio(best, peer.gflops)};
    if (remeasured) cells.push_back(ratio(best_again, peer.gflops));
    cells.push_back(cell(peer.what_ran));
    out += row(cells);
  }
  if (out.empty()) return "";
  std::vector<std::string> columns = {"peer", "GFLOP/s", "best tuned / peer"};
  if (remeasured) columns.push_back("best re-measured / peer");
  columns.push_back("what ran");
  std::string title = "\nPeers (best tuned kernel: " + fixed(best, 1) + " GFLOP/s";
  if (remeasured) title += ", re-measured: " + fixed(best_again, 1);
  return title + "):\n\n" + header(columns) + out;
}

std::string operator_section(const BenchReport &r, const OperatorRuns &op, const std::string &baseline_policy) {
  std::string out = "## " + operator_title(op) + "\n\n";
  out += "Best found by any policy: " + fixed(best_of_operator(op), 1) +
         " GFLOP/s; the targets below are 50%, 90% and 95% of it.\n\n";
  const bool remeasured = any_remeasured(r), early = any_early(r);
  std::vector<std::string> columns = {"policy", "seeds", "best GFLOP/s"};
  if (remeasured) columns.push_back("best re-measured");
  if (early) columns.push_back("best of first trials, re-measured");
  columns.insert(columns.end(), {"trials to 50/90/95%", "seconds to 50/90/95%", "wall s", "time split",
                                 "trials speedup vs " + cell(baseline_policy),
                                 "time speedup vs " + cell(baseline_policy)});
  if (early) columns.push_back("first trials vs " + cell(baseline_policy) + "'s all, re-measured");
  out += header(columns);
  for (const auto &p : op.policies) out += policy_row(op, p, baseline_policy, remeasured, early);
  return out + peers_table(r, op, remeasured) + "\n";
}

double geomean(const std::vector<double> &values) {
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / values.size());
}

std::string geomean_cell(const std::vector<double> &values, size_t operators) {
  if (values.empty()) return "—";
  std::string out = ratio_text(geomean(values));
  if (values.size() < operators)
    out += " (" + std::to_string(values.size()) + "/" + std::to_string(operators) + " ops)";
  return out;
}

// The median of `bests` over the baseline's, when both are measured.
void push_ratio(std::vector<double> &ratios, const std::vector<double> &bests, const std::vector<double> &baseline) {
  const double mine = median(bests), theirs = median(baseline);
  if (mine > 0 && theirs > 0) ratios.push_back(mine / theirs);
}

// Per non-baseline policy: geometric means over the operators of its median best
// (and re-measured best) relative to the baseline's, and of its speedups where the
// median reached.
std::string policy_summary(const std::vector<OperatorRuns> &ops, const std::string &baseline_policy,
                           bool remeasured, bool early) {
  std::vector<std::string> policies;
  for (const auto &op : ops)
    for (const auto &p : op.policies)
      if (p.policy != baseline_policy && std::find(policies.begin(), policies.end(), p.policy) == policies.end())
        policies.push_back(p.policy);
  if (policies.empty()) return "";
  std::vector<std::string> columns = {"policy", "operators", "best GFLOP/s vs " + cell(baseline_policy)};
  if (remeasured) columns.push_back("re-measured best vs " + cell(baseline_policy));
  if (early) columns.push_back("re-measured best of first trials vs " + cell(baseline_policy) + "'s all");
  columns.insert(columns.end(), {"trials speedup", "time speedup"});
  std::string out = header(columns);
  for (const auto &policy : policies) {
    std::vector<double> best_ratios, remeasured_ratios, early_ratios, trials, seconds;
    size_t compared = 0;
    for (const auto &op : ops) {
      const PolicyRuns *p = find_policy(op, policy), *base = find_policy(op, baseline_policy);
      if (!p || !base) continue;
      ++compared;
      push_ratio(best_ratios, final_bests(*p), final_bests(*base));
      push_ratio(remeasured_ratios, remeasured_bests(*p), remeasured_bests(*base));
      push_ratio(early_ratios, early_bests(*p), remeasured_bests(*base));
      const SpeedupSummary s = summarize_speedup(*p, *base);
      if (s.trials > 0 && std::isfinite(s.trials)) trials.push_back(s.trials);
      if (s.seconds > 0 && std::isfinite(s.seconds)) seconds.push_back(s.seconds);
    }
    std::vector<std::string> cells = {cell(policy), std::to_string(compared), geomean_cell(best_ratios, compared)};
    if (remeasured) cells.push_back(geomean_cell(remeasured_ratios, compared));
    if (early) cells.push_back(geomean_cell(early_ratios, compared));
    cells.insert(cells.end(), {geomean_cell(trials, compared), geomean_cell(seconds, compared)});
    out += row(cells);
  }
  return out;
}

// Per peer: the geometric mean over operators of the best tuned kernel / the
// peer, and, when runs were measured again, of each policy's re-measured best /
// the peer (both timed as their fastest round: the comparison to quote).
std::string peer_summary(const BenchReport &r, const std::vector<OperatorRuns> &ops, bool remeasured) {
  std::vector<std::string> order, policies;
  for (const auto &peer : r.peers)
    if (std::find(order.begin(), order.end(), peer.peer) == order.end()) order.push_back(peer.peer);
  if (order.empty()) return "";
  if (remeasured)
    for (const auto &op : ops)
      for (const auto &p : op.policies)
        if (std::find(policies.begin(), policies.end(), p.policy) == policies.end()) policies.push_back(p.policy);
  std::vector<std::string> columns = {"peer", "operators", "best tuned / peer (geomean)"};
  for (const auto &policy : policies) columns.push_back(cell(policy) + " re-measured / peer (geomean)");
  std::string out = "\n" + header(columns);
  for (const auto &name : order) {
    std::vector<double> tuned;
    std::vector<std::vector<double>> again(policies.size());
    for (const auto &peer : r.peers) {
      if (peer.peer != name || peer.gflops <= 0) continue;
      for (const auto &op : ops) {
        if (op.op != peer.op) continue;
        if (best_of_operator(op) > 0) tuned.push_back(best_of_operator(op) / peer.gflops);
        for (size_t i = 0; i < policies.size(); ++i)
          if (const PolicyRuns *p = find_policy(op, policies[i]); p && median(remeasured_bests(*p)) > 0)
            again[i].push_back(median(remeasured_bests(*p)) / peer.gflops);
      }
    }
    std::vector<std::string> cells = {cell(name), std::to_string(tuned.size()), geomean_cell(tuned, tuned.size())};
    for (const auto &ratios : again) cells.push_back(geomean_cell(ratios, tuned.size()));
    out += row(cells);
  }
  return out;
}

std::string report_header(const BenchReport &r, const std::string &baseline_policy) {
  std::string out = "# tlptune bench: " + r.suite + "\n\n";
  if (!r.machine.empty()) out += "- machine: " + r.machine + "\n";
  if (!r.date.empty()) out += "- date: " + r.date + "\n";
  if (!r.command.empty()) out += "- command: `" + r.command + "`\n";
  out += "- baseline policy: " + baseline_policy + "\n\n";
  out += "Figures are medians over seeds. \"n/r\": the median seed never reached that target. "
         "Speedups are how much sooner a policy reaches the final best of " +
         baseline_policy + " on the same seed, in trials and in wall time.";
  if (any_remeasured(r))
    out += " \"Best re-measured\": each run's fastest kernels measured again after all runs, in rounds side by "
           "side with the other runs' (the best of their medians over the rounds), so that the bests compare under "
           "the same conditions.";
  if (any_early(r))
    out += " \"Best of first trials, re-measured\": the same for each run's fastest kernels among its first trials "
           "only (bench --final-early), measured in the same rounds; against the baseline's best of all its trials it "
           "says whether a policy got as far in that fraction of the trials.";
  return out + "\n\n";
}

}  // namespace

std::string render_markdown(const BenchReport &r, const std::string &baseline_policy) {
  const std::vector<OperatorRuns> ops = group_by_operator(r);
  std::string out = report_header(r, baseline_policy);
  if (ops.empty()) return out + "No runs to report.\n";
  for (const auto &op : ops) out += operator_section(r, op, baseline_policy);
  out += "## Summary across " + std::to_string(ops.size()) + (ops.size() == 1 ? " operator" : " operators") +
         " (geometric means)\n\n";
  out += policy_summary(ops, baseline_policy, any_remeasured(r), any_early(r));
  out += peer_summary(r, ops, any_remeasured(r));
  return out;
}

}  // namespace tlp
