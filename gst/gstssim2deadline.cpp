/* gst-ssim2: the live deadlines of ssim2compare (GstAggregator's
 * get_next_time) and the state they keep from pass to pass.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2compare-private.h"
#include "gstssim2sync.h"

#define GST_CAT_DEFAULT gst_ssim2_compare_debug

/* The running time of the next output (the src position), whose deadline
 * (plus the latency) ends a live pipeline's wait for a pad without data.
 * GstAggregator counts the deadline from the frame's timestamp. When the
 * element has fallen behind (a scorer that cannot keep up), that deadline
 * has long passed when it gets to the frame, and a pad whose upstream is
 * just pushing the partner, blocked until the element took the previous
 * frame, looked late: frames that each had a partner were counted
 * unmatched. So once behind, the element gives the partners the latency
 * from the moment it waits for them; after a wait that timed out (a source
 * that really stopped) the deadlines are GstAggregator's again until every
 * pad has data. */
GstClockTime
gst_ssim2_compare_get_next_time (GstAggregator * agg)
{
  GstSsim2ComparePrivate *priv = GST_SSIM2_COMPARE (agg)->priv;
  /* alignment=content: the next ref frame's and the held frames'
   * deadlines (gstssim2sync.cpp). */
  if (priv->run.alignment == ssim2gst::Alignment::kContent)
    return gst_ssim2_compare_content_next_time (GST_SSIM2_COMPARE (agg));
  const GstClockTime next = gst_aggregator_simple_get_next_time (agg);
  /* The latency of the last pass: the aggregator calls this with its lock
   * held, which gst_aggregator_get_latency() takes. */
  const GstClockTime latency = priv->pass_latency;
  if (!GST_CLOCK_TIME_IS_VALID (next) || !GST_CLOCK_TIME_IS_VALID (latency) ||
      priv->deadline_grace_spent)
    return next;
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (agg));
  if (!clock)
    return next;
  const GstClockTime now = gst_clock_get_time (clock);
  const GstClockTime base = gst_element_get_base_time (GST_ELEMENT (agg));
  gst_object_unref (clock);
  if (now < base || now - base <= next + latency)
    return next;                /* not behind */
  if (!GST_CLOCK_TIME_IS_VALID (priv->behind_since))
    priv->behind_since = now - base;
  return priv->behind_since;
}

void
gst_ssim2_compare_deadlines_pass (GstSsim2Compare * self, gboolean timeout)
{
  GstSsim2ComparePrivate *priv = self->priv;
  /* A deadline passed with a pad empty: deadlines as GstAggregator counts
   * them until every pad has data again. */
  priv->deadline_grace_spent = timeout;
  priv->behind_since = GST_CLOCK_TIME_NONE;
  priv->pass_latency = gst_aggregator_get_latency (GST_AGGREGATOR (self));
}

void
gst_ssim2_compare_reset_deadlines (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  priv->behind_since = GST_CLOCK_TIME_NONE;
  priv->deadline_grace_spent = false;
  priv->pass_latency = GST_CLOCK_TIME_NONE;
}
