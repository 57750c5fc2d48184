// The score log (ssim2/score_log.h): schemas, numbers under a German locale,
// JSON strings from bytes that are not UTF-8, write errors, and which input
// ended first.
#include "ssim2/score_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <string>
#include <vector>

#include "../assertions.h"
#include "../locale/de_locale.h"
#include "ssim2_version.h"
#include "text_format.h"

namespace ssim2 {
namespace {

using testing::Contains;

constexpr std::uint64_t kFrameNs = 33333333;

std::vector<ScoreRow> TwoRows() {
  std::vector<ScoreRow> rows(2);
  rows[0].index = 0;
  rows[0].frame = 0;
  rows[0].pts = 0;
  rows[0].stream_time = 0;
  rows[0].running_time = 0;
  rows[0].duration = kFrameNs;
  rows[0].score = 87.5;
  rows[0].ref_frame = 3;  // row 1's is unknown
  rows[1].index = 2;
  rows[1].frame = 5;
  rows[1].pts = 2 * kFrameNs;  // stream and running time unknown
  rows[1].score = -3.25;
  return rows;
}

LogSummary SummaryOf(const std::vector<ScoreRow>& rows) {
  std::vector<double> scores;
  for (const ScoreRow& r : rows) scores.push_back(r.score);
  LogSummary s;
  s.scores = Summarize(scores);
  s.unmatched_ref = 1;
  s.unmatched_dist = 0;
  s.ended_first = Input::kRef;
  s.dropped = 4;
  s.repeated = 5;
  s.unaligned = 6;
  s.skipped = 7;
  s.backend = "CPU (test)";
  s.ref_transfer = "sRGB";  // dist_transfer unknown
  return s;
}

std::string Render(LogFormat format, const std::vector<ScoreRow>& rows,
                   const LogRunInfo& info = LogRunInfo{}) {
  LogOptions options;
  options.format = format;
  return RenderScoreLog(options, rows, SummaryOf(rows), info);
}

// A CSV log is rows only (RFC 4180): the header and one line per row, no
// summary lines for a CSV reader to take for rows.
TEST(ScoreLog, CsvSchema) {
  EXPECT_EQ(Render(LogFormat::kCsv, TwoRows()),
            "index,frame,pts,stream_time,running_time,duration,score,ref_frame\n"
            "0,0,0,0,0,33333333,87.50000000,3\n"
            "2,5,66666666,,,,-3.25000000,\n");
  EXPECT_EQ(Render(LogFormat::kCsv, {}),
            "index,frame,pts,stream_time,running_time,duration,score,ref_frame\n");
}

TEST(ScoreLog, CsvSourceColumnIsQuotedWhenNeeded) {
  std::vector<ScoreRow> rows = TwoRows();
  rows[0].source = "720p";
  rows[1].source = "a,\"b\"";
  LogOptions options;
  options.with_source = true;
  const std::string csv = RenderScoreLog(options, rows, SummaryOf(rows), {});
  EXPECT_EQ(csv.rfind("index,frame,pts,stream_time,running_time,duration,score,ref_frame,source\n"
                      "0,0,0,0,0,33333333,87.50000000,3,720p\n"
                      "2,5,66666666,,,,-3.25000000,,\"a,\"\"b\"\"\"\n",
                      0),
            0u)
      << csv;
}

// Several sources in one JSON log: each source's own summary follows the
// main one, and a log without them is unchanged (the schema tests above).
TEST(ScoreLog, PerSourceSummaries) {
  std::vector<ScoreRow> rows = TwoRows();
  rows[0].source = "a.mkv";
  rows[1].source = "b,c.mkv";
  LogSummary summary = SummaryOf({rows[0]});
  LogSummary second = SummaryOf({rows[1]});
  second.unmatched_ref.reset();
  second.ended_first.reset();
  second.unaligned.reset();
  second.skipped.reset();
  second.backend.clear();
  second.ref_transfer = "PQ";
  second.dist_transfer = "HLG";
  summary.per_source = {{"a.mkv", SummaryOf({rows[0]})}, {"b,c.mkv", second}};
  LogOptions options;
  options.with_source = true;
  // CSV: rows only, whatever the summaries.
  const std::string csv = RenderScoreLog(options, rows, summary, {});
  EXPECT_FALSE(Contains(csv, "#"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  options.format = LogFormat::kJson;
  const std::string json = RenderScoreLog(options, rows, summary, {});
  EXPECT_TRUE(Contains(json, "  \"source_summaries\": [\n"
                             "    {\"source\": \"a.mkv\", \"summary\": {\n"
                             "      \"frames\": 1,\n"
                             "      \"mean\": 87.50000000,\n"));
  EXPECT_TRUE(Contains(json, "    {\"source\": \"b,c.mkv\", \"summary\": {\n"
                             "      \"frames\": 1,\n"
                             "      \"mean\": -3.25000000,\n"));
  EXPECT_TRUE(Contains(json, "      \"ended_first\": null,\n      \"dropped\": 4,\n"
                             "      \"repeated\": 5,\n"
                             "      \"unaligned\": null,\n      \"skipped\": null,\n"
                             "      \"backend\": null,\n      \"failure\": null,\n"
                             "      \"ref_transfer\": \"PQ\",\n      \"dist_transfer\": \"HLG\"\n"
                             "    }}\n  ],\n"));
  // Without per-source summaries the JSON has no such key.
  summary.per_source.clear();
  EXPECT_FALSE(Contains(RenderScoreLog(options, rows, summary, {}), "source_summaries"));
}

TEST(ScoreLog, JsonSchema) {
  LogRunInfo info;
  info.reference = "ref.mkv";
  info.alignment = "running-time";
  info.width = 320;
  info.height = 240;
  info.elapsed_s = 0.5;
  info.warnings = {"w"};
  EXPECT_EQ(Render(LogFormat::kJson, TwoRows(), info),
            "{\n"
            "  \"metric\": \"SSIMULACRA 2.1\",\n"
            "  \"frames\": [\n"
            "    {\"index\": 0, \"frame\": 0, \"pts\": 0, \"stream_time\": 0, "
            "\"running_time\": 0, \"duration\": 33333333, \"score\": 87.50000000, \"ref_frame\": 3},\n"
            "    {\"index\": 2, \"frame\": 5, \"pts\": 66666666, \"stream_time\": null, "
            "\"running_time\": null, \"duration\": null, \"score\": -3.25000000, \"ref_frame\": null}\n"
            "  ],\n"
            "  \"summary\": {\n"
            "    \"frames\": 2,\n"
            "    \"mean\": 42.12500000,\n"
            "    \"stddev\": 45.37500000,\n"
            "    \"min\": -3.25000000,\n"
            "    \"p1\": -2.34250000,\n"
            "    \"p5\": 1.28750000,\n"
            "    \"p50\": 42.12500000,\n"
            "    \"p95\": 82.96250000,\n"
            "    \"p99\": 86.59250000,\n"
            "    \"max\": 87.50000000,\n"
            "    \"harmonic_mean\": 0.00000000,\n"
            "    \"unmatched_ref\": 1,\n"
            "    \"unmatched_dist\": 0,\n"
            "    \"ended_first\": \"ref\",\n"
            "    \"dropped\": 4,\n"
            "    \"repeated\": 5,\n"
            "    \"unaligned\": 6,\n"
            "    \"skipped\": 7,\n"
            "    \"backend\": \"CPU (test)\",\n"
            "    \"failure\": null,\n"
            "    \"ref_transfer\": \"sRGB\",\n"
            "    \"dist_transfer\": null\n"
            "  },\n"
            "  \"reference\": \"ref.mkv\",\n"
            "  \"distorted\": null,\n"
            "  \"width\": 320,\n"
            "  \"height\": 240,\n"
            "  \"alignment\": \"running-time\",\n"
            "  \"offset\": 0,\n"
            "  \"every\": 1,\n"
            "  \"elapsed_s\": 0.500,\n"
            "  \"throughput_fps\": 4.00,\n"
            "  \"warnings\": [\"w\"]\n"
            "}\n");
}

TEST(ScoreLog, EmptyJsonHasNullStatistics) {
  LogOptions options;
  options.format = LogFormat::kJson;
  LogSummary empty;
  empty.scores = Summarize({});
  const std::string json = RenderScoreLog(options, {}, empty, {});
  EXPECT_TRUE(Contains(json, "\"frames\": [],\n"));
  EXPECT_TRUE(Contains(json, "\"mean\": null"));
  EXPECT_TRUE(Contains(json, "\"unmatched_ref\": null"));
  EXPECT_TRUE(Contains(json, "\"ended_first\": null"));
  EXPECT_TRUE(Contains(json, "\"elapsed_s\": null"));
}

// vmaf-json is libvmaf's vmaf_write_output_json(): its keys in its order,
// its layout, its pooled values (harmonic_mean = 1 / mean(1 / (x + 1)) - 1)
// and its numbers (6 decimals); our summary under a key of our own.
TEST(ScoreLog, VmafJsonSchema) {
  // Our summary: the JSON log's summary object (JsonSchema), one level in.
  const std::string json = Render(LogFormat::kJson, TwoRows());
  const std::size_t start = json.find("  \"summary\": {\n");
  const std::size_t end = json.find("\n  },\n", start);
  ASSERT_NE(end, std::string::npos) << json;
  std::string own_summary = "  " + json.substr(start, end + 4 - start);
  for (std::size_t at = own_summary.find('\n'); at != std::string::npos;
       at = own_summary.find('\n', at + 1)) {
    own_summary.insert(at + 1, "  ");
  }
  EXPECT_EQ(Render(LogFormat::kVmafJson, TwoRows()),
            "{\n"
            "  \"version\": \"" SSIM2_PROJECT_VERSION "\",\n"
            "  \"fps\": null,\n"
            "  \"frames\": [\n"
            "    {\n"
            "      \"frameNum\": 0,\n"
            "      \"metrics\": {\n"
            "        \"ssimulacra2\": 87.500000\n"
            "      }\n"
            "    },\n"
            "    {\n"
            "      \"frameNum\": 5,\n"
            "      \"metrics\": {\n"
            "        \"ssimulacra2\": -3.250000\n"
            "      }\n"
            "    }\n"
            "  ],\n"
            "  \"pooled_metrics\": {\n"
            "    \"ssimulacra2\": {\n"
            "      \"min\": -3.250000,\n"
            "      \"max\": 87.500000,\n"
            "      \"mean\": 42.125000,\n"
            "      \"harmonic_mean\": -5.617391\n"
            "    }\n"
            "  },\n"
            "  \"aggregate_metrics\": {\n"
            "  },\n"
            "  \"gst_ssim2\": {\n"
            "    \"metric\": \"SSIMULACRA 2.1\",\n" +
                own_summary +
            "\n  }\n"
            "}\n");
}

// libvmaf prints 16 decimals when a number's fractional part starts with
// more than 5 zeros; fps counts the pairs read (frame-step's skipped ones
// too) per second.
TEST(ScoreLog, VmafJsonNumbersAndFps) {
  std::vector<ScoreRow> rows = TwoRows();
  rows.push_back(rows[0]);
  rows[2].index = 5;
  rows[2].frame = 7;
  rows[2].score = 50.0000001;
  LogRunInfo info;
  info.elapsed_s = 2.0;
  const std::string text = Render(LogFormat::kVmafJson, rows, info);
  EXPECT_TRUE(Contains(text, "\"fps\": 3.00,\n"));
  EXPECT_TRUE(Contains(text, "\"ssimulacra2\": 50.0000001000000012\n"));
  EXPECT_TRUE(Contains(text, "\"harmonic_mean\": -8.254487\n"));
  // Without frames the pools are null, as libvmaf writes what is not finite.
  const std::string empty = Render(LogFormat::kVmafJson, {});
  EXPECT_TRUE(Contains(empty, "\"frames\": [\n  ],\n"));
  EXPECT_TRUE(Contains(empty, "\"min\": null,\n"));
  EXPECT_TRUE(Contains(empty, "\"harmonic_mean\": null\n"));
}

// The summary file: the JSON log's summary objects, one per source.
TEST(ScoreLog, SummaryFile) {
  const std::vector<ScoreRow> rows = TwoRows();
  LogSummary second = SummaryOf({rows[1]});
  second.failure = "bad \"caps\"";
  const std::string text = RenderSummaryFile({{"dist", SummaryOf(rows)}, {"dist_1", second}});
  EXPECT_EQ(text.rfind("{\n"
                       "  \"metric\": \"SSIMULACRA 2.1\",\n"
                       "  \"summaries\": [\n"
                       "    {\"source\": \"dist\", \"summary\": {\n"
                       "      \"frames\": 2,\n"
                       "      \"mean\": 42.12500000,\n",
                       0),
            0u)
      << text;
  EXPECT_TRUE(Contains(text, "    {\"source\": \"dist_1\", \"summary\": {\n"
                             "      \"frames\": 1,\n"
                             "      \"mean\": -3.25000000,\n"));
  EXPECT_TRUE(Contains(text, "      \"failure\": \"bad \\\"caps\\\"\",\n"
                             "      \"ref_transfer\": \"sRGB\",\n      \"dist_transfer\": null\n"
                             "    }}\n  ]\n}\n"));
  EXPECT_EQ(RenderSummaryFile({}), "{\n  \"metric\": \"SSIMULACRA 2.1\",\n  \"summaries\": []\n}\n");
  // Written as rendered, and a file that cannot be created is one error.
  char path[] = "/tmp/ssim2-summary-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string error;
  ASSERT_TRUE(WriteSummaryFile(path, {{"dist", SummaryOf(rows)}}, &error)) << error;
  std::FILE* f = std::fopen(path, "rb");
  ASSERT_NE(f, nullptr);
  std::string back(4096, '\0');
  back.resize(std::fread(&back[0], 1, back.size(), f));
  std::fclose(f);
  std::remove(path);
  EXPECT_EQ(back, RenderSummaryFile({{"dist", SummaryOf(rows)}}));
  EXPECT_FALSE(WriteSummaryFile("/nonexistent-dir/s.json", {}, &error));
  EXPECT_EQ(error.rfind("cannot write /nonexistent-dir/s.json: ", 0), 0u) << error;
}

TEST(ScoreLog, VmafJsonRefusesSources) {
  LogOptions options;
  options.format = LogFormat::kVmafJson;
  options.with_source = true;
  std::string error;
  EXPECT_EQ(ScoreLog::Open("/tmp/never-created.json", options, &error), nullptr);
  EXPECT_TRUE(Contains(error, "vmaf-json"));
}

// The element's bug: under a locale with ',' as decimal separator every
// number must still be written with '.'.
TEST(ScoreLog, NumbersIgnoreTheLocale) {
  ASSERT_TRUE(ssim2_test_use_de_locale());
  EXPECT_EQ(FormatFixed(1.5, 3), "1.500");
  EXPECT_EQ(FormatScore(-64.63488993), "-64.63488993");
  EXPECT_EQ(FormatShortest(-64.5), "-64.5");
  for (LogFormat f : {LogFormat::kCsv, LogFormat::kJson, LogFormat::kVmafJson}) {
    LogRunInfo info;
    info.elapsed_s = 1.25;
    const std::string text = Render(f, TwoRows(), info);
    EXPECT_TRUE(Contains(text, "87.50000000"));
    EXPECT_FALSE(Contains(text, "87,5"));
    EXPECT_FALSE(Contains(text, "1,25"));
  }
  std::setlocale(LC_ALL, "C");
}

TEST(ScoreLog, FormatFixed) {
  EXPECT_EQ(FormatFixed(0.0, 2), "0.00");
  EXPECT_EQ(FormatFixed(2.0 / 3.0, 6), "0.666667");
  EXPECT_EQ(FormatFixed(1e20, 1), "100000000000000000000.0");
  EXPECT_EQ(FormatFixed(NAN, 3), "nan");
  EXPECT_EQ(FormatFixed(-INFINITY, 3), "-inf");
  EXPECT_EQ(FormatShortest(0.1), "0.1");
  EXPECT_EQ(std::stod(FormatShortest(2.0 / 3.0)), 2.0 / 3.0);
  EXPECT_EQ(FormatShortest(-1e300), "-1e+300");
}

TEST(JsonEscape, SpecialCharacters) {
  EXPECT_EQ(JsonEscape("a\"b\\c\n\t\r\x01\x7f"),
            "a\\\"b\\\\c\\n\\t\\u000d\\u0001\\u007f");
}

TEST(JsonEscape, KeepsValidUtf8) {
  const std::string s = "Gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\x8E\xA5";  // Grüß € 🎥
  EXPECT_EQ(JsonEscape(s), s);
}

TEST(JsonEscape, ReplacesInvalidBytes) {
  const std::string fffd = "\xEF\xBF\xBD";
  // A Latin-1 file name, a lone continuation byte, a truncated sequence,
  // an overlong '/', a UTF-16 surrogate and a code point above U+10FFFF.
  EXPECT_EQ(JsonEscape("caf\xE9.mkv"), "caf" + fffd + ".mkv");
  EXPECT_EQ(JsonEscape("\x80"), fffd);
  EXPECT_EQ(JsonEscape("\xE2\x82"), fffd + fffd);
  EXPECT_EQ(JsonEscape("\xC0\xAF"), fffd + fffd);
  EXPECT_EQ(JsonEscape("\xED\xA0\x80"), fffd + fffd + fffd);
  EXPECT_EQ(JsonEscape("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);
}

TEST(ToValidUtf8, ReplacesOnlyInvalidBytes) {
  EXPECT_EQ(ToValidUtf8("caf\xE9 \xC3\xA9\n"), "caf\xEF\xBF\xBD \xC3\xA9\n");
}

TEST(ScoreLog, FileRoundTrip) {
  char path[] = "/tmp/ssim2-score-log-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  LogOptions options;
  std::string error;
  ASSERT_TRUE(WriteScoreLog(path, options, TwoRows(), SummaryOf(TwoRows()), {}, &error))
      << error;
  std::FILE* f = std::fopen(path, "rb");
  ASSERT_NE(f, nullptr);
  std::string text;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  std::fclose(f);
  std::remove(path);
  EXPECT_EQ(text, Render(LogFormat::kCsv, TwoRows()));
}

// Writes that fail are reported, not lost: a full disk (/dev/full) and a
// folder that does not exist.
TEST(ScoreLog, WriteErrorsAreReported) {
  LogOptions live;
  live.flush_rows = true;
  std::string error;
  std::unique_ptr<ScoreLog> log = ScoreLog::Open("/dev/full", live, &error);
  if (log) {  // the header is flushed at once; some systems fail only then
    EXPECT_FALSE(log->Append(TwoRows()[0]));
    EXPECT_FALSE(log->ok());
    EXPECT_FALSE(log->Close(SummaryOf(TwoRows()), {}));
    error = log->error();
  }
  EXPECT_TRUE(Contains(error, "cannot write /dev/full: "));

  // Buffered (the tool's whole-file write): the failure shows at the end.
  error.clear();
  EXPECT_FALSE(WriteScoreLog("/dev/full", LogOptions{}, TwoRows(), SummaryOf(TwoRows()), {},
                             &error));
  EXPECT_TRUE(Contains(error, "/dev/full"));

  error.clear();
  EXPECT_EQ(ScoreLog::Open("/nonexistent-dir/x/s.csv", LogOptions{}, &error), nullptr);
  EXPECT_TRUE(Contains(error, "cannot write /nonexistent-dir/x/s.csv: "));
}

TEST(LogFormat, NamesAndPaths) {
  for (LogFormat f : {LogFormat::kCsv, LogFormat::kJson, LogFormat::kVmafJson}) {
    EXPECT_EQ(ParseLogFormat(LogFormatName(f)), f);
  }
  EXPECT_FALSE(ParseLogFormat("xml"));
  EXPECT_EQ(LogFormatNames(), "csv, json, vmaf-json");
  EXPECT_EQ(LogFormatForPath("a.json"), LogFormat::kJson);
  EXPECT_EQ(LogFormatForPath("A.JSON"), LogFormat::kJson);
  EXPECT_EQ(LogFormatForPath("a.csv"), LogFormat::kCsv);
  EXPECT_EQ(LogFormatForPath("json"), LogFormat::kCsv);
  EXPECT_EQ(LogFormatForPath("a.json.txt"), LogFormat::kCsv);
}

TEST(EndedFirst, Cases) {
  InputEnds e;
  e.ref_frames = 12;
  e.dist_frames = 7;
  e.dist_ended = true;
  e.ref_after_dist_end = 1;
  EXPECT_EQ(EndedFirst(e), Input::kDist);  // a ref frame came after dist's end
  e.ref_ended = true;
  EXPECT_EQ(EndedFirst(e), Input::kDist);  // ... even once ref ended too
  e.ref_after_dist_end = 0;
  EXPECT_EQ(EndedFirst(e), std::nullopt);  // both ended, nothing left unscored
  e.dist_after_ref_end = 2;
  EXPECT_EQ(EndedFirst(e), Input::kRef);  // dist frames came after ref ended
  EXPECT_EQ(EndedFirstMessage(Input::kDist, e, 7),
            "the dist input ended first: ref 12 frames, dist 7 frames, 7 pairs scored");
  EXPECT_EQ(EndedFirstMessage(Input::kRef, e, 7, true),
            "the reference input ended first: reference 12 frames, distorted 7 frames, "
            "7 pairs scored");
}

// Issue 24: "the dist input ended first: ref 20 frames, dist 20 frames, 20
// pairs scored". An input whose end-of-stream merely arrived before the
// other's did not end first: without frames of the other after its end,
// neither did.
TEST(EndedFirst, AnEndOfStreamArrivingFirstIsNoEvidence) {
  InputEnds e;
  e.ref_frames = 20;
  e.dist_frames = 20;
  e.dist_ended = true;  // ref's end-of-stream not yet seen
  EXPECT_EQ(EndedFirst(e), std::nullopt);
  e.dist_ended = false;
  e.ref_ended = true;
  EXPECT_EQ(EndedFirst(e), std::nullopt);
}

TEST(SummaryFields, OrderAndNames) {
  std::vector<std::string> names;
  for (const SummaryField& f : kSummaryFields) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"mean", "stddev", "min", "p1", "p5", "p50", "p95",
                                             "p99", "max", "harmonic_mean"}));
}

}  // namespace
}  // namespace ssim2

namespace ssim2 {
namespace {

TEST(TextHelpers, CsvFieldQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(CsvField("plain.png"), "plain.png");
  EXPECT_EQ(CsvField("a,b.png"), "\"a,b.png\"");
  EXPECT_EQ(CsvField("say \"hi\".png"), "\"say \"\"hi\"\".png\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField(" edge.png"), "\" edge.png\"");
  EXPECT_EQ(CsvField("edge.png "), "\"edge.png \"");
  EXPECT_EQ(CsvField(""), "");
}

}  // namespace
}  // namespace ssim2
