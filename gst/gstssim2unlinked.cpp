/* gst-ssim2: the wait of ssim2compare for sink pads left unlinked. A
 * non-live GstAggregator waits for data on every sink pad, so a pad that is
 * never linked (a request pad left unused, a decodebin that found no video
 * stream) would hold the pipeline in PAUSED forever: once a stream has
 * started, the element gives the other pads a grace to be linked, then
 * leaves an unlinked rendition out or posts an error naming the pads.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2compare-private.h"

#include <algorithm>
#include <string>
#include <vector>

#define GST_CAT_DEFAULT gst_ssim2_compare_debug

using ssim2gst::Rendition;
using RenditionPtr = std::shared_ptr < Rendition >;

/* How long the element waits, once a stream has started on a pad (its
 * segment event), for a sink pad that is not linked to be linked (a
 * decodebin links its pads as it finds the streams). */
static const GstClockTime kUnlinkedPadGrace = 5 * GST_SECOND;

/* The sink pads that are not linked and not at EOS, and not ended by the
 * element already (references). */
static std::vector < GstPad * >
unlinked_sink_pads (GstSsim2Compare * self)
{
  std::vector < GstPad * >pads;
  GST_OBJECT_LOCK (self);
  for (GList * l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    GstPad *pad = GST_PAD (l->data);
    if (!gst_pad_is_linked (pad) && !GST_PAD_IS_EOS (pad))
      pads.push_back (GST_PAD (gst_object_ref (pad)));
  }
  GST_OBJECT_UNLOCK (self);
  return pads;
}

/* Ends a sink pad that nothing feeds: it gets the events of a stream that
 * ended before its first frame, so that the aggregator stops waiting for
 * it. */
static void
end_pad (GstPad * pad)
{
  g_autofree gchar *id = g_strdup_printf ("ssim2compare-unlinked-%s",
      GST_PAD_NAME (pad));
  gst_pad_send_event (pad, gst_event_new_stream_start (id));
  gst_pad_send_event (pad, gst_event_new_eos ());
}

/* The grace has passed: a rendition pad still not linked is left out (INFO
 * line, ended with no frame, no summary) while another rendition is
 * linked; an unlinked ref pad, or no rendition linked, is an error naming
 * the pads. */
static gboolean
unlinked_pads_timeout (GstClock * clock, GstClockTime time, GstClockID id,
    gpointer user_data)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (user_data);
  GstSsim2ComparePrivate *priv = self->priv;
  (void) clock;
  (void) time;
  GST_OBJECT_LOCK (self);
  const bool current = priv->unlinked_wait == id;
  if (current) {
    gst_clock_id_unref (priv->unlinked_wait);
    priv->unlinked_wait = nullptr;
  }
  GST_OBJECT_UNLOCK (self);
  if (!current)
    return TRUE;                /* unscheduled: the element stopped */

  std::vector < GstPad * >pads = unlinked_sink_pads (self);
  std::vector < RenditionPtr > list = gst_ssim2_compare_renditions (self);
  std::string names;
  bool ref_unlinked = false;
  size_t renditions_left = 0;
  for (GstPad * pad:pads) {
    names += std::string (names.empty ()? "" : ", ") + GST_PAD_NAME (pad);
    ref_unlinked = ref_unlinked || pad == GST_PAD (self->ref_pad);
  }
  for (const RenditionPtr & r:list) {
    const bool unlinked = r->unlinked || std::find (pads.begin (),
        pads.end (), GST_PAD (r->pad)) != pads.end ();
    if (!unlinked && !r->released)
      renditions_left++;
  }
  if (!pads.empty () && (ref_unlinked || renditions_left == 0)) {
    GST_ELEMENT_ERROR (self, CORE, PAD, ("Nothing is linked to the %s pad "
            "of %s, and it cannot score without %s.", names.c_str (),
            GST_OBJECT_NAME (self), ref_unlinked ? "the reference" :
            "a rendition"), ("Link a source to each of these pads, or "
            "release the request pads that stay unused."));
  } else {
    for (GstPad * pad:pads) {
      for (const RenditionPtr & r:list) {
        if (GST_PAD (r->pad) != pad)
          continue;
        GST_INFO_OBJECT (self, "pad %s is still not linked %" GST_TIME_FORMAT
            " after the first stream started: left out", GST_PAD_NAME (pad),
            GST_TIME_ARGS (kUnlinkedPadGrace));
        r->unlinked = true;
        end_pad (pad);
      }
    }
  }
  for (GstPad * pad:pads)
    gst_object_unref (pad);
  return TRUE;
}

void
gst_ssim2_compare_watch_unlinked_pads (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  GST_OBJECT_LOCK (self);
  const bool waiting = priv->unlinked_wait != nullptr;
  GST_OBJECT_UNLOCK (self);
  if (waiting)
    return;
  std::vector < GstPad * >pads = unlinked_sink_pads (self);
  bool any = false;
  for (GstPad * pad:pads) {
    RenditionPtr r = pad == GST_PAD (self->ref_pad) ? nullptr :
        gst_ssim2_compare_find_rendition (self, GST_AGGREGATOR_PAD (pad));
    any = any || !r || !r->unlinked;
    gst_object_unref (pad);
  }
  if (!any)
    return;
  /* The test hook makes the grace end at once, so that a test can have
   * the element give up before a slow input could link its pad. */
  const GstClockTime grace =
      gst_ssim2_compare_test_fault_is ("no-unlinked-grace") ? 0 :
      kUnlinkedPadGrace;
  GstClock *clock = gst_system_clock_obtain ();
  GstClockID id = gst_clock_new_single_shot_id (clock,
      gst_clock_get_time (clock) + grace);
  gst_object_unref (clock);
  GST_OBJECT_LOCK (self);
  if (priv->unlinked_wait) {
    GST_OBJECT_UNLOCK (self);
    gst_clock_id_unref (id);
    return;
  }
  priv->unlinked_wait = gst_clock_id_ref (id);
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "a sink pad is not linked: waiting %"
      GST_TIME_FORMAT " for it", GST_TIME_ARGS (grace));
  gst_clock_id_wait_async (id, unlinked_pads_timeout, gst_object_ref (self),
      gst_object_unref);
  gst_clock_id_unref (id);
}

void
gst_ssim2_compare_stop_unlinked_wait (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  GST_OBJECT_LOCK (self);
  if (priv->unlinked_wait) {
    gst_clock_id_unschedule (priv->unlinked_wait);
    gst_clock_id_unref (priv->unlinked_wait);
    priv->unlinked_wait = nullptr;
  }
  GST_OBJECT_UNLOCK (self);
}
