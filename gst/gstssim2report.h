/* gst-ssim2: what ssim2compare reports about its measurements
 * (gstssim2report.cpp): per scored pair the meta, the `ssim2` message, the
 * stats file's row, the `ssim2-interval` window and the threshold warning;
 * per measurement the ended-first warning, the `ssim2-summary` message, the
 * stats file's summary and the summary file. All of it runs in the aggregator thread except
 * opening and closing the stats file (start, stop, flush).
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include <string>

#include "gstssim2compare-private.h"
#include "gstssim2message.h"

namespace ssim2gst {

/* The times of a dist frame as its message and stats row give them. */
struct FrameTimes {
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
};

}  // namespace ssim2gst

/* The stats-format property's enum (GstSsim2CompareStatsFormat). */
GType gst_ssim2_compare_stats_format_get_type (void);
#define GST_TYPE_SSIM2_COMPARE_STATS_FORMAT \
  (gst_ssim2_compare_stats_format_get_type ())

/* The properties of what the element reports, post-messages, stats-file,
 * stats-format, summary-file and threshold, with the ids the element gives
 * them (class_init). */
void gst_ssim2_compare_install_report_properties (GObjectClass *
    object_class, guint post_messages_id, guint stats_file_id,
    guint stats_format_id, guint summary_file_id, guint threshold_id);

/* Opens (truncates) the stats-file of the run's settings for a new
 * measurement, unless none is set or one is open; posts an error and
 * returns false when it cannot be created. */
bool gst_ssim2_compare_open_stats (GstSsim2Compare * self);

/* Appends the summary of the `dist` pad's rendition and closes the stats
 * file, if one is open. */
void gst_ssim2_compare_close_stats (GstSsim2Compare * self);

/* Creates (truncates) the summary-file of the run's settings, if one is
 * set, holding no summary yet: each ssim2-summary posted from then on
 * rewrites it (docs/LOGS.md, "Summary file"). Posts an error and returns
 * false when it cannot be created. */
bool gst_ssim2_compare_open_summary_file (GstSsim2Compare * self);

/* "dist_1: ", what starts a warning's text about rendition @r when the
 * element has several; "" with the `dist` pad alone, whose warnings read as
 * they always did. The details always carry the pad. */
std::string gst_ssim2_compare_pad_prefix (GstSsim2Compare * self,
    const ssim2gst::Rendition & r);

/* Reports a frame of @r leaving the element (r.st.frames counts it
 * already): scored (@score not NULL: its meta on *@buf, which may be
 * replaced by a writable copy, for the `dist` pad; the message, the stats
 * row, the window, the threshold warning) against ref frame @ref, skipped for lateness (@skipped: the window
 * only), unaligned (alignment=content found no sure partner: the window
 * only) or unscored otherwise (nothing). */
void gst_ssim2_compare_report_pair (GstSsim2Compare * self,
    ssim2gst::Rendition & r, GstBuffer ** buf, const double *score,
    guint64 index, const ssim2gst::PairedRef & ref, bool skipped,
    bool unaligned, const ssim2gst::FrameTimes & times);

/* @r's pad has ended: sets r.ended_first and, when one input ended while
 * the other still had frames, posts the STREAM/FAILED warning that says
 * so. @ref_frame_waiting: a ref frame was at the head of the ref queue when
 * @r ended, so it lies after the end of @r's stream (the pairing took every
 * earlier one). */
void gst_ssim2_compare_report_ended_first (GstSsim2Compare * self,
    ssim2gst::Rendition & r, bool ref_frame_waiting);

/* Posts the `ssim2-sync` message @m (alignment=content locked, lost or
 * locked again), with an INFO line. */
void gst_ssim2_compare_post_sync (GstSsim2Compare * self,
    const GstSsim2SyncMessage & m);

/* Posts the summary of @r's current measurement (after its last window) and
 * writes it to the summary file. */
void gst_ssim2_compare_post_summary (GstSsim2Compare * self,
    ssim2gst::Rendition & r);
