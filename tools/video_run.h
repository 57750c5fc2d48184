// State of one video-mode run, shared by the pipeline construction
// (video_pipeline.cpp: streaming-thread callbacks fill it) and the run loop
// (video_mode.cpp: bus, watchdog, signals, results).
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli_options.h"
#include "video_report.h"

namespace ssim2 {
namespace cli {

struct Run;

// One input: its decoder bin, the pad linked to the element, counters, and
// for a distorted input its results.
struct Branch {
  Run* run = nullptr;
  const char* role = "";  // "reference" / "distorted"
  std::string pad_name;   // element pad: "ref", "dist", "dist_N"
  std::string path;
  GstElement* decoder = nullptr;  // uridecodebin
  GstPad* element_pad = nullptr;  // ssim2compare.ref / .dist
  GstPad* decoded_pad = nullptr;  // the decodebin pad linked to our chain (ref held)
  GstPad* queue_src = nullptr;    // where the --offset pad offset goes (ref held)
  bool is_pipe = false;  // a local FIFO: opened by OpenPipes(), read through fdsrc
  int pipe_fd = -1;
  std::atomic<bool> linked{false};  // a video pad was linked (set last, after decoded_pad)
  std::atomic<std::uint64_t> seen{0};    // decoded video frames
  std::atomic<std::uint64_t> passed{0};  // frames sent on to the element
  GstClockTime first_running_time = GST_CLOCK_TIME_NONE;
  std::atomic<bool> eos{false};
  std::atomic<int> eos_order{0};  // 1: first branch to end, 2: second
  // Caps (under Run::mutex).
  int width = 0, height = 0, fps_n = 0, fps_d = 1;
  std::string format;
  bool cuda_memory = false;
  std::uint64_t total_frames = 0;  // 0: unknown yet
  bool total_queried = false;
  // --scale: the capsfilter after the scaler, given the reference's size
  // before this input's first caps pass (owned by the pipeline).
  GstElement* scale_filter = nullptr;
  bool scale_on_gpu = false;  // the scaler is cudascale (CUDA memory), else videoscale

  // Results of a distorted input (main loop only).
  std::vector<ScoreRow> frames;
  bool element_warned = false;  // a warning from ssim2compare about this input
  std::optional<Input> element_ended_first;  // ssim2compare: one stream ended first
  // What only the element counts (unmatched frames, content alignment's
  // counts, skipped pairs, the backend, the inputs' transfers), from its
  // ssim2-summary message; the statistics and ended_first are filled in at
  // the end (SummarizeInput).
  LogSummary element_summary;
  std::vector<LockEvent> locks;  // --alignment content: its ssim2-sync messages
  std::string failure;  // why this input could not be scored ("": it could)
  bool eos_sent = false;         // failed: EOS went into its branch
  bool decoder_removed = false;  // failed: its decoder left the pipeline (ref held)
};

struct Run {
  Options options;
  GstElement* pipeline = nullptr;
  GstElement* compare = nullptr;
  GMainLoop* loop = nullptr;
  Branch ref;
  // The distorted inputs in command-line order (the first on the element's
  // `dist` pad, the others on `dist_N`); never empty while running.
  std::vector<std::unique_ptr<Branch>> dists;
  std::mutex mutex;
  std::condition_variable ref_size_known;  // --scale: the reference's caps arrived
  Branch* size_mismatch = nullptr;  // the distorted input of another size (under mutex)
  std::atomic<bool> stopping{false};  // the run loop has ended: nothing waits any more

  std::vector<std::string> warnings;
  std::atomic<int> eos_count{0};
  bool failed = false;
  bool stalled = false;         // the no-progress watchdog ended the run (failed too)
  int stop_signal = 0;          // SIGINT / SIGTERM that stopped the run, 0: none
  bool frames_reached = false;  // --frames N scores collected
  std::string missing_plugin;  // description of the last missing decoder
  // ssim2compare's error for a pad left unlinked, held while an input is
  // still opening (HandleError); "": none.
  std::string unlinked_pad_error;
  std::chrono::steady_clock::time_point start;
  double last_score_s = 0.0;
  // Watchdog: the last time anything moved (a bus message, a decoded frame
  // or a scoring pass started), and the count of decoded frames and
  // scoring passes seen then.
  double last_progress_s = 0.0;
  std::uint64_t last_work = 0;
  ProgressLine* progress = nullptr;

  // Pairs scored over all distorted inputs.
  std::size_t ScoredPairs() const {
    std::size_t n = 0;
    for (const auto& d : dists) n += d->frames.size();
    return n;
  }
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

// The reference, then the distorted inputs.
inline std::vector<Branch*> AllBranches(Run* run) {
  std::vector<Branch*> all{&run->ref};
  for (auto& d : run->dists) all.push_back(d.get());
  return all;
}

// "distorted clip.mkv": how messages name an input.
inline std::string Quoted(const Branch& b) { return std::string(b.role) + " " + b.path; }

}  // namespace cli
}  // namespace ssim2
