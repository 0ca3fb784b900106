// The SVG line chart: ticks are 1-2-5 steps that cover the data, the output is
// well-formed XML with its text escaped, data maps monotonically onto the page,
// and a chart without data still renders with a clear placeholder.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "tests/tuner/bench/xml_check.h"
#include "tuner/bench/svg_line_chart.h"

namespace tlp {
namespace {

// True when `step` is 1, 2 or 5 times a power of ten.
bool is_nice_step(double step) {
  const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (std::fabs(mantissa - m) < 1e-6) return true;
  return false;
}

void expect_nice_cover(double lo, double hi, int max_ticks) {
  const std::vector<double> ticks = nice_ticks(lo, hi, max_ticks);
  ASSERT_GE(ticks.size(), 2u) << lo << ".." << hi;
  EXPECT_LE(int(ticks.size()), max_ticks) << lo << ".." << hi;
  EXPECT_LE(ticks.front(), lo);
  EXPECT_GE(ticks.back(), hi);
  const double step = ticks[1] - ticks[0];
  EXPECT_TRUE(is_nice_step(step)) << step << " for " << lo << ".." << hi;
  for (size_t i = 1; i < ticks.size(); ++i) EXPECT_NEAR(ticks[i] - ticks[i - 1], step, step * 1e-9);
  // A tick is a whole multiple of the step, so labels read 0.2, 0.4 rather than 0.13, 0.33.
  EXPECT_NEAR(ticks[0] / step, std::round(ticks[0] / step), 1e-6);
}

TEST(NiceTicks, AreOneTwoFiveStepsCoveringTheRange) {
  expect_nice_cover(0, 1, 8);
  expect_nice_cover(0, 97.3, 8);
  expect_nice_cover(1, 1000, 8);
  expect_nice_cover(0.013, 0.047, 6);
  expect_nice_cover(-3.5, 12.2, 7);
  expect_nice_cover(123456, 123789, 5);
  expect_nice_cover(0, 3, 2);
}

TEST(NiceTicks, ExampleValues) {
  EXPECT_EQ(nice_ticks(0, 10, 6), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(nice_ticks(0, 97, 8), (std::vector<double>{0, 20, 40, 60, 80, 100}));
}

TEST(NiceTicks, WidenAZeroWidthRange) {
  EXPECT_EQ(nice_ticks(0, 0, 8).front(), 0);
  EXPECT_GE(nice_ticks(0, 0, 8).back(), 1);
  expect_nice_cover(42, 42, 8);
}

TEST(LogTicks, CoverTheRange) {
  const auto wide = log_ticks(1, 5000);
  EXPECT_EQ(wide, (std::vector<double>{1, 10, 100, 1000, 10000}));
  const auto narrow = log_ticks(3, 70);
  EXPECT_LE(narrow.front(), 3);
  EXPECT_GE(narrow.back(), 70);
  EXPECT_EQ(narrow, (std::vector<double>{2, 5, 10, 20, 50, 100}));
}

TEST(XmlEscape, EscapesMarkupCharacters) {
  EXPECT_EQ(xml_escape(R"(a<b & "c" > 'd')"), "a&lt;b &amp; &quot;c&quot; &gt; &apos;d&apos;");
}

LineChart two_series_chart() {
  LineChart c;
  c.title = "matmul:M=512 <fast> & \"best\"";
  c.x_label = "trials";
  c.y_label = "GFLOP/s";
  c.series.push_back({"random", {{1, 2}, {2, 5}, {3, 5}, {10, 8}}});
  c.series.push_back({"tlp & <co>", {{1, 4}, {4, 30}}});
  return c;
}

TEST(RenderSvg, IsWellFormedXml) {
  const std::string svg = render_svg(two_series_chart());
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("&lt;fast&gt; &amp; &quot;best&quot;"), std::string::npos);
  EXPECT_NE(svg.find("tlp &amp; &lt;co&gt;"), std::string::npos);
}

TEST(XmlCheck, CatchesBrokenDocuments) {
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xml_problem("<svg>a & b</svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a < b</text></svg>"), "");
  EXPECT_EQ(xml_problem("<svg><g a=\"1\"/><text>x &amp; y</text></svg>"), "");
}

// The (x, y) vertices of the n-th polyline.
std::vector<std::pair<double, double>> polyline(const std::string &svg, int n) {
  size_t at = 0;
  for (int i = 0; i <= n; ++i) at = svg.find("<polyline", at + 1);
  const size_t begin = svg.find("points=\"", at) + 8;
  std::istringstream in(svg.substr(begin, svg.find('"', begin) - begin));
  std::vector<std::pair<double, double>> out;
  double x, y;
  char comma;
  while (in >> x >> comma >> y) out.emplace_back(x, y);
  return out;
}

TEST(RenderSvg, MapsDataMonotonically) {
  const std::string svg = render_svg(two_series_chart());
  const auto pts = polyline(svg, 0);
  ASSERT_EQ(pts.size(), 4u);
  for (size_t i = 1; i < pts.size(); ++i) {
    EXPECT_GT(pts[i].first, pts[i - 1].first);    // larger x is further right
    EXPECT_LE(pts[i].second, pts[i - 1].second);  // larger y is higher up (smaller SVG y)
  }
  EXPECT_LT(pts[1].second, pts[0].second);
  // The second series' 30 GFLOP/s sits above the first's 8.
  EXPECT_LT(polyline(svg, 1).back().second, pts.back().second);
}

TEST(RenderSvg, StepLinesHoldEachValueUntilTheNextX) {
  LineChart c = two_series_chart();  // first series: (1, 2), (2, 5), (3, 5), (10, 8)
  c.step = true;
  const auto pts = polyline(render_svg(c), 0);
  const auto plain = polyline(render_svg(two_series_chart()), 0);
  ASSERT_GE(pts.size(), 2u);
  // Every segment is horizontal or vertical, and a vertical one only rises.
  for (size_t i = 1; i < pts.size(); ++i) {
    const bool flat = pts[i].second == pts[i - 1].second, upright = pts[i].first == pts[i - 1].first;
    EXPECT_TRUE(flat || upright) << "segment " << i;
    if (upright) {
      EXPECT_LT(pts[i].second, pts[i - 1].second) << "segment " << i;
    }
  }
  // The step passes through the data's first and last points, and holds 5 from x = 2 up to x = 10.
  EXPECT_EQ(pts.front(), plain.front());
  EXPECT_EQ(pts.back(), plain.back());
  EXPECT_EQ(pts.size(), 5u);  // (1,2) (2,2) (2,5) (10,5) (10,8): the flat (3,5) needs no vertex
  EXPECT_DOUBLE_EQ(pts[3].first, plain[3].first);
  EXPECT_DOUBLE_EQ(pts[3].second, plain[1].second);
}

TEST(RenderSvg, LogXSpacesDecadesEvenly) {
  LineChart c;
  c.log_x = true;
  c.series.push_back({"s", {{1, 1}, {10, 2}, {100, 3}, {0, 4}}});  // x = 0 cannot be drawn
  const std::string svg = render_svg(c);
  const auto pts = polyline(svg, 0);
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_NEAR(pts[1].first - pts[0].first, pts[2].first - pts[1].first, 0.02);
  EXPECT_EQ(xml_problem(svg), "");
}

TEST(RenderSvg, UsesPaletteColorsAndLegend) {
  LineChart c = two_series_chart();
  c.series[1].color = 3;
  const std::string svg = render_svg(c);
  EXPECT_NE(svg.find("stroke=\"" + chart_palette()[0] + "\""), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"" + chart_palette()[3] + "\""), std::string::npos);
  EXPECT_NE(svg.find(">random</text>"), std::string::npos);  // legend entry
}

TEST(RenderSvg, FaintSeriesStayOutOfTheLegend) {
  LineChart c = two_series_chart();
  c.series[0].opacity = 0.3;
  c.series[0].in_legend = false;
  const std::string svg = render_svg(c);
  EXPECT_NE(svg.find("stroke-opacity=\"0.30\""), std::string::npos);
  EXPECT_EQ(svg.find(">random</text>"), std::string::npos);
}

TEST(RenderSvg, EmptyChartShowsPlaceholder) {
  LineChart none;
  none.title = "nothing";
  const std::string svg = render_svg(none);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("no data to plot"), std::string::npos);
  EXPECT_EQ(svg.find("<polyline"), std::string::npos);

  LineChart empty_series;
  empty_series.series.push_back({"random", {}});
  EXPECT_NE(render_svg(empty_series).find("no data to plot"), std::string::npos);
}

TEST(RenderSvg, SinglePointGetsAMarker) {
  LineChart c;
  c.series.push_back({"one", {{5, 5}}});
  const std::string svg = render_svg(c);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("<circle"), std::string::npos);
}

}  // namespace
}  // namespace tlp
