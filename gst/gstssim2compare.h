/* gst-ssim2: the ssim2compare element.
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstaggregator.h>

G_BEGIN_DECLS

#define GST_TYPE_SSIM2_COMPARE (gst_ssim2_compare_get_type ())
G_DECLARE_FINAL_TYPE (GstSsim2Compare, gst_ssim2_compare, GST, SSIM2_COMPARE,
    GstAggregator);

/* The alignment property's type, GstSsim2CompareAlignment, is made from
 * the name table of gstssim2alignment.h. */

/**
 * GstSsim2CompareBackend:
 * @GST_SSIM2_COMPARE_BACKEND_AUTO: CUDA when a device works, else the CPU
 * @GST_SSIM2_COMPARE_BACKEND_CUDA: CUDA only; an error when there is no device
 * @GST_SSIM2_COMPARE_BACKEND_CPU: the CPU only
 */
typedef enum
{
  GST_SSIM2_COMPARE_BACKEND_AUTO = 0,
  GST_SSIM2_COMPARE_BACKEND_CUDA = 1,
  GST_SSIM2_COMPARE_BACKEND_CPU = 2,
} GstSsim2CompareBackend;

/**
 * GstSsim2CompareStatsFormat:
 * @GST_SSIM2_COMPARE_STATS_FORMAT_AUTO: JSON when the stats-file name ends in
 *   .json, else CSV
 * @GST_SSIM2_COMPARE_STATS_FORMAT_CSV: CSV
 * @GST_SSIM2_COMPARE_STATS_FORMAT_JSON: JSON
 * @GST_SSIM2_COMPARE_STATS_FORMAT_VMAF_JSON: the JSON layout of libvmaf's log
 *
 * Formats of the stats file; the schemas are in docs/LOGS.md.
 */
typedef enum
{
  GST_SSIM2_COMPARE_STATS_FORMAT_AUTO = 0,
  GST_SSIM2_COMPARE_STATS_FORMAT_CSV = 1,
  GST_SSIM2_COMPARE_STATS_FORMAT_JSON = 2,
  GST_SSIM2_COMPARE_STATS_FORMAT_VMAF_JSON = 3,
} GstSsim2CompareStatsFormat;

GST_ELEMENT_REGISTER_DECLARE (ssim2compare);

G_END_DECLS
