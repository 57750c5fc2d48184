// Tests of gst/gstssim2message.cpp: the element messages' wire format (the
// field names and types docs/ELEMENT.md gives, which applications read by
// name), and the typed structs read back from it.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gstssim2message.h"

namespace {

class MessageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

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

// Each message on the wire, as docs/ELEMENT.md gives it: every field in
// order, with its type and a value of its own (no two alike, so that a field
// read into another member shows). The typed structs declare one 8-byte
// member per field in the same order (gstssim2message.h adds fields at the
// end), which is what RoundTrip checks member by member.
const char* const kScoreWire =
    "ssim2, score=(double)87.25, index=(guint64)7, timestamp=(guint64)1000, "
    "stream-time=(guint64)2000, running-time=(guint64)3000, "
    "duration=(guint64)18446744073709551615, pad=(string)dist_1, frame=(guint64)9, "
    "ref-frame=(gint64)5, offset=(gint64)-4, ref-transfer=(string)PQ, "
    "dist-transfer=(string)HLG, ref-running-time=(guint64)2500;";
const char* const kIntervalWire =
    "ssim2-interval, pad=(string)dist, frames=(guint64)30, skipped=(guint64)2, "
    "mean=(double)80.5, min=(double)70, p5=(double)71, max=(double)90, start=(guint64)0, "
    "end=(guint64)1000000000, unaligned=(guint64)3;";
const char* const kSummaryWire =
    "ssim2-summary, frames=(guint64)4, mean=(double)1, stddev=(double)2, min=(double)3, "
    "p1=(double)4, p5=(double)5, p50=(double)6, p95=(double)7, p99=(double)8, "
    "max=(double)9, harmonic-mean=(double)10, unmatched-ref=(guint64)11, "
    "unmatched-dist=(guint64)12, skipped=(guint64)13, ended-first=(string)ref, "
    "backend=(string)CPU, pad=(string)dist_2, failure=(string)\"too small\", "
    "dropped=(guint64)14, repeated=(guint64)15, unaligned=(guint64)16, "
    "ref-transfer=(string)sRGB, dist-transfer=(string)linear;";
const char* const kSyncWire =
    "ssim2-sync, pad=(string)dist_1, state=(string)relocked, frame=(guint64)42, "
    "offset=(gint64)-7, confidence=(double)0.75, running-time=(guint64)1400000000, "
    "ref-running-time=(guint64)1166666666;";

// Member `i` of `msg` (each is 8 bytes) holds field `i` of `s`.
template <typename Msg>
void ExpectMember(const Msg& msg, const GstStructure* s, guint i) {
  const char* name = gst_structure_nth_field_name(s, i);
  const char* member = reinterpret_cast<const char*>(&msg) + 8 * i;
  const GType type = gst_structure_get_field_type(s, name);
  if (type == G_TYPE_STRING) {
    const gchar* got;
    std::memcpy(&got, member, sizeof got);
    EXPECT_STREQ(got, gst_structure_get_string(s, name)) << name;
  } else if (type == G_TYPE_DOUBLE) {
    double got, want = 0;
    std::memcpy(&got, member, sizeof got);
    gst_structure_get_double(s, name, &want);
    EXPECT_EQ(got, want) << name;
  } else if (type == G_TYPE_INT64) {
    gint64 got, want = 0;
    std::memcpy(&got, member, sizeof got);
    gst_structure_get_int64(s, name, &want);
    EXPECT_EQ(got, want) << name;
  } else {
    ASSERT_EQ(type, G_TYPE_UINT64) << name;
    guint64 got, want = 0;
    std::memcpy(&got, member, sizeof got);
    gst_structure_get_uint64(s, name, &want);
    EXPECT_EQ(got, want) << name;
  }
}

// Parses `wire` into the typed struct (each member its field) and builds it
// again: the same structure, field by field, in the same order and types.
template <typename Msg>
void RoundTrip(const char* wire, gboolean (*parse)(const GstStructure*, Msg*),
               GstStructure* (*to_structure)(const Msg*)) {
  GstStructure* s = gst_structure_from_string(wire, nullptr);
  ASSERT_NE(s, nullptr) << wire;
  const guint n = (guint)gst_structure_n_fields(s);
  ASSERT_EQ(sizeof(Msg), 8 * n) << gst_structure_get_name(s);
  Msg msg;
  ASSERT_TRUE(parse(s, &msg)) << wire;
  for (guint i = 0; i < n; ++i) ExpectMember(msg, s, i);
  GstStructure* built = to_structure(&msg);
  EXPECT_STREQ(gst_structure_get_name(built), gst_structure_get_name(s));
  ASSERT_EQ(gst_structure_n_fields(built), (gint)n);
  for (guint i = 0; i < n; ++i) {
    const char* name = gst_structure_nth_field_name(s, i);
    EXPECT_STREQ(gst_structure_nth_field_name(built, i), name);
    EXPECT_EQ(gst_structure_get_field_type(built, name), gst_structure_get_field_type(s, name))
        << name;
  }
  EXPECT_TRUE(gst_structure_is_equal(built, s)) << gst_structure_to_string(built);
  gst_structure_free(built);
  gst_structure_free(s);
}

TEST_F(MessageTest, ScoreMessageSchemaAndRoundTrip) {
  RoundTrip(kScoreWire, gst_ssim2_score_message_parse, gst_ssim2_score_message_to_structure);
}

TEST_F(MessageTest, IntervalMessageSchemaAndRoundTrip) {
  RoundTrip(kIntervalWire, gst_ssim2_interval_message_parse,
            gst_ssim2_interval_message_to_structure);
}

TEST_F(MessageTest, SummaryMessageSchemaAndRoundTrip) {
  RoundTrip(kSummaryWire, gst_ssim2_summary_message_parse,
            gst_ssim2_summary_message_to_structure);
}

TEST_F(MessageTest, SyncMessageSchemaAndRoundTrip) {
  RoundTrip(kSyncWire, gst_ssim2_sync_message_parse, gst_ssim2_sync_message_to_structure);
  GstStructure* s = gst_structure_from_string(kSyncWire, nullptr);
  gst_structure_remove_field(s, "state");
  GstSsim2SyncMessage back;
  EXPECT_FALSE(gst_ssim2_sync_message_parse(s, &back)) << "state is required";
  gst_structure_free(s);
}

// The pooled values of ssim2::Summary land in the members that follow
// frames, in the order of ssim2::kSummaryFields.
TEST_F(MessageTest, SummaryStatisticsFromTheLibrary) {
  ssim2::Summary sum;
  sum.frames = 4;
  for (size_t i = 0; i < G_N_ELEMENTS(ssim2::kSummaryFields); ++i)
    sum.*ssim2::kSummaryFields[i].value = i + 1.0;
  GstSsim2SummaryMessage m;
  gst_ssim2_summary_message_init(&m);
  ssim2gst::SetSummaryStatistics(&m, sum);
  EXPECT_EQ(m.frames, 4u);
  const double pooled[] = {m.mean, m.stddev, m.min, m.p1,  m.p5,
                           m.p50,  m.p95,    m.p99, m.max, m.harmonic_mean};
  static_assert(G_N_ELEMENTS(pooled) == G_N_ELEMENTS(ssim2::kSummaryFields),
                "a pooled value is missing here");
  for (size_t i = 0; i < G_N_ELEMENTS(pooled); ++i) EXPECT_EQ(pooled[i], i + 1.0) << i;
}

TEST_F(MessageTest, IntervalStatisticsFromTheLibrary) {
  ssim2::Summary sum;
  sum.frames = 3;
  sum.mean = 1.0;
  sum.min = 2.0;
  sum.p5 = 3.0;
  sum.max = 4.0;
  sum.stddev = 5.0;
  GstSsim2IntervalMessage m;
  gst_ssim2_interval_message_init(&m);
  ssim2gst::SetIntervalStatistics(&m, sum);
  EXPECT_EQ(m.frames, 3u);
  EXPECT_EQ(m.mean, 1.0);
  EXPECT_EQ(m.min, 2.0);
  EXPECT_EQ(m.p5, 3.0);
  EXPECT_EQ(m.max, 4.0);
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
