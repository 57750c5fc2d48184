/* gst-ssim2: which frames of the ref and dist pads the element pairs.
 * SPDX-License-Identifier: BSD-3-Clause */
#include "gstssim2pairing.h"

namespace ssim2gst {
namespace {

constexpr std::uint64_t kMillisecond = 1000000;

bool Known(std::uint64_t t) { return t != kNoTime; }

}  // namespace

std::uint64_t PairingTolerance(std::uint64_t ref_duration,
                               std::uint64_t dist_duration) {
  std::uint64_t d = kNoTime;
  if (Known(ref_duration) && ref_duration > 0) d = ref_duration;
  if (Known(dist_duration) && dist_duration > 0 && (!Known(d) || dist_duration < d))
    d = dist_duration;
  return Known(d) ? d / 2 : kMillisecond;
}

PairingDecision DecidePairing(const PairingInput& in) {
  const PadHead& ref = in.ref;
  const PadHead& dist = in.dist;
  const bool by_time = in.alignment != Alignment::kSequence;
  PairingDecision out;

  if (dist.eos) {
    // dist has ended. ref frames that start before the end of the dist
    // stream had their chance (a ref at a higher frame rate has such frames
    // left at dist's EOS): take them as unmatched. A ref frame after that
    // end means that dist really ended first.
    if (by_time && ref.has_buffer && (ref.gap ||
        (Known(ref.time) && Known(dist.stream_end) && ref.time < dist.stream_end))) {
      out.action = ref.gap ? PairingAction::kDropRefGap : PairingAction::kDropRef;
      return out;
    }
    // No ref frame yet, and ref goes on: its next frame may still lie
    // before that end (a live source a moment behind, the other renditions'
    // frames read first). Finishing now would call dist the input that
    // ended first. The deadline ends the wait.
    if (by_time && !ref.has_buffer && !ref.eos && !in.timeout && Known(dist.stream_end)) {
      out.action = PairingAction::kNeedData;
      return out;
    }
    out.action = PairingAction::kFinish;
    return out;
  }
  if (dist.has_buffer && dist.gap) {
    out.action = PairingAction::kPassGap;
    return out;
  }
  if (ref.has_buffer && ref.gap) {
    out.action = PairingAction::kDropRefGap;
    return out;
  }
  if (!ref.has_buffer) {
    if (dist.has_buffer && (ref.eos || in.timeout)) {
      // No reference for this frame: ref ended, or is late on a live source.
      out.action = PairingAction::kPassDist;
      out.after_ref_end = ref.eos && (!by_time || !Known(dist.time) ||
                                      !Known(ref.stream_end) ||
                                      dist.time >= ref.stream_end);
      return out;
    }
    out.action = PairingAction::kNeedData;
    return out;
  }
  if (!dist.has_buffer) {
    out.action = in.timeout ? PairingAction::kDropRef : PairingAction::kNeedData;
    return out;
  }
  if (by_time && Known(ref.time) && Known(dist.time)) {
    const std::uint64_t tol = PairingTolerance(ref.duration, dist.duration);
    if (ref.time + tol < dist.time) {
      out.action = PairingAction::kDropRef;
      return out;
    }
    if (dist.time + tol < ref.time) {
      out.action = PairingAction::kPassDist;
      return out;
    }
  }
  out.action = PairingAction::kPair;
  return out;
}

}  // namespace ssim2gst
