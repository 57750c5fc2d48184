// Unit tests of the video mode's output (worst frames, summary, progress
// line) and of the SVG plot's structure (the CSV and JSON files are the score
// log's: tests/core/test_score_log.cpp). The SVG's well-formedness is checked by
// check_svg.py, which parses what `test_video_report --svg FILE` writes.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "plot_svg.h"
#include "ssim2/stats.h"
#include "video_report.h"

using ssim2::Summary;
using ssim2::LogRunInfo;
using ssim2::ScoreRow;

static int failures = 0;

#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,      \
                   __LINE__, #cond);                                   \
      ++failures;                                                      \
    }                                                                  \
  } while (0)

static std::size_t Count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

static std::vector<ScoreRow> MakeFrames(std::size_t n, std::uint64_t offset,
                                          std::uint64_t every) {
  std::vector<ScoreRow> frames;
  for (std::size_t i = 0; i < n; ++i) {
    ScoreRow f;
    f.index = i * every;
    f.frame = f.index + offset;
    f.pts = f.frame * 1000000000 / 30;
    f.score = 60.0 + 20.0 * std::sin(0.3 * static_cast<double>(i)) - (i == 7 ? 40.0 : 0.0);
    frames.push_back(f);
  }
  return frames;
}

static std::vector<double> Scores(const std::vector<ScoreRow>& frames) {
  std::vector<double> s;
  for (const ScoreRow& f : frames) s.push_back(f.score);
  return s;
}

static void TestWorstFrames() {
  std::vector<ScoreRow> frames = MakeFrames(30, 0, 1);
  auto worst = ssim2::cli::WorstFrames(frames, 3);
  CHECK(worst.size() == 3);
  CHECK(worst[0] == 7);
  for (std::size_t i = 1; i < worst.size(); ++i) {
    CHECK(frames[worst[i - 1]].score <= frames[worst[i]].score);
  }
  CHECK(ssim2::cli::NumWorstToMark(1) == 1);
  CHECK(ssim2::cli::NumWorstToMark(30) == 3);
  CHECK(ssim2::cli::NumWorstToMark(500) == 5);
  CHECK(ssim2::cli::NumWorstToMark(100000) == 10);
}

static void TestSummaryText() {
  std::vector<ScoreRow> frames = MakeFrames(30, 0, 1);
  Summary summary = ssim2::Summarize(Scores(frames));
  LogRunInfo info;
  info.elapsed_s = 1.5;
  std::string text = ssim2::cli::RenderSummary(frames, summary, info);
  CHECK(text.rfind("frames         30\nmean           ", 0) == 0);
  CHECK(text.find("  (frame 7)\n") != std::string::npos);
  CHECK(text.find("harmonic mean  ") != std::string::npos);
  CHECK(text.find("throughput     20.0 fps (30 frames in 1.50 s)\n") != std::string::npos);
}

static void TestProgress() {
  using ssim2::cli::ProgressLine;
  CHECK(ProgressLine::Format(15, 30, 1.0) == "ssim2: 15/30 frames (50%)  15.0 fps  ETA 0:01");
  CHECK(ProgressLine::Format(15, 0, 3.0) == "ssim2: 15 frames  5.0 fps");
  CHECK(ProgressLine::Format(0, 100, 0.0) == "ssim2: 0/100 frames (0%)  0.0 fps  ETA --:--");
  CHECK(ProgressLine::Format(1, 7201, 1.0).find("ETA 2:00:00") != std::string::npos);
  // Disabled: writes nothing.
  std::FILE* f = std::tmpfile();
  {
    ProgressLine line(f, false);
    line.Update(1, 2, 1.0, true);
  }
  CHECK(std::ftell(f) == 0);
  std::fclose(f);
}

// Rows of three sources: one line each with its own vertices, the sources
// named in the legend, no one-file marks.
static void TestSvgLadder() {
  std::vector<ScoreRow> frames;
  const char* const names[] = {"dir/720p.mkv", "540p&.mkv", "360p.mkv"};
  for (std::size_t k = 0; k < 3; ++k) {
    for (ScoreRow f : MakeFrames(5 + k, 0, 1)) {
      f.source = names[k];
      frames.push_back(f);
    }
  }
  LogRunInfo info;
  info.reference = "ref.mkv";
  info.distorted = names[0];
  const std::string svg =
      ssim2::cli::RenderSvgPlot(frames, ssim2::Summarize(Scores(frames)), info);
  CHECK(Count(svg, "class=\"scores\"") == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    const std::string id = "id=\"scores-" + std::to_string(k) + "\"";
    std::size_t begin = svg.find("points=\"", svg.find(id));
    CHECK(begin != std::string::npos);
    std::size_t end = svg.find('"', begin + 8);
    CHECK(Count(svg.substr(begin + 8, end - begin - 8), ",") == 5 + k);
  }
  CHECK(svg.find(">720p.mkv</text>") != std::string::npos);
  CHECK(svg.find(">540p&amp;.mkv</text>") != std::string::npos);
  CHECK(svg.find("3 distorted videos vs ref.mkv") != std::string::npos);
  CHECK(svg.find("worst-marker") == std::string::npos);
  CHECK(svg.find("id=\"mean\"") == std::string::npos);
}

static void TestSvgStructure() {
  for (std::size_t n : {std::size_t{1}, std::size_t{30}, std::size_t{1500}}) {
    std::vector<ScoreRow> frames = MakeFrames(n, 0, 1);
    Summary summary = ssim2::Summarize(Scores(frames));
    LogRunInfo info;
    info.reference = "a<b>.mkv";
    info.distorted = "c&d.mkv";
    std::string svg = ssim2::cli::RenderSvgPlot(frames, summary, info);
    std::size_t begin = svg.find("points=\"", svg.find("id=\"scores\""));
    CHECK(begin != std::string::npos);
    std::size_t end = svg.find('"', begin + 8);
    std::string points = svg.substr(begin + 8, end - begin - 8);
    CHECK(Count(points, ",") == n);
    CHECK(Count(svg, "class=\"point\"") == (n <= ssim2::cli::kMaxPointMarkers ? n : 0));
    CHECK(Count(svg, "class=\"worst-marker\"") == ssim2::cli::NumWorstToMark(n));
    CHECK(svg.find("id=\"mean\"") != std::string::npos);
    CHECK(svg.find("id=\"p5\"") != std::string::npos);
    CHECK(svg.find("c&amp;d.mkv vs a&lt;b&gt;.mkv") != std::string::npos);
    CHECK(svg.find("nan") == std::string::npos);
  }
}

int main(int argc, char** argv) {
  // --svg FILE [N]: writes a sample plot for check_svg.py and exits.
  if (argc >= 3 && std::strcmp(argv[1], "--svg") == 0) {
    std::size_t n = argc >= 4 ? std::strtoul(argv[3], nullptr, 10) : 30;
    std::vector<ScoreRow> frames = MakeFrames(n, 0, 1);
    LogRunInfo info;
    info.reference = "reference.mkv";
    info.distorted = "distorted.mkv";
    std::string error;
    if (!ssim2::cli::WriteSvgPlot(argv[2], frames, ssim2::Summarize(Scores(frames)), info,
                                  &error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    return 0;
  }
  TestWorstFrames();
  TestSummaryText();
  TestProgress();
  TestSvgStructure();
  TestSvgLadder();
  if (failures > 0) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("all video report tests passed\n");
  return 0;
}
