// The bench report on a small hand-built run: every figure lands in its cell
// (medians, ranges, targets, time split, speedups, peers, geometric means), the
// report round-trips through JSON, and the plots are written as well-formed SVG.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "tests/temp_dir.h"
#include "tests/tuner/bench/xml_check.h"
#include "tuner/bench/bench_report.h"

namespace tlp {

using testing::read_text_file;
using testing::TempDir;
namespace {

const std::string kMatmul = "matmul:M=64,N=64,K=64";
const std::string kSoftmax = "softmax:M=4,N=4";

// Trial i (1-based) finishes at i * seconds_per_trial.
TuningCurve curve_of(const std::vector<double> &gflops, double seconds_per_trial) {
  std::vector<CurvePoint> points;
  for (size_t i = 0; i < gflops.size(); ++i) points.push_back({int(i) + 1, seconds_per_trial * (i + 1), gflops[i]});
  return TuningCurve(points);
}

PolicyResult run(const std::string &policy, const std::string &op, const std::string &label, int seed,
                 TuningCurve curve, std::vector<double> times /* wall, search, model, build, run */) {
  return {policy, op, label, seed, std::move(curve), times[0], times[1], times[2], times[3], times[4]};
}

// The numbers are chosen so every cell can be worked out by hand; see each test.
BenchReport small_report() {
  BenchReport r;
  r.suite = "tiny";
  r.machine = "test machine, 2 cores";
  r.command = "tlptune bench tiny";
  r.date = "2025-01-01T00:00:00Z";
  r.runs.push_back(run("random", kMatmul, "mm", 1, curve_of({10, 0, 40, 50}, 1), {10, 1, 0, 6, 3}));
  r.runs.push_back(run("random", kMatmul, "mm", 2, curve_of({20, 30, 60, 60}, 1), {20, 2, 0, 12, 6}));
  r.runs.push_back(run("tlp", kMatmul, "mm", 1, curve_of({40, 100, 100, 100}, 2), {40, 4, 8, 20, 8}));
  r.runs.push_back(run("tlp", kMatmul, "mm", 2, curve_of({80, 90, 0, 120}, 2), {40, 4, 8, 20, 8}));
  r.runs.push_back(run("random", kSoftmax, "", 1, curve_of({5, 10}, 1), {2, 0, 0, 1, 1}));
  r.runs.push_back(run("tlp", kSoftmax, "", 1, curve_of({1, 2}, 1), {2, 0, 0, 1, 1}));
  r.peers.push_back({"vendor", kMatmul, 60, "vendor lib 1.0 | sgemm"});
  r.peers.push_back({"broken", kMatmul, 0, "crashed"});
  return r;
}

// The part of `md` from the heading that contains `title` up to the next "## ".
std::string section(const std::string &md, const std::string &title) {
  const size_t start = md.find("## " + title);
  if (start == std::string::npos) return "";
  const size_t end = md.find("\n## ", start + 1);
  return md.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The cells of the first table row in `text` whose first cell is `first`.
std::vector<std::string> row_cells(const std::string &text, const std::string &first) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("| " + first + " |", 0) != 0) continue;
    std::vector<std::string> cells;
    size_t pos = 1;
    while (pos < line.size()) {
      size_t bar = pos;
      while (bar < line.size() && !(line[bar] == '|' && line[bar - 1] != '\\')) ++bar;
      if (bar >= line.size()) break;
      std::string c = line.substr(pos, bar - pos);
      cells.push_back(c.substr(1, c.size() - 2));  // the padding spaces
      pos = bar + 1;
    }
    return cells;
  }
  return {};
}

TEST(BenchReportMarkdown, HeaderNamesSuiteMachineAndBaseline) {
  const std::string md = render_markdown(small_report(), "random");
  EXPECT_NE(md.find("# tlptune bench: tiny"), std::string::npos);
  EXPECT_NE(md.find("test machine, 2 cores"), std::string::npos);
  EXPECT_NE(md.find("`tlptune bench tiny`"), std::string::npos);
  EXPECT_NE(md.find("baseline policy: random"), std::string::npos);
}

TEST(BenchReportMarkdown, BaselineRowHoldsMediansRangeAndTimeSplit) {
  const std::string mm = section(render_markdown(small_report(), "random"), "mm");
  ASSERT_FALSE(mm.empty());
  EXPECT_NE(mm.find("`" + kMatmul + "`"), std::string::npos);
  EXPECT_NE(mm.find("Best found by any policy: 120.0 GFLOP/s"), std::string::npos);
  const auto cells = row_cells(mm, "random");
  ASSERT_EQ(cells.size(), 9u) << mm;
  EXPECT_EQ(cells[1], "2");                    // seeds
  EXPECT_EQ(cells[2], "55.0 (50.0–60.0)");     // median of 50 and 60, and the range
  EXPECT_EQ(cells[3], "n/r / n/r / n/r");      // seed 1 never reaches 60 = 50% of 120
  EXPECT_EQ(cells[4], "n/r / n/r / n/r");
  EXPECT_EQ(cells[5], "15.0");                 // median wall of 10 and 20
  EXPECT_EQ(cells[6], "search 10% · model 0% · build 60% · run 30%");
  EXPECT_EQ(cells[7], "baseline");
  EXPECT_EQ(cells[8], "baseline");
}

TEST(BenchReportMarkdown, PolicyRowHoldsTargetsAndSpeedups) {
  const std::string mm = section(render_markdown(small_report(), "random"), "mm");
  const auto cells = row_cells(mm, "tlp");
  ASSERT_EQ(cells.size(), 9u) << mm;
  EXPECT_EQ(cells[2], "110.0 (100.0–120.0)");
  // 60 (50%): seed 1 at trial 2 (4 s), seed 2 at trial 1 (2 s); 108 (90%): only seed 2.
  EXPECT_EQ(cells[3], "1.5 / n/r / n/r");
  EXPECT_EQ(cells[4], "3.0 / n/r / n/r");
  EXPECT_EQ(cells[5], "40.0");
  EXPECT_EQ(cells[6], "search 10% · model 20% · build 50% · run 20%");
  // Seed 1: random reaches its 50 at trial 4 (4 s), tlp at trial 2 (4 s): 2x, 1x.
  // Seed 2: random reaches its 60 at trial 3 (3 s), tlp at trial 1 (2 s): 3x, 1.5x.
  EXPECT_EQ(cells[7], "2.50×");
  EXPECT_EQ(cells[8], "1.25×");
}

TEST(BenchReportMarkdown, NotReachedIsSpelledOut) {
  const std::string softmax = section(render_markdown(small_report(), "random"), "`" + kSoftmax + "`");
  ASSERT_FALSE(softmax.empty());
  const auto cells = row_cells(softmax, "tlp");
  ASSERT_EQ(cells.size(), 9u) << softmax;
  EXPECT_EQ(cells[2], "2.0");  // one seed: no range
  EXPECT_EQ(cells[7], "not reached (0/1 reached)");
  EXPECT_EQ(cells[8], "not reached (0/1 reached)");
}

TEST(BenchReportMarkdown, PeersAndRatioToBestTunedKernel) {
  const std::string mm = section(render_markdown(small_report(), "random"), "mm");
  const auto vendor = row_cells(mm, "vendor");
  ASSERT_EQ(vendor.size(), 4u) << mm;
  EXPECT_EQ(vendor[1], "60.0");
  EXPECT_EQ(vendor[2], "2.00×");  // 120 / 60
  EXPECT_EQ(vendor[3], "vendor lib 1.0 \\| sgemm");
  const auto broken = row_cells(mm, "broken");
  ASSERT_EQ(broken.size(), 4u);
  EXPECT_EQ(broken[1], "failed");
  EXPECT_EQ(broken[2], "—");
  // The softmax has no peers, so no peer table.
  EXPECT_EQ(section(render_markdown(small_report(), "random"), "`" + kSoftmax).find("Peers"), std::string::npos);
}

TEST(BenchReportMarkdown, SummaryHasGeometricMeans) {
  const std::string summary = section(render_markdown(small_report(), "random"), "Summary");
  ASSERT_FALSE(summary.empty());
  const auto tlp = row_cells(summary, "tlp");
  ASSERT_EQ(tlp.size(), 5u) << summary;
  EXPECT_EQ(tlp[1], "2");
  EXPECT_EQ(tlp[2], "0.63×");  // sqrt(110/55 * 2/10)
  EXPECT_EQ(tlp[3], "2.50× (1/2 ops)");
  EXPECT_EQ(tlp[4], "1.25× (1/2 ops)");
  const auto vendor = row_cells(summary, "vendor");
  ASSERT_EQ(vendor.size(), 3u);
  EXPECT_EQ(vendor[1], "1");
  EXPECT_EQ(vendor[2], "2.00×");
  EXPECT_EQ(row_cells(summary, "broken")[2], "—");
}

// Bests measured again side by side: random's seeds 40 and 50 (median 45), tlp's 90
// and 110 (median 100) on the matmul; the softmax's tlp run had no valid kernel.
BenchReport remeasured_report() {
  BenchReport r = small_report();
  const double again[] = {40, 50, 90, 110, 8, 0};
  for (size_t i = 0; i < r.runs.size(); ++i) r.runs[i].remeasured_gflops = again[i];
  return r;
}

TEST(BenchReportMarkdown, RemeasuredBestsGetTheirOwnColumnAndSummaryRatio) {
  const std::string md = render_markdown(remeasured_report(), "random");
  EXPECT_NE(md.find("\"Best re-measured\""), std::string::npos);
  const std::string mm = section(md, "mm");
  const auto random = row_cells(mm, "random"), tlp = row_cells(mm, "tlp");
  ASSERT_EQ(random.size(), 10u) << mm;
  EXPECT_EQ(random[2], "55.0 (50.0–60.0)");  // the tuning runs' own bests stay
  EXPECT_EQ(random[3], "45.0 (40.0–50.0)");
  EXPECT_EQ(tlp[3], "100.0 (90.0–110.0)");
  EXPECT_EQ(tlp[8], "2.50×");  // the speedups stay in their columns, one to the right
  const auto summary = row_cells(section(md, "Summary"), "tlp");
  ASSERT_EQ(summary.size(), 6u);
  EXPECT_EQ(summary[2], "0.63×");
  EXPECT_EQ(summary[3], "2.22× (1/2 ops)");  // 100 / 45; the softmax's 0 has no ratio
}

TEST(BenchReportMarkdown, PeersAreComparedWithTheRemeasuredBestsPerOperatorAndPerPolicy) {
  const std::string md = render_markdown(remeasured_report(), "random");
  const std::string mm = section(md, "mm");
  EXPECT_NE(mm.find("Peers (best tuned kernel: 120.0 GFLOP/s, re-measured: 100.0)"), std::string::npos) << mm;
  const auto vendor = row_cells(mm, "vendor");
  ASSERT_EQ(vendor.size(), 5u) << mm;
  EXPECT_EQ(vendor[2], "2.00×");  // 120 / 60, the tuning runs' best
  EXPECT_EQ(vendor[3], "1.67×");  // 100 / 60: tlp's median re-measured best beats random's 45
  EXPECT_EQ(vendor[4], "vendor lib 1.0 \\| sgemm");
  const std::string summary = section(md, "Summary");
  EXPECT_NE(summary.find("tlp re-measured / peer (geomean)"), std::string::npos) << summary;
  const auto peer_row = row_cells(summary.substr(summary.find("| peer |")), "vendor");
  ASSERT_EQ(peer_row.size(), 5u) << summary;
  EXPECT_EQ(peer_row[2], "2.00×");
  EXPECT_EQ(peer_row[3], "0.75×");  // random: 45 / 60
  EXPECT_EQ(peer_row[4], "1.67×");  // tlp: 100 / 60
}

TEST(BenchReportMarkdown, NoRemeasuredColumnWhenNothingWasMeasuredAgain) {
  const std::string md = render_markdown(small_report(), "random");
  EXPECT_EQ(md.find("re-measured"), std::string::npos);
}

TEST(BenchReportJson, RemeasuredBestsRoundTripAndOlderReportsReadAsNotMeasured) {
  const BenchReport r = remeasured_report();
  const BenchReport back = BenchReport::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(back.runs[3].remeasured_gflops, 110);
  nlohmann::json older = r.to_json();
  for (auto &run : older["runs"]) run.erase("remeasured_gflops");
  EXPECT_EQ(BenchReport::from_json(older).runs[3].remeasured_gflops, 0);
}

// The runs' fastest kernels of their first 2 trials measured again too: on the
// matmul random's 30 and 35, tlp's 48 and 45 against random's bests of all
// trials, 40 (seed 1) and 50 (seed 2).
BenchReport early_report() {
  BenchReport r = remeasured_report();
  const double early[] = {30, 35, 48, 45, 6, 0};
  for (size_t i = 0; i < r.runs.size(); ++i) {
    r.runs[i].early_trials = 2;
    r.runs[i].remeasured_early_gflops = early[i];
  }
  return r;
}

TEST(BenchReportMarkdown, BestsOfTheFirstTrialsCompareWithTheBaselinesBestOfAllSeedBySeed) {
  const std::string md = render_markdown(early_report(), "random");
  EXPECT_NE(md.find("--final-early"), std::string::npos);
  const std::string mm = section(md, "mm");
  const auto random = row_cells(mm, "random"), tlp = row_cells(mm, "tlp");
  ASSERT_EQ(random.size(), 12u) << mm;
  EXPECT_EQ(random[4], "first 2: 32.5 (30.0–35.0)");
  EXPECT_EQ(tlp[4], "first 2: 46.5 (45.0–48.0)");
  EXPECT_EQ(random[11], "baseline");
  EXPECT_EQ(tlp[11], "1.05× (1/2 seeds ≥)");  // 48 / 40 = 1.2 and 45 / 50 = 0.9
  EXPECT_EQ(tlp[9], "2.50×");                  // the speedups stay where they were
  const auto summary = row_cells(section(md, "Summary"), "tlp");
  ASSERT_EQ(summary.size(), 7u);
  EXPECT_EQ(summary[4], "1.03× (1/2 ops)");  // 46.5 / 45; the softmax's tlp kernels never ran
}

TEST(BenchReportJson, BestsOfTheFirstTrialsRoundTripAndOlderReportsReadAsNotMeasured) {
  const BenchReport r = early_report();
  const BenchReport back = BenchReport::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(back.runs[2].early_trials, 2);
  EXPECT_EQ(back.runs[2].remeasured_early_gflops, 48);
  nlohmann::json older = r.to_json();
  for (auto &run : older["runs"]) {
    run.erase("early_trials");
    run.erase("remeasured_early_gflops");
  }
  EXPECT_EQ(BenchReport::from_json(older).runs[2].early_trials, 0);
  EXPECT_EQ(render_markdown(BenchReport::from_json(older), "random").find("first trials"), std::string::npos);
}

TEST(BenchReportMarkdown, MissingBaselineIsSaid) {
  const std::string mm = section(render_markdown(small_report(), "evolutionary"), "mm");
  EXPECT_EQ(row_cells(mm, "tlp")[7], "no baseline run");
}

TEST(BenchReportMarkdown, EmptyReport) {
  BenchReport r;
  r.suite = "none";
  EXPECT_NE(render_markdown(r, "random").find("No runs to report."), std::string::npos);
}

TEST(BenchReportJson, RoundTrips) {
  const BenchReport r = small_report();
  const BenchReport back = BenchReport::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(back.to_json(), r.to_json());
  EXPECT_EQ(render_markdown(back, "random"), render_markdown(r, "random"));
}

TEST(BenchReportJson, RefusesUnknownFormat) {
  nlohmann::json j = small_report().to_json();
  j["format"] = 2;
  EXPECT_THROW(BenchReport::from_json(j), std::runtime_error);
  j["format"] = 1;
  j.erase("runs");
  EXPECT_THROW(BenchReport::from_json(j), std::runtime_error);
}

TEST(BenchReportPlots, FileStemIsSafe) {
  EXPECT_EQ(plot_file_stem("matmul:M=512,N=512,K=512", ""), "matmul_M_512_N_512_K_512");
  EXPECT_EQ(plot_file_stem("matmul:M=1", "bert qkv/1"), "matmul_M_1-bert_qkv_1");
}

TEST(BenchReportPlots, WritesTwoWellFormedChartsPerOperator) {
  TempDir dir;
  const std::string out = dir.path() + "/plots";
  const auto written = write_plots(small_report(), out);
  ASSERT_EQ(written.size(), 4u);
  EXPECT_EQ(written[0], out + "/matmul_M_64_N_64_K_64-mm-trials.svg");
  EXPECT_EQ(written[1], out + "/matmul_M_64_N_64_K_64-mm-seconds.svg");
  EXPECT_EQ(written[2], out + "/softmax_M_4_N_4-trials.svg");
  for (const auto &path : written) {
    const std::string svg = read_text_file(path);
    EXPECT_EQ(xml_problem(svg), "") << path;
  }
  const std::string mm = read_text_file(written[0]);
  EXPECT_NE(mm.find(">random (median of 2 seeds)</text>"), std::string::npos);
  EXPECT_NE(mm.find(">tlp (median of 2 seeds)</text>"), std::string::npos);
  EXPECT_NE(mm.find("stroke-opacity"), std::string::npos);  // the other seeds, faint
  EXPECT_NE(read_text_file(written[2]).find(">tlp</text>"), std::string::npos);
}

}  // namespace
}  // namespace tlp
