#include "tuner/bench/svg_line_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace tlp {
namespace {

// Room around the plot area: the y tick labels on the left, the legend on the
// right (at least kMarginRight, more for long series names).
constexpr double kMarginLeft = 72, kMarginRight = 220, kMarginTop = 44, kMarginBottom = 56;
constexpr double kLegendCharWidth = 7;  // 12 px sans-serif, a generous average

double legend_margin(const LineChart &chart) {
  size_t longest = 0;
  for (const auto &s : chart.series)
    if (s.in_legend) longest = std::max(longest, s.name.size());
  return std::max(kMarginRight, 14 + 28 + kLegendCharWidth * double(longest) + 10);
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string tick_label(double v) {
  if (std::fabs(v) < 1e-12) v = 0;  // -0 and rounding noise
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The smallest step of 1, 2 or 5 times a power of ten that is >= `raw`.
double nice_step(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw * (1 - 1e-9)) return m * magnitude;
  return 10 * magnitude;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  bool empty() const { return !(lo <= hi); }
  void add(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }
};

bool plottable(const LineChart &chart, const std::pair<double, double> &p) {
  return std::isfinite(p.first) && std::isfinite(p.second) && (!chart.log_x || p.first > 0);
}

// Where the plot area lies and how data maps onto it.
struct Frame {
  double left, top, width, height;
  std::vector<double> x_ticks, y_ticks;
  bool log_x;

  double x(double v) const {
    const double a = axis(x_ticks.front()), b = axis(x_ticks.back());
    return left + (axis(v) - a) / (b - a) * width;
  }
  double y(double v) const {
    const double a = y_ticks.front(), b = y_ticks.back();
    return top + height - (v - a) / (b - a) * height;
  }
  double axis(double v) const { return log_x ? std::log10(v) : v; }
};

Frame make_frame(const LineChart &chart) {
  Range xs, ys;
  for (const auto &s : chart.series)
    for (const auto &p : s.points)
      if (plottable(chart, p)) xs.add(p.first), ys.add(p.second);
  if (xs.empty()) xs = {chart.log_x ? 1.0 : 0.0, chart.log_x ? 10.0 : 1.0};
  if (ys.empty()) ys = {0, 1};
  if (chart.y_from_zero) ys.lo = std::min(ys.lo, 0.0);

  Frame f;
  f.left = kMarginLeft;
  f.top = kMarginTop;
  f.width = std::max(40.0, chart.width - kMarginLeft - legend_margin(chart));
  f.height = std::max(40.0, chart.height - kMarginTop - kMarginBottom);
  f.log_x = chart.log_x;
  f.x_ticks = chart.log_x ? log_ticks(xs.lo, xs.hi) : nice_ticks(xs.lo, xs.hi);
  f.y_ticks = nice_ticks(ys.lo, ys.hi, 7);
  return f;
}

std::string text(double x, double y, const std::string &s, const std::string &attrs) {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + (attrs.empty() ? "" : " " + attrs) + ">" + xml_escape(s) +
         "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string &attrs) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\" " +
         attrs + "/>\n";
}

std::string draw_axes(const LineChart &chart, const Frame &f) {
  std::string out = "<g font-family=\"sans-serif\" font-size=\"11\" fill=\"#333\">\n";
  const double bottom = f.top + f.height;
  for (double t : f.x_ticks) {
    const double px = f.x(t);
    out += line(px, f.top, px, bottom, "stroke=\"#e4e4e4\"");
    out += text(px, bottom + 16, tick_label(t), "text-anchor=\"middle\"");
  }
  for (double t : f.y_ticks) {
    const double py = f.y(t);
    out += line(f.left, py, f.left + f.width, py, "stroke=\"#e4e4e4\"");
    out += text(f.left - 6, py + 4, tick_label(t), "text-anchor=\"end\"");
  }
  out += "<rect x=\"" + num(f.left) + "\" y=\"" + num(f.top) + "\" width=\"" + num(f.width) + "\" height=\"" +
         num(f.height) + "\" fill=\"none\" stroke=\"#555\"/>\n";
  out += text(f.left + f.width / 2, bottom + 40, chart.x_label, "text-anchor=\"middle\" font-size=\"13\"");
  const double cy = f.top + f.height / 2;
  out += text(18, cy, chart.y_label,
              "text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 18 " + num(cy) + ")\"");
  return out + "</g>\n";
}

const std::string &series_color(const ChartSeries &s, size_t position) {
  const auto &palette = chart_palette();
  const size_t index = s.color >= 0 ? static_cast<size_t>(s.color) : position;
  return palette[index % palette.size()];
}

// The polyline's vertices; a step chart holds each y until the next x.
std::string polyline_points(const LineChart &chart, const Frame &f, const ChartSeries &s) {
  std::vector<std::pair<double, double>> page;  // in SVG coordinates
  for (const auto &p : s.points)
    if (plottable(chart, p)) page.emplace_back(f.x(p.first), f.y(p.second));
  std::string out;
  for (size_t i = 0; i < page.size(); ++i) {
    const auto [px, py] = page[i];
    if (chart.step && i > 0) {
      const double held = page[i - 1].second;
      // A flat step needs no vertex of its own: the next rise, or the final
      // point, draws it. This keeps long flat best-so-far runs small.
      if (py == held && i + 1 < page.size()) continue;
      if (py != held) out += num(px) + "," + num(held) + " ";
    }
    out += num(px) + "," + num(py) + " ";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

std::string draw_series(const LineChart &chart, const Frame &f, const ChartSeries &s, size_t position) {
  const std::string points = polyline_points(chart, f, s);
  if (points.empty()) return "";
  const std::string &color = series_color(s, position);
  const std::string opacity = s.opacity < 1 ? " stroke-opacity=\"" + num(std::max(0.0, s.opacity)) + "\"" : "";
  std::string out = "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"" + (s.opacity < 1 ? "1" : "2") +
                    "\"" + opacity + " points=\"" + points + "\"><title>" + xml_escape(s.name) +
                    "</title></polyline>\n";
  // A lone point draws no line; mark it so it shows.
  if (points.find(' ') == std::string::npos) {
    const size_t comma = points.find(',');
    out += "<circle cx=\"" + points.substr(0, comma) + "\" cy=\"" + points.substr(comma + 1) + "\" r=\"3\" fill=\"" +
           color + "\"/>\n";
  }
  return out;
}

std::string draw_legend(const LineChart &chart, const Frame &f) {
  std::string out = "<g font-family=\"sans-serif\" font-size=\"12\" fill=\"#333\">\n";
  const double x = f.left + f.width + 14;
  double y = f.top + 8;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries &s = chart.series[i];
    if (!s.in_legend) continue;
    out += line(x, y, x + 22, y, "stroke=\"" + series_color(s, i) + "\" stroke-width=\"2\"");
    out += text(x + 28, y + 4, s.name, "");
    y += 18;
  }
  return out + "</g>\n";
}

bool has_data(const LineChart &chart) {
  for (const auto &s : chart.series)
    for (const auto &p : s.points)
      if (plottable(chart, p)) return true;
  return false;
}

}  // namespace

const std::vector<std::string> &chart_palette() {
  static const std::vector<std::string> palette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                   "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  return palette;
}

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
  max_ticks = std::max(2, max_ticks);
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= std::fabs(hi) * 1e-12) {  // widen a single value into a range
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo = lo == 0 ? 0 : lo - pad;
    hi = hi + pad;
  }
  double step = nice_step((hi - lo) / (max_ticks - 1));
  for (;;) {
    const double first = std::floor(lo / step + 1e-9) * step;
    const double last = std::ceil(hi / step - 1e-9) * step;
    const int count = static_cast<int>(std::llround((last - first) / step)) + 1;
    if (count <= max_ticks) {
      std::vector<double> ticks;
      for (int i = 0; i < count; ++i) ticks.push_back(first + i * step);
      return ticks;
    }
    step = nice_step(step * 1.5);  // the next 1-2-5 step up
  }
}

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0)) lo = std::min(1.0, hi > 0 ? hi : 1.0);
  if (hi < lo) hi = lo;
  const int first_decade = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int last_decade = std::max(first_decade + 1, static_cast<int>(std::ceil(std::log10(hi) - 1e-9)));
  const bool fine = last_decade - first_decade <= 2;
  std::vector<double> candidates;
  for (int d = first_decade; d <= last_decade; ++d)
    for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1})
      candidates.push_back(m * std::pow(10.0, d));
  // Keep the candidates from the last one <= lo to the first one >= hi.
  size_t begin = 0, end = candidates.size();
  while (begin + 1 < candidates.size() && candidates[begin + 1] <= lo * (1 + 1e-9)) ++begin;
  while (end - 1 > begin + 1 && candidates[end - 2] >= hi * (1 - 1e-9)) --end;
  return std::vector<double>(candidates.begin() + begin, candidates.begin() + end);
}

std::string xml_escape(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_svg(const LineChart &chart) {
  const Frame f = make_frame(chart);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(chart.width) + "\" height=\"" +
         std::to_string(chart.height) + "\" viewBox=\"0 0 " + std::to_string(chart.width) + " " +
         std::to_string(chart.height) + "\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += text(chart.width / 2.0, 24, chart.title,
              "text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"15\" font-weight=\"bold\"");
  out += draw_axes(chart, f);
  if (!has_data(chart)) {
    out += text(f.left + f.width / 2, f.top + f.height / 2, "no data to plot",
                "text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"14\" fill=\"#888\"");
    return out + "</svg>\n";
  }
  for (size_t i = 0; i < chart.series.size(); ++i) out += draw_series(chart, f, chart.series[i], i);
  out += draw_legend(chart, f);
  return out + "</svg>\n";
}

}  // namespace tlp
