// Tests of gst/gstssim2message.cpp: the element messages' wire format (the
// field names and types docs/ELEMENT.md gives, which applications read by
// name), and the typed structs read back from it.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gstssim2message.h"

namespace {

class MessageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

struct Field {
  const char* name;
  GType type;
};

// Every field of @s, in order, with its type: the schema of ELEMENT.md.
void ExpectFields(const GstStructure* s, const std::vector<Field>& want) {
  ASSERT_EQ(gst_structure_n_fields(s), (gint)want.size()) << gst_structure_get_name(s);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_STREQ(gst_structure_nth_field_name(s, (guint)i), want[i].name);
    EXPECT_EQ(gst_structure_get_field_type(s, want[i].name), want[i].type) << want[i].name;
  }
}

TEST_F(MessageTest, ScoreMessageSchemaAndRoundTrip) {
  GstSsim2ScoreMessage m;
  gst_ssim2_score_message_init(&m);
  m.score = 87.25;
  m.index = 7;
  m.timestamp = 1000;
  m.stream_time = 2000;
  m.running_time = 3000;
  m.pad = "dist_1";
  m.frame = 9;
  m.ref_frame = 5;
  m.offset = -4;
  GstStructure* s = gst_ssim2_score_message_to_structure(&m);
  EXPECT_STREQ(gst_structure_get_name(s), "ssim2");
  ExpectFields(s, {{"score", G_TYPE_DOUBLE},
                   {"index", G_TYPE_UINT64},
                   {"timestamp", G_TYPE_UINT64},
                   {"stream-time", G_TYPE_UINT64},
                   {"running-time", G_TYPE_UINT64},
                   {"duration", G_TYPE_UINT64},
                   {"pad", G_TYPE_STRING},
                   {"frame", G_TYPE_UINT64},
                   {"ref-frame", G_TYPE_INT64},
                   {"offset", G_TYPE_INT64}});
  GstSsim2ScoreMessage back;
  ASSERT_TRUE(gst_ssim2_score_message_parse(s, &back));
  EXPECT_EQ(back.score, 87.25);
  EXPECT_EQ(back.index, 7u);
  EXPECT_EQ(back.timestamp, 1000u);
  EXPECT_EQ(back.stream_time, 2000u);
  EXPECT_EQ(back.running_time, 3000u);
  EXPECT_EQ(back.duration, GST_CLOCK_TIME_NONE);  // unknown: init's value
  EXPECT_STREQ(back.pad, "dist_1");
  EXPECT_EQ(back.frame, 9u);
  EXPECT_EQ(back.ref_frame, 5);
  EXPECT_EQ(back.offset, -4);
  gst_structure_free(s);
}

TEST_F(MessageTest, ScoreMessageNeedsScoreAndIndexAndItsName) {
  GstSsim2ScoreMessage m;
  GstStructure* s = gst_structure_new("ssim2", "score", G_TYPE_DOUBLE, 50.0, NULL);
  EXPECT_FALSE(gst_ssim2_score_message_parse(s, &m));  // no index
  gst_structure_set(s, "index", G_TYPE_UINT64, (guint64)3, NULL);
  ASSERT_TRUE(gst_ssim2_score_message_parse(s, &m));
  // Fields an older element did not post keep their defaults.
  EXPECT_EQ(m.running_time, GST_CLOCK_TIME_NONE);
  EXPECT_EQ(m.pad, nullptr);
  EXPECT_EQ(m.ref_frame, -1);
  gst_structure_set_name(s, "ssim2-summary");
  EXPECT_FALSE(gst_ssim2_score_message_parse(s, &m));
  gst_structure_free(s);
}

TEST_F(MessageTest, IntervalMessageSchemaAndRoundTrip) {
  GstSsim2IntervalMessage m;
  gst_ssim2_interval_message_init(&m);
  m.pad = "dist";
  m.frames = 30;
  m.skipped = 2;
  m.mean = 80.5;
  m.min = 70.0;
  m.p5 = 71.0;
  m.max = 90.0;
  m.start = 0;
  m.end = GST_SECOND;
  GstStructure* s = gst_ssim2_interval_message_to_structure(&m);
  EXPECT_STREQ(gst_structure_get_name(s), "ssim2-interval");
  ExpectFields(s, {{"pad", G_TYPE_STRING},
                   {"frames", G_TYPE_UINT64},
                   {"skipped", G_TYPE_UINT64},
                   {"mean", G_TYPE_DOUBLE},
                   {"min", G_TYPE_DOUBLE},
                   {"p5", G_TYPE_DOUBLE},
                   {"max", G_TYPE_DOUBLE},
                   {"start", G_TYPE_UINT64},
                   {"end", G_TYPE_UINT64}});
  GstSsim2IntervalMessage back;
  ASSERT_TRUE(gst_ssim2_interval_message_parse(s, &back));
  EXPECT_STREQ(back.pad, "dist");
  EXPECT_EQ(back.frames, 30u);
  EXPECT_EQ(back.skipped, 2u);
  EXPECT_EQ(back.mean, 80.5);
  EXPECT_EQ(back.min, 70.0);
  EXPECT_EQ(back.p5, 71.0);
  EXPECT_EQ(back.max, 90.0);
  EXPECT_EQ(back.start, 0u);
  EXPECT_EQ(back.end, GST_SECOND);
  gst_structure_free(s);
}

TEST_F(MessageTest, SummaryMessageSchemaAndRoundTrip) {
  GstSsim2SummaryMessage m;
  gst_ssim2_summary_message_init(&m);
  ssim2::Summary sum;
  sum.frames = 4;
  sum.mean = 1;
  sum.stddev = 2;
  sum.min = 3;
  sum.p1 = 4;
  sum.p5 = 5;
  sum.p50 = 6;
  sum.p95 = 7;
  sum.p99 = 8;
  sum.max = 9;
  sum.harmonic_mean = 10;
  ssim2gst::SetSummaryStatistics(&m, sum);
  m.unmatched_ref = 11;
  m.unmatched_dist = 12;
  m.skipped = 13;
  m.ended_first = "ref";
  m.backend = "CPU";
  m.pad = "dist_2";
  m.failure = "too small";
  m.dropped = 14;
  m.repeated = 15;
  m.unaligned = 16;
  GstStructure* s = gst_ssim2_summary_message_to_structure(&m);
  EXPECT_STREQ(gst_structure_get_name(s), "ssim2-summary");
  ExpectFields(s, {{"frames", G_TYPE_UINT64},         {"mean", G_TYPE_DOUBLE},
                   {"stddev", G_TYPE_DOUBLE},         {"min", G_TYPE_DOUBLE},
                   {"p1", G_TYPE_DOUBLE},             {"p5", G_TYPE_DOUBLE},
                   {"p50", G_TYPE_DOUBLE},            {"p95", G_TYPE_DOUBLE},
                   {"p99", G_TYPE_DOUBLE},            {"max", G_TYPE_DOUBLE},
                   {"harmonic-mean", G_TYPE_DOUBLE},  {"unmatched-ref", G_TYPE_UINT64},
                   {"unmatched-dist", G_TYPE_UINT64}, {"skipped", G_TYPE_UINT64},
                   {"ended-first", G_TYPE_STRING},    {"backend", G_TYPE_STRING},
                   {"pad", G_TYPE_STRING},            {"failure", G_TYPE_STRING},
                   {"dropped", G_TYPE_UINT64},        {"repeated", G_TYPE_UINT64},
                   {"unaligned", G_TYPE_UINT64}});
  GstSsim2SummaryMessage back;
  ASSERT_TRUE(gst_ssim2_summary_message_parse(s, &back));
  EXPECT_EQ(back.frames, 4u);
  const double pooled[] = {back.mean, back.stddev, back.min, back.p1,  back.p5,
                           back.p50,  back.p95,    back.p99, back.max, back.harmonic_mean};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(pooled[i], i + 1.0) << i;
  EXPECT_EQ(back.unmatched_ref, 11u);
  EXPECT_EQ(back.unmatched_dist, 12u);
  EXPECT_EQ(back.skipped, 13u);
  EXPECT_STREQ(back.ended_first, "ref");
  EXPECT_STREQ(back.backend, "CPU");
  EXPECT_STREQ(back.pad, "dist_2");
  EXPECT_STREQ(back.failure, "too small");
  EXPECT_EQ(back.dropped, 14u);
  EXPECT_EQ(back.repeated, 15u);
  EXPECT_EQ(back.unaligned, 16u);
  gst_structure_free(s);
}

TEST_F(MessageTest, SyncMessageSchemaAndRoundTrip) {
  GstSsim2SyncMessage m;
  gst_ssim2_sync_message_init(&m);
  m.pad = "dist_1";
  m.state = "relocked";
  m.frame = 42;
  m.offset = -7;
  m.confidence = 0.75;
  GstStructure* s = gst_ssim2_sync_message_to_structure(&m);
  EXPECT_STREQ(gst_structure_get_name(s), "ssim2-sync");
  ExpectFields(s, {{"pad", G_TYPE_STRING},
                   {"state", G_TYPE_STRING},
                   {"frame", G_TYPE_UINT64},
                   {"offset", G_TYPE_INT64},
                   {"confidence", G_TYPE_DOUBLE}});
  GstSsim2SyncMessage back;
  ASSERT_TRUE(gst_ssim2_sync_message_parse(s, &back));
  EXPECT_STREQ(back.pad, "dist_1");
  EXPECT_STREQ(back.state, "relocked");
  EXPECT_EQ(back.frame, 42u);
  EXPECT_EQ(back.offset, -7);
  EXPECT_EQ(back.confidence, 0.75);
  gst_structure_remove_field(s, "state");
  EXPECT_FALSE(gst_ssim2_sync_message_parse(s, &back)) << "state is required";
  gst_structure_free(s);
}

TEST_F(MessageTest, EmptySummaryIsNaN) {
  GstSsim2SummaryMessage m;
  gst_ssim2_summary_message_init(&m);
  ssim2gst::SetSummaryStatistics(&m, ssim2::Summarize({}));
  GstStructure* s = gst_ssim2_summary_message_to_structure(&m);
  GstSsim2SummaryMessage back;
  ASSERT_TRUE(gst_ssim2_summary_message_parse(s, &back));
  EXPECT_EQ(back.frames, 0u);
  EXPECT_TRUE(std::isnan(back.mean));
  EXPECT_TRUE(std::isnan(back.harmonic_mean));
  EXPECT_STREQ(back.ended_first, "");
  gst_structure_free(s);
}

}  // namespace
