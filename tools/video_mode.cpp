// Video mode of the ssim2 tool: scores every frame pair of two videos with the
// ssim2compare element.
//
// Pipeline (built here, one branch per input):
//
//   uridecodebin name=ref-src  ! queue ! [convert] ! ssim2compare.ref
//   uridecodebin name=dist-src ! queue ! [convert] ! ssim2compare.dist
//   ssim2compare ! fakesink sync=false
//
// - Hardware decoding: decodebin's caps and context queries ("autoplug-query")
//   are answered by the element's sink pads, as playbin does with its sink, so
//   a decoder that can output CUDA memory (nvh264dec, ...) does so when the
//   element accepts it, and shares the element's CUDA context. Unless
//   --backend cpu, NVIDIA decoders are ranked above the software ones.
// - [convert] is inserted only when the decoded format is not one the element
//   accepts: videoconvert (system memory) or cudaconvert (CUDA memory, else
//   cudadownload ! videoconvert), restricted to the accepted formats.
// - --offset N: a probe on the distorted branch drops its first N decoded
//   frames. With --alignment running-time the distorted stream is also moved
//   earlier by the running-time difference between its frame N and its frame
//   0 (a pad offset), so distorted frame N meets the reference frame shown at
//   the time of distorted frame 0; with --alignment sequence, distorted frame
//   N + k is paired with reference frame k.
// - --every N sets the element's frame-step; --frames N stops after N scores.
// - Scores arrive as "ssim2" element messages; the summary printed at the end
//   is ssim2::Summarize() of the collected scores, the same function that
//   computes the element's "ssim2-summary".
#include <glib-unix.h>
#include <gst/gst.h>
#include <gst/pbutils/pbutils.h>
#include <gst/video/video.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli_options.h"
#include "plot_svg.h"
#include "ssim2/stats.h"
#include "video_report.h"

namespace ssim2 {
namespace cli {

namespace {

constexpr const char* kElementName = "ssim2compare";
constexpr const char* kCudaFeature = "memory:CUDAMemory";
const char* const kAcceptedFormats[] = {"RGB",  "RGBA", "BGRA",      "RGBx",     "BGRx",
                                        "I420", "NV12", "Y444", "P010_10LE", "I420_10LE"};
constexpr const char* kAcceptedFormatList =
    "{ RGB, RGBA, BGRA, RGBx, BGRx, I420, NV12, Y444, P010_10LE, I420_10LE }";

bool FormatAccepted(const char* format) {
  if (format == nullptr) return false;
  for (const char* f : kAcceptedFormats) {
    if (std::strcmp(f, format) == 0) return true;
  }
  return false;
}

struct Run;

// One input: its decoder bin, the pad linked to the element, counters.
struct Branch {
  Run* run = nullptr;
  const char* role = "";      // "reference" / "distorted"
  const char* pad_name = "";  // element pad: "ref" / "dist"
  std::string path;
  GstElement* decoder = nullptr;  // uridecodebin
  GstPad* element_pad = nullptr;  // ssim2compare.ref / .dist
  GstPad* decoded_pad = nullptr;  // the decodebin pad linked to our chain (ref held)
  GstPad* queue_src = nullptr;    // where the --offset pad offset goes (ref held)
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
};

struct Run {
  Options options;
  GstElement* pipeline = nullptr;
  GstElement* compare = nullptr;
  GMainLoop* loop = nullptr;
  Branch ref, dist;
  std::mutex mutex;
  bool size_mismatch = false;  // under mutex

  std::vector<ScoreRow> frames;
  std::vector<std::string> warnings;
  bool element_warned = false;     // any warning from ssim2compare
  std::optional<Input> element_ended_first;  // ssim2compare: one stream ended first
  std::optional<std::uint64_t> unmatched_ref, unmatched_dist;  // from ssim2-summary
  std::atomic<int> eos_count{0};
  bool failed = false;
  bool interrupted = false;
  bool frames_reached = false;  // --frames N scores collected
  std::string missing_plugin;  // description of the last missing decoder
  std::chrono::steady_clock::time_point start;
  double last_score_s = 0.0;
  double last_bus_message_s = 0.0;  // for the stall watchdog
  ProgressLine* progress = nullptr;

  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
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

// From a streaming thread: the main loop reports it (Fail() is not
// thread-safe).
void PostFailure(Run* run, const std::string& line) {
  gst_element_post_message(
      run->pipeline,
      gst_message_new_application(
          GST_OBJECT(run->pipeline),
          gst_structure_new("ssim2-failure", "line", G_TYPE_STRING, line.c_str(), nullptr)));
}

std::string Quoted(const Branch& b) { return std::string(b.role) + " " + b.path; }

// ---------------------------------------------------------------------------
// Probes (streaming threads)

GstPadProbeReturn OnDecodedEvent(GstPad*, GstPadProbeInfo* info, gpointer data) {
  Branch* b = static_cast<Branch*>(data);
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    GstCaps* caps = nullptr;
    gst_event_parse_caps(event, &caps);
    GstVideoInfo vinfo;
    if (caps && gst_video_info_from_caps(&vinfo, caps)) {
      Run* run = b->run;
      std::lock_guard<std::mutex> lock(run->mutex);
      b->width = GST_VIDEO_INFO_WIDTH(&vinfo);
      b->height = GST_VIDEO_INFO_HEIGHT(&vinfo);
      b->fps_n = GST_VIDEO_INFO_FPS_N(&vinfo);
      b->fps_d = GST_VIDEO_INFO_FPS_D(&vinfo);
      const Branch& other = b == &run->ref ? run->dist : run->ref;
      if (other.width > 0 && (other.width != b->width || other.height != b->height) &&
          !run->size_mismatch) {
        run->size_mismatch = true;
        gst_element_post_message(
            run->pipeline,
            gst_message_new_application(
                GST_OBJECT(run->pipeline),
                gst_structure_new("ssim2-size-mismatch", "ref-width", G_TYPE_INT,
                                  run->ref.width, "ref-height", G_TYPE_INT, run->ref.height,
                                  "dist-width", G_TYPE_INT, run->dist.width, "dist-height",
                                  G_TYPE_INT, run->dist.height, nullptr)));
      }
    }
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    if (!b->eos.exchange(true)) b->eos_order = ++b->run->eos_count;
  }
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn OnDecodedBuffer(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
  Branch* b = static_cast<Branch*>(data);
  Run* run = b->run;
  GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  const std::uint64_t n = b->seen++;
  const bool is_dist = b == &run->dist;
  const std::uint64_t offset = is_dist ? run->options.offset : 0;
  if (is_dist && offset > 0 && run->options.alignment == Alignment::kRunningTime &&
      (n == 0 || n == offset)) {
    GstClockTime rt = GST_CLOCK_TIME_NONE;
    GstEvent* seg_event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
    if (seg_event) {
      const GstSegment* segment = nullptr;
      gst_event_parse_segment(seg_event, &segment);
      if (segment->format == GST_FORMAT_TIME) {
        rt = gst_segment_to_running_time(segment, GST_FORMAT_TIME, GST_BUFFER_PTS(buffer));
      }
      gst_event_unref(seg_event);
    }
    if (n == 0) {
      b->first_running_time = rt;
    } else if (GST_CLOCK_TIME_IS_VALID(rt) && GST_CLOCK_TIME_IS_VALID(b->first_running_time) &&
               rt > b->first_running_time && b->queue_src) {
      // Applied by the queue when it pushes this frame (sticky events are
      // re-sent with the offset before the next buffer).
      gst_pad_set_offset(b->queue_src, -static_cast<gint64>(rt - b->first_running_time));
    }
  }
  if (n < offset) return GST_PAD_PROBE_DROP;
  b->passed++;
  return GST_PAD_PROBE_OK;
}

// ---------------------------------------------------------------------------
// Linking decoded pads

// A fakesink for streams we do not score (audio, subtitles, a second video).
void LinkToFakesink(Run* run, GstPad* pad) {
  GstElement* sink = gst_element_factory_make("fakesink", nullptr);
  if (!sink) return;
  g_object_set(sink, "sync", FALSE, "async", FALSE, nullptr);
  gst_bin_add(GST_BIN(run->pipeline), sink);
  gst_element_sync_state_with_parent(sink);
  GstPad* sinkpad = gst_element_get_static_pad(sink, "sink");
  gst_pad_link(pad, sinkpad);
  gst_object_unref(sinkpad);
}

GstElement* Make(const char* factory) { return gst_element_factory_make(factory, nullptr); }

// Builds queue [! converter ! capsfilter] for the decoded caps; returns the
// elements in order (not yet added), or an empty list when an element is
// missing.
std::vector<GstElement*> MakeChain(Branch* b, bool cuda, bool accepted, std::string* error) {
  std::vector<GstElement*> chain;
  GstElement* queue = Make("queue");
  if (!queue) {
    *error = "the GStreamer element queue is missing (gstreamer core)";
    return {};
  }
  chain.push_back(queue);
  if (accepted) return chain;
  if (cuda && gst_element_factory_find("cudaconvert")) {
    // Stay on the GPU: cudaconvert to an accepted format in CUDA memory.
    chain.push_back(Make("cudaconvert"));
    GstElement* filter = Make("capsfilter");
    GstCaps* caps = gst_caps_from_string(
        (std::string("video/x-raw(") + kCudaFeature + "), format=(string)" + kAcceptedFormatList)
            .c_str());
    g_object_set(filter, "caps", caps, nullptr);
    gst_caps_unref(caps);
    chain.push_back(filter);
    return chain;
  }
  if (cuda) {
    GstElement* download = Make("cudadownload");
    if (!download) {
      *error = "cannot convert the " + std::string(b->role) +
               "'s CUDA frames: neither cudaconvert nor cudadownload is installed";
      for (GstElement* e : chain) gst_object_unref(e);
      return {};
    }
    chain.push_back(download);
  }
  GstElement* convert = Make("videoconvert");
  if (!convert) {
    *error = "the GStreamer element videoconvert is missing (gst-plugins-base)";
    for (GstElement* e : chain) gst_object_unref(e);
    return {};
  }
  chain.push_back(convert);
  GstElement* filter = Make("capsfilter");
  GstCaps* caps = gst_caps_from_string(
      (std::string("video/x-raw, format=(string)") + kAcceptedFormatList).c_str());
  g_object_set(filter, "caps", caps, nullptr);
  gst_caps_unref(caps);
  chain.push_back(filter);
  return chain;
}

void OnPadAdded(GstElement*, GstPad* pad, gpointer data) {
  Branch* b = static_cast<Branch*>(data);
  Run* run = b->run;
  GstCaps* caps = gst_pad_get_current_caps(pad);
  if (!caps) caps = gst_pad_query_caps(pad, nullptr);
  const GstStructure* s = caps && !gst_caps_is_empty(caps) ? gst_caps_get_structure(caps, 0)
                                                           : nullptr;
  const bool is_video = s && gst_structure_has_name(s, "video/x-raw");
  if (!is_video || b->linked) {
    if (caps) gst_caps_unref(caps);
    LinkToFakesink(run, pad);
    return;
  }
  const GstCapsFeatures* features = gst_caps_get_features(caps, 0);
  const bool cuda = features && gst_caps_features_contains(features, kCudaFeature);
  const bool sysmem = !features || gst_caps_features_is_equal(
                                       features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY);
  const char* format_field = gst_structure_get_string(s, "format");
  const bool accepted = (cuda || sysmem) && FormatAccepted(format_field);
  const std::string format = format_field ? format_field : "?";  // outlives the caps
  {
    std::lock_guard<std::mutex> lock(run->mutex);
    b->format = format;
    b->cuda_memory = cuda;
  }
  gst_caps_unref(caps);
  if (!cuda && !sysmem) {
    // Another memory type (GL, VA, ...) that the element does not take.
    PostFailure(run, "cannot use the decoded " + Quoted(*b) +
                  ": decoder outputs a memory type ssim2compare does not accept");
    return;
  }

  std::string error;
  std::vector<GstElement*> chain = MakeChain(b, cuda, accepted, &error);
  if (chain.empty()) {
    PostFailure(run, error);
    return;
  }
  for (GstElement* e : chain) gst_bin_add(GST_BIN(run->pipeline), e);
  bool ok = true;
  for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
    ok = ok && gst_element_link(chain[i], chain[i + 1]);
  }
  GstPad* chain_sink = gst_element_get_static_pad(chain.front(), "sink");
  GstPad* chain_src = gst_element_get_static_pad(chain.back(), "src");
  b->queue_src = gst_element_get_static_pad(chain.front(), "src");
  ok = ok && gst_pad_link(chain_src, b->element_pad) == GST_PAD_LINK_OK;
  gst_object_unref(chain_src);
  for (GstElement* e : chain) gst_element_sync_state_with_parent(e);
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, OnDecodedEvent, b, nullptr);
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, OnDecodedBuffer, b, nullptr);
  ok = ok && gst_pad_link(pad, chain_sink) == GST_PAD_LINK_OK;
  gst_object_unref(chain_sink);
  if (!ok) {
    PostFailure(run, "cannot link the decoded " + Quoted(*b) + " (" + format +
                  ") to ssim2compare");
    return;
  }
  b->decoded_pad = GST_PAD(gst_object_ref(pad));
  b->linked = true;
}

void OnNoMorePads(GstElement*, gpointer data) {
  Branch* b = static_cast<Branch*>(data);
  if (!b->linked) {
    GstElement* pipeline = b->run->pipeline;
    gst_element_post_message(
        pipeline, gst_message_new_application(
                      GST_OBJECT(pipeline),
                      gst_structure_new("ssim2-no-video", "role", G_TYPE_STRING, b->role,
                                        nullptr)));
  }
}

// Caps and context queries of the decoders, made before their pads are
// exposed and linked, are answered by the element's pad, as playbin does
// with its sinks: this lets a hardware decoder pick CUDA memory.
gboolean OnAutoplugQuery(GstElement*, GstPad*, GstElement* element, GstQuery* query,
                         gpointer data) {
  Branch* b = static_cast<Branch*>(data);
  // Only video (and image) decoders output what reaches the element;
  // parsers, demuxers and audio decoders asking the same would be told "raw
  // video" and fail to negotiate.
  GstElementFactory* factory = element ? gst_element_get_factory(element) : nullptr;
  if (!factory ||
      !(gst_element_factory_list_is_type(
            factory, GST_ELEMENT_FACTORY_TYPE_DECODER | GST_ELEMENT_FACTORY_TYPE_MEDIA_VIDEO) ||
        gst_element_factory_list_is_type(
            factory, GST_ELEMENT_FACTORY_TYPE_DECODER | GST_ELEMENT_FACTORY_TYPE_MEDIA_IMAGE))) {
    return FALSE;
  }
  switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS:
    case GST_QUERY_ACCEPT_CAPS:
    case GST_QUERY_CONTEXT:
      return gst_pad_query(b->element_pad, query);
    default:
      return FALSE;
  }
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
  run->last_bus_message_s = run->Elapsed();
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
      if (gst_structure_has_name(s, "ssim2-failure")) {
        Fail(run, gst_structure_get_string(s, "line"));
      } else if (gst_structure_has_name(s, "ssim2-size-mismatch")) {
        Fail(run, SizeMismatchLine(run));
      } else if (gst_structure_has_name(s, "ssim2-no-video")) {
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

// A pipeline that posts nothing for this long (no frame scored, no state
// change, no error) is stuck, e.g. on a damaged file whose demuxer neither
// errors nor ends: the tool gives up with one line instead of hanging.
constexpr double kStallSeconds = 30.0;

gboolean OnProgressTick(gpointer data) {
  Run* run = static_cast<Run*>(data);
  if (run->failed) return G_SOURCE_CONTINUE;
  if (run->Elapsed() - run->last_bus_message_s > kStallSeconds) {
    Fail(run, "no progress for " + std::to_string(static_cast<int>(kStallSeconds)) +
                  " s reading " + Quoted(run->ref) + " and " + Quoted(run->dist) +
                  ": giving up (a damaged file or a stalled decoder)");
    return G_SOURCE_CONTINUE;
  }
  if (run->progress && run->progress->enabled()) {
    run->progress->Update(run->frames.size(), ExpectedScores(run), run->Elapsed());
  }
  return G_SOURCE_CONTINUE;
}

gboolean OnInterrupt(gpointer data) {
  Run* run = static_cast<Run*>(data);
  run->interrupted = true;
  g_main_loop_quit(run->loop);
  return G_SOURCE_CONTINUE;
}

// ---------------------------------------------------------------------------
// Setup

// Ranks NVIDIA's hardware decoders above the software ones, so that decodebin
// picks them when a GPU is there (they are not registered without one). With
// --device N (N > 0), the decoders of that GPU ("nvh264deviceNdec", ...) come
// first, so that frames are decoded where they are scored.
void PreferHardwareDecoders(int cuda_device) {
  const std::string device_tag =
      cuda_device > 0 ? "device" + std::to_string(cuda_device) : std::string();
  GList* factories = gst_element_factory_list_get_elements(
      static_cast<GstElementFactoryListType>(GST_ELEMENT_FACTORY_TYPE_DECODER |
                                             GST_ELEMENT_FACTORY_TYPE_MEDIA_VIDEO),
      GST_RANK_NONE);
  for (GList* l = factories; l; l = l->next) {
    GstElementFactory* factory = GST_ELEMENT_FACTORY(l->data);
    const char* klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
    const char* name = GST_OBJECT_NAME(factory);
    if (klass && std::strstr(klass, "Hardware") && std::strncmp(name, "nv", 2) == 0 &&
        gst_plugin_feature_get_rank(GST_PLUGIN_FEATURE(factory)) >= GST_RANK_MARGINAL) {
      const bool that_device = !device_tag.empty() && std::strstr(name, device_tag.c_str()) &&
                               !std::isdigit(static_cast<unsigned char>(
                                   std::strstr(name, device_tag.c_str())[device_tag.size()]));
      gst_plugin_feature_set_rank(GST_PLUGIN_FEATURE(factory),
                                  GST_RANK_PRIMARY + (that_device ? 2 : 1));
    }
  }
  gst_plugin_feature_list_free(factories);
}

// A URI for a path (or the argument itself when it is already a URI).
std::string ToUri(const std::string& path, std::string* error) {
  if (gst_uri_is_valid(path.c_str()) && path.find("://") != std::string::npos) return path;
  GError* err = nullptr;
  gchar* uri = gst_filename_to_uri(path.c_str(), &err);
  if (!uri) {
    *error = err ? err->message : "invalid path";
    g_clear_error(&err);
    return {};
  }
  std::string out = uri;
  g_free(uri);
  return out;
}

// Local files are checked before the pipeline starts, for a plain message.
bool CheckReadable(const Branch& b, std::string* line) {
  if (gst_uri_is_valid(b.path.c_str()) && b.path.find("://") != std::string::npos) return true;
  if (g_file_test(b.path.c_str(), G_FILE_TEST_IS_DIR)) {
    *line = "cannot open " + Quoted(b) + ": is a directory";
    return false;
  }
  if (access(b.path.c_str(), R_OK) != 0) {
    *line = "cannot open " + Quoted(b) + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool SetProperty(GstElement* e, const char* name, const char* value) {
  if (!g_object_class_find_property(G_OBJECT_GET_CLASS(e), name)) return false;
  gst_util_set_object_arg(G_OBJECT(e), name, value);
  return true;
}

// Lets the tool run from the build tree or from an install without
// GST_PLUGIN_PATH: the plugin is loaded from where this build put it.
void LoadOwnPluginIfMissing() {
  if (GstElementFactory* factory = gst_element_factory_find(kElementName)) {
    gst_object_unref(factory);
    return;
  }
  for (const char* dir : {SSIM2_PLUGIN_BUILD_DIR, SSIM2_PLUGIN_INSTALL_DIR}) {
    const std::string path = std::string(dir) + "/libgstssim2.so";
    GError* err = nullptr;
    if (GstPlugin* plugin = gst_plugin_load_file(path.c_str(), &err)) {
      gst_object_unref(plugin);
      return;
    }
    g_clear_error(&err);
  }
}

bool Build(Run* run, std::string* error) {
  LoadOwnPluginIfMissing();
  run->pipeline = gst_pipeline_new("ssim2");
  run->compare = gst_element_factory_make(kElementName, "compare");
  if (!run->compare) {
    *error = "the GStreamer element ssim2compare is not available (is the ssim2 plugin "
             "installed, or GST_PLUGIN_PATH set to its folder?)";
    return false;
  }
  const Options& o = run->options;
  SetProperty(run->compare, "alignment",
              o.alignment == Alignment::kSequence ? "sequence" : "running-time");
  SetProperty(run->compare, "backend",
              o.backend == Backend::kCpu ? "cpu" : o.backend == Backend::kCuda ? "cuda" : "auto");
  SetProperty(run->compare, "cuda-device-id", std::to_string(o.cuda_device).c_str());
  SetProperty(run->compare, "post-messages", "true");
  SetProperty(run->compare, "frame-step", std::to_string(o.every).c_str());
  // Elements older than the threads property use all cores, as --threads 0.
  if (!SetProperty(run->compare, "threads", std::to_string(o.cpu_threads).c_str()) &&
      o.cpu_threads != 0) {
    PrintLine(run, "warning: this ssim2compare has no threads property; --threads is ignored");
  }
  GstElement* sink = gst_element_factory_make("fakesink", "sink");
  g_object_set(sink, "sync", FALSE, nullptr);
  gst_bin_add_many(GST_BIN(run->pipeline), run->compare, sink, nullptr);
  if (!gst_element_link(run->compare, sink)) {
    *error = "cannot link ssim2compare to fakesink";
    return false;
  }
  for (Branch* b : {&run->ref, &run->dist}) {
    std::string uri = ToUri(b->path, error);
    if (uri.empty()) {
      *error = "cannot open " + Quoted(*b) + ": " + *error;
      return false;
    }
    b->element_pad = gst_element_get_static_pad(run->compare, b->pad_name);
    if (!b->element_pad) {
      *error = std::string("ssim2compare has no ") + b->pad_name + " pad";
      return false;
    }
    b->decoder = gst_element_factory_make("uridecodebin",
                                          b == &run->ref ? "ref-src" : "dist-src");
    if (!b->decoder) {
      *error = "the GStreamer element uridecodebin is missing (gst-plugins-base)";
      return false;
    }
    g_object_set(b->decoder, "uri", uri.c_str(), nullptr);
    g_signal_connect(b->decoder, "pad-added", G_CALLBACK(OnPadAdded), b);
    g_signal_connect(b->decoder, "no-more-pads", G_CALLBACK(OnNoMorePads), b);
    g_signal_connect(b->decoder, "autoplug-query", G_CALLBACK(OnAutoplugQuery), b);
    gst_bin_add(GST_BIN(run->pipeline), b->decoder);
  }
  return true;
}

void Cleanup(Run* run) {
  if (run->pipeline) {
    gst_element_set_state(run->pipeline, GST_STATE_NULL);
  }
  for (Branch* b : {&run->ref, &run->dist}) {
    if (b->element_pad) gst_object_unref(b->element_pad);
    if (b->decoded_pad) gst_object_unref(b->decoded_pad);
    if (b->queue_src) gst_object_unref(b->queue_src);
  }
  if (run->pipeline) gst_object_unref(run->pipeline);
  else if (run->compare) gst_object_unref(run->compare);
  if (run->loop) g_main_loop_unref(run->loop);
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
  if (!Build(&run, &error)) {
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
  guint sigint = g_unix_signal_add(SIGINT, OnInterrupt, &run);

  run.start = std::chrono::steady_clock::now();
  if (gst_element_set_state(run.pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    // The bus usually holds the reason; let the loop report it.
    g_idle_add(
        [](gpointer data) -> gboolean {
          Run* r = static_cast<Run*>(data);
          Fail(r, "cannot start the pipeline");
          return G_SOURCE_REMOVE;
        },
        &run);
  }
  g_main_loop_run(run.loop);
  const double elapsed = run.frames.empty() ? run.Elapsed() : run.last_score_s;
  if (!run.failed) ExpectedScores(&run);  // stream lengths, while they can be queried
  gst_element_set_state(run.pipeline, GST_STATE_NULL);
  // Messages posted while stopping (errors of the last moment) are not
  // reported; the bus watch goes with the loop.
  g_source_remove(tick);
  g_source_remove(sigint);
  g_source_remove(bus_watch);
  progress.Finish();
  run.progress = nullptr;

  if (run.failed) {
    Cleanup(&run);
    return 1;
  }
  if (run.interrupted) PrintLine(&run, "interrupted: summary of the frames scored so far");

  // One stream shorter than the other: the element warns with both counts;
  // if it did not, say it here.
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
    std::fprintf(stderr,
                 "ssim2: no frame pair could be scored (reference %llu frames, distorted %llu "
                 "frames%s)\n",
                 static_cast<unsigned long long>(ref_frames),
                 static_cast<unsigned long long>(dist_frames), skipped.c_str());
    Cleanup(&run);
    return 1;
  }
  // One stream shorter than the other: the element says so (its warning is
  // replaced by this line, which has both complete counts); without its
  // word, one stream having ended and not the other tells.
  InputEnds ends;
  ends.ref_frames = ref_frames;
  ends.dist_frames = dist_frames;
  ends.ref_ended = run.ref.eos;
  ends.dist_ended = run.dist.eos;
  std::optional<Input> ended_first;
  if (!run.interrupted && !run.frames_reached) {
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
  info.alignment = options.alignment == Alignment::kSequence ? "sequence" : "running-time";
  info.offset = options.offset;
  info.every = run.options.every;
  {
    std::lock_guard<std::mutex> lock(run.mutex);
    info.width = run.dist.width;
    info.height = run.dist.height;
  }
  info.elapsed_s = elapsed;
  info.warnings = run.warnings;
  Cleanup(&run);

  // --json / --json=-: the JSON document on stdout instead of the summary.
  LogOptions json_log;
  json_log.format = LogFormat::kJson;
  std::fputs(options.json ? RenderScoreLog(json_log, run.frames, log_summary, info).c_str()
                          : RenderSummary(run.frames, summary, info).c_str(),
             stdout);
  std::fflush(stdout);
  int code = run.interrupted ? 130 : 0;
  std::string write_error;
  LogOptions csv_log;
  csv_log.format = LogFormat::kCsv;
  if (!options.csv_path.empty() &&
      !WriteScoreLog(options.csv_path, csv_log, run.frames, log_summary, info, &write_error)) {
    std::fprintf(stderr, "ssim2: %s\n", write_error.c_str());
    code = 1;
  }
  if (!options.json_path.empty() &&
      !WriteScoreLog(options.json_path, json_log, run.frames, log_summary, info, &write_error)) {
    std::fprintf(stderr, "ssim2: %s\n", write_error.c_str());
    code = 1;
  }
  LogOptions vmaf_log;
  vmaf_log.format = LogFormat::kVmafJson;
  if (!options.vmaf_json_path.empty() &&
      !WriteScoreLog(options.vmaf_json_path, vmaf_log, run.frames, log_summary, info, &write_error)) {
    std::fprintf(stderr, "ssim2: %s\n", write_error.c_str());
    code = 1;
  }
  if (!options.plot_path.empty() &&
      !WriteSvgPlot(options.plot_path, run.frames, summary, info, &write_error)) {
    std::fprintf(stderr, "ssim2: %s\n", write_error.c_str());
    code = 1;
  }
  return code;
}

}  // namespace cli
}  // namespace ssim2
