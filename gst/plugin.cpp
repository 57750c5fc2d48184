/* gst-ssim2: the "ssim2" plugin.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstssim2compare.h"
#include "gstssim2meta-private.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* The meta types exist once the plugin is loaded, before any element is
   * created: applications look them up by name. */
  gst_ssim2_meta_register ();
  return GST_ELEMENT_REGISTER (ssim2compare, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, ssim2,
    "SSIMULACRA 2.1 perceptual video quality metric (CPU and NVIDIA CUDA)",
    plugin_init, PACKAGE_VERSION, GST_LICENSE, GST_PACKAGE_NAME,
    GST_PACKAGE_ORIGIN)
