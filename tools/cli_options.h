// Options of the ssim2 command-line tool, shared by its image and video modes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gstssim2alignment.h"
#include "quality_gate.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cli {

// How the element pairs frames (its alignment property, --align): by
// running time, by order, or by position in each stream (stream time).
using ssim2gst::Alignment;
using ssim2gst::AlignmentName;

struct Options {
  std::string reference_path;
  std::string distorted_path;
  // Video mode: DIST2 ... after DISTORTED, scored against the same decoded
  // reference in one pipeline (the element's rendition pads).
  std::vector<std::string> more_distorted_paths;
  Backend backend = Backend::kAuto;
  int cuda_device = -1;  // --device: the element's cuda-device-id
  int cpu_threads = 0;   // --threads: threads of the CPU path (0: all hardware threads)
  // --memory-limit: device memory of one CUDA scorer at most, in bytes (0:
  // none); ScorerOptions::memory_limit, the element's memory-limit.
  std::uint64_t memory_limit = 0;
  // --sequential-sums: videos on the GPU sum as the CPU does (the element's
  // sequential-sums); images and lists always do.
  bool sequential_sums = false;
  bool json = false;     // images: print JSON (score, scales, 108 sub-scores) on stdout
  // Video mode.
  std::string csv_path;   // --csv FILE, -o FILE.csv: per-frame scores + summary
  std::string json_path;  // --json=FILE, -o FILE.json (images: the JSON above; video:
                          // per-frame scores + summary)
  std::string vmaf_json_path;  // -o FILE --format vmaf-json: libvmaf's log layout (video)
  std::string summary_path;  // --summary FILE: the summary file, JSON (video)
  std::string plot_path;  // --plot FILE.svg
  Alignment alignment = Alignment::kRunningTime;
  std::uint64_t offset = 0;  // --offset N: skip the first N distorted frames
  std::uint64_t every = 1;   // --every N: score every Nth pair (the element's frame-step)
  std::uint64_t frames = 0;  // --frames N: stop after N scored pairs (0: all)
  bool scale = false;        // --scale: upscale distorted videos to the reference's size
  bool quiet = false;        // no progress line even on a terminal
  QualityGate fail_below;    // --fail-below [STAT:]SCORE (quality_gate.h)
  // Pairs mode (tools/pairs_mode.h).
  std::string pairs_path;    // --pairs LIST ("-": standard input)
  std::string shard;         // --shard I/N, checked by the pairs mode
  bool all_devices = false;  // --device all
  bool decode_only = false;  // --decode-only: decode the pairs, score none
  std::uint64_t jobs = 0;    // --jobs N: decoder threads (0: all cores)
};

// Video mode (tools/video_mode.cpp, needs the GStreamer plugin); returns the
// process exit code.
int RunVideoMode(const Options& options);

}  // namespace cli
}  // namespace ssim2
