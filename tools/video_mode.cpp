// Video mode of the ssim2 tool: runs the pipeline that video_pipeline.cpp
// builds, collects the scores that ssim2compare posts and writes the results.
//
// - Start: the pipeline goes to PLAYING on a helper thread, so that a source
//   blocking while it opens (a FIFO with no writer, a hung network share)
//   cannot stop the main loop, and with it the watchdog and the signal
//   handlers, from running. FIFOs are opened there too (OpenPipes()).
// - Watchdog: a run where nothing moves for kDefaultWatchdogSeconds (no frame
//   decoded on either input, no bus message) is stalled, e.g. on a damaged
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
#include <vector>

#include "cli_options.h"
#include "plot_svg.h"
#include "ssim2/stats.h"
#include "stdout_status.h"
#include "video_pipeline.h"
#include "video_report.h"
#include "video_run.h"

namespace ssim2 {
namespace cli {

namespace {

// Seconds without progress before the watchdog gives up. The environment
// variable SSIM2_WATCHDOG_SECONDS overrides it; it exists for the tests
// (which would otherwise wait this long) and is not a user option.
constexpr double kDefaultWatchdogSeconds = 30.0;
// How long stopping the pipeline may take before the process ends anyway.
constexpr double kTeardownSeconds = 3.0;

double WatchdogSeconds() {
  static const double seconds = [] {
    const char* env = std::getenv("SSIM2_WATCHDOG_SECONDS");
    char* end = nullptr;
    const double v = env ? std::strtod(env, &end) : 0.0;
    return env && end != env && *end == '\0' && v > 0.0 ? v : kDefaultWatchdogSeconds;
  }();
  return seconds;
}

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
    if (o == GST_OBJECT(run->ref.decoder)) found = &run->ref;
    if (o == GST_OBJECT(run->dist.decoder)) found = &run->dist;
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

std::string SizeMismatchLine(Run* run) {
  std::lock_guard<std::mutex> lock(run->mutex);
  return "the videos differ in size: reference " + run->ref.path + " is " +
         std::to_string(run->ref.width) + "x" + std::to_string(run->ref.height) +
         ", distorted " + run->dist.path + " is " + std::to_string(run->dist.width) + "x" +
         std::to_string(run->dist.height);
}

void HandleError(Run* run, GstMessage* msg) {
  GError* err = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(msg, &err, &debug);
  std::string text = err ? err->message : "unknown error";
  bool size_mismatch;
  {
    std::lock_guard<std::mutex> lock(run->mutex);
    size_mismatch = run->size_mismatch;
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
  g_clear_error(&err);
  g_free(debug);
  Fail(run, line);
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
  if (gst_structure_has_name(s, "ssim2-summary")) {
    // The statistics are recomputed from the collected rows (--frames may
    // stop early); the unmatched counts only the element knows.
    guint64 n = 0;
    if (gst_structure_get_uint64(s, "unmatched-ref", &n)) run->unmatched_ref = n;
    if (gst_structure_get_uint64(s, "unmatched-dist", &n)) run->unmatched_dist = n;
    return;
  }
  if (!gst_structure_has_name(s, "ssim2")) return;
  if (run->options.frames > 0 && run->frames.size() >= run->options.frames) return;
  ScoreRow f;
  if (!gst_structure_get_double(s, "score", &f.score)) return;
  guint64 index = 0;
  if (!gst_structure_get_uint64(s, "index", &index)) index = run->frames.size() * run->options.every;
  f.index = index;
  f.frame = index + run->options.offset;
  // Absent fields stay kNoTime (GST_CLOCK_TIME_NONE).
  gst_structure_get_uint64(s, "timestamp", &f.pts);
  gst_structure_get_uint64(s, "stream-time", &f.stream_time);
  gst_structure_get_uint64(s, "running-time", &f.running_time);
  gst_structure_get_uint64(s, "duration", &f.duration);
  run->frames.push_back(f);
  run->last_score_s = run->Elapsed();
  if (run->options.frames > 0 && run->frames.size() >= run->options.frames) {
    run->frames_reached = true;
    g_main_loop_quit(run->loop);  // --frames N reached
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
        run->element_warned = true;
        // --backend auto falling back to the CPU is not worth a warning
        // (the image mode does the same silently).
        if (resource_not_found && run->options.backend == Backend::kAuto) break;
        // One stream ended first: reported at the end with the tool's own
        // counts (the element only knows the frames it received so far).
        if (stream_failed && ended_first) {
          run->element_ended_first =
              std::strcmp(ended_first, "ref") == 0 ? Input::kRef : Input::kDist;
          break;
        }
      } else if (Branch* b = BranchOf(run, GST_MESSAGE_SRC(msg))) {
        // "No decoder available for type ...": an error follows when it was
        // the video; an undecodable audio or subtitle stream does not matter.
        if (codec_not_found) break;
        text = std::string(b->role) + ": " + text;
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
        const char* role = gst_structure_get_string(s, "role");
        const Branch& b = std::strcmp(role, "reference") == 0 ? run->ref : run->dist;
        Fail(run, "no video stream in " + Quoted(b));
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

// Expected number of scores: pairs = min(reference, distorted - offset),
// every Nth of them, at most --frames. 0 while unknown.
std::uint64_t ExpectedScores(Run* run) {
  for (Branch* b : {&run->ref, &run->dist}) {
    if (!b->total_queried && b->linked) {
      b->total_frames = QueryTotalFrames(b);
      b->total_queried = b->total_frames > 0;
    }
  }
  std::uint64_t total = 0;
  if (run->ref.total_frames > 0 && run->dist.total_frames > 0) {
    std::uint64_t dist = run->dist.total_frames > run->options.offset
                             ? run->dist.total_frames - run->options.offset
                             : 0;
    std::uint64_t pairs = std::min(run->ref.total_frames, dist);
    total = (pairs + run->options.every - 1) / run->options.every;
  }
  if (run->options.frames > 0) {
    total = total > 0 ? std::min(total, run->options.frames) : run->options.frames;
  }
  return total;
}

std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// The watchdog's line: an input that delivered nothing at all tells a pipe
// with no writer (or a source stuck opening) from a stream that stopped.
std::string StallLine(Run* run) {
  const bool ref_silent = run->ref.seen == 0, dist_silent = run->dist.seen == 0;
  const std::string silent = ref_silent && dist_silent ? "either input"
                             : ref_silent              ? "the reference"
                             : dist_silent             ? "the distorted input"
                                                       : "";
  return "no progress for " + FormatSeconds(WatchdogSeconds()) + " s reading " +
         Quoted(run->ref) + " and " + Quoted(run->dist) + ": giving up (" +
         (silent.empty() ? std::string("a damaged file or a stalled decoder")
                         : "no frame from " + silent +
                               ": a pipe with no writer, a stalled source or a damaged file") +
         ")";
}

gboolean OnProgressTick(gpointer data) {
  Run* run = static_cast<Run*>(data);
  if (run->failed) return G_SOURCE_CONTINUE;
  // Decoded frames are progress even when none is scored (--every N with a
  // large N, a long --offset).
  const std::uint64_t decoded = run->ref.seen + run->dist.seen;
  if (decoded != run->last_decoded) {
    run->last_decoded = decoded;
    run->last_progress_s = run->Elapsed();
  }
  if (run->Elapsed() - run->last_progress_s > WatchdogSeconds()) {
    run->stalled = true;
    Fail(run, StallLine(run));
    return G_SOURCE_CONTINUE;
  }
  if (run->progress && run->progress->enabled()) {
    run->progress->Update(run->frames.size(), ExpectedScores(run), run->Elapsed());
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
  for (Branch* b : {&run->ref, &run->dist}) {
    if (b->element_pad) gst_object_unref(b->element_pad);
    if (b->decoded_pad) gst_object_unref(b->decoded_pad);
    if (b->queue_src) gst_object_unref(b->queue_src);
  }
  if (run->pipeline) gst_object_unref(run->pipeline);
  else if (run->compare) gst_object_unref(run->compare);
  if (run->loop) g_main_loop_unref(run->loop);
}

// --csv, --json=FILE, vmaf-json and --plot; false when one of them could
// not be written (each failure is one line on stderr).
bool WriteOutputFiles(const Options& options, const std::vector<ScoreRow>& frames,
                      const LogSummary& log_summary, const LogRunInfo& info) {
  bool ok = true;
  std::string write_error;
  for (const auto& [path, format] : {std::make_pair(&options.csv_path, LogFormat::kCsv),
                                     std::make_pair(&options.json_path, LogFormat::kJson),
                                     std::make_pair(&options.vmaf_json_path, LogFormat::kVmafJson)}) {
    LogOptions log;
    log.format = format;
    if (!path->empty() && !WriteScoreLog(*path, log, frames, log_summary, info, &write_error)) {
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

// The end of a run: messages, summary and files; returns the exit status.
int ReportResults(Run& run, double elapsed) {
  const Options& options = run.options;
  if (run.failed && !run.stalled) return 1;  // its line is out; nothing was measured
  // Frame counts (the distorted one after --offset). A stream not read to
  // its end (the pipeline ends with the shorter one) is counted from its
  // duration when that is known.
  std::uint64_t ref_frames = run.ref.passed, dist_frames = run.dist.passed;
  if (!run.ref.eos) ref_frames = std::max(ref_frames, run.ref.total_frames);
  if (!run.dist.eos && run.dist.total_frames > options.offset) {
    dist_frames = std::max(dist_frames, run.dist.total_frames - options.offset);
  }
  const std::string skipped =
      options.offset ? " after skipping " + std::to_string(options.offset) : "";
  if (run.frames.empty()) {
    if (run.stalled) return 1;
    // An input that ended without a single decoded frame: its container
    // promised a video stream that is not there.
    for (const Branch* b : {&run.ref, &run.dist}) {
      if (!run.stop_signal && b->eos && b->seen == 0) {
        PrintLine(&run, "cannot decode " + Quoted(*b) +
                            ": damaged or truncated file (it ended before its first video frame)");
        return 1;
      }
    }
    const std::string counts = "(reference " + std::to_string(ref_frames) + " frames, distorted " +
                               std::to_string(dist_frames) + " frames" + skipped + ")";
    if (run.stop_signal) {
      PrintLine(&run, "interrupted before any frame pair was scored " + counts);
      return 128 + run.stop_signal;
    }
    PrintLine(&run, "no frame pair could be scored " + counts);
    return 1;
  }
  if (run.stop_signal) PrintLine(&run, "interrupted: summary of the frames scored so far");
  // One stream shorter than the other: the element says so (its warning is
  // replaced by this line, which has both complete counts); without its
  // word, one stream having ended and not the other tells.
  InputEnds ends;
  ends.ref_frames = ref_frames;
  ends.dist_frames = dist_frames;
  ends.ref_ended = run.ref.eos;
  ends.dist_ended = run.dist.eos;
  std::optional<Input> ended_first;
  if (!run.stop_signal && !run.stalled && !run.frames_reached) {
    ended_first = run.element_ended_first;
    if (!ended_first && !run.element_warned) ended_first = EndedFirst(ends);
  }
  if (ended_first) {
    std::string w = EndedFirstMessage(*ended_first, ends, run.frames.size(), true);
    if (options.offset) w += " (distorted frames counted" + skipped + ")";
    run.warnings.push_back(w);
    PrintLine(&run, "warning: " + w);
  }

  std::vector<double> scores;
  scores.reserve(run.frames.size());
  for (const ScoreRow& f : run.frames) scores.push_back(f.score);
  LogSummary log_summary;
  log_summary.scores = Summarize(scores);
  log_summary.ended_first = ended_first;
  log_summary.unmatched_ref = run.unmatched_ref;
  log_summary.unmatched_dist = run.unmatched_dist;
  const Summary& summary = log_summary.scores;
  LogRunInfo info;
  info.reference = options.reference_path;
  info.distorted = options.distorted_path;
  info.alignment = AlignmentName(options.alignment);
  info.offset = options.offset;
  info.every = options.every;
  {
    std::lock_guard<std::mutex> lock(run.mutex);
    info.width = run.dist.width;
    info.height = run.dist.height;
  }
  info.elapsed_s = elapsed;
  info.warnings = run.warnings;

  // A stalled run keeps its one line: the frames done go to the files only.
  if (!run.stalled) {
    // --json / --json=-: the JSON document on stdout instead of the summary.
    LogOptions json_log;
    json_log.format = LogFormat::kJson;
    std::fputs(options.json ? RenderScoreLog(json_log, run.frames, log_summary, info).c_str()
                            : RenderSummary(run.frames, summary, info).c_str(),
               stdout);
    std::fflush(stdout);
  }
  const bool written = WriteOutputFiles(options, run.frames, log_summary, info);
  if (run.stalled) return 1;
  if (run.stop_signal) return 128 + run.stop_signal;
  return written ? 0 : 1;
}

}  // namespace

int RunVideoMode(const Options& options) {
  gst_init(nullptr, nullptr);
  Run run;
  run.options = options;
  if (run.options.every == 0) run.options.every = 1;
  run.ref.run = run.dist.run = &run;
  run.ref.role = "reference";
  run.ref.pad_name = "ref";
  run.ref.path = options.reference_path;
  run.dist.role = "distorted";
  run.dist.pad_name = "dist";
  run.dist.path = options.distorted_path;

  std::string line;
  for (const Branch* b : {&run.ref, &run.dist}) {
    if (!CheckReadable(*b, &line)) {
      std::fprintf(stderr, "ssim2: %s\n", line.c_str());
      return 1;
    }
  }
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
  const double elapsed = run.frames.empty() ? run.Elapsed() : run.last_score_s;
  // Stream lengths, while they can be queried (not on a stopped run, whose
  // sources may be blocked).
  if (!run.failed && !run.stop_signal) ExpectedScores(&run);
  const bool stopped = StopPipeline(&run, &start);
  // Messages posted while stopping (errors of the last moment) are not
  // reported; the bus watch goes with the loop.
  g_source_remove(tick);
  g_source_remove(sigint);
  g_source_remove(sigterm);
  g_source_remove(bus_watch);
  progress.Finish();
  run.progress = nullptr;

  const int code = ReportResults(run, elapsed);
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
