// Video mode of the ssim2 tool: runs the pipeline that video_pipeline.cpp
// builds, collects the scores that ssim2compare posts and writes the results.
//
// - Start: the pipeline goes to PLAYING on a helper thread, so that a source
//   blocking while it opens (a FIFO with no writer, a hung network share)
//   cannot stop the main loop, and with it the watchdog and the signal
//   handlers, from running. FIFOs are opened there too (OpenPipes()).
// - Watchdog: a run where nothing moves for WatchdogSeconds() (no frame
//   decoded on either input, no scoring pass started, no bus message) is
//   stalled, e.g. on a damaged
//   file whose demuxer neither errors nor ends, or a pipe that stopped
//   delivering: the tool gives up with one line.
// - SIGINT and SIGTERM stop the run: the results of the frames scored so far
//   are printed and written, exit status 128 + the signal's number.
// - Teardown: the state change to NULL waits for the streaming threads, and a
//   source blocked in read() never lets go of its thread. It gets
//   kTeardownSeconds; after that the results are written all the same and
//   the process ends with _exit() instead of waiting for it.
// - Scores arrive as "ssim2" element messages; --frames N stops after N of
//   them. The summary is ssim2::Summarize() of the collected scores, the same
//   function that computes the element's "ssim2-summary".
#include <glib-unix.h>
#include <gst/gst.h>
#include <gst/pbutils/pbutils.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli_options.h"
#include "gstssim2message.h"
#include "plot_svg.h"
#include "run_guard.h"
#include "ssim2/stats.h"
#include "stdout_status.h"
#include "video_pipeline.h"
#include "video_report.h"
#include "video_run.h"

namespace ssim2 {
namespace cli {

namespace {

// How long stopping the pipeline may take before the process ends anyway.
constexpr double kTeardownSeconds = 3.0;

// A call on a detached thread that the main thread waits for with a deadline.
// The completion state is shared, so a call that is given up on may still
// finish safely; whoever gives up on one ends the process with _exit()
// before the objects the call uses go away.
class BackgroundCall {
 public:
  explicit BackgroundCall(std::function<void()> fn) : state_(std::make_shared<State>()) {
    std::thread([state = state_, fn = std::move(fn)] {
      fn();
      std::lock_guard<std::mutex> lock(state->mutex);
      state->done = true;
      state->cv.notify_all();
    }).detach();
  }
  // true when the call has returned by `deadline`.
  bool WaitUntil(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(state_->mutex);
    return state_->cv.wait_until(lock, deadline, [this] { return state_->done; });
  }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
  };
  std::shared_ptr<State> state_;
};

void PrintLine(Run* run, const std::string& line) {
  if (run->progress) run->progress->Clear();
  std::fprintf(stderr, "ssim2: %s\n", line.c_str());
  std::fflush(stderr);
}

void Fail(Run* run, const std::string& line) {
  if (run->failed) return;
  run->failed = true;
  PrintLine(run, line);
  g_main_loop_quit(run->loop);
}

// ---------------------------------------------------------------------------
// Bus

// The branch an object belongs to (nullptr: neither).
Branch* BranchOf(Run* run, GstObject* object) {
  for (GstObject* o = object ? GST_OBJECT(gst_object_ref(object)) : nullptr; o;) {
    Branch* found = nullptr;
    for (Branch* b : AllBranches(run)) {
      if (o == GST_OBJECT(b->decoder)) found = b;
    }
    GstObject* parent = gst_object_get_parent(o);
    gst_object_unref(o);
    if (found) {
      if (parent) gst_object_unref(parent);
      return found;
    }
    o = parent;
  }
  return nullptr;
}

// The branch whose element pad is `pad` (nullptr: none; no pad: `dist`).
Branch* BranchOfPad(Run* run, const char* pad) {
  if (pad == nullptr) pad = "dist";
  for (Branch* b : AllBranches(run)) {
    if (b->pad_name == pad) return b;
  }
  return nullptr;
}

// Several distorted files were given (some may have been left out since).
bool Several(const Run* run) { return !run->options.more_distorted_paths.empty(); }

// Whether an object is (still) inside the pipeline: messages of a failed
// decoder's elements, posted before it was removed, are not reported again.
bool InPipeline(Run* run, GstObject* object) {
  bool inside = false;
  for (GstObject* o = object ? GST_OBJECT(gst_object_ref(object)) : nullptr; o;) {
    inside = inside || o == GST_OBJECT(run->pipeline);
    GstObject* parent = gst_object_get_parent(o);
    gst_object_unref(o);
    o = parent;
  }
  return inside;
}

std::string SizeMismatchLine(Run* run) {
  std::lock_guard<std::mutex> lock(run->mutex);
  const Branch& dist = *run->size_mismatch;
  return "the videos differ in size: reference " + run->ref.path + " is " +
         std::to_string(run->ref.width) + "x" + std::to_string(run->ref.height) +
         ", distorted " + dist.path + " is " + std::to_string(dist.width) + "x" +
         std::to_string(dist.height) + " (--scale upscales it to the reference's size)";
}

// Sends EOS into the branches of failed distorted inputs, after what their
// queues hold, so that the element does not wait for them. A pad not yet
// active refuses it: then it is tried again on the next progress tick.
void EndFailedInputs(Run* run) {
  for (const auto& d : run->dists) {
    if (d->failure.empty() || d->eos_sent) continue;
    GstPad* chain_sink = d->decoded_pad ? gst_pad_get_peer(d->decoded_pad) : nullptr;
    d->eos_sent = gst_pad_send_event(chain_sink ? chain_sink : d->element_pad,
                                     gst_event_new_eos());
    if (chain_sink) gst_object_unref(chain_sink);
  }
}

// An input that cannot be scored. Among several distorted inputs, that one is
// reported and ended (EOS into its branch, after what its queue holds, so
// that the element does not wait for it) and the others go on; the
// reference, a single distorted input or the last one left fails the run.
void FailInput(Run* run, Branch* b, const std::string& line) {
  if (b == &run->ref || !Several(run)) return Fail(run, line);
  if (!b->failure.empty()) return;
  b->failure = line;
  bool others_left = false;
  for (const auto& d : run->dists) others_left = others_left || d->failure.empty();
  if (!others_left) return Fail(run, line);
  PrintLine(run, line + " (the other distorted videos are still scored)");
  if (!b->linked && !b->decoder_removed) {
    // A decoder that failed before exposing its video never completes its
    // state change, which would hold the whole pipeline in PAUSED: it goes.
    // (Its threads have stopped on the error, so setting it to NULL does not
    // wait on data in flight.) Our reference keeps it, and its children
    // named in messages still queued, alive until Cleanup().
    gst_object_ref(b->decoder);
    b->decoder_removed = true;
    gst_element_set_locked_state(b->decoder, TRUE);
    gst_element_set_state(b->decoder, GST_STATE_NULL);
    gst_bin_remove(GST_BIN(run->pipeline), b->decoder);
    // The error left the pipeline's pending change to PLAYING marked as
    // failed; asked again, it completes without the removed decoder.
    gst_element_set_state(run->pipeline, GST_STATE_PLAYING);
  }
  EndFailedInputs(run);
}

// An input whose decoder has neither linked its video nor failed yet.
bool InputStillOpening(Run* run) {
  for (Branch* b : AllBranches(run)) {
    if (!b->linked && b->failure.empty()) return true;
  }
  return false;
}

void HandleError(Run* run, GstMessage* msg) {
  if (!InPipeline(run, GST_MESSAGE_SRC(msg))) return;
  GError* err = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(msg, &err, &debug);
  std::string text = err ? err->message : "unknown error";
  bool size_mismatch;
  {
    std::lock_guard<std::mutex> lock(run->mutex);
    size_mismatch = run->size_mismatch != nullptr;
  }
  Branch* b = BranchOf(run, GST_MESSAGE_SRC(msg));
  std::string line;
  if (size_mismatch) {
    line = SizeMismatchLine(run);
  } else if (b) {
    if (err && err->domain == GST_RESOURCE_ERROR) {
      line = "cannot open " + Quoted(*b) + ": " + text;
    } else if (err && err->domain == GST_STREAM_ERROR &&
               err->code == GST_STREAM_ERROR_TYPE_NOT_FOUND) {
      line = "cannot decode " + Quoted(*b) + ": not a video or image format GStreamer knows";
    } else if ((err && err->domain == GST_CORE_ERROR &&
                err->code == GST_CORE_ERROR_MISSING_PLUGIN) ||
               (err && err->domain == GST_STREAM_ERROR &&
                err->code == GST_STREAM_ERROR_CODEC_NOT_FOUND)) {
      line = "cannot decode " + Quoted(*b) + ": no GStreamer plugin installed for " +
             (run->missing_plugin.empty() ? std::string("its streams") : run->missing_plugin);
    } else if (debug && std::strstr(debug, "not-negotiated")) {
      line = "cannot decode " + Quoted(*b) +
             ": its decoded format could not be negotiated with ssim2compare";
    } else if (err && err->domain == GST_STREAM_ERROR) {
      line = "cannot decode " + Quoted(*b) + ": damaged or truncated file (" + text + ")";
    } else {
      line = "cannot decode " + Quoted(*b) + ": " + text;
    }
  } else if (GST_MESSAGE_SRC(msg) == GST_OBJECT(run->compare)) {
    line = text;
  } else {
    line = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(msg))) + ": " + text;
  }
  if (std::getenv("SSIM2_DEBUG") && debug) line += " [" + std::string(debug) + "]";
  const bool unlinked_pad = GST_MESSAGE_SRC(msg) == GST_OBJECT(run->compare) && err &&
                            err->domain == GST_CORE_ERROR && err->code == GST_CORE_ERROR_PAD;
  g_clear_error(&err);
  g_free(debug);
  if (unlinked_pad && InputStillOpening(run)) {
    // The element gave up waiting for a pad to be linked, after a grace of
    // wall-clock time; the input behind that pad is still being opened and
    // may yet fail with its own line, which says more. The element's line
    // waits until every input has linked its video or failed
    // (OnProgressTick), so that the line printed does not depend on which
    // came first; the watchdog still ends an input that never decides.
    run->unlinked_pad_error = line;
    return;
  }
  if (b && !size_mismatch) {
    FailInput(run, b, line);
  } else {
    Fail(run, line);
  }
}

void HandleElementMessage(Run* run, GstMessage* msg) {
  const GstStructure* s = gst_message_get_structure(msg);
  if (!s) return;
  if (gst_is_missing_plugin_message(msg)) {
    gchar* desc = gst_missing_plugin_message_get_description(msg);
    if (desc) run->missing_plugin = desc;
    g_free(desc);
    return;
  }
  if (GST_MESSAGE_SRC(msg) != GST_OBJECT(run->compare)) return;
  Branch* b = BranchOfPad(run, gst_structure_get_string(s, "pad"));
  if (b == nullptr || b == &run->ref) return;
  GstSsim2SummaryMessage summary;
  if (gst_ssim2_summary_message_parse(s, &summary)) {
    // The statistics are recomputed from the collected rows (--frames may
    // stop early); the unmatched counts only the element knows.
    LogSummary& e = b->element_summary;
    ssim2gst::GetSummaryCounts(summary, &e);
    e.backend = summary.backend;
    e.ref_transfer = summary.ref_transfer;
    e.dist_transfer = summary.dist_transfer;
    return;
  }
  GstSsim2SyncMessage sync;
  if (gst_ssim2_sync_message_parse(s, &sync)) {
    b->locks.push_back({sync.state, sync.frame, sync.offset, sync.confidence});
    return;
  }
  GstSsim2ScoreMessage score;
  if (!gst_ssim2_score_message_parse(s, &score)) return;
  if (run->options.frames > 0 && b->frames.size() >= run->options.frames) return;
  ScoreRow f = ssim2gst::ScoreRowOf(score);
  // Content alignment passes frames unscored between pairs: its pairs are
  // numbered by the element's frame count, not by the pair index.
  f.frame = (run->options.alignment == ssim2gst::Alignment::kContent ? score.frame : score.index) +
            run->options.offset;  // --offset skips distorted frames only: ref_frame as it is
  if (Several(run)) f.source = b->path;
  b->frames.push_back(f);
  run->last_score_s = run->Elapsed();
  if (run->options.frames > 0) {
    // --frames N: N scored pairs of every distorted input still scored.
    bool all_reached = true;
    for (const auto& d : run->dists) {
      all_reached = all_reached && (!d->failure.empty() || d->frames.size() >= run->options.frames);
    }
    if (all_reached) {
      run->frames_reached = true;
      g_main_loop_quit(run->loop);
    }
  }
}

gboolean OnBusMessage(GstBus*, GstMessage* msg, gpointer data) {
  Run* run = static_cast<Run*>(data);
  if (run->failed) return TRUE;
  run->last_progress_s = run->Elapsed();
  switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_ERROR:
      HandleError(run, msg);
      break;
    case GST_MESSAGE_WARNING: {
      if (!InPipeline(run, GST_MESSAGE_SRC(msg))) break;
      GError* err = nullptr;
      gst_message_parse_warning(msg, &err, nullptr);
      const GstStructure* details = nullptr;
      gst_message_parse_warning_details(msg, &details);
      const char* ended_first = details ? gst_structure_get_string(details, "ended-first") : nullptr;
      std::string text = err ? err->message : "unknown warning";
      const bool resource_not_found =
          err && err->domain == GST_RESOURCE_ERROR && err->code == GST_RESOURCE_ERROR_NOT_FOUND;
      const bool codec_not_found = err && err->domain == GST_STREAM_ERROR &&
                                   err->code == GST_STREAM_ERROR_CODEC_NOT_FOUND;
      const bool stream_failed =
          err && err->domain == GST_STREAM_ERROR && err->code == GST_STREAM_ERROR_FAILED;
      g_clear_error(&err);
      if (GST_MESSAGE_SRC(msg) == GST_OBJECT(run->compare)) {
        // Warnings about one rendition name its pad; the others concern all.
        const char* pad = details ? gst_structure_get_string(details, "pad") : nullptr;
        Branch* about = pad ? BranchOfPad(run, pad) : nullptr;
        for (const auto& d : run->dists) {
          if (about == nullptr || about == d.get()) d->element_warned = true;
        }
        // A distorted input that failed was reported already.
        if (about && !about->failure.empty()) break;
        // --backend auto falling back to the CPU is not worth a warning
        // (the image mode does the same silently).
        if (resource_not_found && run->options.backend == Backend::kAuto) break;
        // One stream ended first: reported at the end with the tool's own
        // counts (the element only knows the frames it received so far).
        if (stream_failed && ended_first) {
          Branch* d = about ? about : run->dists.front().get();
          d->element_ended_first =
              std::strcmp(ended_first, "ref") == 0 ? Input::kRef : Input::kDist;
          break;
        }
      } else if (Branch* b = BranchOf(run, GST_MESSAGE_SRC(msg))) {
        // "No decoder available for type ...": an error follows when it was
        // the video; an undecodable audio or subtitle stream does not matter.
        if (codec_not_found) break;
        text = (Several(run) && b != &run->ref ? Quoted(*b) : std::string(b->role)) + ": " + text;
      }
      if (Branch* about = GST_MESSAGE_SRC(msg) == GST_OBJECT(run->compare) && details
                              ? BranchOfPad(run, gst_structure_get_string(details, "pad"))
                              : nullptr;
          about && Several(run) && text.rfind(about->pad_name + ": ", 0) == 0) {
        // The element names the rendition by its pad; the tool by its file.
        text = Quoted(*about) + text.substr(about->pad_name.size());
      }
      run->warnings.push_back(text);
      PrintLine(run, "warning: " + text);
      break;
    }
    case GST_MESSAGE_ELEMENT:
      HandleElementMessage(run, msg);
      break;
    case GST_MESSAGE_APPLICATION: {
      const GstStructure* s = gst_message_get_structure(msg);
      if (gst_structure_has_name(s, kFailureMessage)) {
        Fail(run, gst_structure_get_string(s, "line"));
      } else if (gst_structure_has_name(s, kSizeMismatchMessage)) {
        Fail(run, SizeMismatchLine(run));
      } else if (gst_structure_has_name(s, kNoVideoMessage)) {
        Branch* b = BranchOfPad(run, gst_structure_get_string(s, "pad"));
        if (b) FailInput(run, b, "no video stream in " + Quoted(*b));
      }
      break;
    }
    case GST_MESSAGE_EOS:
      g_main_loop_quit(run->loop);
      break;
    default:
      break;
  }
  return TRUE;
}

// ---------------------------------------------------------------------------
// Progress

std::uint64_t QueryTotalFrames(Branch* b) {
  if (!b->decoded_pad) return 0;
  gint64 frames = -1;
  if (gst_pad_query_duration(b->decoded_pad, GST_FORMAT_DEFAULT, &frames) && frames > 0) {
    return static_cast<std::uint64_t>(frames);
  }
  gint64 duration = -1;
  int fps_n, fps_d;
  {
    std::lock_guard<std::mutex> lock(b->run->mutex);
    fps_n = b->fps_n;
    fps_d = b->fps_d;
  }
  if (fps_n <= 0 || fps_d <= 0) return 0;
  if (!gst_pad_query_duration(b->decoded_pad, GST_FORMAT_TIME, &duration) || duration <= 0) {
    return 0;
  }
  return gst_util_uint64_scale_round(static_cast<guint64>(duration), fps_n,
                                     static_cast<guint64>(fps_d) * GST_SECOND);
}

// Expected number of scores, summed over the distorted inputs: per input,
// pairs = min(reference, distorted - offset), every Nth of them, at most
// --frames. 0 while unknown.
std::uint64_t ExpectedScores(Run* run) {
  for (Branch* b : AllBranches(run)) {
    if (!b->total_queried && b->linked) {
      b->total_frames = QueryTotalFrames(b);
      b->total_queried = b->total_frames > 0;
    }
  }
  std::uint64_t sum = 0;
  for (const auto& d : run->dists) {
    std::uint64_t total = 0;
    if (run->ref.total_frames > 0 && d->total_frames > 0) {
      std::uint64_t dist =
          d->total_frames > run->options.offset ? d->total_frames - run->options.offset : 0;
      std::uint64_t pairs = std::min(run->ref.total_frames, dist);
      total = (pairs + run->options.every - 1) / run->options.every;
    }
    if (run->options.frames > 0) {
      total = total > 0 ? std::min(total, run->options.frames) : run->options.frames;
    }
    if (total == 0) return 0;
    sum += total;
  }
  return sum;
}

std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// The watchdog's line: an input that delivered nothing at all tells a pipe
// with no writer (or a source stuck opening) from a stream that stopped.
std::string StallLine(Run* run) {
  const bool ref_silent = run->ref.seen == 0;
  bool dist_silent = false;
  std::string reading = Quoted(run->ref);
  for (std::size_t i = 0; i < run->dists.size(); ++i) {
    dist_silent = dist_silent || run->dists[i]->seen == 0;
    reading += (i + 1 == run->dists.size() ? " and " : ", ") + Quoted(*run->dists[i]);
  }
  const std::string silent = ref_silent && dist_silent ? "either input"
                             : ref_silent              ? "the reference"
                             : dist_silent             ? "the distorted input"
                                                       : "";
  return "no progress for " + FormatSeconds(WatchdogSeconds()) + " s reading " + reading +
         ": giving up (" +
         (silent.empty() ? std::string("a damaged file or a stalled decoder")
                         : "no frame from " + silent +
                               ": a pipe with no writer, a stalled source or a damaged file") +
         ")";
}

// Tests: SSIM2_TEST_QUIET_TICKS leaves the progress line to its final
// count, as a run that ends before any tick knows the total does.
bool TicksDrawProgress() {
  static const bool draw = std::getenv("SSIM2_TEST_QUIET_TICKS") == nullptr;
  return draw;
}

gboolean OnProgressTick(gpointer data) {
  Run* run = static_cast<Run*>(data);
  if (run->failed) return G_SOURCE_CONTINUE;
  if (!run->unlinked_pad_error.empty() && !InputStillOpening(run)) {
    Fail(run, run->unlinked_pad_error);
    return G_SOURCE_CONTINUE;
  }
  // Decoded frames are progress even when none is scored (--every N with a
  // large N, a long --offset); so are the element's scoring passes, which
  // start long before their scores are posted (a ladder of large frames
  // keeps several passes in flight while the decoders wait).
  std::uint64_t work = 0;
  for (const Branch* b : AllBranches(run)) work += b->seen;
  guint64 passes = 0;
  if (run->compare) g_object_get(run->compare, "scoring-passes", &passes, nullptr);
  work += passes;
  if (work != run->last_work) {
    run->last_work = work;
    run->last_progress_s = run->Elapsed();
  }
  EndFailedInputs(run);
  if (run->Elapsed() - run->last_progress_s > WatchdogSeconds()) {
    run->stalled = true;
    Fail(run, StallLine(run));
    return G_SOURCE_CONTINUE;
  }
  if (run->progress && run->progress->enabled() && TicksDrawProgress()) {
    run->progress->Update(run->ScoredPairs(), ExpectedScores(run), run->Elapsed());
  }
  return G_SOURCE_CONTINUE;
}

gboolean StopOnSignal(Run* run, int signal) {
  if (run->stop_signal == 0) run->stop_signal = signal;
  g_main_loop_quit(run->loop);
  return G_SOURCE_CONTINUE;
}
gboolean OnSigint(gpointer data) { return StopOnSignal(static_cast<Run*>(data), SIGINT); }
gboolean OnSigterm(gpointer data) { return StopOnSignal(static_cast<Run*>(data), SIGTERM); }

// Sets the pipeline to NULL, waiting at most kTeardownSeconds for that and
// for the start call. false: something is still blocked (see BackgroundCall).
bool StopPipeline(Run* run, BackgroundCall* start) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(kTeardownSeconds));
  GstElement* pipeline = run->pipeline;
  BackgroundCall stop([pipeline] { gst_element_set_state(pipeline, GST_STATE_NULL); });
  const bool stopped = stop.WaitUntil(deadline);
  return (start == nullptr || start->WaitUntil(deadline)) && stopped;
}

void Cleanup(Run* run) {
  ClosePipes(run);
  for (Branch* b : AllBranches(run)) {
    if (b->element_pad) gst_object_unref(b->element_pad);
    if (b->decoded_pad) gst_object_unref(b->decoded_pad);
    if (b->queue_src) gst_object_unref(b->queue_src);
    if (b->decoder_removed) gst_object_unref(b->decoder);
  }
  if (run->pipeline) gst_object_unref(run->pipeline);
  else if (run->compare) gst_object_unref(run->compare);
  if (run->loop) g_main_loop_unref(run->loop);
}

// --csv, --json=FILE, vmaf-json, --summary and --plot; false when one of
// them could not be written (each failure is one line on stderr). Rows of
// several distorted inputs carry their `source`; the summary file has one
// summary per distorted input.
bool WriteOutputFiles(const Options& options, const std::vector<ScoreRow>& frames,
                      const LogSummary& log_summary, const LogRunInfo& info) {
  bool ok = true;
  std::string write_error;
  const std::pair<const std::string*, LogFormat> outputs[] = {
      {&options.csv_path, LogFormat::kCsv},
      {&options.json_path, LogFormat::kJson},
      {&options.vmaf_json_path, LogFormat::kVmafJson}};
  for (const auto& [path, format] : outputs) {
    LogOptions log;
    log.format = format;
    log.with_source = !log_summary.per_source.empty();
    if (!path->empty() && !WriteScoreLog(*path, log, frames, log_summary, info, &write_error)) {
      std::fprintf(stderr, "ssim2: %s\n", write_error.c_str());
      ok = false;
    }
  }
  if (!options.summary_path.empty()) {
    std::vector<SourceSummary> summaries = log_summary.per_source;
    if (summaries.empty()) summaries.push_back({info.distorted, log_summary});
    if (!WriteSummaryFile(options.summary_path, summaries, &write_error)) {
      std::fprintf(stderr, "ssim2: %s\n", write_error.c_str());
      ok = false;
    }
  }
  if (!options.plot_path.empty() &&
      !WriteSvgPlot(options.plot_path, frames, log_summary.scores, info, &write_error)) {
    std::fprintf(stderr, "ssim2: %s\n", write_error.c_str());
    ok = false;
  }
  return ok;
}

// Frames the reference delivered: those passed on, or its duration's count
// when the pipeline ended before its end.
std::uint64_t RefFrames(const Run& run) {
  std::uint64_t n = run.ref.passed;
  if (!run.ref.eos) n = std::max(n, run.ref.total_frames);
  return n;
}

// Likewise for a distorted input, after --offset.
std::uint64_t DistFrames(const Run& run, const Branch& b) {
  std::uint64_t n = b.passed;
  if (!b.eos && b.total_frames > run.options.offset) {
    n = std::max(n, b.total_frames - run.options.offset);
  }
  return n;
}

// "(reference N frames, distorted M frames after skipping K)".
std::string FrameCounts(const Run& run, const Branch& b) {
  const std::string skipped =
      run.options.offset ? " after skipping " + std::to_string(run.options.offset) : "";
  return "(reference " + std::to_string(RefFrames(run)) + " frames, distorted " +
         std::to_string(DistFrames(run, b)) + " frames" + skipped + ")";
}

// One distorted input's summary: Summarize() of its rows, the element's
// unmatched counts, and the "ended first" warning when one stream ended
// early (the element's warning is replaced by this line, which has both
// complete counts; without its word, the counts tell).
LogSummary SummarizeInput(Run& run, const Branch& b) {
  const Options& options = run.options;
  InputEnds ends;
  ends.ref_frames = RefFrames(run);
  ends.dist_frames = DistFrames(run, b);
  ends.ref_ended = run.ref.eos;
  ends.dist_ended = b.eos;
  // Without the element's word, the counts are the evidence that the input
  // which did not reach its end had frames beyond the other's.
  if (!ends.ref_ended && ends.ref_frames > ends.dist_frames)
    ends.ref_after_dist_end = ends.ref_frames - ends.dist_frames;
  if (!ends.dist_ended && ends.dist_frames > ends.ref_frames)
    ends.dist_after_ref_end = ends.dist_frames - ends.ref_frames;
  std::optional<Input> ended_first;
  if (!run.stop_signal && !run.stalled && !run.frames_reached) {
    ended_first = b.element_ended_first;
    if (!ended_first && !b.element_warned) ended_first = EndedFirst(ends);
  }
  if (ended_first) {
    std::string w = EndedFirstMessage(*ended_first, ends, b.frames.size(), true);
    if (options.offset) {
      w += " (distorted frames counted after skipping " + std::to_string(options.offset) + ")";
    }
    if (Several(&run)) w = Quoted(b) + ": " + w;
    run.warnings.push_back(w);
    PrintLine(&run, "warning: " + w);
  }
  std::vector<double> scores;
  scores.reserve(b.frames.size());
  for (const ScoreRow& f : b.frames) scores.push_back(f.score);
  LogSummary summary = b.element_summary;
  summary.scores = Summarize(scores);
  summary.ended_first = ended_first;
  return summary;
}

// The end of a run: messages, summary and files; returns the exit status.
// With several distorted inputs, one that could not be scored makes it 1
// after the others' results are printed and written.
int ReportResults(Run& run, double elapsed) {
  const Options& options = run.options;
  if (run.failed && !run.stalled) return 1;  // its line is out; nothing was measured
  if (run.ScoredPairs() == 0) {
    if (run.stalled) return 1;
    // An input that ended without a single decoded frame: its container
    // promised a video stream that is not there.
    for (const Branch* b : AllBranches(&run)) {
      if (!run.stop_signal && b->failure.empty() && b->eos && b->seen == 0) {
        PrintLine(&run, "cannot decode " + Quoted(*b) +
                            ": damaged or truncated file (it ended before its first video frame)");
        return 1;
      }
    }
    const std::string counts = FrameCounts(run, *run.dists.front());
    if (run.stop_signal) {
      PrintLine(&run, "interrupted before any frame pair was scored " +
                          (Several(&run) ? std::string() : counts));
      return SignalExitCode(run.stop_signal);
    }
    PrintLine(&run, "no frame pair could be scored " + (Several(&run) ? std::string() : counts));
    return 1;
  }
  if (run.stop_signal) PrintLine(&run, "interrupted: summary of the frames scored so far");

  // Per distorted input, in command-line order; inputs without any scored
  // pair among several are failures of their own.
  bool any_failed = false;
  std::vector<std::pair<const Branch*, LogSummary>> results;
  for (const auto& d : run.dists) {
    if (d->failure.empty() && d->frames.empty()) {
      d->failure = (d->eos && d->seen == 0
                        ? "cannot decode " + Quoted(*d) +
                              ": damaged or truncated file (it ended before its first video frame)"
                        : "no frame pair of " + Quoted(*d) + " could be scored " +
                              FrameCounts(run, *d));
      PrintLine(&run, d->failure);
    }
    if (!d->failure.empty()) {
      any_failed = true;
      run.warnings.push_back(d->failure);
      continue;
    }
    results.emplace_back(d.get(), SummarizeInput(run, *d));
  }
  if (results.empty()) return 1;  // each input's line is out
  const Branch& first = *results.front().first;
  LogSummary log_summary = results.front().second;
  std::vector<ScoreRow> rows;
  for (const auto& [b, summary] : results) {
    rows.insert(rows.end(), b->frames.begin(), b->frames.end());
    if (Several(&run)) log_summary.per_source.push_back({b->path, summary});
  }
  LogRunInfo info;
  info.reference = options.reference_path;
  info.distorted = first.path;
  info.alignment = AlignmentName(options.alignment);
  info.offset = options.offset;
  info.every = options.every;
  {
    std::lock_guard<std::mutex> lock(run.mutex);
    info.width = first.width;
    info.height = first.height;
  }
  info.elapsed_s = elapsed;
  info.warnings = run.warnings;

  const bool content = options.alignment == ssim2gst::Alignment::kContent;
  // A stalled run keeps its one line: the frames done go to the files only.
  if (!run.stalled) {
    std::string out;
    if (options.json) {
      // --json / --json=-: the JSON document on stdout instead of the summary.
      LogOptions json_log;
      json_log.format = LogFormat::kJson;
      json_log.with_source = Several(&run);
      out = RenderScoreLog(json_log, rows, log_summary, info);
    } else if (!Several(&run)) {
      out = RenderSummary(first.frames, log_summary.scores, info);
      if (content) out += RenderAlignment(first.locks, log_summary);
    } else {
      // One block per distorted input, headed by its file.
      std::size_t next = 0;
      for (const auto& d : run.dists) {
        out += (out.empty() ? "" : "\n") + std::string("distorted      ") + d->path + "\n";
        if (!d->failure.empty()) {
          out += "failed         " + d->failure + "\n";
          continue;
        }
        const LogSummary& summary = results[next++].second;
        out += RenderSummary(d->frames, summary.scores, info);
        if (content) out += RenderAlignment(d->locks, summary);
      }
    }
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
  }
  const bool written = WriteOutputFiles(options, rows, log_summary, info);
  if (run.stalled) return 1;
  if (run.stop_signal) return SignalExitCode(run.stop_signal);
  if (!written || any_failed) return 1;
  // The gate holds for every distorted input.
  int code = 0;
  for (const auto& [b, summary] : results) {
    if (auto below = QualityGateFailure(options.fail_below, summary.scores, Quoted(*b))) {
      PrintLine(&run, *below);
      code = kExitBelowGate;
    }
  }
  return code;
}

}  // namespace

int RunVideoMode(const Options& options) {
  gst_init(nullptr, nullptr);
  Run run;
  run.options = options;
  if (run.options.every == 0) run.options.every = 1;
  run.ref.run = &run;
  run.ref.role = "reference";
  run.ref.pad_name = "ref";
  run.ref.path = options.reference_path;
  std::vector<std::string> dist_paths{options.distorted_path};
  dist_paths.insert(dist_paths.end(), options.more_distorted_paths.begin(),
                    options.more_distorted_paths.end());
  std::string line;
  if (!CheckReadable(run.ref, &line)) {
    std::fprintf(stderr, "ssim2: %s\n", line.c_str());
    return 1;
  }
  // A distorted file that cannot be opened among several is reported and
  // left out; the others are scored (exit status 1 at the end).
  bool left_out = false;
  for (const std::string& path : dist_paths) {
    auto b = std::make_unique<Branch>();
    b->run = &run;
    b->role = "distorted";
    b->pad_name = "dist";
    b->path = path;
    if (!CheckReadable(*b, &line)) {
      if (dist_paths.size() == 1) {
        std::fprintf(stderr, "ssim2: %s\n", line.c_str());
        return 1;
      }
      std::fprintf(stderr, "ssim2: %s (the other distorted videos are still scored)\n",
                   line.c_str());
      run.warnings.push_back(line);
      left_out = true;
      continue;
    }
    run.dists.push_back(std::move(b));
  }
  if (run.dists.empty()) return 1;
  if (options.backend != Backend::kCpu) PreferHardwareDecoders(options.cuda_device);

  run.loop = g_main_loop_new(nullptr, FALSE);
  std::string error;
  if (!BuildPipeline(&run, &error)) {
    std::fprintf(stderr, "ssim2: %s\n", error.c_str());
    Cleanup(&run);
    return 1;
  }
  ProgressLine progress(stderr, !options.quiet && StderrIsTerminal());
  run.progress = &progress;

  GstBus* bus = gst_element_get_bus(run.pipeline);
  guint bus_watch = gst_bus_add_watch(bus, OnBusMessage, &run);
  gst_object_unref(bus);
  guint tick = g_timeout_add(100, OnProgressTick, &run);
  guint sigint = g_unix_signal_add(SIGINT, OnSigint, &run);
  guint sigterm = g_unix_signal_add(SIGTERM, OnSigterm, &run);

  run.start = std::chrono::steady_clock::now();
  Run* r = &run;
  BackgroundCall start([r] {
    OpenPipes(r);
    // The bus usually holds the reason first; this line is the fallback.
    if (gst_element_set_state(r->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
      PostFailure(r, "cannot start the pipeline");
    }
  });
  g_main_loop_run(run.loop);
  run.stopping = true;
  run.ref_size_known.notify_all();
  const double elapsed = run.ScoredPairs() == 0 ? run.Elapsed() : run.last_score_s;
  // Stream lengths, while they can be queried (not on a stopped run, whose
  // sources may be blocked).
  if (!run.failed && !run.stop_signal) {
    const std::uint64_t total = ExpectedScores(&run);
    // The final count with its total, whatever the 100 ms ticks showed: a
    // short run on a busy machine can end before any tick knows the total.
    if (run.progress) run.progress->Update(run.ScoredPairs(), total, elapsed, /*force=*/true);
  }
  const bool stopped = StopPipeline(&run, &start);
  // Messages posted while stopping (errors of the last moment) are not
  // reported; the bus watch goes with the loop.
  g_source_remove(tick);
  g_source_remove(sigint);
  g_source_remove(sigterm);
  g_source_remove(bus_watch);
  progress.Finish();
  run.progress = nullptr;

  int code = ReportResults(run, elapsed);
  // A file left out is an error, which a quality gate's status never hides.
  if (left_out && (code == 0 || code == kExitBelowGate)) code = 1;
  if (!stopped) {
    // A source is still blocked (e.g. in read() on a pipe) and its thread
    // cannot be joined: the results are out, so the process ends here.
    const int final_code = FinishStdout(code);
    std::fflush(stderr);
    _exit(final_code);
  }
  Cleanup(&run);
  return code;
}

}  // namespace cli
}  // namespace ssim2
