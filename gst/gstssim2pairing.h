/* gst-ssim2: which frames of the ref and dist pads the element pairs.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The decision is a pure function of the two queue heads, so that every
 * case is tested without a pipeline (tests/check/test_pairing.cpp). Times
 * are nanoseconds in one time domain (running time or stream time, chosen
 * by the alignment); kNoTime (GST_CLOCK_TIME_NONE) means unknown. */
#pragma once

#include <cstdint>

#include "gstssim2alignment.h"

namespace ssim2gst {

constexpr std::uint64_t kNoTime = UINT64_MAX;

struct PadHead {
  bool has_buffer = false;      // a buffer waits at the head of the queue
  bool gap = false;             // ... and it stands for a GAP event
  bool eos = false;             // no buffer and the pad is at EOS
  std::uint64_t time = kNoTime; // of the head buffer, in the alignment's domain
  std::uint64_t duration = kNoTime;  // its frame duration (buffer or caps)
  // End of the last buffer that arrived on the pad (time + duration), in
  // the same domain: where the stream ends once it is at EOS.
  std::uint64_t stream_end = kNoTime;
};

struct PairingInput {
  Alignment alignment = Alignment::kRunningTime;
  PadHead ref;
  PadHead dist;
  bool timeout = false;  // live: the deadline passed
};

enum class PairingAction {
  kPair,        // score ref against dist, take both
  kDropRef,     // take the ref frame unmatched
  kDropRefGap,  // take the ref gap (not a frame, not counted)
  kPassDist,    // push the dist frame on unscored (unmatched)
  kPassGap,     // forward the dist gap as a GAP event
  kNeedData,    // wait for more input
  kFinish,      // dist ended: summary and EOS
};

struct PairingDecision {
  PairingAction action = PairingAction::kNeedData;
  // kPassDist with ref at EOS: the dist frame lies beyond the end of the ref
  // stream (ref really ended first), not merely between two ref frames.
  bool after_ref_end = false;
};

PairingDecision DecidePairing(const PairingInput& in);

// Half a frame: half the shorter of the two durations, 1 ms when neither is
// known. Frames closer than this are the same moment.
std::uint64_t PairingTolerance(std::uint64_t ref_duration,
                               std::uint64_t dist_duration);

}  // namespace ssim2gst
