// Output of the ssim2 tool's video mode: per-frame records, the CSV and JSON
// files, the progress line and the summary printed at the end. No GStreamer
// dependency, so that the writers can be unit-tested on their own.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ssim2/stats.h"

namespace ssim2 {
namespace cli {

// One scored pair.
struct FrameScore {
  std::uint64_t frame = 0;  // distorted frame number: pair index + --offset
  std::uint64_t pair = 0;   // pair index as posted by ssim2compare ("index")
  double time = -1.0;       // stream time of the distorted frame in seconds; < 0: unknown
  double score = 0.0;
};

// What was compared, for the headers of the files and the plot's title.
struct VideoRunInfo {
  std::string reference;
  std::string distorted;
  std::string alignment = "running-time";
  std::uint64_t offset = 0;
  std::uint64_t every = 1;
  int width = 0;
  int height = 0;
  double elapsed_s = 0.0;  // wall clock from start to the last score
  std::vector<std::string> warnings;
};

// Scores are written the way the reference prints them: "%.8f".
std::string FormatScore(double score);

// Indices into `frames` of the `count` lowest scores, lowest first (ties: the
// earlier frame first).
std::vector<std::size_t> WorstFrames(const std::vector<FrameScore>& frames,
                                     std::size_t count);

// How many worst frames the plot marks: 3, or 1 % of the frames when that is
// more, at most 10.
std::size_t NumWorstToMark(std::size_t num_frames);

// CSV: header "frame,time,score", one row per scored pair, then the summary as
// comment lines "# key,value" (frames, mean, stddev, min, p1, p5, p50, p95,
// p99, max, harmonic_mean). Returns false and sets *error on failure.
bool WriteCsv(const std::string& path, const std::vector<FrameScore>& frames,
              const Summary& summary, const VideoRunInfo& info, std::string* error);
std::string RenderCsv(const std::vector<FrameScore>& frames, const Summary& summary,
                      const VideoRunInfo& info);

// JSON: {"reference", "distorted", "width", "height", "alignment", "offset",
// "every", "frames": [{"frame", "pair", "time", "score"}...], "summary": {...},
// "elapsed_s", "throughput_fps", "warnings": [...]}; unknown numbers are null.
bool WriteJson(const std::string& path, const std::vector<FrameScore>& frames,
               const Summary& summary, const VideoRunInfo& info, std::string* error);
std::string RenderJson(const std::vector<FrameScore>& frames, const Summary& summary,
                       const VideoRunInfo& info);

// The summary printed on stdout at the end, one "key  value" line each.
std::string RenderSummary(const std::vector<FrameScore>& frames, const Summary& summary,
                          const VideoRunInfo& info);

// Writes `text` to `path`; false and *error ("cannot write PATH: reason").
bool WriteTextFile(const std::string& path, const std::string& text, std::string* error);

// Escapes &, <, >, " and ' for XML text and attributes.
std::string XmlEscape(const std::string& text);
// Escapes a string for a JSON string literal (without the quotes).
std::string JsonEscape(const std::string& text);

// The progress line on stderr: "frames done/total (percent), fps, ETA",
// redrawn in place at most 10 times a second. Does nothing when disabled
// (stderr not a terminal, or --quiet).
class ProgressLine {
 public:
  ProgressLine(std::FILE* out, bool enabled) : out_(out), enabled_(enabled) {}
  ~ProgressLine() { Finish(); }
  bool enabled() const { return enabled_; }
  // `total` 0: unknown. `force` redraws even if the last draw was recent.
  void Update(std::uint64_t done, std::uint64_t total, double elapsed_s, bool force = false);
  // Erases the line (before anything else is printed on stderr).
  void Clear();
  void Finish() { Clear(); }
  // The text of the line, without the carriage return (for tests).
  static std::string Format(std::uint64_t done, std::uint64_t total, double elapsed_s);

 private:
  std::FILE* out_;
  bool enabled_;
  bool drawn_ = false;
  double last_draw_s_ = -1.0;
};

// True when stderr is a terminal.
bool StderrIsTerminal();

}  // namespace cli
}  // namespace ssim2
