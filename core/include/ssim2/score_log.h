// The score log: per-frame scores and their summary, written as CSV, JSON or
// libvmaf's JSON log; and the summary file. One schema (docs/LOGS.md) for the
// element's stats-file and summary-file and the ssim2 tool's files. No
// GStreamer dependency.
//
// Numbers are written locale-independently (a '.' decimal separator whatever
// LC_NUMERIC says) and every JSON string is valid UTF-8.
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ssim2/stats.h"

namespace ssim2 {

// A time in nanoseconds, or kNoTime when unknown (the value of
// GST_CLOCK_TIME_NONE, so GstClockTime values can be stored as they are).
inline constexpr std::uint64_t kNoTime = std::numeric_limits<std::uint64_t>::max();

// One scored pair.
struct ScoreRow {
  std::uint64_t index = 0;  // pair index, counting pairs skipped by frame-step / --every
  std::uint64_t frame = 0;  // number of the distorted frame in its stream, from 0
  std::uint64_t pts = kNoTime;           // distorted buffer's timestamp
  std::uint64_t stream_time = kNoTime;   // its position in the stream
  std::uint64_t running_time = kNoTime;  // what the pairing by running time compared
  std::uint64_t duration = kNoTime;
  double score = 0.0;
  // The reference frame it was scored against, counted from 0 like `frame`
  // (so ref_frame - frame is the pair's offset); -1: unknown (empty / null).
  std::int64_t ref_frame = -1;
  // Which distorted input the row belongs to, when one log holds several
  // (the `source` column); empty with one distorted input.
  std::string source;

  // Stream time, else the timestamp, in seconds; < 0 when neither is known.
  double Seconds() const;
};

// ---------------------------------------------------------------------------
// One input ended before the other

enum class Input { kRef, kDist };
// "ref" / "dist" (the element's pad names).
const char* InputName(Input input);

// How the two inputs ended.
struct InputEnds {
  std::uint64_t ref_frames = 0;   // frames the reference delivered (or its known total)
  std::uint64_t dist_frames = 0;  // likewise for the distorted input
  bool ref_ended = false;         // the reference reached its end
  bool dist_ended = false;
  // Distorted frames that arrived after the reference had ended, so were not scored.
  std::uint64_t dist_after_ref_end = 0;
  // Reference frames known to lie after the end of the distorted input, so not scored.
  std::uint64_t ref_after_dist_end = 0;
};

// The input that ended while the other still had frames to score: it ended,
// and frames of the other are known to come after its end. One input
// reaching its end before the other merely delivered its own end-of-stream is
// no evidence (both may have had as many frames), so no value then, nor when
// nothing was left unscored.
std::optional<Input> EndedFirst(const InputEnds& ends);

// The warning's text: "the ref input ended first: ref N frames, dist M frames,
// K pairs scored". `long_names` says "reference"/"distorted" instead of the
// pad names (the tool's wording).
std::string EndedFirstMessage(Input first, const InputEnds& ends, std::uint64_t pairs_scored,
                              bool long_names = false);

// ---------------------------------------------------------------------------
// What the log's end carries

struct SourceSummary;

struct LogSummary {
  Summary scores;
  // Frames that found no partner; unknown (null) where not counted.
  std::optional<std::uint64_t> unmatched_ref, unmatched_dist;
  std::optional<Input> ended_first;
  // Content alignment's counts (docs/ALIGNMENT.md): reference frames passed
  // over, distorted frames repeated, distorted frames left unscored for want
  // of a sure partner; 0 in the other modes, unknown (null) where not
  // counted.
  std::optional<std::uint64_t> dropped, repeated, unaligned;
  // Pairs not scored for lateness (the element's max-lateness); unknown
  // (null) where not counted.
  std::optional<std::uint64_t> skipped;
  // The scorer that ran (Scorer::description()), and why the source could
  // not be scored; empty: unknown / none (null).
  std::string backend, failure;
  // The transfer of each input's frames (TransferName: "sRGB", "PQ", ...);
  // empty: unknown (null).
  std::string ref_transfer, dist_transfer;
  // A JSON log of several sources: each source's own summary, in order,
  // written after the one above ("source_summaries"). Empty: nothing more is
  // written. Not in CSV (rows only) nor vmaf-json.
  std::vector<SourceSummary> per_source;
};

struct SourceSummary {
  std::string source;  // as in the rows' `source`
  LogSummary summary;  // its own per_source stays empty
};

// What was compared (JSON only; empty strings, a width or height of 0 and a
// NaN elapsed time are written as null).
struct LogRunInfo {
  std::string reference;
  std::string distorted;
  std::string alignment;  // the element's "alignment" property value, by its name
  std::uint64_t offset = 0;
  std::uint64_t every = 1;
  int width = 0;
  int height = 0;
  double elapsed_s = std::numeric_limits<double>::quiet_NaN();  // wall clock; NaN: unknown
  std::vector<std::string> warnings;
};

// ---------------------------------------------------------------------------
// Formats

enum class LogFormat { kCsv, kJson, kVmafJson };

// "csv", "json", "vmaf-json".
const char* LogFormatName(LogFormat format);
// The inverse of LogFormatName; no value for anything else.
std::optional<LogFormat> ParseLogFormat(std::string_view name);
// The accepted names for messages: "csv, json, vmaf-json".
std::string LogFormatNames();
// The format a file name implies: JSON when it ends in ".json" (any case),
// else CSV. vmaf-json is only ever chosen explicitly.
LogFormat LogFormatForPath(std::string_view path);

// ---------------------------------------------------------------------------
// The writer

struct LogOptions {
  LogFormat format = LogFormat::kCsv;
  bool with_source = false;  // rows carry a `source` (not for vmaf-json)
  // Flush after every row (a live log others may read). vmaf-json writes its
  // frames at Close(), after "fps", as libvmaf does.
  bool flush_rows = false;
};

// Writes rows as they come and the summary at the end. Every write is
// checked: after the first failure the log writes nothing more, and ok() and
// error() say what happened ("cannot write PATH: reason").
class ScoreLog {
 public:
  // Creates (truncates) `path` and writes the head of the log. Null and
  // *error set when the file cannot be created or the options do not fit
  // together.
  static std::unique_ptr<ScoreLog> Open(const std::string& path, const LogOptions& options,
                                        std::string* error);
  // Into `text` instead of a file (never fails; in vmaf-json a source is not
  // written, where Open() refuses it).
  static std::unique_ptr<ScoreLog> ToString(std::string* text, const LogOptions& options);

  ~ScoreLog();  // closes the file if Close() was not called (no summary then)
  ScoreLog(const ScoreLog&) = delete;
  ScoreLog& operator=(const ScoreLog&) = delete;

  // False once writing failed (this row or an earlier one).
  bool Append(const ScoreRow& row);
  // Writes the summary (and, in JSON, the run information) and closes the
  // file; false if any write or the close failed. Nothing is written after.
  bool Close(const LogSummary& summary, const LogRunInfo& info);

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }

 private:
  // Private members stay out of the shared library's symbols (hidden).
  __attribute__((visibility("hidden"))) ScoreLog(const LogOptions& options, std::string path,
                                                std::FILE* file, std::string* text);
  __attribute__((visibility("hidden"))) void Put(std::string_view text);
  __attribute__((visibility("hidden"))) void Flush();
  __attribute__((visibility("hidden"))) void Fail(int err);

  LogOptions options_;
  std::string path_;
  std::FILE* file_ = nullptr;
  std::string* text_ = nullptr;
  std::uint64_t rows_ = 0;
  // vmaf-json: the frames (frame number, score), written at Close().
  std::vector<std::pair<std::uint64_t, double>> vmaf_frames_;
  std::uint64_t pairs_read_ = 0;  // vmaf-json: 1 + the last row's index
  bool closed_ = false;
  std::string error_;
};

// The whole log at once: into a file (false and *error on failure) or a string.
bool WriteScoreLog(const std::string& path, const LogOptions& options,
                   const std::vector<ScoreRow>& rows, const LogSummary& summary,
                   const LogRunInfo& info, std::string* error);
std::string RenderScoreLog(const LogOptions& options, const std::vector<ScoreRow>& rows,
                           const LogSummary& summary, const LogRunInfo& info);

// ---------------------------------------------------------------------------
// The summary file (the element's summary-file, the tool's --summary): one
// JSON document, {"metric": ..., "summaries": [{"source": NAME, "summary":
// {...}}, ...]}, each summary object the JSON log's (docs/LOGS.md).

std::string RenderSummaryFile(const std::vector<SourceSummary>& summaries);
// Creates (truncates) `path` with RenderSummaryFile(); false and *error
// ("cannot write PATH: reason") on failure.
bool WriteSummaryFile(const std::string& path, const std::vector<SourceSummary>& summaries,
                      std::string* error);

}  // namespace ssim2
