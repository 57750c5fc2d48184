/* gst-ssim2: plugin-side registration of GstSsim2Meta.
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include "gstssim2meta.h"

G_BEGIN_DECLS

G_GNUC_INTERNAL GType gst_ssim2_meta_api_get_type (void);
G_GNUC_INTERNAL const GstMetaInfo *gst_ssim2_meta_get_info (void);
G_GNUC_INTERNAL const GstMetaInfo *gst_ssim2_score_meta_get_info (void);
/* Registers both meta types (plugin_init). */
G_GNUC_INTERNAL void gst_ssim2_meta_register (void);
/* Attaches the score as #GstSsim2Meta and as the custom meta
 * GST_SSIM2_SCORE_META_NAME (which also names the sink @pad the buffer came
 * from, when not NULL). */
G_GNUC_INTERNAL GstSsim2Meta *gst_buffer_add_ssim2_meta (GstBuffer * buffer,
    gdouble score, guint64 index, const gchar * pad);

G_END_DECLS
