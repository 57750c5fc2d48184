// `ssim2 monitor`'s parts without GStreamer: its options and its metrics
// registry (the OpenMetrics text is also parsed by the Prometheus client in
// test_monitor.py, against a running monitor).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "../assertions.h"
#include "monitor_delay.h"
#include "monitor_logs.h"
#include "monitor_metrics.h"
#include "monitor_options.h"

namespace ssim2 {
namespace monitor {
namespace {

using ssim2::testing::Contains;

bool Parse(const std::vector<std::string>& args, MonitorOptions* o, std::string* error) {
  bool help = false;
  return ParseMonitorArgs(args, o, &help, error);
}

TEST(MonitorOptions, Defaults) {
  MonitorOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"--ref", "udp://127.0.0.1:5000", "--dist", "hd=srt://h:1"}, &o, &error))
      << error;
  EXPECT_EQ(o.ref_uri, "udp://127.0.0.1:5000");
  ASSERT_EQ(o.renditions.size(), 1u);
  EXPECT_EQ(o.renditions[0].name, "hd");
  EXPECT_EQ(o.renditions[0].uri, "srt://h:1");
  EXPECT_EQ(o.listen_host, "127.0.0.1");
  EXPECT_EQ(o.listen_port, 9464);
  EXPECT_EQ(o.alignment, ssim2gst::Alignment::kContent);
  EXPECT_FALSE(o.threshold.has_value());
  EXPECT_EQ(o.reference_delay, MonitorOptions::ReferenceDelay::kAuto);
}

TEST(MonitorOptions, ReferenceDelay) {
  MonitorOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"--ref=a", "--dist=b=c", "--reference-delay", "off"}, &o, &error)) << error;
  EXPECT_EQ(o.reference_delay, MonitorOptions::ReferenceDelay::kOff);
  ASSERT_TRUE(Parse({"--ref=a", "--dist=b=c", "--reference-delay=12.5"}, &o, &error)) << error;
  EXPECT_EQ(o.reference_delay, MonitorOptions::ReferenceDelay::kFixed);
  EXPECT_EQ(o.reference_delay_s, 12.5);
  ASSERT_TRUE(Parse({"--ref=a", "--dist=b=c", "--reference-delay", "auto"}, &o, &error)) << error;
  EXPECT_EQ(o.reference_delay, MonitorOptions::ReferenceDelay::kAuto);
}

TEST(MonitorOptions, Everything) {
  MonitorOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"--ref=a.ts", "--dist", "hd=b.ts", "--dist=sd=file:///c.ts", "--listen",
                     "[::1]:0", "--stall-timeout", "2.5", "--interval=1", "--threshold", "60",
                     "--sync-window", "2", "--alignment", "running-time", "--backend", "cpu",
                     "--max-backoff", "4"},
                    &o, &error))
      << error;
  ASSERT_EQ(o.renditions.size(), 2u);
  EXPECT_EQ(o.renditions[1].name, "sd");
  EXPECT_EQ(o.renditions[1].uri, "file:///c.ts");
  EXPECT_EQ(o.listen_host, "::1");
  EXPECT_EQ(o.listen_port, 0);
  EXPECT_EQ(o.stall_timeout_s, 2.5);
  EXPECT_EQ(o.interval_s, 1.0);
  EXPECT_EQ(*o.threshold, 60.0);
  EXPECT_EQ(o.sync_window_s, 2.0);
  EXPECT_EQ(o.max_backoff_s, 4.0);
  EXPECT_EQ(o.alignment, ssim2gst::Alignment::kRunningTime);
  EXPECT_EQ(o.backend, Backend::kCpu);
  EXPECT_FALSE(o.max_reference_bytes.has_value());
  ASSERT_TRUE(Parse({"--ref=a", "--dist=b=c", "--max-reference-bytes", "3000000000"}, &o, &error))
      << error;
  EXPECT_EQ(o.max_reference_bytes.value_or(0), 3000000000u);
}

TEST(MonitorOptions, Refusals) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--dist", "a=x"}, "--ref URI is required"},
      {{"--ref", "x"}, "at least one --dist"},
      {{"--ref", "x", "--dist", "x"}, "expected NAME=URI"},
      {{"--ref", "x", "--dist", "a=y", "--max-reference-bytes", "0"},
       "--max-reference-bytes must be above 0"},
      {{"--ref", "x", "--dist", "ref=y"}, "not 'ref'"},
      {{"--ref", "x", "--dist", "a b=y"}, "the name must be"},
      {{"--ref", "x", "--dist", "a=y", "--dist", "a=z"}, "given twice"},
      {{"--ref", "x", "--dist", "a=y", "--listen", "localhost"}, "expected HOST:PORT"},
      {{"--ref", "x", "--dist", "a=y", "--listen", "h:70000"}, "expected HOST:PORT"},
      {{"--ref", "x", "--dist", "a=y", "--stall-timeout", "0"}, "--stall-timeout must be"},
      {{"--ref", "x", "--dist", "a=y", "--threshold", "high"}, "--threshold must be"},
      {{"--ref", "x", "--dist", "a=y", "--alignment", "fuzzy"}, "--alignment fuzzy"},
      {{"--ref", "x", "--dist", "a=y", "--backend", "gpu"}, "--backend gpu"},
      {{"--ref", "x", "--dist", "a=y", "extra"}, "unexpected argument 'extra'"},
      {{"--ref", "x", "--dist", "a=y", "--reference-delay", "soon"},
       "--reference-delay soon: expected auto, off or SECONDS"},
      {{"--ref", "x", "--dist", "a=y", "--reference-delay", "-1"}, "--reference-delay must be"},
  };
  for (const auto& [args, expected] : cases) {
    MonitorOptions o;
    std::string error;
    EXPECT_FALSE(Parse(args, &o, &error)) << args.back();
    EXPECT_NE(error.find(expected), std::string::npos) << error;
  }
}

TEST(MonitorOptions, Help) {
  MonitorOptions o;
  bool help = false;
  std::string error;
  ASSERT_TRUE(ParseMonitorArgs({"--help"}, &o, &help, &error));
  EXPECT_TRUE(help);
  const std::string text = MonitorHelpText();
  for (const char* option : {"--ref", "--dist", "--listen", "--stall-timeout", "--interval",
                             "--threshold", "--sync-window", "--max-backoff"}) {
    EXPECT_NE(text.find(option), std::string::npos) << option;
  }
}

// The sample line of `name` with these labels, or "" when absent.
std::string SampleLine(const std::string& text, const std::string& prefix) {
  std::size_t at = 0;
  while ((at = text.find(prefix, at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') {
      return text.substr(at, text.find('\n', at) - at);
    }
    at += prefix.size();
  }
  return "";
}

// The value of the sample of exactly this series (name and labels), or ""
// when absent.
std::string SampleValue(const std::string& text, const std::string& series) {
  const std::string line = SampleLine(text, series + " ");
  return line.empty() ? "" : line.substr(series.size() + 1);
}

TEST(MonitorMetrics, ScoresWindowsAndInputs) {
  Metrics m({"hd", "sd"}, 50.0);
  m.SetInfo("cpu", "", "1.2.3");
  m.InputOpening("ref", 10);
  m.InputFrame("ref", 11);
  m.InputOpening("hd", 10);
  m.FrameSent("hd");
  m.FrameSent("hd");
  m.FramePaused("sd");
  m.FrameSent("ref");
  m.Score("hd", 80.5, 3, 11.2);
  m.Score("hd", 70.25, 3, 11.4);
  m.Sync("hd", true, 3);
  EXPECT_EQ(m.Window("hd", {2, 1, 75.375, 70.25, 70.5125, 0, 1000000000, 4}, 12),
            AlarmChange::kNone);
  EXPECT_EQ(m.Window("sd", {0, 0, NAN, NAN, NAN, 0, 1000000000, 3}, 12.5), AlarmChange::kNone);
  EXPECT_EQ(m.Window("sd", {0, 0, NAN, NAN, NAN, 1000000000, 2000000000, 2}, 13),
            AlarmChange::kNone);
  m.ReferenceHeld(40, 124416);
  m.RenditionReferenceHeld("hd", 40);
  m.RenditionReferenceHeld("sd", 12);
  for (int i = 0; i < 3; ++i) m.FrameDropped("hd");
  m.FrameDropped("ref");
  const std::string text = m.OpenMetricsText(13.5);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
  EXPECT_EQ(SampleLine(text, "ssim2_info{"),
            "ssim2_info{backend=\"cpu\",device=\"\",version=\"1.2.3\"} 1");
  EXPECT_EQ(SampleValue(text, "ssim2_score{rendition=\"hd\"}"), "70.25");
  EXPECT_EQ(SampleValue(text, "ssim2_score{rendition=\"sd\"}"), "NaN");
  EXPECT_EQ(SampleValue(text, "ssim2_window_mean{rendition=\"hd\"}"), "75.375");
  EXPECT_EQ(SampleValue(text, "ssim2_frames_total{rendition=\"hd\",result=\"scored\"}"), "2");
  EXPECT_EQ(SampleValue(text, "ssim2_frames_total{rendition=\"hd\",result=\"skipped\"}"), "1");
  // The windows' unaligned frames add up, a window of unaligned frames only
  // has no mean, and the element's held reference is as it was given.
  EXPECT_EQ(SampleValue(text, "ssim2_frames_total{rendition=\"hd\",result=\"unaligned\"}"), "4");
  EXPECT_EQ(SampleValue(text, "ssim2_frames_total{rendition=\"sd\",result=\"unaligned\"}"), "5");
  EXPECT_EQ(SampleValue(text, "ssim2_window_mean{rendition=\"sd\"}"), "NaN");
  EXPECT_EQ(SampleValue(text, "ssim2_reference_frames_held"), "40");
  EXPECT_EQ(SampleValue(text, "ssim2_reference_bytes_held"), "124416");
  EXPECT_EQ(SampleValue(text, "ssim2_rendition_reference_frames_held{rendition=\"hd\"}"), "40");
  EXPECT_EQ(SampleValue(text, "ssim2_frames_total{rendition=\"hd\",result=\"dropped\"}"), "3");
  EXPECT_EQ(SampleValue(text, "ssim2_frames_total{rendition=\"sd\",result=\"dropped\"}"), "0");
  EXPECT_EQ(SampleValue(text, "ssim2_reference_frames_dropped_total"), "1");
  EXPECT_EQ(SampleValue(text, "ssim2_rendition_reference_frames_held{rendition=\"sd\"}"), "12");
  EXPECT_EQ(SampleValue(text, "ssim2_frames_total{rendition=\"sd\",result=\"paused\"}"), "1");
  EXPECT_EQ(SampleValue(text, "ssim2_frames_sent_total{rendition=\"hd\"}"), "2");
  EXPECT_EQ(SampleValue(text, "ssim2_reference_frames_sent_total"), "1");
  EXPECT_EQ(SampleValue(text, "ssim2_alignment_offset_frames{rendition=\"hd\"}"), "3");
  EXPECT_EQ(SampleValue(text, "ssim2_alignment_locked{rendition=\"hd\"}"), "1");
  EXPECT_EQ(SampleValue(text, "ssim2_input_up{input=\"ref\"}"), "1");
  EXPECT_EQ(SampleValue(text, "ssim2_input_up{input=\"hd\"}"), "0");
  EXPECT_EQ(SampleValue(text, "ssim2_last_frame_age_seconds{input=\"ref\"}"), "2.5");
  EXPECT_EQ(SampleValue(text, "ssim2_last_frame_age_seconds{input=\"hd\"}"), "NaN");
  EXPECT_EQ(SampleValue(text, "ssim2_threshold"), "50");

  m.InputDown("ref", "error: \"gone\"\nbadly", 14);
  EXPECT_FALSE(m.InputUp("ref"));
  const std::string after = m.OpenMetricsText(15);
  EXPECT_EQ(SampleValue(after, "ssim2_input_down_total{input=\"ref\"}"), "1");
  const std::string json = m.StateJson(15);
  EXPECT_NE(json.find("\"last_error\":\"error: \\\"gone\\\"\\nbadly\""), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"reference_held\":12,"), std::string::npos) << json;
}

// A rendition's lag: unknown before its first pair, the last measured, and
// unknown again once its input went down (it may come back with another).
TEST(MonitorMetrics, RenditionLag) {
  Metrics m({"hd", "sd"}, std::nullopt);
  m.InputOpening("hd", 10);
  m.InputFrame("hd", 11);
  EXPECT_EQ(SampleValue(m.OpenMetricsText(11), "ssim2_rendition_lag_seconds{rendition=\"hd\"}"),
            "NaN");
  m.Lag("hd", 1.25);
  m.Lag("hd", 1.5);
  m.Lag("sd", -0.5);  // ahead of the reference: shown as measured
  std::string text = m.OpenMetricsText(12);
  EXPECT_EQ(SampleValue(text, "ssim2_rendition_lag_seconds{rendition=\"hd\"}"), "1.5");
  EXPECT_EQ(SampleValue(text, "ssim2_rendition_lag_seconds{rendition=\"sd\"}"), "-0.5");
  EXPECT_TRUE(Contains(m.StateJson(12), "\"lag_seconds\":1.5,")) << m.StateJson(12);
  m.InputDown("hd", "stalled", 13);
  text = m.OpenMetricsText(13);
  EXPECT_EQ(SampleValue(text, "ssim2_rendition_lag_seconds{rendition=\"hd\"}"), "NaN");
  EXPECT_EQ(SampleValue(text, "ssim2_rendition_lag_seconds{rendition=\"sd\"}"), "-0.5");
  EXPECT_TRUE(Contains(m.StateJson(13), "\"lag_seconds\":null,")) << m.StateJson(13);
}

TEST(MonitorMetrics, InputLiveInState) {
  Metrics m({"hd"}, std::nullopt);
  m.InputOpening("ref", 1);
  m.InputLive("ref", true);
  m.InputOpening("hd", 1);
  m.InputLive("hd", false);
  const std::string json = m.StateJson(2);
  EXPECT_TRUE(Contains(json, "{\"name\":\"ref\",\"up\":false,\"live\":true,")) << json;
  EXPECT_TRUE(Contains(json, "{\"name\":\"hd\",\"up\":false,\"live\":false,")) << json;
}

TEST(MonitorMetrics, ThresholdAlarm) {
  Metrics m({"hd"}, 50.0);
  EXPECT_EQ(m.Window("hd", {10, 0, 60, 40, 41}, 1), AlarmChange::kNone);
  EXPECT_EQ(m.Window("hd", {10, 0, 49.9, 40, 41}, 2), AlarmChange::kRaised);
  EXPECT_EQ(m.Window("hd", {10, 0, 45, 40, 41}, 3), AlarmChange::kNone);
  // A window of skipped pairs only has no mean: the alarm stays as it is.
  EXPECT_EQ(m.Window("hd", {0, 5, NAN, NAN, NAN}, 4), AlarmChange::kNone);
  EXPECT_EQ(m.Window("hd", {10, 0, 50, 40, 41}, 5), AlarmChange::kCleared);
  EXPECT_EQ(m.Window("hd", {10, 0, 10, 5, 6}, 6), AlarmChange::kRaised);
  const std::string text = m.OpenMetricsText(7);
  EXPECT_EQ(SampleValue(text, "ssim2_alarm{rendition=\"hd\"}"), "1");
  EXPECT_EQ(SampleValue(text, "ssim2_alarms_total{rendition=\"hd\"}"), "2");
  Metrics none({"hd"}, std::nullopt);
  EXPECT_EQ(none.Window("hd", {10, 0, 1, 1, 1}, 1), AlarmChange::kNone);
  EXPECT_EQ(none.OpenMetricsText(1).find("ssim2_threshold"), std::string::npos);
}

TEST(MonitorMetrics, HistoryIsPerSecondAndBounded) {
  Metrics m({"hd"}, std::nullopt, /*history_s=*/10);
  // 30 scores a second for 60 s.
  for (int i = 0; i < 60 * 30; ++i) m.Score("hd", i % 30 == 0 ? 10 : 40, 0, 100 + i / 30.0);
  const std::string json = m.StateJson(160);
  // Points of the last 10 s only, one per second.
  const std::string key = "\"history\":[";
  const std::size_t at = json.find(key);
  ASSERT_NE(at, std::string::npos);
  const std::string points = json.substr(at + key.size(), json.find("]]", at) - at - key.size());
  std::size_t count = 0;
  for (char c : points) count += c == '[';
  EXPECT_GE(count, 9u);
  EXPECT_LE(count, 11u);
  // Each point is the mean of its second: (10 + 29 x 40) / 30 = 39.
  EXPECT_NE(points.find(",39]"), std::string::npos) << points;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Rows of a CSV log (lines that are not the header or a `#` line).
int RowCount(const std::string& text) {
  int rows = -1;  // the header
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) rows += !line.empty() && line[0] != '#';
  return rows;
}

class MonitorLogs : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/monitor_logs_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  static ScoreRow Row(std::uint64_t i, double score) {
    ScoreRow r;
    r.index = r.frame = i;
    r.score = score;
    r.ref_frame = static_cast<std::int64_t>(i) + 2;
    return r;
  }
  std::string dir_;
};

TEST_F(MonitorLogs, RowsAreWrittenAtOnceAndClosedWithSummary) {
  std::string error;
  auto log = RenditionLog::Open(dir_, "hd", LogRotation{}, LogRunInfo{}, 0, &error);
  ASSERT_NE(log, nullptr) << error;
  ASSERT_TRUE(log->Append(Row(0, 50), 1, &error)) << error;
  ASSERT_TRUE(log->Append(Row(1, 70), 2, &error)) << error;
  // Flushed row by row: a reader sees both before the log is closed.
  EXPECT_EQ(RowCount(ReadFile(dir_ + "/hd.csv")), 2);
  ASSERT_TRUE(log->Close(&error)) << error;
  // The CSV is rows only; the summary is in the summary file beside it.
  const std::string text = ReadFile(dir_ + "/hd.csv");
  EXPECT_EQ(text.find('#'), std::string::npos) << text;
  EXPECT_EQ(RowCount(text), 2);
  const std::string summary = ReadFile(dir_ + "/hd.summary.json");
  EXPECT_NE(summary.find("\"source\": \"hd\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"frames\": 2"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"mean\": 60"), std::string::npos) << summary;
}

TEST_F(MonitorLogs, RotatesBySizeKeepingTheNewest) {
  LogRotation rotation;
  rotation.max_bytes = 200;  // a header and a few rows
  rotation.keep = 2;
  std::string error;
  auto log = RenditionLog::Open(dir_, "sd", rotation, LogRunInfo{}, 0, &error);
  ASSERT_NE(log, nullptr) << error;
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(log->Append(Row(i, i), i, &error)) << error;
  ASSERT_TRUE(log->Close(&error)) << error;
  const std::string current = ReadFile(dir_ + "/sd.csv");
  const std::string newest = ReadFile(dir_ + "/sd.csv.1");
  const std::string older = ReadFile(dir_ + "/sd.csv.2");
  EXPECT_TRUE(ReadFile(dir_ + "/sd.csv.3").empty());  // beyond keep: removed
  // Each file is a complete log: rows only, and beside it the summary of
  // its own rows, rotated with it.
  const std::string summaries[] = {ReadFile(dir_ + "/sd.summary.json"),
                                   ReadFile(dir_ + "/sd.summary.json.1"),
                                   ReadFile(dir_ + "/sd.summary.json.2")};
  int k = 0;
  for (const std::string* text : {&current, &newest, &older}) {
    const int rows = RowCount(*text);
    EXPECT_GT(rows, 0);
    EXPECT_EQ(text->find('#'), std::string::npos) << *text;
    EXPECT_NE(summaries[k].find("\"frames\": " + std::to_string(rows)), std::string::npos)
        << summaries[k];
    ++k;
  }
  // The last row is in the current file, and the rows run on across files.
  EXPECT_NE(current.find("\n39,39,"), std::string::npos) << current;
  const std::size_t first_current = current.find('\n') + 1;
  const int first = std::stoi(current.substr(first_current));
  const int newest_rows = RowCount(newest);
  EXPECT_NE(newest.find("\n" + std::to_string(first - 1) + ","), std::string::npos) << newest;
  EXPECT_NE(newest.find("\n" + std::to_string(first - newest_rows) + ","), std::string::npos);
}

TEST_F(MonitorLogs, RotatesByAge) {
  LogRotation rotation;
  rotation.max_bytes = 0;
  rotation.max_age_s = 10;
  std::string error;
  auto log = RenditionLog::Open(dir_, "hd", rotation, LogRunInfo{}, 100, &error);
  ASSERT_NE(log, nullptr) << error;
  ASSERT_TRUE(log->Append(Row(0, 1), 105, &error));
  ASSERT_TRUE(log->Append(Row(1, 2), 109.9, &error));
  ASSERT_TRUE(log->Append(Row(2, 3), 110, &error));  // 10 s after opening: a new file
  ASSERT_TRUE(log->Close(&error));
  EXPECT_EQ(RowCount(ReadFile(dir_ + "/hd.csv.1")), 2);
  EXPECT_EQ(RowCount(ReadFile(dir_ + "/hd.csv")), 1);
}

TEST_F(MonitorLogs, UnwritableDirectoryIsAnError) {
  std::string error;
  auto log = RenditionLog::Open(dir_ + "/missing", "hd", LogRotation{}, LogRunInfo{}, 0, &error);
  EXPECT_EQ(log, nullptr);
  EXPECT_NE(error.find("missing/hd.csv"), std::string::npos) << error;
}

TEST(MonitorMetrics, ReferenceDelayOnlyWithADelayLine) {
  Metrics m({"hd"}, std::nullopt);
  const std::string none = m.OpenMetricsText(1.0);
  EXPECT_EQ(SampleValue(none, "ssim2_reference_delay_seconds"), "");
  EXPECT_NE(m.StateJson(1.0).find("\"reference_delay\":null"), std::string::npos);
  m.ReferenceDelay(10.5, 11.25, 1234567);
  const std::string text = m.OpenMetricsText(1.0);
  EXPECT_EQ(SampleValue(text, "ssim2_reference_delay_seconds"), "10.5");
  EXPECT_EQ(SampleValue(text, "ssim2_reference_delay_bytes"), "1234567");
  EXPECT_NE(m.StateJson(1.0).find(
                "\"reference_delay\":{\"seconds\":10.5,\"target_seconds\":11.25,"
                "\"bytes\":1234567}"),
            std::string::npos)
      << m.StateJson(1.0);
}

// The delay's choice from the renditions' lags (docs/MONITOR.md, "Long
// latencies"): margin 1 s, hysteresis 0.5 s.
RenditionLag Lag(bool up, bool locked, std::optional<double> lag) {
  RenditionLag r;
  r.up = up;
  r.locked = locked;
  r.lag_s = lag;
  return r;
}

TEST(ReferenceDelayChoice, RaisedToTheLeastLateLagLessTheMargin) {
  const DelayPolicy p;
  // Two renditions 12 s and 20 s behind: the delay serves the first.
  EXPECT_EQ(ChooseReferenceDelay(0, {Lag(true, true, 12.0), Lag(true, true, 20.0)}, p), 11.0);
  // Already delayed by 11 s, a rendition 4 s behind it: 3 s more.
  EXPECT_EQ(ChooseReferenceDelay(11, {Lag(true, true, 4.0)}, p), 14.0);
  // A rendition that is down does not count.
  EXPECT_EQ(ChooseReferenceDelay(0, {Lag(true, true, 12.0), Lag(false, false, std::nullopt)}, p),
            11.0);
}

// A starved monitor once measured lags of 33 and 60 s for transcoders 1 s
// late (its own frames queued), and the delay followed them to 92 s.
TEST(ReferenceDelayChoice, NeverRaisedBeyondTheSyncWindow) {
  DelayPolicy p;
  p.max_s = 4.0;  // --sync-window 5, less the margin
  EXPECT_EQ(ChooseReferenceDelay(0, {Lag(true, true, 33.0)}, p), 4.0);
  EXPECT_FALSE(ChooseReferenceDelay(4.0, {Lag(true, true, 60.0)}, p));
  // Lowering is not bounded by it.
  EXPECT_EQ(ChooseReferenceDelay(4.0, {Lag(true, true, -2.0)}, p), 1.0);
}

TEST(ReferenceDelayChoice, RaisedOnlyWhenEveryRenditionUpIsLockedAndMeasured) {
  const DelayPolicy p;
  EXPECT_FALSE(ChooseReferenceDelay(0, {Lag(true, true, 12.0), Lag(true, false, std::nullopt)}, p));
  EXPECT_FALSE(ChooseReferenceDelay(0, {Lag(true, true, 12.0), Lag(true, true, std::nullopt)}, p));
  EXPECT_FALSE(ChooseReferenceDelay(0, {}, p));
  EXPECT_FALSE(ChooseReferenceDelay(0, {Lag(false, true, 12.0)}, p));
}

TEST(ReferenceDelayChoice, KeptWithinTheHysteresis) {
  const DelayPolicy p;
  EXPECT_FALSE(ChooseReferenceDelay(11, {Lag(true, true, 1.0)}, p));
  EXPECT_FALSE(ChooseReferenceDelay(11, {Lag(true, true, 1.5)}, p));
  EXPECT_FALSE(ChooseReferenceDelay(11, {Lag(true, true, 0.6)}, p));
  EXPECT_EQ(ChooseReferenceDelay(11, {Lag(true, true, 1.6)}, p), 11.6);
}

TEST(ReferenceDelayChoice, LoweredAsSoonAsOneLockedRenditionCatchesUp) {
  const DelayPolicy p;
  // One rendition is now 0.2 s behind (the other not measured yet): lowered
  // to leave it the margin.
  auto lowered = ChooseReferenceDelay(11, {Lag(true, true, 0.2), Lag(true, false, std::nullopt)}, p);
  ASSERT_TRUE(lowered);
  EXPECT_NEAR(*lowered, 10.2, 1e-12);
  // Ahead of the delayed reference (a transcoder restarted with less
  // latency): by its lead too.
  EXPECT_EQ(ChooseReferenceDelay(11, {Lag(true, true, -3.0)}, p), 7.0);
  // Never below 0, and nothing to lower at 0.
  EXPECT_EQ(ChooseReferenceDelay(2, {Lag(true, true, -5.0)}, p), 0.0);
  EXPECT_FALSE(ChooseReferenceDelay(0, {Lag(true, true, 0.1)}, p));
}

TEST(ReferenceDelayControl, RampsToTheChoiceAndSettlesBeforeTheNext) {
  ReferenceDelayControl c;  // margin 1 s, ramp 0.75 s/s, settle 2 s
  const std::map<std::string, bool> up{{"a", true}};
  c.Locked("a", true);
  c.Measured("a", 10.0, 22.0);  // 12 s behind
  ASSERT_EQ(c.lag_s("a"), 12.0);
  EXPECT_FALSE(c.Tick(up, 22.0));  // chosen: 11 s
  EXPECT_EQ(c.target_s(), 11.0);
  // At 0.75 s a second; the lag follows (the pairing is unchanged).
  EXPECT_EQ(c.Tick(up, 23.0), 0.75);
  EXPECT_EQ(c.lag_s("a"), 11.25);
  // Measurements while the delay moves are not taken.
  c.Measured("a", 22.5, 30.0);
  EXPECT_EQ(c.lag_s("a"), 11.25);
  double t = 23.0, delay = 0.75;
  while (delay < 11.0) {
    t += 0.1;
    const auto d = c.Tick(up, t);
    ASSERT_TRUE(d);
    EXPECT_LE(*d - delay, 0.075 + 1e-9);
    delay = *d;
  }
  EXPECT_EQ(delay, 11.0);
  EXPECT_NEAR(*c.lag_s("a"), 1.0, 1e-9);
  // Settling: no new choice, and lags of reference frames that crossed
  // before it are not taken.
  c.Measured("a", t + 1.0, t + 5.0);
  EXPECT_NEAR(*c.lag_s("a"), 1.0, 1e-9);
  EXPECT_FALSE(c.Tick(up, t + 1.9));
  // Settled: the rendition now 3 s behind (its latency grew) raises it.
  c.Measured("a", t + 2.5, t + 5.5);
  EXPECT_EQ(c.lag_s("a"), 3.0);
  EXPECT_FALSE(c.Tick(up, t + 6.0));
  EXPECT_EQ(c.target_s(), 13.0);
}

TEST(ReferenceDelayControl, ForgetsLostLocksAndRestarts) {
  ReferenceDelayControl c;
  const std::map<std::string, bool> up{{"a", true}, {"b", true}};
  c.Locked("a", true);
  c.Locked("b", true);
  c.Measured("a", 10.0, 22.0);
  c.Measured("b", 10.0, 30.0);
  c.Locked("b", false);  // b lost its lock: nothing is raised until it is found again
  EXPECT_FALSE(c.lag_s("b"));
  EXPECT_FALSE(c.Tick(up, 30.0));
  EXPECT_EQ(c.target_s(), 0.0);
  c.Locked("b", true);
  c.Measured("b", 11.0, 31.0);
  c.Forget("a");  // a went down: it does not count while down
  EXPECT_FALSE(c.Tick({{"a", false}, {"b", true}}, 31.0));
  EXPECT_EQ(c.target_s(), 19.0);
  c.Restart();
  EXPECT_FALSE(c.lag_s("b"));
}

}  // namespace
}  // namespace monitor
}  // namespace ssim2
