#include "video_report.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <numeric>

namespace ssim2 {
namespace cli {

namespace {

std::string Printf(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

// A number for JSON: null when not finite.
std::string JsonNumber(double value, const char* format = "%.8f") {
  if (!std::isfinite(value)) return "null";
  return Printf(format, value);
}

// A number for CSV/text: "nan" when not finite.
std::string TextNumber(double value, const char* format = "%.8f") {
  if (!std::isfinite(value)) return "nan";
  return Printf(format, value);
}

double Throughput(std::size_t frames, double elapsed_s) {
  return elapsed_s > 0.0 ? static_cast<double>(frames) / elapsed_s : NAN;
}

struct SummaryField {
  const char* name;
  double value;
};

std::vector<SummaryField> SummaryFields(const Summary& s) {
  return {{"mean", s.mean}, {"stddev", s.stddev}, {"min", s.min},   {"p1", s.p1},
          {"p5", s.p5},     {"p50", s.p50},       {"p95", s.p95},   {"p99", s.p99},
          {"max", s.max},   {"harmonic_mean", s.harmonic_mean}};
}

}  // namespace

std::string FormatScore(double score) { return TextNumber(score); }

std::vector<std::size_t> WorstFrames(const std::vector<FrameScore>& frames,
                                     std::size_t count) {
  std::vector<std::size_t> order(frames.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return frames[a].score < frames[b].score;
  });
  if (order.size() > count) order.resize(count);
  return order;
}

std::size_t NumWorstToMark(std::size_t num_frames) {
  std::size_t n = std::max<std::size_t>(3, (num_frames + 99) / 100);
  n = std::min<std::size_t>(n, 10);
  return std::min(n, num_frames);
}

std::string RenderCsv(const std::vector<FrameScore>& frames, const Summary& summary,
                      const VideoRunInfo& info) {
  (void)info;
  std::string out = "frame,time,score\n";
  for (const FrameScore& f : frames) {
    out += std::to_string(f.frame);
    out += ',';
    out += f.time >= 0.0 ? Printf("%.6f", f.time) : std::string();
    out += ',';
    out += FormatScore(f.score);
    out += '\n';
  }
  out += "# frames," + std::to_string(summary.frames) + "\n";
  for (const SummaryField& field : SummaryFields(summary)) {
    out += "# ";
    out += field.name;
    out += ',';
    out += TextNumber(field.value);
    out += '\n';
  }
  return out;
}

std::string JsonEscape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string RenderJson(const std::vector<FrameScore>& frames, const Summary& summary,
                       const VideoRunInfo& info) {
  std::string out = "{\n";
  out += "  \"metric\": \"SSIMULACRA 2.1\",\n";
  out += "  \"reference\": \"" + JsonEscape(info.reference) + "\",\n";
  out += "  \"distorted\": \"" + JsonEscape(info.distorted) + "\",\n";
  out += "  \"width\": " + std::to_string(info.width) + ",\n";
  out += "  \"height\": " + std::to_string(info.height) + ",\n";
  out += "  \"alignment\": \"" + JsonEscape(info.alignment) + "\",\n";
  out += "  \"offset\": " + std::to_string(info.offset) + ",\n";
  out += "  \"every\": " + std::to_string(info.every) + ",\n";
  out += "  \"frames\": [";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const FrameScore& f = frames[i];
    out += i == 0 ? "\n" : ",\n";
    out += "    {\"frame\": " + std::to_string(f.frame) +
           ", \"pair\": " + std::to_string(f.pair) +
           ", \"time\": " + (f.time >= 0.0 ? JsonNumber(f.time, "%.6f") : "null") +
           ", \"score\": " + JsonNumber(f.score) + "}";
  }
  out += frames.empty() ? "],\n" : "\n  ],\n";
  out += "  \"summary\": {\n    \"frames\": " + std::to_string(summary.frames);
  for (const SummaryField& field : SummaryFields(summary)) {
    out += ",\n    \"";
    out += field.name;
    out += "\": " + JsonNumber(field.value);
  }
  out += "\n  },\n";
  out += "  \"elapsed_s\": " + JsonNumber(info.elapsed_s, "%.3f") + ",\n";
  out += "  \"throughput_fps\": " +
         JsonNumber(Throughput(frames.size(), info.elapsed_s), "%.2f") + ",\n";
  out += "  \"warnings\": [";
  for (std::size_t i = 0; i < info.warnings.size(); ++i) {
    out += i == 0 ? "" : ", ";
    out += "\"" + JsonEscape(info.warnings[i]) + "\"";
  }
  out += "]\n}\n";
  return out;
}

std::string RenderSummary(const std::vector<FrameScore>& frames, const Summary& summary,
                          const VideoRunInfo& info) {
  std::string out;
  auto line = [&out](const char* key, const std::string& value) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%-14s ", key);
    out += buf;
    out += value;
    out += '\n';
  };
  // Frame numbers of the extremes, for min and max.
  std::string min_at, max_at;
  if (!frames.empty()) {
    auto [lo, hi] = std::minmax_element(
        frames.begin(), frames.end(),
        [](const FrameScore& a, const FrameScore& b) { return a.score < b.score; });
    min_at = "  (frame " + std::to_string(lo->frame) + ")";
    max_at = "  (frame " + std::to_string(hi->frame) + ")";
  }
  line("frames", std::to_string(summary.frames));
  line("mean", TextNumber(summary.mean));
  line("stddev", TextNumber(summary.stddev));
  line("min", TextNumber(summary.min) + min_at);
  line("p1", TextNumber(summary.p1));
  line("p5", TextNumber(summary.p5));
  line("p50", TextNumber(summary.p50));
  line("p95", TextNumber(summary.p95));
  line("p99", TextNumber(summary.p99));
  line("max", TextNumber(summary.max) + max_at);
  line("harmonic mean", TextNumber(summary.harmonic_mean));
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%.1f fps (%zu frames in %.2f s)",
                Throughput(frames.size(), info.elapsed_s), frames.size(), info.elapsed_s);
  line("throughput", buf);
  return out;
}

bool WriteTextFile(const std::string& path, const std::string& text, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    if (error) *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int saved_errno = errno;
  if (std::fclose(f) != 0) {
    ok = false;
    saved_errno = errno;
  }
  if (!ok && error) *error = "cannot write " + path + ": " + std::strerror(saved_errno);
  return ok;
}

bool WriteCsv(const std::string& path, const std::vector<FrameScore>& frames,
              const Summary& summary, const VideoRunInfo& info, std::string* error) {
  return WriteTextFile(path, RenderCsv(frames, summary, info), error);
}

bool WriteJson(const std::string& path, const std::vector<FrameScore>& frames,
               const Summary& summary, const VideoRunInfo& info, std::string* error) {
  return WriteTextFile(path, RenderJson(frames, summary, info), error);
}

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

std::string ProgressLine::Format(std::uint64_t done, std::uint64_t total, double elapsed_s) {
  char buf[160];
  double fps = elapsed_s > 0.0 ? static_cast<double>(done) / elapsed_s : 0.0;
  if (total > 0) {
    std::uint64_t shown_total = std::max(total, done);
    double percent = 100.0 * static_cast<double>(done) / static_cast<double>(shown_total);
    std::string eta = "--:--";
    if (fps > 0.0) {
      long long left = std::llround(static_cast<double>(shown_total - done) / fps);
      char eta_buf[32];
      if (left >= 3600) {
        std::snprintf(eta_buf, sizeof(eta_buf), "%lld:%02lld:%02lld", left / 3600,
                      (left / 60) % 60, left % 60);
      } else {
        std::snprintf(eta_buf, sizeof(eta_buf), "%lld:%02lld", left / 60, left % 60);
      }
      eta = eta_buf;
    }
    std::snprintf(buf, sizeof(buf), "ssim2: %llu/%llu frames (%.0f%%)  %.1f fps  ETA %s",
                  static_cast<unsigned long long>(done),
                  static_cast<unsigned long long>(shown_total), percent, fps, eta.c_str());
  } else {
    std::snprintf(buf, sizeof(buf), "ssim2: %llu frames  %.1f fps",
                  static_cast<unsigned long long>(done), fps);
  }
  return buf;
}

void ProgressLine::Update(std::uint64_t done, std::uint64_t total, double elapsed_s,
                          bool force) {
  if (!enabled_) return;
  if (!force && last_draw_s_ >= 0.0 && elapsed_s - last_draw_s_ < 0.1) return;
  last_draw_s_ = elapsed_s;
  std::fprintf(out_, "\r\033[K%s", Format(done, total, elapsed_s).c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::Clear() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace cli
}  // namespace ssim2
