// Construction of the video mode's pipeline: one uridecodebin branch per
// input into ssim2compare, the decoded-pad linking and counting probes, and
// the ranking of hardware decoders. The run loop is in video_mode.cpp.
#pragma once

#include <string>

#include "video_run.h"

namespace ssim2 {
namespace cli {

// Application messages that streaming-thread callbacks post to the bus for
// the main loop (the run's state is only changed there).
constexpr const char* kFailureMessage = "ssim2-failure";          // field "line"
constexpr const char* kSizeMismatchMessage = "ssim2-size-mismatch";
constexpr const char* kNoVideoMessage = "ssim2-no-video";         // field "pad"

// Ranks NVIDIA's hardware decoders above the software ones (the decoders of
// GPU `cuda_device` first when it is > 0).
void PreferHardwareDecoders(int cuda_device);

// A fakesink in `pipeline` for a decoded stream that is not scored (audio,
// subtitles, a second video), linked to `pad` (the video mode and the monitor).
void LinkToFakesink(GstElement* pipeline, GstPad* pad);

// Lets the tool run from the build tree or from an install without
// GST_PLUGIN_PATH: the plugin is loaded from where this build put it (the
// video mode and the monitor).
void LoadOwnPluginIfMissing();

// Local files are checked before the pipeline starts, for a plain message.
bool CheckReadable(const Branch& b, std::string* line);

// Builds run->pipeline (ssim2compare ! fakesink plus one uridecodebin per
// branch, linked as their pads appear; run->dists in command-line order).
// false and *error: one line.
bool BuildPipeline(Run* run, std::string* error);

// Opens the inputs that are FIFOs, named by a path or a file:// URI
// (blocking until a writer opens them), and points their decoders at the
// descriptors (fd://N). filesrc would open a FIFO twice (once to learn that
// it cannot seek), and a writer that wrote in between would lose its data or
// die of SIGPIPE. Called before the pipeline starts, on the thread that
// starts it.
void OpenPipes(Run* run);

// Closes what OpenPipes() opened (the pipeline must be in NULL).
void ClosePipes(Run* run);

// Posts `line` as a failure for the main loop to report (any thread).
void PostFailure(Run* run, const std::string& line);

}  // namespace cli
}  // namespace ssim2
