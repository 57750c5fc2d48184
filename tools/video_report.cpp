#include "video_report.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <numeric>

#include "text_format.h"

namespace ssim2 {
namespace cli {

namespace {

double Throughput(std::size_t frames, double elapsed_s) {
  return elapsed_s > 0.0 ? static_cast<double>(frames) / elapsed_s : NAN;
}

// One "key  value" line of the summary block.
void AddLine(std::string* out, const char* key, const std::string& value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%-14s ", key);
  *out += buf;
  *out += value;
  *out += '\n';
}

}  // namespace

std::vector<std::size_t> WorstFrames(const std::vector<ScoreRow>& frames,
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

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : ToValidUtf8(text)) {
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

std::string RenderSummary(const std::vector<ScoreRow>& frames, const Summary& summary,
                          const LogRunInfo& info) {
  std::string out;
  auto line = [&out](const char* key, const std::string& value) { AddLine(&out, key, value); };
  // Frame numbers of the extremes, for min and max.
  std::string min_at, max_at;
  if (!frames.empty()) {
    auto [lo, hi] = std::minmax_element(
        frames.begin(), frames.end(),
        [](const ScoreRow& a, const ScoreRow& b) { return a.score < b.score; });
    min_at = "  (frame " + std::to_string(lo->frame) + ")";
    max_at = "  (frame " + std::to_string(hi->frame) + ")";
  }
  line("frames", std::to_string(summary.frames));
  for (const SummaryField& field : kSummaryFields) {
    std::string key = field.name;
    std::replace(key.begin(), key.end(), '_', ' ');
    std::string value = FormatScore(summary.*field.value);
    if (field.value == &Summary::min) value += min_at;
    if (field.value == &Summary::max) value += max_at;
    line(key.c_str(), value);
  }
  line("throughput", FormatFixed(Throughput(frames.size(), info.elapsed_s), 1) + " fps (" +
                         std::to_string(frames.size()) + " frames in " +
                         FormatFixed(info.elapsed_s, 2) + " s)");
  return out;
}

std::string RenderAlignment(const std::vector<LockEvent>& locks, const LogSummary& summary) {
  std::string out;
  auto line = [&out](const char* key, const std::string& value) { AddLine(&out, key, value); };
  if (locks.empty()) line("offset", "none found (no clear match: every frame unaligned)");
  for (std::size_t i = 0; i < locks.size(); ++i) {
    const LockEvent& e = locks[i];
    const char* key = i == 0 ? "offset" : "";
    if (e.state == "lost") {
      line(key, "lost at frame " + std::to_string(e.frame));
    } else {
      line(key, (e.offset > 0 ? "+" : "") + std::to_string(e.offset) + " from frame " +
                    std::to_string(e.frame) + " (" + e.state + ", confidence " +
                    FormatFixed(e.confidence, 3) + ")");
    }
  }
  auto count = [](const std::optional<std::uint64_t>& v) {
    return v ? std::to_string(*v) : std::string("unknown");
  };
  line("dropped", count(summary.dropped));
  line("repeated", count(summary.repeated));
  line("unaligned", count(summary.unaligned));
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
