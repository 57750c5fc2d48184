/* gst-ssim2: GstSsim2Meta registration.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2meta-private.h"

GType
gst_ssim2_meta_api_get_type (void)
{
  static GType type = 0;
  /* No tags: the score is not tied to the pixels' format, size or
   * orientation, so transforms keep the meta by default. */
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register (GST_SSIM2_META_API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gst_ssim2_meta_init (GstMeta * meta, gpointer, GstBuffer *)
{
  GstSsim2Meta *m = (GstSsim2Meta *) meta;
  m->score = 0.0;
  m->index = 0;
  return TRUE;
}

static gboolean
gst_ssim2_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer *,
    GQuark type, gpointer data)
{
  GstSsim2Meta *src = (GstSsim2Meta *) meta;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = (GstMetaTransformCopy *) data;
    /* A region copy is still the same frame's score. */
    (void) copy;
    return gst_buffer_add_ssim2_meta (dest, src->score, src->index,
        NULL) != NULL;
  }
  /* Other transforms (scaling, conversion) keep the score too: it describes
   * the frame, not its pixel layout. */
  return gst_buffer_add_ssim2_meta (dest, src->score, src->index,
        NULL) != NULL;
}

const GstMetaInfo *
gst_ssim2_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (gst_ssim2_meta_api_get_type (),
        GST_SSIM2_META_IMPL_NAME, sizeof (GstSsim2Meta),
        gst_ssim2_meta_init, NULL, gst_ssim2_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/* The custom meta: the same values in a GstStructure, for bindings. Like
 * GstSsim2Meta it has no tags and survives every transform, copying all
 * fields of the structure. */
static gboolean
copy_score_field (GQuark field, const GValue * value, gpointer dest)
{
  gst_structure_id_set_value ((GstStructure *) dest, field, value);
  return TRUE;
}

static gboolean
gst_ssim2_score_meta_transform (GstBuffer * dest, GstCustomMeta * meta,
    GstBuffer *, GQuark, gpointer, gpointer)
{
  GstCustomMeta *copy = (GstCustomMeta *) gst_buffer_add_meta (dest,
      ((GstMeta *) meta)->info, NULL);
  if (!copy)
    return FALSE;
  gst_structure_foreach (gst_custom_meta_get_structure (meta),
      copy_score_field, gst_custom_meta_get_structure (copy));
  return TRUE;
}

const GstMetaInfo *
gst_ssim2_score_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register_custom (GST_SSIM2_SCORE_META_NAME,
        tags, gst_ssim2_score_meta_transform, NULL, NULL);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

void
gst_ssim2_meta_register (void)
{
  gst_ssim2_meta_get_info ();
  gst_ssim2_score_meta_get_info ();
}

GstSsim2Meta *
gst_buffer_add_ssim2_meta (GstBuffer * buffer, gdouble score, guint64 index,
    const gchar * pad)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  GstSsim2Meta *meta = (GstSsim2Meta *) gst_buffer_add_meta (buffer,
      gst_ssim2_meta_get_info (), NULL);
  if (!meta)
    return NULL;
  meta->score = score;
  meta->index = index;

  GstCustomMeta *custom = (GstCustomMeta *) gst_buffer_add_meta (buffer,
      gst_ssim2_score_meta_get_info (), NULL);
  if (custom) {
    gst_structure_set (gst_custom_meta_get_structure (custom),
        "score", G_TYPE_DOUBLE, score, "index", G_TYPE_UINT64, index, NULL);
    /* A transform has no pad: the custom meta's own transform copies it. */
    if (pad)
      gst_structure_set (gst_custom_meta_get_structure (custom), "pad",
          G_TYPE_STRING, pad, NULL);
  }
  return meta;
}
