// SVG plot of per-frame SSIMULACRA 2 scores (--plot FILE.svg).
//
// What is drawn, for a reader who looks at it once:
//   - the score of every scored frame over the distorted frame number, as a
//     line (<polyline id="scores">, one vertex per scored frame) and, up to
//     kMaxPointMarkers frames, one dot per frame (<circle class="point">,
//     hovering shows frame and score);
//   - the mean and the 5th percentile as horizontal dashed lines, labelled
//     with their values at the right end (<line id="mean">, <line id="p5">);
//   - the worst frames (NumWorstToMark(): 3, or 1 % when more, at most 10)
//     circled in red and labelled "#frame score" (<g class="worst">);
//   - axes with ticks, axis titles and a title line with the file names and
//     the frame count.
// Rows of several sources (ssim2 REF DIST1 DIST2 ...) are drawn as one line
// per source (<polyline class="scores">, one vertex per scored frame), named
// in the legend, without the one-file marks (mean, p5, worst frames).
// The document is well-formed standalone SVG 1.1 without scripts or external
// resources. No GStreamer dependency.
#pragma once

#include <string>
#include <vector>

#include "ssim2/stats.h"
#include "video_report.h"

namespace ssim2 {
namespace cli {

constexpr std::size_t kMaxPointMarkers = 1000;

std::string RenderSvgPlot(const std::vector<ScoreRow>& frames, const Summary& summary,
                          const LogRunInfo& info);

bool WriteSvgPlot(const std::string& path, const std::vector<ScoreRow>& frames,
                  const Summary& summary, const LogRunInfo& info, std::string* error);

}  // namespace cli
}  // namespace ssim2
