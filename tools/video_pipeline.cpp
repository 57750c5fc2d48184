// Construction of the video mode's pipeline (see video_pipeline.h):
//
//   uridecodebin name=ref-src    ! queue ! [convert] ! ssim2compare.ref
//   uridecodebin name=dist-src   ! queue ! [scale] ! [convert] ! ssim2compare.dist
//   uridecodebin name=dist_1-src ! queue ! [scale] ! [convert] ! ssim2compare.dist_1
//   ...  (one branch per further distorted input, on the rendition pads)
//   ssim2compare ! fakesink sync=false
//
// - [scale] (--scale): the distorted frames are scaled to the reference's
//   size (see MakeChain()); without it, another size is an error.
// - Hardware decoding: decodebin's caps and context queries ("autoplug-query")
//   are answered by the element's sink pads, as playbin does with its sink, so
//   a decoder that can output CUDA memory (nvh264dec, ...) does so when the
//   element accepts it, and shares the element's CUDA context. Unless
//   --backend cpu, NVIDIA decoders are ranked above the software ones.
// - [convert] is inserted only when the decoded format is not one the element
//   accepts: videoconvert (system memory) or cudaconvert (CUDA memory, else
//   cudadownload ! videoconvert), restricted to the accepted formats.
// - --offset N: a probe on each distorted branch drops its first N decoded
//   frames. With --alignment running-time the distorted stream is also moved
//   earlier by the running-time difference between its frame N and its frame
//   0 (a pad offset), so distorted frame N meets the reference frame shown at
//   the time of distorted frame 0; with --alignment sequence, distorted frame
//   N + k is paired with reference frame k.
// - --every N sets the element's frame-step.
// - The probes count decoded frames per branch: the run loop's watchdog takes
//   them as progress.
#include "video_pipeline.h"

#include <gst/video/video.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "image_io.h"

namespace ssim2 {
namespace cli {

namespace {

constexpr const char* kElementName = "ssim2compare";
constexpr const char* kCudaFeature = "memory:CUDAMemory";
// What the element's pads accept (its pad template: the formats it scores, in
// system or CUDA memory), restricted to CUDA memory or to system memory. The
// element is the one place that lists the formats.
GstCaps* AcceptedCaps(Run* run, bool cuda) {
  GstPadTemplate* templ =
      gst_element_class_get_pad_template(GST_ELEMENT_GET_CLASS(run->compare), "ref");
  GstCaps* accepted = templ ? gst_pad_template_get_caps(templ) : gst_caps_new_empty();
  GstCaps* memory = gst_caps_from_string(
      cuda ? (std::string("video/x-raw(") + kCudaFeature + ")").c_str() : "video/x-raw");
  GstCaps* out = gst_caps_intersect(accepted, memory);
  gst_caps_unref(memory);
  gst_caps_unref(accepted);
  return out;
}

// ---------------------------------------------------------------------------
// Probes (streaming threads)

// Records a distorted input of another size than the reference (without
// --scale) for the main loop; the first one found is reported.
void CheckSize(Run* run, Branch* dist) {
  if (run->options.scale || run->ref.width == 0 || dist->width == 0 || run->size_mismatch) return;
  if (dist->width == run->ref.width && dist->height == run->ref.height) return;
  run->size_mismatch = dist;
  gst_element_post_message(
      run->pipeline, gst_message_new_application(GST_OBJECT(run->pipeline),
                                                 gst_structure_new_empty(kSizeMismatchMessage)));
}

// --scale: a distorted input's caps wait here until the reference's size is
// known, which then goes into the capsfilter after its scaler, so that its
// first frame already reaches the element at the reference's size.
void AwaitReferenceSize(Run* run, Branch* dist) {
  std::unique_lock<std::mutex> lock(run->mutex);
  while (run->ref.width == 0 && !run->stopping) {
    run->ref_size_known.wait_for(lock, std::chrono::milliseconds(100));
  }
  if (run->ref.width == 0) return;
  GstCaps* caps = gst_caps_new_simple("video/x-raw", "width", G_TYPE_INT, run->ref.width, "height",
                             G_TYPE_INT, run->ref.height, nullptr);
  if (dist->scale_on_gpu) {
    gst_caps_set_features(caps, 0, gst_caps_features_new(kCudaFeature, nullptr));
  }
  g_object_set(dist->scale_filter, "caps", caps, nullptr);
  gst_caps_unref(caps);
}

GstPadProbeReturn OnDecodedEvent(GstPad*, GstPadProbeInfo* info, gpointer data) {
  Branch* b = static_cast<Branch*>(data);
  Run* run = b->run;
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    GstCaps* caps = nullptr;
    gst_event_parse_caps(event, &caps);
    GstVideoInfo vinfo;
    if (caps && gst_video_info_from_caps(&vinfo, caps)) {
      {
        std::lock_guard<std::mutex> lock(run->mutex);
        b->width = GST_VIDEO_INFO_WIDTH(&vinfo);
        b->height = GST_VIDEO_INFO_HEIGHT(&vinfo);
        b->fps_n = GST_VIDEO_INFO_FPS_N(&vinfo);
        b->fps_d = GST_VIDEO_INFO_FPS_D(&vinfo);
        if (b == &run->ref) {
          for (auto& d : run->dists) CheckSize(run, d.get());
        } else {
          CheckSize(run, b);
        }
      }
      if (b == &run->ref) run->ref_size_known.notify_all();
      if (b != &run->ref && b->scale_filter) AwaitReferenceSize(run, b);
    }
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    if (!b->eos.exchange(true)) b->eos_order = ++run->eos_count;
  }
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn OnDecodedBuffer(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
  Branch* b = static_cast<Branch*>(data);
  Run* run = b->run;
  GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  const std::uint64_t n = b->seen++;
  const bool is_dist = b != &run->ref;
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

GstElement* Make(const char* factory) { return gst_element_factory_make(factory, nullptr); }

// Whether the element takes frames of this format in system memory.
bool SystemMemoryFormatAccepted(Run* run, const std::string& format) {
  GstCaps* frames = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, format.c_str(),
                                        nullptr);
  GstCaps* element_caps = AcceptedCaps(run, false);
  const bool accepted = gst_caps_can_intersect(frames, element_caps);
  gst_caps_unref(element_caps);
  gst_caps_unref(frames);
  return accepted;
}

// A capsfilter that lets through what the element accepts in CUDA memory or
// in system memory.
GstElement* AcceptedCapsFilter(Run* run, bool cuda) {
  GstElement* filter = Make("capsfilter");
  GstCaps* caps = AcceptedCaps(run, cuda);
  g_object_set(filter, "caps", caps, nullptr);
  gst_caps_unref(caps);
  return filter;
}

// Builds queue [! scaler ! capsfilter] [! converter ! capsfilter] for the
// decoded caps; returns the elements in order (not yet added), or an empty
// list when an element is missing.
//
// The scaler (--scale, distorted inputs only) is fixed so that scores are
// reproducible: cudascale on CUDA memory (its filtering has no setting), else
// videoscale method=bilinear; its capsfilter gets the reference's size
// (AwaitReferenceSize()). Equal sizes pass through unchanged.
std::vector<GstElement*> MakeChain(Branch* b, bool cuda, bool accepted, std::string* error) {
  std::vector<GstElement*> chain;
  auto fail = [&](const std::string& line) {
    *error = line;
    b->scale_filter = nullptr;
    for (GstElement* e : chain) gst_object_unref(e);
    return std::vector<GstElement*>{};
  };
  GstElement* queue = Make("queue");
  if (!queue) return fail("the GStreamer element queue is missing (gstreamer core)");
  chain.push_back(queue);
  if (b->run->options.scale && b != &b->run->ref) {
    const bool on_gpu = cuda && gst_element_factory_find("cudascale");
    if (cuda && !on_gpu) {
      GstElement* download = Make("cudadownload");
      if (!download) {
        return fail("cannot scale the " + std::string(b->role) +
                    "'s CUDA frames: neither cudascale nor cudadownload is installed");
      }
      chain.push_back(download);
      cuda = false;
      accepted = SystemMemoryFormatAccepted(b->run, b->format);
    }
    GstElement* scaler = Make(on_gpu ? "cudascale" : "videoscale");
    if (!scaler) return fail("--scale needs videoscale (gst-plugins-base)");
    if (!on_gpu) gst_util_set_object_arg(G_OBJECT(scaler), "method", "bilinear");
    chain.push_back(scaler);
    b->scale_filter = Make("capsfilter");
    b->scale_on_gpu = on_gpu;
    chain.push_back(b->scale_filter);  // owned by the pipeline once added
  }
  if (accepted) return chain;
  if (cuda && gst_element_factory_find("cudaconvert")) {
    // Stay on the GPU: cudaconvert to an accepted format in CUDA memory.
    chain.push_back(Make("cudaconvert"));
    chain.push_back(AcceptedCapsFilter(b->run, true));
    return chain;
  }
  if (cuda) {
    GstElement* download = Make("cudadownload");
    if (!download) {
      return fail("cannot convert the " + std::string(b->role) +
                  "'s CUDA frames: neither cudaconvert nor cudadownload is installed");
    }
    chain.push_back(download);
  }
  GstElement* convert = Make("videoconvert");
  if (!convert) return fail("the GStreamer element videoconvert is missing (gst-plugins-base)");
  chain.push_back(convert);
  chain.push_back(AcceptedCapsFilter(b->run, false));
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
    LinkToFakesink(run->pipeline, pad);
    return;
  }
  const GstCapsFeatures* features = gst_caps_get_features(caps, 0);
  const bool cuda = features && gst_caps_features_contains(features, kCudaFeature);
  const bool sysmem = !features || gst_caps_features_is_equal(
                                       features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY);
  const char* format_field = gst_structure_get_string(s, "format");
  bool accepted = false;
  if (cuda || sysmem) {
    GstCaps* element_caps = AcceptedCaps(run, cuda);
    accepted = gst_caps_can_intersect(caps, element_caps);
    gst_caps_unref(element_caps);
  }
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
                      gst_structure_new(kNoVideoMessage, "pad", G_TYPE_STRING, b->pad_name.c_str(),
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

bool SetProperty(GstElement* e, const char* name, const char* value) {
  if (!g_object_class_find_property(G_OBJECT_GET_CLASS(e), name)) return false;
  gst_util_set_object_arg(G_OBJECT(e), name, value);
  return true;
}

}  // namespace

void LinkToFakesink(GstElement* pipeline, GstPad* pad) {
  GstElement* sink = gst_element_factory_make("fakesink", nullptr);
  if (!sink) return;
  g_object_set(sink, "sync", FALSE, "async", FALSE, nullptr);
  gst_bin_add(GST_BIN(pipeline), sink);
  gst_element_sync_state_with_parent(sink);
  GstPad* sinkpad = gst_element_get_static_pad(sink, "sink");
  gst_pad_link(pad, sinkpad);
  gst_object_unref(sinkpad);
}

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

namespace {

// A URI for a path (or the argument itself when it is already a URI).
std::string ToUri(const std::string& path, std::string* error) {
  if (io::IsUri(path)) return path;
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

// Whether a file:// URI names a FIFO (uridecodebin would read it with filesrc).
bool NamesPipe(const std::string& uri) {
  gchar* path = g_filename_from_uri(uri.c_str(), nullptr, nullptr);
  if (path == nullptr) return false;  // not a local file
  struct stat st;
  const bool pipe = stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
  g_free(path);
  return pipe;
}

}  // namespace

void OpenPipes(Run* run) {
  for (Branch* b : AllBranches(run)) {
    if (!b->is_pipe) continue;
    gchar* uri = nullptr;
    g_object_get(b->decoder, "uri", &uri, nullptr);
    gchar* path = uri ? g_filename_from_uri(uri, nullptr, nullptr) : nullptr;
    g_free(uri);
    b->pipe_fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    const int open_errno = errno;
    g_free(path);
    if (b->pipe_fd < 0) {
      PostFailure(run, "cannot open " + Quoted(*b) + ": " + std::strerror(open_errno));
      continue;
    }
    const std::string fd_uri = "fd://" + std::to_string(b->pipe_fd);
    g_object_set(b->decoder, "uri", fd_uri.c_str(), nullptr);
  }
}

void ClosePipes(Run* run) {
  for (Branch* b : AllBranches(run)) {
    if (b->pipe_fd >= 0) close(b->pipe_fd);
    b->pipe_fd = -1;
  }
}

void PostFailure(Run* run, const std::string& line) {
  gst_element_post_message(
      run->pipeline,
      gst_message_new_application(
          GST_OBJECT(run->pipeline),
          gst_structure_new(kFailureMessage, "line", G_TYPE_STRING, line.c_str(), nullptr)));
}

// NVIDIA's hardware decoders go above the software ones, so that decodebin
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

bool CheckReadable(const Branch& b, std::string* line) {
  if (io::IsUri(b.path)) return true;
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

bool BuildPipeline(Run* run, std::string* error) {
  LoadOwnPluginIfMissing();
  run->pipeline = gst_pipeline_new("ssim2");
  run->compare = gst_element_factory_make(kElementName, "compare");
  if (!run->compare) {
    *error = "the GStreamer element ssim2compare is not available (is the ssim2 plugin "
             "installed, or GST_PLUGIN_PATH set to its folder?)";
    return false;
  }
  const Options& o = run->options;
  SetProperty(run->compare, "alignment", AlignmentName(o.alignment));
  SetProperty(run->compare, "backend",
              o.backend == Backend::kCpu ? "cpu" : o.backend == Backend::kCuda ? "cuda" : "auto");
  SetProperty(run->compare, "cuda-device-id", std::to_string(o.cuda_device).c_str());
  SetProperty(run->compare, "post-messages", "true");
  SetProperty(run->compare, "frame-step", std::to_string(o.every).c_str());
  SetProperty(run->compare, "threads", std::to_string(o.cpu_threads).c_str());
  SetProperty(run->compare, "memory-limit", std::to_string(o.memory_limit).c_str());
  SetProperty(run->compare, "sequential-sums", o.sequential_sums ? "true" : "false");
  GstElement* sink = gst_element_factory_make("fakesink", "sink");
  g_object_set(sink, "sync", FALSE, nullptr);
  gst_bin_add_many(GST_BIN(run->pipeline), run->compare, sink, nullptr);
  if (!gst_element_link(run->compare, sink)) {
    *error = "cannot link ssim2compare to fakesink";
    return false;
  }
  for (Branch* b : AllBranches(run)) {
    std::string uri = ToUri(b->path, error);
    if (uri.empty()) {
      *error = "cannot open " + Quoted(*b) + ": " + *error;
      return false;
    }
    // The first distorted input goes to `dist`, the others to rendition
    // pads `dist_%u` (named dist_0, dist_1, ... in order).
    const bool rendition = b != &run->ref && b != run->dists.front().get();
    b->element_pad = rendition ? gst_element_request_pad_simple(run->compare, "dist_%u")
                               : gst_element_get_static_pad(run->compare, b->pad_name.c_str());
    if (!b->element_pad) {
      *error = "ssim2compare has no " + std::string(rendition ? "dist_%u" : b->pad_name) +
               " pad (is the installed plugin older than this tool?)";
      return false;
    }
    b->pad_name = GST_PAD_NAME(b->element_pad);
    b->decoder = gst_element_factory_make("uridecodebin", (b->pad_name + "-src").c_str());
    if (!b->decoder) {
      *error = "the GStreamer element uridecodebin is missing (gst-plugins-base)";
      return false;
    }
    b->is_pipe = NamesPipe(uri);
    g_object_set(b->decoder, "uri", uri.c_str(), nullptr);
    g_signal_connect(b->decoder, "pad-added", G_CALLBACK(OnPadAdded), b);
    g_signal_connect(b->decoder, "no-more-pads", G_CALLBACK(OnNoMorePads), b);
    g_signal_connect(b->decoder, "autoplug-query", G_CALLBACK(OnAutoplugQuery), b);
    gst_bin_add(GST_BIN(run->pipeline), b->decoder);
  }
  return true;
}


}  // namespace cli
}  // namespace ssim2
