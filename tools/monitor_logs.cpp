// The monitor's per-rendition score logs: see monitor_logs.h.
#include "monitor_logs.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ssim2/stats.h"

namespace ssim2 {
namespace monitor {

std::unique_ptr<RenditionLog> RenditionLog::Open(const std::string& dir, const std::string& name,
                                                 const LogRotation& rotation,
                                                 const LogRunInfo& info, double now,
                                                 std::string* error) {
  std::unique_ptr<RenditionLog> log(new RenditionLog());
  log->name_ = name;
  log->path_ = dir + "/" + name + ".csv";
  log->summary_path_ = dir + "/" + name + ".summary.json";
  log->rotation_ = rotation;
  log->info_ = info;
  if (!log->Start(now, error)) return nullptr;
  return log;
}

RenditionLog::~RenditionLog() {
  std::string ignored;
  Close(&ignored);
}

bool RenditionLog::Start(double now, std::string* error) {
  LogOptions options;
  options.flush_rows = true;  // a live log: readers see every row at once
  log_ = ScoreLog::Open(path_, options, error);
  scores_.clear();
  opened_at_ = now;
  return log_ != nullptr;
}

bool RenditionLog::Close(std::string* error) {
  if (!log_) return true;
  LogSummary summary;
  summary.scores = Summarize(scores_);
  bool ok = log_->Close(summary, info_);
  if (!ok) *error = log_->error();
  log_.reset();
  if (ok) ok = WriteSummaryFile(summary_path_, {SourceSummary{name_, summary}}, error);
  return ok;
}

bool RenditionLog::Rotate(double now, std::string* error) {
  if (!Close(error)) return false;
  // The log and its summary move up together: NAME.csv.K, NAME.summary.json.K.
  for (int i = rotation_.keep; i >= 1; --i) {
    for (const std::string* base : {&path_, &summary_path_}) {
      const std::string from = i == 1 ? *base : *base + "." + std::to_string(i - 1);
      const std::string to = *base + "." + std::to_string(i);
      if (std::rename(from.c_str(), to.c_str()) != 0 && errno != ENOENT) {
        *error = "cannot rename " + from + " to " + to + ": " + std::strerror(errno);
        return false;
      }
    }
  }
  return Start(now, error);
}

bool RenditionLog::Append(const ScoreRow& row, double now, std::string* error) {
  if (!log_) return false;
  struct stat st;
  const bool full = rotation_.max_bytes > 0 && stat(path_.c_str(), &st) == 0 &&
                    static_cast<std::uint64_t>(st.st_size) >= rotation_.max_bytes;
  const bool old = rotation_.max_age_s > 0 && now - opened_at_ >= rotation_.max_age_s;
  if ((full || old) && !Rotate(now, error)) return false;
  scores_.push_back(row.score);
  if (!log_->Append(row)) {
    *error = log_->error();
    log_.reset();
    return false;
  }
  return true;
}

}  // namespace monitor
}  // namespace ssim2
