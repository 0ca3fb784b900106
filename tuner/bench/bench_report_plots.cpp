// write_plots: per operator, best-so-far GFLOP/s against trials and against seconds.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "tuner/bench/bench_report.h"
#include "tuner/bench/bench_report_internal.h"
#include "tuner/bench/json_file.h"
#include "tuner/bench/svg_line_chart.h"

namespace tlp {

using namespace bench_detail;  // the shared private helpers

namespace {

// Faint enough that the median seed's line stands out in front of the others.
constexpr double kOtherSeedOpacity = 0.3;

// The run whose final best is the median of the policy's seeds (the lower of the
// middle two for an even count).
const PolicyResult *median_seed(const PolicyRuns &p) {
  std::vector<const PolicyResult *> sorted = p.seeds;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const PolicyResult *a, const PolicyResult *b) { return a->curve.best() < b->curve.best(); });
  return sorted[(sorted.size() - 1) / 2];
}

ChartSeries curve_series(const PolicyResult &run, bool by_seconds, int color) {
  ChartSeries s;
  s.name = run.policy + " seed " + std::to_string(run.seed);
  s.color = color;
  for (const auto &p : run.curve.best_so_far()) s.points.emplace_back(by_seconds ? p.seconds : p.trial, p.gflops);
  return s;
}

LineChart operator_chart(const OperatorRuns &op, bool by_seconds) {
  LineChart chart;
  chart.title = (op.label.empty() ? "" : op.label + ": ") + op.op;
  chart.x_label = by_seconds ? "seconds since the run started" : "trials (candidates measured)";
  chart.y_label = "best GFLOP/s so far";
  chart.step = true;
  std::vector<ChartSeries> faint, bold;
  for (size_t i = 0; i < op.policies.size(); ++i) {
    const PolicyRuns &p = op.policies[i];
    const PolicyResult *middle = median_seed(p);
    for (const PolicyResult *run : p.seeds) {
      if (run == middle) continue;
      ChartSeries s = curve_series(*run, by_seconds, static_cast<int>(i));
      s.opacity = kOtherSeedOpacity;
      s.in_legend = false;
      faint.push_back(std::move(s));
    }
    ChartSeries s = curve_series(*middle, by_seconds, static_cast<int>(i));
    s.name = p.seeds.size() > 1 ? p.policy + " (median of " + std::to_string(p.seeds.size()) + " seeds)" : p.policy;
    bold.push_back(std::move(s));
  }
  // Faint lines first, so the median seeds are drawn over them.
  chart.series = std::move(faint);
  chart.series.insert(chart.series.end(), bold.begin(), bold.end());
  return chart;
}

}  // namespace

std::string plot_file_stem(const std::string &op, const std::string &label) {
  std::string stem = label.empty() ? op : op + "-" + label;
  for (char &c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return stem;
}

std::vector<std::string> write_plots(const BenchReport &r, const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create the plot folder '" + dir + "': " + ec.message());
  std::vector<std::string> written;
  for (const auto &op : group_by_operator(r)) {
    const std::string base = (std::filesystem::path(dir) / plot_file_stem(op.op, op.label)).string();
    for (bool by_seconds : {false, true}) {
      const std::string path = base + (by_seconds ? "-seconds.svg" : "-trials.svg");
      write_file_atomically(path, render_svg(operator_chart(op, by_seconds)));
      written.push_back(path);
    }
  }
  return written;
}

}  // namespace tlp
