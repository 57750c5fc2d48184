// The monitor's per-rendition score logs (docs/MONITOR.md, "Logs"): the one
// score-log schema (docs/LOGS.md, CSV), a row per scored frame flushed as it
// comes, rotated by size or age. No GStreamer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ssim2/score_log.h"

namespace ssim2 {
namespace monitor {

struct LogRotation {
  std::uint64_t max_bytes = 64ull << 20;  // rotate once the file is this large (0: never)
  double max_age_s = 0;                   // rotate after this long (0: never)
  int keep = 10;                          // rotated files kept: NAME.csv.1 (newest) .. .keep
};

// DIR/NAME.csv: while it is written, rows flushed one by one; rotation closes
// it with the summary of its rows (a complete, valid log) and renames it to
// NAME.csv.1, the older ones moving up to NAME.csv.<keep>, the oldest dropped.
class RenditionLog {
 public:
  // `now`: seconds on the caller's monotonic clock.
  static std::unique_ptr<RenditionLog> Open(const std::string& dir, const std::string& name,
                                            const LogRotation& rotation, const LogRunInfo& info,
                                            double now, std::string* error);
  ~RenditionLog();
  // Appends a row, rotating first when the file is full or old. false and
  // *error when a write failed (the log is then closed; nothing more is
  // written).
  bool Append(const ScoreRow& row, double now, std::string* error);
  // Closes the file and writes the summary of its rows beside it,
  // NAME.summary.json (the summary-file format of docs/LOGS.md: a CSV log
  // is rows only).
  bool Close(std::string* error);
  const std::string& path() const { return path_; }

 private:
  RenditionLog() = default;
  bool Start(double now, std::string* error);
  bool Rotate(double now, std::string* error);

  std::string name_;
  std::string path_;          // DIR/NAME.csv
  std::string summary_path_;  // DIR/NAME.summary.json
  LogRotation rotation_;
  LogRunInfo info_;
  std::unique_ptr<ScoreLog> log_;
  std::vector<double> scores_;  // of the current file, for its summary
  double opened_at_ = 0;
};

}  // namespace monitor
}  // namespace ssim2
