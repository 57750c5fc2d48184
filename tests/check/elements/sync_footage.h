/* gst-ssim2: frames of the content alignment tests' footage (tests/footage.h:
 * camera moves over the shared test data's photographs, and an encoder-like
 * distortion) for the C gst-check tests.
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  /* A pan, a cut to a zoom, a cut to a pan: about 300 frames. */
  SYNC_FOOTAGE_MOVING = 0,
  /* A pan, a still, black, a pan. */
  SYNC_FOOTAGE_STATIC = 1,
} SyncFootage;

#define SYNC_FOOTAGE_WIDTH 256
#define SYNC_FOOTAGE_HEIGHT 144

/* Frames of @footage (frames before 0 and after the end go on moving). */
gint sync_footage_frames (SyncFootage footage);

/* Frame @t of @footage as packed RGB (SYNC_FOOTAGE_WIDTH * 3 bytes a row)
 * into @out: as shot (@seed 0), or encoded with noise seed @seed. */
void sync_footage_rgb (SyncFootage footage, gint64 t, guint32 seed,
    guint8 * out);

G_END_DECLS
