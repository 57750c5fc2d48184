// Unit tests of the element's pairing decision (gst/gstssim2pairing.h),
// without a pipeline.
// SPDX-License-Identifier: BSD-3-Clause
#include "gstssim2pairing.h"

#include <gtest/gtest.h>

namespace ssim2gst {
namespace {

constexpr std::uint64_t kMs = 1000000;
constexpr std::uint64_t kFrame = 33333333;  // 30 fps

PadHead Frame(std::uint64_t time, std::uint64_t duration = kFrame) {
  PadHead h;
  h.has_buffer = true;
  h.time = time;
  h.duration = duration;
  return h;
}

PadHead Gap(std::uint64_t time) {
  PadHead h = Frame(time);
  h.gap = true;
  return h;
}

PadHead Ended(std::uint64_t stream_end) {
  PadHead h;
  h.eos = true;
  h.stream_end = stream_end;
  return h;
}

PadHead Waiting() { return PadHead(); }

PairingDecision Decide(PadHead ref, PadHead dist,
                       Alignment alignment = Alignment::kRunningTime,
                       bool timeout = false) {
  PairingInput in;
  in.alignment = alignment;
  in.ref = ref;
  in.dist = dist;
  in.timeout = timeout;
  return DecidePairing(in);
}

TEST(PairingTolerance, HalfTheShorterDuration) {
  EXPECT_EQ(PairingTolerance(kFrame, kFrame / 2), kFrame / 4);
  EXPECT_EQ(PairingTolerance(kNoTime, kFrame), kFrame / 2);
  EXPECT_EQ(PairingTolerance(kFrame, kNoTime), kFrame / 2);
  EXPECT_EQ(PairingTolerance(kNoTime, kNoTime), kMs);
  EXPECT_EQ(PairingTolerance(0, 0), kMs);
}

TEST(DecidePairing, SameTimePairs) {
  EXPECT_EQ(Decide(Frame(10 * kFrame), Frame(10 * kFrame)).action, PairingAction::kPair);
  // Within half a frame.
  EXPECT_EQ(Decide(Frame(10 * kFrame), Frame(10 * kFrame + kFrame / 2 - 1)).action,
            PairingAction::kPair);
  EXPECT_EQ(Decide(Frame(10 * kFrame + kFrame / 2 - 1), Frame(10 * kFrame)).action,
            PairingAction::kPair);
}

TEST(DecidePairing, OlderRefIsDropped) {
  EXPECT_EQ(Decide(Frame(9 * kFrame), Frame(10 * kFrame)).action, PairingAction::kDropRef);
}

TEST(DecidePairing, OlderDistIsPassedUnscored) {
  const PairingDecision d = Decide(Frame(11 * kFrame), Frame(10 * kFrame));
  EXPECT_EQ(d.action, PairingAction::kPassDist);
  EXPECT_FALSE(d.after_ref_end);
}

TEST(DecidePairing, UnknownTimesPairInArrivalOrder) {
  EXPECT_EQ(Decide(Frame(kNoTime), Frame(10 * kFrame)).action, PairingAction::kPair);
  EXPECT_EQ(Decide(Frame(10 * kFrame), Frame(kNoTime)).action, PairingAction::kPair);
}

TEST(DecidePairing, SequenceIgnoresTimes) {
  EXPECT_EQ(Decide(Frame(0), Frame(1000 * kFrame), Alignment::kSequence).action,
            PairingAction::kPair);
}

TEST(DecidePairing, StreamTimeComparesLikeRunningTime) {
  EXPECT_EQ(Decide(Frame(5 * kFrame), Frame(5 * kFrame), Alignment::kStreamTime).action,
            PairingAction::kPair);
  EXPECT_EQ(Decide(Frame(4 * kFrame), Frame(5 * kFrame), Alignment::kStreamTime).action,
            PairingAction::kDropRef);
}

TEST(DecidePairing, WaitsForTheOtherPad) {
  EXPECT_EQ(Decide(Waiting(), Frame(0)).action, PairingAction::kNeedData);
  EXPECT_EQ(Decide(Frame(0), Waiting()).action, PairingAction::kNeedData);
  EXPECT_EQ(Decide(Waiting(), Waiting()).action, PairingAction::kNeedData);
}

TEST(DecidePairing, LiveDeadlineTakesTheLoneFrame) {
  const PairingDecision d = Decide(Waiting(), Frame(0), Alignment::kRunningTime, true);
  EXPECT_EQ(d.action, PairingAction::kPassDist);
  EXPECT_FALSE(d.after_ref_end);
  EXPECT_EQ(Decide(Frame(0), Waiting(), Alignment::kRunningTime, true).action,
            PairingAction::kDropRef);
}

TEST(DecidePairing, DistAfterTheEndOfRefCountsAsRefEndedFirst) {
  // ref ended at 10 frames; a dist frame at 10 frames lies after its end.
  PairingDecision d = Decide(Ended(10 * kFrame), Frame(10 * kFrame));
  EXPECT_EQ(d.action, PairingAction::kPassDist);
  EXPECT_TRUE(d.after_ref_end);
  // A dist frame of a 60 fps stream between the last two ref frames of a
  // 30 fps stream: unmatched, but the ref stream did not end early.
  d = Decide(Ended(10 * kFrame), Frame(10 * kFrame - kFrame / 2, kFrame / 2));
  EXPECT_EQ(d.action, PairingAction::kPassDist);
  EXPECT_FALSE(d.after_ref_end);
  // Unknown times or sequence alignment: any dist frame after ref's EOS.
  EXPECT_TRUE(Decide(Ended(kNoTime), Frame(0)).after_ref_end);
  EXPECT_TRUE(Decide(Ended(10 * kFrame), Frame(0), Alignment::kSequence).after_ref_end);
}

TEST(DecidePairing, RefFramesBeforeTheEndOfDistAreDropped) {
  // dist (30 fps) ended at 10 frames; ref (60 fps) still has a frame at
  // 9.5 frames: it is unmatched, dist did not end early.
  EXPECT_EQ(Decide(Frame(10 * kFrame - kFrame / 2, kFrame / 2), Ended(10 * kFrame)).action,
            PairingAction::kDropRef);
  // A ref frame at or after the end: dist really ended first.
  EXPECT_EQ(Decide(Frame(10 * kFrame), Ended(10 * kFrame)).action, PairingAction::kFinish);
  // Nothing left on ref, or sequence alignment: finish.
  EXPECT_EQ(Decide(Ended(10 * kFrame), Ended(10 * kFrame)).action, PairingAction::kFinish);
  EXPECT_EQ(Decide(Waiting(), Ended(10 * kFrame), Alignment::kRunningTime, true).action,
            PairingAction::kFinish);
  // No ref frame yet and ref not at EOS: its next frame may lie before the
  // end of dist, so wait for it (until the deadline, when live).
  EXPECT_EQ(Decide(Waiting(), Ended(10 * kFrame)).action, PairingAction::kNeedData);
  EXPECT_EQ(Decide(Waiting(), Ended(10 * kFrame), Alignment::kSequence).action,
            PairingAction::kFinish);
  EXPECT_EQ(Decide(Frame(0), Ended(10 * kFrame), Alignment::kSequence).action,
            PairingAction::kFinish);
  // Unknown end of dist: finish.
  EXPECT_EQ(Decide(Frame(0), Ended(kNoTime)).action, PairingAction::kFinish);
}

TEST(DecidePairing, Gaps) {
  EXPECT_EQ(Decide(Frame(0), Gap(0)).action, PairingAction::kPassGap);
  EXPECT_EQ(Decide(Ended(0), Gap(0)).action, PairingAction::kPassGap);
  EXPECT_EQ(Decide(Waiting(), Gap(0)).action, PairingAction::kPassGap);
  EXPECT_EQ(Decide(Gap(0), Frame(0)).action, PairingAction::kDropRefGap);
  EXPECT_EQ(Decide(Gap(0), Waiting()).action, PairingAction::kDropRefGap);
  EXPECT_EQ(Decide(Gap(0), Ended(kFrame)).action, PairingAction::kDropRefGap);
}

}  // namespace
}  // namespace ssim2gst
