// The score log (see ssim2/score_log.h and docs/LOGS.md).
#include "ssim2/score_log.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "ssim2_version.h"
#include "text_format.h"

namespace ssim2 {
namespace {

constexpr const char* kMetricName = "SSIMULACRA 2.1";
// The metric's key in vmaf-json's "metrics" and "pooled_metrics".
constexpr const char* kVmafMetricKey = "ssimulacra2";
// vmaf-json: the key of what libvmaf's log does not have (our summary).
constexpr const char* kVmafOwnKey = "gst_ssim2";

std::string Unsigned(std::uint64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;  // 24 characters always hold a 64-bit integer
  return std::string(buf, end);
}

// JSON value of a number: null when not finite.
std::string JsonNumber(double v, int decimals) {
  return std::isfinite(v) ? FormatFixed(v, decimals) : "null";
}

std::string JsonTime(std::uint64_t ns) { return ns == kNoTime ? "null" : Unsigned(ns); }
std::string CsvTime(std::uint64_t ns) { return ns == kNoTime ? std::string() : Unsigned(ns); }

std::string JsonOptional(const std::optional<std::uint64_t>& v) {
  return v ? Unsigned(*v) : "null";
}

std::string JsonStringOrNull(const std::string& s) { return s.empty() ? "null" : JsonString(s); }

double Throughput(std::uint64_t frames, double elapsed_s) {
  return elapsed_s > 0.0 ? static_cast<double>(frames) / elapsed_s
                         : std::numeric_limits<double>::quiet_NaN();
}

// libvmaf's pooled values of one metric (vmaf_feature_score_pooled() in
// libvmaf.c), accumulated in frame order as it does. NaN for no frame.
struct VmafPools {
  double min, max, mean, harmonic_mean;
};

VmafPools PoolAsLibvmaf(const std::vector<std::pair<std::uint64_t, double>>& frames) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (frames.empty()) return {nan, nan, nan, nan};
  double min = frames.front().second, max = min, sum = 0.0, inverse_sum = 0.0;
  for (const auto& frame : frames) {
    const double s = frame.second;
    sum += s;
    inverse_sum += 1.0 / (s + 1.0);
    min = std::min(min, s);
    max = std::max(max, s);
  }
  const double n = static_cast<double>(frames.size());
  return {min, max, sum / n, n / inverse_sum - 1.0};
}

// A number as libvmaf's JSON writer prints it: 6 decimals, 16 when the
// fractional part starts with more than 5 zeros (its count_leading_zeros_d()
// counts the multiplications by 10 that bring it to 1 or more), null when not
// finite.
std::string VmafNumber(double v) {
  if (!std::isfinite(v)) return "null";
  double fraction = std::fabs(v) - std::trunc(std::fabs(v));
  int multiplications = 0;
  while (fraction < 1.0 && fraction != 0.0) {
    fraction *= 10.0;
    ++multiplications;
  }
  return FormatFixed(v, multiplications <= 6 ? 6 : 16);
}

}  // namespace

double ScoreRow::Seconds() const {
  const std::uint64_t t = stream_time != kNoTime ? stream_time : pts;
  return t == kNoTime ? -1.0 : static_cast<double>(t) / 1e9;
}

// ---------------------------------------------------------------------------

const char* InputName(Input input) { return input == Input::kRef ? "ref" : "dist"; }

std::optional<Input> EndedFirst(const InputEnds& e) {
  if (e.dist_ended && e.ref_after_dist_end > 0) return Input::kDist;
  if (e.ref_ended && e.dist_after_ref_end > 0) return Input::kRef;
  return std::nullopt;
}

std::string EndedFirstMessage(Input first, const InputEnds& e, std::uint64_t pairs_scored,
                              bool long_names) {
  const char* ref = long_names ? "reference" : "ref";
  const char* dist = long_names ? "distorted" : "dist";
  return std::string("the ") + (first == Input::kRef ? ref : dist) + " input ended first: " +
         ref + " " + Unsigned(e.ref_frames) + " frames, " + dist + " " +
         Unsigned(e.dist_frames) + " frames, " + Unsigned(pairs_scored) + " pairs scored";
}

// ---------------------------------------------------------------------------

namespace {

struct NamedFormat {
  LogFormat format;
  const char* name;
};
constexpr NamedFormat kFormats[] = {
    {LogFormat::kCsv, "csv"}, {LogFormat::kJson, "json"}, {LogFormat::kVmafJson, "vmaf-json"}};

}  // namespace

const char* LogFormatName(LogFormat format) {
  for (const NamedFormat& f : kFormats) {
    if (f.format == format) return f.name;
  }
  return "csv";
}

std::optional<LogFormat> ParseLogFormat(std::string_view name) {
  for (const NamedFormat& f : kFormats) {
    if (name == f.name) return f.format;
  }
  return std::nullopt;
}

std::string LogFormatNames() {
  std::string names;
  for (const NamedFormat& f : kFormats) names += std::string(names.empty() ? "" : ", ") + f.name;
  return names;
}

LogFormat LogFormatForPath(std::string_view path) {
  constexpr std::string_view kJsonSuffix = ".json";
  if (path.size() < kJsonSuffix.size()) return LogFormat::kCsv;
  std::string_view tail = path.substr(path.size() - kJsonSuffix.size());
  for (std::size_t i = 0; i < tail.size(); ++i) {
    char c = tail[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kJsonSuffix[i]) return LogFormat::kCsv;
  }
  return LogFormat::kJson;
}

// ---------------------------------------------------------------------------

ScoreLog::ScoreLog(const LogOptions& options, std::string path, std::FILE* file,
                   std::string* text)
    : options_(options), path_(std::move(path)), file_(file), text_(text) {
  switch (options_.format) {
    case LogFormat::kCsv:
      Put(options_.with_source
              ? "index,frame,pts,stream_time,running_time,duration,score,ref_frame,source\n"
              : "index,frame,pts,stream_time,running_time,duration,score,ref_frame\n");
      break;
    case LogFormat::kJson:
      Put(std::string("{\n  \"metric\": ") + JsonString(kMetricName) + ",\n  \"frames\": [");
      break;
    case LogFormat::kVmafJson:
      // libvmaf's "version" is that of the library that wrote the log.
      Put(std::string("{\n  \"version\": ") + JsonString(SSIM2_PROJECT_VERSION) + ",\n");
      break;
  }
  Flush();
}

std::unique_ptr<ScoreLog> ScoreLog::Open(const std::string& path, const LogOptions& options,
                                         std::string* error) {
  if (options.with_source && options.format == LogFormat::kVmafJson) {
    if (error) *error = "vmaf-json holds one distorted input: a log with sources needs csv or json";
    return nullptr;
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    if (error) *error = "cannot write " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<ScoreLog> log(new ScoreLog(options, path, file, nullptr));
  if (!log->ok()) {
    if (error) *error = log->error();
    return nullptr;
  }
  return log;
}

std::unique_ptr<ScoreLog> ScoreLog::ToString(std::string* text, const LogOptions& options) {
  return std::unique_ptr<ScoreLog>(new ScoreLog(options, "(string)", nullptr, text));
}

ScoreLog::~ScoreLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void ScoreLog::Fail(int err) {
  if (error_.empty()) error_ = "cannot write " + path_ + ": " + std::strerror(err);
}

void ScoreLog::Put(std::string_view text) {
  if (!ok() || closed_) return;
  if (text_ != nullptr) {
    text_->append(text);
    return;
  }
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) Fail(errno);
}

void ScoreLog::Flush() {
  if (!ok() || closed_ || file_ == nullptr) return;
  if (std::fflush(file_) != 0) Fail(errno);
}

bool ScoreLog::Append(const ScoreRow& row) {
  if (closed_) return false;
  std::string line;
  switch (options_.format) {
    case LogFormat::kCsv:
      line = Unsigned(row.index) + ',' + Unsigned(row.frame) + ',' + CsvTime(row.pts) + ',' +
             CsvTime(row.stream_time) + ',' + CsvTime(row.running_time) + ',' +
             CsvTime(row.duration) + ',' + FormatScore(row.score) + ',' +
             (row.ref_frame >= 0 ? std::to_string(row.ref_frame) : std::string());
      if (options_.with_source) line += ',' + CsvField(row.source);
      line += '\n';
      break;
    case LogFormat::kJson:
      line = std::string(rows_ ? ",\n" : "\n") + "    {\"index\": " + Unsigned(row.index) +
             ", \"frame\": " + Unsigned(row.frame) + ", \"pts\": " + JsonTime(row.pts) +
             ", \"stream_time\": " + JsonTime(row.stream_time) +
             ", \"running_time\": " + JsonTime(row.running_time) +
             ", \"duration\": " + JsonTime(row.duration) +
             ", \"score\": " + JsonNumber(row.score, 8) + ", \"ref_frame\": " +
             (row.ref_frame >= 0 ? std::to_string(row.ref_frame) : std::string("null"));
      if (options_.with_source) line += ", \"source\": " + JsonString(row.source);
      line += '}';
      break;
    case LogFormat::kVmafJson:
      vmaf_frames_.emplace_back(row.frame, row.score);
      pairs_read_ = std::max(pairs_read_, row.index + 1);
      ++rows_;
      return ok();
  }
  ++rows_;
  Put(line);
  if (options_.flush_rows) Flush();
  return ok();
}

namespace {

// The content alignment's counts of a summary with their names, in the
// order the formats write them.
std::array<std::pair<const char*, std::optional<std::uint64_t>>, 3> AlignmentCounts(
    const LogSummary& summary) {
  return {{{"dropped", summary.dropped},
           {"repeated", summary.repeated},
           {"unaligned", summary.unaligned}}};
}

// The summary as a JSON object; `indent` is that of the line it starts on.
std::string JsonSummaryObject(const LogSummary& summary, const std::string& indent) {
  const Summary& s = summary.scores;
  const std::string in = indent + "  ";
  std::string out = "{\n" + in + "\"frames\": " + Unsigned(s.frames);
  for (const SummaryField& f : kSummaryFields) {
    out += ",\n" + in + "\"" + f.name + "\": " + JsonNumber(s.*f.value, 8);
  }
  out += ",\n" + in + "\"unmatched_ref\": " + JsonOptional(summary.unmatched_ref);
  out += ",\n" + in + "\"unmatched_dist\": " + JsonOptional(summary.unmatched_dist);
  out += ",\n" + in + "\"ended_first\": " +
         (summary.ended_first ? JsonString(InputName(*summary.ended_first)) : "null");
  for (const auto& [name, count] : AlignmentCounts(summary)) {
    out += ",\n" + in + "\"" + name + "\": " + JsonOptional(count);
  }
  out += ",\n" + in + "\"skipped\": " + JsonOptional(summary.skipped);
  out += ",\n" + in + "\"backend\": " + JsonStringOrNull(summary.backend);
  out += ",\n" + in + "\"failure\": " + JsonStringOrNull(summary.failure);
  out += ",\n" + in + "\"ref_transfer\": " + JsonStringOrNull(summary.ref_transfer);
  out += ",\n" + in + "\"dist_transfer\": " + JsonStringOrNull(summary.dist_transfer);
  return out + "\n" + indent + "}";
}

// {"source": NAME, "summary": {...}}, an element of "source_summaries" and of
// the summary file's "summaries", on a line indented by `indent`.
std::string JsonSourceSummary(const SourceSummary& source, const std::string& indent) {
  return indent + "{\"source\": " + JsonString(source.source) +
         ", \"summary\": " + JsonSummaryObject(source.summary, indent) + "}";
}

}  // namespace

bool ScoreLog::Close(const LogSummary& summary, const LogRunInfo& info) {
  if (closed_) return ok();
  const Summary& s = summary.scores;
  std::string out;
  switch (options_.format) {
    case LogFormat::kCsv:
      break;  // rows only: the summary goes to the JSON log and the summary file
    case LogFormat::kJson: {
      out = rows_ ? "\n  ],\n" : "],\n";
      out += "  \"summary\": " + JsonSummaryObject(summary, "  ") + ",\n";
      if (!summary.per_source.empty()) {
        out += "  \"source_summaries\": [";
        for (std::size_t i = 0; i < summary.per_source.size(); ++i) {
          out += std::string(i ? ",\n" : "\n") + JsonSourceSummary(summary.per_source[i], "    ");
        }
        out += "\n  ],\n";
      }
      out += "  \"reference\": " + JsonStringOrNull(info.reference) + ",\n";
      out += "  \"distorted\": " + JsonStringOrNull(info.distorted) + ",\n";
      out += "  \"width\": " + (info.width > 0 ? Unsigned(info.width) : "null") + ",\n";
      out += "  \"height\": " + (info.height > 0 ? Unsigned(info.height) : "null") + ",\n";
      out += "  \"alignment\": " + JsonStringOrNull(info.alignment) + ",\n";
      out += "  \"offset\": " + Unsigned(info.offset) + ",\n";
      out += "  \"every\": " + Unsigned(info.every) + ",\n";
      out += "  \"elapsed_s\": " + JsonNumber(info.elapsed_s, 3) + ",\n";
      out += "  \"throughput_fps\": " + JsonNumber(Throughput(s.frames, info.elapsed_s), 2) +
             ",\n";
      out += "  \"warnings\": [";
      for (std::size_t i = 0; i < info.warnings.size(); ++i) {
        out += (i ? ", " : "") + JsonString(info.warnings[i]);
      }
      out += "]\n}\n";
      break;
    }
    case LogFormat::kVmafJson: {
      // libvmaf's vmaf_write_output_json(): its keys, their order, its layout
      // and its numbers; then ours under a key of our own.
      // libvmaf's fps counts the pictures read, those that --subsample
      // passes over too: here the pairs up to the last one scored.
      out = "  \"fps\": " + JsonNumber(Throughput(pairs_read_, info.elapsed_s), 2) + ",\n";
      out += "  \"frames\": [";
      for (std::size_t i = 0; i < vmaf_frames_.size(); ++i) {
        out += std::string(i ? ",\n" : "\n") + "    {\n      \"frameNum\": " +
               Unsigned(vmaf_frames_[i].first) + ",\n      \"metrics\": {\n        \"" +
               kVmafMetricKey + "\": " + VmafNumber(vmaf_frames_[i].second) +
               "\n      }\n    }";
      }
      out += "\n  ],\n";
      const VmafPools pools = PoolAsLibvmaf(vmaf_frames_);
      out += std::string("  \"pooled_metrics\": {\n    \"") + kVmafMetricKey + "\": {\n";
      out += "      \"min\": " + VmafNumber(pools.min) + ",\n";
      out += "      \"max\": " + VmafNumber(pools.max) + ",\n";
      out += "      \"mean\": " + VmafNumber(pools.mean) + ",\n";
      out += "      \"harmonic_mean\": " + VmafNumber(pools.harmonic_mean) + "\n";
      out += "    }\n  },\n";
      out += "  \"aggregate_metrics\": {\n  },\n";
      out += std::string("  \"") + kVmafOwnKey + "\": {\n    \"metric\": " +
             JsonString(kMetricName) + ",\n    \"summary\": " +
             JsonSummaryObject(summary, "    ") + "\n  }\n}\n";
      break;
    }
  }
  Put(out);
  Flush();
  closed_ = true;
  if (file_ != nullptr) {
    const int saved = errno;
    if (std::fclose(file_) != 0) Fail(errno);
    errno = saved;
    file_ = nullptr;
  }
  return ok();
}

bool WriteScoreLog(const std::string& path, const LogOptions& options,
                   const std::vector<ScoreRow>& rows, const LogSummary& summary,
                   const LogRunInfo& info, std::string* error) {
  std::unique_ptr<ScoreLog> log = ScoreLog::Open(path, options, error);
  if (!log) return false;
  for (const ScoreRow& row : rows) log->Append(row);
  if (!log->Close(summary, info)) {
    if (error) *error = log->error();
    return false;
  }
  return true;
}

std::string RenderSummaryFile(const std::vector<SourceSummary>& summaries) {
  std::string out = std::string("{\n  \"metric\": ") + JsonString(kMetricName) +
                    ",\n  \"summaries\": [";
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    out += std::string(i ? ",\n" : "\n") + JsonSourceSummary(summaries[i], "    ");
  }
  return out + (summaries.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

bool WriteSummaryFile(const std::string& path, const std::vector<SourceSummary>& summaries,
                      std::string* error) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    if (error) *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  const std::string text = RenderSummaryFile(summaries);
  int err = 0;
  if (std::fwrite(text.data(), 1, text.size(), file) != text.size()) err = errno;
  if (std::fclose(file) != 0 && err == 0) err = errno;
  if (err != 0 && error) *error = "cannot write " + path + ": " + std::strerror(err);
  return err == 0;
}

std::string RenderScoreLog(const LogOptions& options, const std::vector<ScoreRow>& rows,
                           const LogSummary& summary, const LogRunInfo& info) {
  std::string text;
  std::unique_ptr<ScoreLog> log = ScoreLog::ToString(&text, options);
  for (const ScoreRow& row : rows) log->Append(row);
  log->Close(summary, info);
  return text;
}

}  // namespace ssim2
