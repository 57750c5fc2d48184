// Output of the ssim2 tool's video mode apart from the score log
// (ssim2/score_log.h writes the CSV and JSON files): the worst frames, the
// progress line and the summary printed at the end. No GStreamer dependency,
// so that it can be unit-tested on its own.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ssim2/score_log.h"
#include "ssim2/stats.h"

namespace ssim2 {
namespace cli {

// The tool's rows are the score log's rows (`frame`: the pair index plus
// --offset); what was compared goes in a LogRunInfo.

// Indices into `frames` of the `count` lowest scores, lowest first (ties: the
// earlier frame first).
std::vector<std::size_t> WorstFrames(const std::vector<ScoreRow>& frames, std::size_t count);

// How many worst frames the plot marks: 3, or 1 % of the frames when that is
// more, at most 10.
std::size_t NumWorstToMark(std::size_t num_frames);

// The summary printed on stdout at the end, one "key  value" line each (the
// fields of kSummaryFields, '_' printed as a space).
std::string RenderSummary(const std::vector<ScoreRow>& frames, const Summary& summary,
                          const LogRunInfo& info);

// One lock event of content alignment (the element's ssim2-sync message).
struct LockEvent {
  std::string state;  // "locked", "lost", "relocked"
  std::uint64_t frame = 0;
  std::int64_t offset = 0;
  double confidence = 0.0;
};

// The summary block's lines of --alignment content: the offset of each lock
// (with the frame it starts at) or of the loss, then the dropped, repeated
// and unaligned counts (empty when unknown).
std::string RenderAlignment(const std::vector<LockEvent>& locks, const LogSummary& summary);

// Writes `text` to `path`; false and *error ("cannot write PATH: reason").
bool WriteTextFile(const std::string& path, const std::string& text, std::string* error);

// Escapes &, <, >, " and ' for XML text and attributes.
std::string XmlEscape(const std::string& text);

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
