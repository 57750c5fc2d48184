#include "plot_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "text_format.h"

namespace ssim2 {
namespace cli {

namespace {

// Canvas and plot area, in SVG user units (pixels).
constexpr double kWidth = 960, kHeight = 440;
constexpr double kLeft = 70, kRight = 130, kTop = 56, kBottom = 56;
constexpr double kPlotW = kWidth - kLeft - kRight;
constexpr double kPlotH = kHeight - kTop - kBottom;

const char* const kLineColor = "#1f77b4";
// One colour per source of a ladder plot (the first is the one-file colour).
const char* const kSourceColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
const char* const kMeanColor = "#2ca02c";
const char* const kP5Color = "#ff7f0e";
const char* const kWorstColor = "#d62728";
// A white outline under label text, so that lines crossing it do not hide it.
const char* const kHalo =
    "stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"";

// Coordinates and labels: a '.' decimal separator whatever the locale.
std::string Num(double v, int decimals = 2) { return FormatFixed(v, decimals); }

std::string BaseName(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `target`
// intervals over `span`.
double NiceStep(double span, int target) {
  if (!(span > 0.0)) return 1.0;
  double raw = span / target;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double step = norm < 1.5 ? 1.0 : norm < 3.5 ? 2.0 : norm < 7.5 ? 5.0 : 10.0;
  return step * mag;
}

// A statistic across the plot at height `y` (dashed by `dash`), with its
// name and `value` at the right at height `label_y`; `id` names both.
std::string StatisticLine(const char* id, double value, double y, double label_y,
                          const char* color, const char* dash) {
  return "<line id=\"" + std::string(id) + "\" class=\"" + id + "\" x1=\"" + Num(kLeft) +
         "\" y1=\"" + Num(y) + "\" x2=\"" + Num(kLeft + kPlotW) + "\" y2=\"" + Num(y) +
         "\" stroke=\"" + color + "\" stroke-width=\"1.5\" stroke-dasharray=\"" + dash +
         "\"/>\n" + "<text id=\"" + id + "-label\" " + kHalo + " x=\"" +
         Num(kLeft + kPlotW + 6) + "\" y=\"" + Num(label_y) + "\" fill=\"" + color + "\">" + id +
         " " + Num(value) + "</text>\n";
}

int DecimalsFor(double step) {
  if (step >= 1.0) return 0;
  return std::min(6, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
}

}  // namespace

std::string RenderSvgPlot(const std::vector<ScoreRow>& frames, const Summary& summary,
                          const LogRunInfo& info) {
  // Rows of several sources (a ladder): one line per source, named in the
  // legend, instead of the one-file marks (mean, p5, worst frames).
  std::vector<std::string> sources;  // in the order of their first row
  for (const ScoreRow& f : frames) {
    if (!f.source.empty() && std::find(sources.begin(), sources.end(), f.source) == sources.end()) {
      sources.push_back(f.source);
    }
  }
  const bool ladder = !sources.empty();
  // Data ranges.
  double x_lo = 0, x_hi = 1;
  double y_lo = 0, y_hi = 100;
  if (!frames.empty()) {
    x_lo = static_cast<double>(frames.front().frame);
    x_hi = x_lo;
    y_lo = y_hi = frames.front().score;
    for (const ScoreRow& f : frames) {
      x_lo = std::min(x_lo, static_cast<double>(f.frame));
      x_hi = std::max(x_hi, static_cast<double>(f.frame));
      if (std::isfinite(f.score)) {
        y_lo = std::min(y_lo, f.score);
        y_hi = std::max(y_hi, f.score);
      }
    }
    if (std::isfinite(summary.p5)) y_lo = std::min(y_lo, summary.p5);
    if (std::isfinite(summary.mean)) {
      y_lo = std::min(y_lo, summary.mean);
      y_hi = std::max(y_hi, summary.mean);
    }
  }
  if (x_hi - x_lo < 1.0) {
    x_lo -= 1.0;
    x_hi += 1.0;
    if (x_lo < 0) {
      x_hi -= x_lo;
      x_lo = 0;
    }
  }
  if (y_hi - y_lo < 1.0) {  // flat line (e.g. identical inputs): show +-1
    y_lo -= 1.0;
    y_hi += 1.0;
  }
  // Room under the lowest point for the worst frames' labels.
  y_lo -= 0.08 * (y_hi - y_lo);
  double y_step = NiceStep(y_hi - y_lo, 6);
  y_lo = std::floor(y_lo / y_step) * y_step;
  y_hi = std::ceil(y_hi / y_step) * y_step;
  double x_step = std::max(1.0, NiceStep(x_hi - x_lo, 10));
  x_step = std::round(x_step);

  auto px = [&](double frame) { return kLeft + (frame - x_lo) / (x_hi - x_lo) * kPlotW; };
  auto py = [&](double score) {
    double s = std::isfinite(score) ? score : y_lo;
    return kTop + (y_hi - s) / (y_hi - y_lo) * kPlotH;
  };

  std::string o;
  o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + Num(kWidth, 0) +
       "\" height=\"" + Num(kHeight, 0) + "\" viewBox=\"0 0 " + Num(kWidth, 0) + " " +
       Num(kHeight, 0) + "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  const std::string title =
      "SSIMULACRA 2.1: " +
      (ladder ? std::to_string(sources.size()) + " distorted videos" : BaseName(info.distorted)) +
      " vs " + BaseName(info.reference);
  o += "<title>" + XmlEscape(title) + "</title>\n";
  o += "<rect x=\"0\" y=\"0\" width=\"" + Num(kWidth, 0) + "\" height=\"" + Num(kHeight, 0) +
       "\" fill=\"#ffffff\"/>\n";

  // Title and a one-line summary.
  o += "<text x=\"" + Num(kLeft) + "\" y=\"22\" font-size=\"15\" font-weight=\"bold\">" +
       XmlEscape(title) + "</text>\n";
  std::string subtitle =
      std::to_string(ladder ? frames.size() : summary.frames) + " frames";
  if (info.every > 1) subtitle += " (every " + std::to_string(info.every) + ")";
  if (info.offset > 0) subtitle += ", offset " + std::to_string(info.offset);
  if (ladder) {
    subtitle += " \u00b7 higher is better";
  } else if (summary.frames > 0) {
    const std::string sep = " \u00b7 ";  // middle dot
    subtitle += sep + "mean " + Num(summary.mean) + sep + "p5 " + Num(summary.p5) + sep +
                "min " + Num(summary.min) + sep + "max " + Num(summary.max) + sep +
                "higher is better";
  }
  o += "<text x=\"" + Num(kLeft) + "\" y=\"41\" fill=\"#555555\">" + XmlEscape(subtitle) +
       "</text>\n";

  // Grid, ticks and tick labels.
  o += "<g id=\"grid\" stroke=\"#e5e5e5\" stroke-width=\"1\">\n";
  for (double y = y_lo; y <= y_hi + y_step * 1e-6; y += y_step) {
    o += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(py(y)) + "\" x2=\"" +
         Num(kLeft + kPlotW) + "\" y2=\"" + Num(py(y)) + "\"/>\n";
  }
  o += "</g>\n";
  o += "<g id=\"y-ticks\" text-anchor=\"end\" fill=\"#333333\">\n";
  const int y_decimals = DecimalsFor(y_step);
  for (double y = y_lo; y <= y_hi + y_step * 1e-6; y += y_step) {
    double shown = std::fabs(y) < y_step * 1e-6 ? 0.0 : y;
    o += "<text x=\"" + Num(kLeft - 8) + "\" y=\"" + Num(py(y) + 4) + "\">" +
         Num(shown, y_decimals) + "</text>\n";
  }
  o += "</g>\n";
  o += "<g id=\"x-ticks\" text-anchor=\"middle\" fill=\"#333333\">\n";
  for (double x = std::ceil(x_lo / x_step) * x_step; x <= x_hi + 1e-9; x += x_step) {
    o += "<line x1=\"" + Num(px(x)) + "\" y1=\"" + Num(kTop + kPlotH) + "\" x2=\"" +
         Num(px(x)) + "\" y2=\"" + Num(kTop + kPlotH + 5) + "\" stroke=\"#333333\"/>\n";
    o += "<text x=\"" + Num(px(x)) + "\" y=\"" + Num(kTop + kPlotH + 19) + "\">" +
         Num(x, 0) + "</text>\n";
  }
  o += "</g>\n";

  // Axes and their titles.
  o += "<g id=\"axes\" stroke=\"#333333\" stroke-width=\"1\">\n";
  o += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(kLeft) +
       "\" y2=\"" + Num(kTop + kPlotH) + "\"/>\n";
  o += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(kTop + kPlotH) + "\" x2=\"" +
       Num(kLeft + kPlotW) + "\" y2=\"" + Num(kTop + kPlotH) + "\"/>\n";
  o += "</g>\n";
  o += "<text id=\"x-label\" x=\"" + Num(kLeft + kPlotW / 2) + "\" y=\"" +
       Num(kHeight - 12) + "\" text-anchor=\"middle\">distorted frame</text>\n";
  o += "<text id=\"y-label\" transform=\"translate(18 " + Num(kTop + kPlotH / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">SSIMULACRA 2 score</text>\n";

  // Mean and p5 lines with labels at the right; labels kept apart.
  if (!ladder && summary.frames > 0 && std::isfinite(summary.mean) &&
      std::isfinite(summary.p5)) {
    double y_mean = py(summary.mean), y_p5 = py(summary.p5);
    double label_mean = y_mean + 4, label_p5 = y_p5 + 4;
    if (label_p5 - label_mean < 14) {  // p5 is below the mean on screen
      double mid = (label_mean + label_p5) / 2;
      label_mean = mid - 7;
      label_p5 = mid + 7;
    }
    o += StatisticLine("mean", summary.mean, y_mean, label_mean, kMeanColor, "6 4");
    o += StatisticLine("p5", summary.p5, y_p5, label_p5, kP5Color, "2 3");
  }

  if (ladder) {
    // One polyline per source, one vertex per scored frame of it.
    for (std::size_t k = 0; k < sources.size(); ++k) {
      o += "<polyline id=\"scores-" + std::to_string(k) + "\" class=\"scores\" fill=\"none\" " +
           "stroke=\"" + kSourceColors[k % std::size(kSourceColors)] +
           "\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"";
      bool first = true;
      for (const ScoreRow& f : frames) {
        if (f.source != sources[k]) continue;
        o += (first ? "" : " ") + Num(px(static_cast<double>(f.frame))) + "," + Num(py(f.score));
        first = false;
      }
      o += "\"><title>" + XmlEscape(sources[k]) + "</title></polyline>\n";
    }
    double lx = kLeft, ly = kHeight - 16;
    o += "<g id=\"legend\" font-size=\"11\">\n";
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const std::string name = BaseName(sources[k]);
      o += "<line x1=\"" + Num(lx) + "\" y1=\"" + Num(ly) + "\" x2=\"" + Num(lx + 18) +
           "\" y2=\"" + Num(ly) + "\" stroke=\"" + kSourceColors[k % std::size(kSourceColors)] +
           "\" stroke-width=\"1.5\"/>\n";
      o += "<text class=\"source\" x=\"" + Num(lx + 22) + "\" y=\"" + Num(ly + 4) + "\">" +
           XmlEscape(name) + "</text>\n";
      lx += 34 + 6.4 * static_cast<double>(name.size());
    }
    o += "</g>\n</svg>\n";
    return o;
  }

  // The scores: one polyline vertex per scored frame.
  o += "<polyline id=\"scores\" class=\"scores\" fill=\"none\" stroke=\"" +
       std::string(kLineColor) + "\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i > 0) o += ' ';
    o += Num(px(static_cast<double>(frames[i].frame))) + "," + Num(py(frames[i].score));
  }
  o += "\"/>\n";
  if (frames.size() <= kMaxPointMarkers) {
    double r = frames.size() <= 200 ? 2.5 : 1.5;
    o += "<g id=\"points\" fill=\"" + std::string(kLineColor) + "\">\n";
    for (const ScoreRow& f : frames) {
      o += "<circle class=\"point\" cx=\"" + Num(px(static_cast<double>(f.frame))) +
           "\" cy=\"" + Num(py(f.score)) + "\" r=\"" + Num(r, 1) + "\"><title>frame " +
           std::to_string(f.frame) + ": " + Num(f.score, 3) + "</title></circle>\n";
    }
    o += "</g>\n";
  }

  // The worst frames, circled and labelled. Labels are placed greedily, worst
  // first: under the point, else above, else further away, never overlapping
  // an earlier label.
  std::vector<std::size_t> worst = WorstFrames(frames, NumWorstToMark(frames.size()));
  o += "<g id=\"worst\" class=\"worst\">\n";
  struct Box {
    double x0, y0, x1, y1;
  };
  std::vector<Box> placed;
  for (std::size_t rank = 0; rank < worst.size(); ++rank) {
    const ScoreRow& f = frames[worst[rank]];
    const double cx = px(static_cast<double>(f.frame)), cy = py(f.score);
    const std::string label = "#" + std::to_string(f.frame) + " " + Num(f.score);
    const double w = 6.4 * static_cast<double>(label.size()), h = 12;
    // Horizontal placement: centred, kept inside the plot area.
    double x0 = std::clamp(cx - w / 2, kLeft + 2, kLeft + kPlotW - w - 2);
    double best_y = cy + 18;
    for (int attempt = 0; attempt < 12; ++attempt) {
      const int step = attempt / 2;
      const double y = attempt % 2 == 0 ? cy + 19 + 13 * step : cy - 10 - 13 * step;
      if (y - h < kTop || y > kTop + kPlotH - 2) continue;
      Box box{x0, y - h + 2, x0 + w, y + 2};
      bool overlaps = false;
      for (const Box& p : placed) {
        if (box.x0 < p.x1 && p.x0 < box.x1 && box.y0 < p.y1 && p.y0 < box.y1) overlaps = true;
      }
      best_y = y;
      if (!overlaps) break;
    }
    placed.push_back(Box{x0, best_y - h + 2, x0 + w, best_y + 2});
    o += "<circle class=\"worst-marker\" cx=\"" + Num(cx) + "\" cy=\"" + Num(cy) +
         "\" r=\"6\" fill=\"none\" stroke=\"" + kWorstColor + "\" stroke-width=\"2\"><title>" +
         "worst #" + std::to_string(rank + 1) + ": frame " + std::to_string(f.frame) + ": " +
         Num(f.score, 3) + "</title></circle>\n";
    o += "<text class=\"worst-label\" x=\"" + Num(x0) + "\" y=\"" + Num(best_y) +
         "\" fill=\"" + kWorstColor + "\" " + kHalo + " font-size=\"11\" data-frame=\"" +
         std::to_string(f.frame) + "\">" + XmlEscape(label) + "</text>\n";
  }
  o += "</g>\n";

  // Legend (bottom left, under the axis).
  double lx = kLeft, ly = kHeight - 16;
  o += "<g id=\"legend\" font-size=\"11\">\n";
  o += "<line x1=\"" + Num(lx) + "\" y1=\"" + Num(ly) + "\" x2=\"" + Num(lx + 18) +
       "\" y2=\"" + Num(ly) + "\" stroke=\"" + kLineColor + "\" stroke-width=\"1.5\"/>\n";
  o += "<text x=\"" + Num(lx + 22) + "\" y=\"" + Num(ly + 4) + "\">score</text>\n";
  o += "<circle cx=\"" + Num(lx + 75) + "\" cy=\"" + Num(ly) + "\" r=\"5\" fill=\"none\" stroke=\"" +
       kWorstColor + "\" stroke-width=\"2\"/>\n";
  o += "<text x=\"" + Num(lx + 86) + "\" y=\"" + Num(ly + 4) + "\">worst frames (#frame score)</text>\n";
  o += "</g>\n";

  o += "</svg>\n";
  return o;
}

bool WriteSvgPlot(const std::string& path, const std::vector<ScoreRow>& frames,
                  const Summary& summary, const LogRunInfo& info, std::string* error) {
  return WriteTextFile(path, RenderSvgPlot(frames, summary, info), error);
}

}  // namespace cli
}  // namespace ssim2
