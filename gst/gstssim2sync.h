/* gst-ssim2: alignment=content in ssim2compare (gstssim2sync.cpp). The
 * element only feeds the core library's FrameAligner (ssim2/alignment.h)
 * and acts on its decisions: per ref frame one signature, pushed to every
 * rendition's aligner; per rendition its aligner, the dist frames it holds
 * until they are decided, and its lock messages. How the aligner decides:
 * docs/ALIGNMENT.md; what the element does with it: docs/ELEMENT.md.
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include "gstssim2compare-private.h"

/* One pairing step of @rendition under alignment=content: takes the ref
 * frames waiting on the ref pad (with their signatures, once for every
 * rendition) and the head of its pad into its aligner (CUDA-memory frames on
 * the CUDA backend get their signatures on the device, in batches, and join
 * the aligner once those are done), then acts on every
 * decision the aligner has: a pair joins @pending (scored against the ref
 * frame the aligner named, as any pair), an unaligned frame leaves
 * unscored. In a live pipeline (@timeout: the deadline passed) a held
 * frame later than max-lateness leaves unscored, counted as skipped, and
 * its decision is ignored when it comes. *@progressed tells whether it
 * took or sent anything. */
GstFlowReturn gst_ssim2_compare_step_content (GstSsim2Compare * self,
    const std::shared_ptr < ssim2gst::Rendition > &rendition,
    gboolean timeout, bool *progressed,
    std::vector < ssim2gst::PendingPair > &pending);

/* GstAggregator's get_next_time under alignment=content (live pipelines),
 * in running time (the aggregator adds its latency): the earliest of when
 * the next ref frame is due (moved a frame on per timeout that took
 * nothing) and when a held dist frame becomes later than max-lateness;
 * before any ref frame, the output's position. */
GstClockTime gst_ssim2_compare_content_next_time (GstSsim2Compare * self);

/* @r has failed: the dist frames its aligner holds leave unscored, in
 * order, before its pad's next ones. */
GstFlowReturn gst_ssim2_compare_content_release_held (GstSsim2Compare * self,
    ssim2gst::Rendition & r);

/* The properties of content pairing, sync-window and sync-max-bytes, and
 * the read-only held-ref-frames, held-ref-bytes (that sync-max-bytes
 * bounds) and held-ref-frames-by-pad, with the ids the element gives them
 * (class_init): the three read-only ones from @held_ref_first_id on, in
 * gst_ssim2_compare_get_held_ref's order. */
void gst_ssim2_compare_install_content_properties (GObjectClass *
    object_class, guint sync_window_id, guint sync_max_bytes_id,
    guint held_ref_first_id);

/* Sets the latency content pairing adds (at start, and again once the ref
 * caps give the frame rate): while acquiring, a dist frame waits for the
 * ref frames up to sync-window + block frames after it (at the ref caps'
 * frame rate, 30 fps while unknown). Nothing in the other modes. */
void gst_ssim2_compare_update_content_latency (GstSsim2Compare * self);

/* The frame signatures computing on the device are waited for and their
 * frames released (the ref queue is cleared: a flushing seek, a new
 * measurement, stop). */
void gst_ssim2_compare_content_finish_signatures (GstSsim2Compare * self);

/* The same, and the device memory of the signatures freed: before the
 * element's CUDA stream and context go. */
void gst_ssim2_compare_content_release_device (GstSsim2Compare * self);

/* @r's counts of content pairing for its summary (0 in the other modes). */
struct GstSsim2ContentCounts
{
  guint64 dropped = 0;
  guint64 repeated = 0;
  guint64 unaligned = 0;
};
GstSsim2ContentCounts gst_ssim2_compare_content_counts (const
    ssim2gst::Rendition & r);
