/* gst-ssim2: SSIMULACRA 2.1 score meta, public header for applications.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The ssim2compare element attaches the score of every frame it scored to
 * the buffer it pushes, twice over, so that every kind of application can
 * read it:
 *
 * - #GstSsim2Meta, a C struct with `score` and `index`, for C and C++;
 * - a custom meta named #GST_SSIM2_SCORE_META_NAME carrying the same values
 *   in a #GstStructure, for language bindings (Python and others),
 *   which cannot read C struct fields.
 *
 * This header is self-contained (static inline functions, nothing to link).
 * Both meta types are registered when the "ssim2" plugin is loaded
 * (gst_plugin_load_by_name ("ssim2") or creating an ssim2compare element);
 * before that gst_buffer_get_ssim2_meta() returns NULL.
 *
 * |[<!-- language="C" -->
 * #include <gst/ssim2/gstssim2meta.h>
 *
 * static GstPadProbeReturn
 * on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
 * {
 *   GstSsim2Meta *meta = gst_buffer_get_ssim2_meta (GST_PAD_PROBE_INFO_BUFFER (info));
 *   if (meta)
 *     g_print ("frame %" G_GUINT64_FORMAT ": %.6f\n", meta->index, meta->score);
 *   return GST_PAD_PROBE_OK;
 * }
 * ]|
 *
 * |[<!-- language="Python" -->
 * meta = buffer.get_custom_meta("GstSsim2ScoreMeta")
 * if meta:
 *     s = meta.get_structure()
 *     print(s.get_value("index"), s.get_value("score"))
 * ]|
 */
#ifndef __GST_SSIM2_META_H__
#define __GST_SSIM2_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GST_SSIM2_META_API_NAME:
 *
 * Name of the meta API type (the #GType name), for gst_buffer_get_meta()
 * with g_type_from_name().
 *
 * Since: 0.1
 */
#define GST_SSIM2_META_API_NAME "GstSsim2MetaAPI"

/**
 * GST_SSIM2_META_IMPL_NAME:
 *
 * Name of the #GstMetaInfo implementation, for gst_meta_get_info().
 *
 * Since: 0.1
 */
#define GST_SSIM2_META_IMPL_NAME "GstSsim2Meta"

/**
 * GST_SSIM2_SCORE_META_NAME:
 *
 * Name of the custom meta (gst_buffer_get_custom_meta()) that carries the
 * score in its #GstStructure, with the fields of #GstSsim2Meta under the
 * same names: `score` (G_TYPE_DOUBLE) and `index` (G_TYPE_UINT64), and
 * `pad` (G_TYPE_STRING): the name of the sink pad the frame came from
 * ("dist"; the C struct has no pad field, so that its layout stays as it
 * was: C users read the pad from the custom meta).
 *
 * Since: 0.1
 */
#define GST_SSIM2_SCORE_META_NAME "GstSsim2ScoreMeta"

/**
 * GstSsim2Meta:
 * @meta: parent #GstMeta
 * @score: SSIMULACRA 2.1 score of this (distorted) frame against the paired
 *   reference frame: 100 for identical frames, lower is worse (may be
 *   negative)
 * @index: index of the pair the score belongs to, counting every pair the
 *   element made since the last flush or stream start, from 0 (with
 *   frame-step > 1 only every Nth index carries a meta)
 *
 * Score of one frame, attached by ssim2compare to the buffer it pushes.
 *
 * Since: 0.1
 */
typedef struct
{
  GstMeta meta;
  gdouble score;
  guint64 index;
} GstSsim2Meta;

/**
 * gst_ssim2_meta_api_type:
 *
 * Returns: the meta API #GType, or 0 (G_TYPE_INVALID) when the ssim2 plugin
 * has not been loaded yet.
 *
 * Since: 0.1
 */
static inline GType
gst_ssim2_meta_api_type (void)
{
  return g_type_from_name (GST_SSIM2_META_API_NAME);
}

/**
 * gst_buffer_get_ssim2_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the #GstSsim2Meta of @buffer, or NULL
 * when it has none.
 *
 * Since: 0.1
 */
static inline GstSsim2Meta *
gst_buffer_get_ssim2_meta (GstBuffer * buffer)
{
  GType api = gst_ssim2_meta_api_type ();
  if (api == G_TYPE_INVALID)
    return NULL;
  return (GstSsim2Meta *) gst_buffer_get_meta (buffer, api);
}

G_END_DECLS

#endif /* __GST_SSIM2_META_H__ */
