// A small SVG writer for line charts: the benchmark's best-so-far plots. It draws
// axes with "nice" ticks (steps of 1, 2 or 5 times a power of ten), a title, axis
// labels, one polyline per series in a fixed palette, and a legend. It has no
// dependencies so reports can carry plots without a plotting library.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tlp {

struct ChartSeries {
  std::string name;                               // legend text
  std::vector<std::pair<double, double>> points;  // (x, y), in increasing x
  int color = -1;                                 // palette index; -1: the series' position in the chart
  double opacity = 1;                             // below 1 draws a faint line, e.g. one seed of several
  bool in_legend = true;
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<ChartSeries> series;
  bool log_x = false;       // log-scale x; points with x <= 0 are left out
  bool step = false;        // hold each y until the next x, as best-so-far curves do
  bool y_from_zero = true;  // the y axis starts at 0 rather than the lowest y
  int width = 760, height = 460;
};

// The fixed series colors, as "#rrggbb"; a palette index wraps around.
const std::vector<std::string> &chart_palette();

// Evenly spaced ticks with a step of 1, 2 or 5 times a power of ten, at most
// `max_ticks` (>= 2) of them, the first <= lo and the last >= hi. A range of zero
// width is widened first (to [0, 1] around 0).
std::vector<double> nice_ticks(double lo, double hi, int max_ticks = 8);

// Ticks for a log axis over [lo, hi], lo > 0: powers of ten, or 1-2-5 multiples
// of them when the range spans at most two decades. The first <= lo, the last >= hi.
std::vector<double> log_ticks(double lo, double hi);

// Escapes &, <, >, " and ' for XML text and attribute values.
std::string xml_escape(const std::string &text);

// The chart as a standalone SVG document. A chart with no plottable point draws
// its frame and title with "no data to plot" in the middle.
std::string render_svg(const LineChart &chart);

}  // namespace tlp
