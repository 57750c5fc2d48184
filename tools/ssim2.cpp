// ssim2: SSIMULACRA 2.1 score of two images (or, through the GStreamer video
// mode, two videos). For images it behaves like the reference tool: the same
// score line, the same error lines, exit status 1 on any error.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli_args.h"
#include "cli_options.h"
#include "image_io.h"
#include "monitor.h"
#include "pairs_mode.h"
#include "quality_gate.h"
#include "run_guard.h"
#include "ssim2/score_log.h"
#include "ssim2/ssim2.h"
#include "ssim2/stats.h"
#include "stdout_status.h"
#include "text_format.h"

#ifndef SSIM2_VERSION
#define SSIM2_VERSION "unknown"
#endif

namespace ssim2 {
namespace cli {
namespace {

int Fail(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  return 1;
}

// The reference's message first, our reason after it in parentheses.
int LoadFailure(const char* which, const std::string& path, const std::string& reason) {
  return Fail(std::string("Could not load ") + which + " image: " + path + " (" + reason + ")");
}

// Every digit that tells the double apart, with '.' whatever the locale.
std::string JsonNumber(double v) { return std::isfinite(v) ? FormatShortest(v) : "null"; }

// Sub-scores as features.<channel>[scale].<map>.<norm>, e.g.
// features.Y[2].artifact.l4; one entry per computed scale.
std::string JsonFeatures(const Result& r) {
  static const char* kChannels[] = {"X", "Y", "B"};
  static const char* kMaps[] = {"ssim", "artifact", "detail_lost"};
  std::string out = "{";
  for (int c = 0; c < kNumChannels; ++c) {
    out += std::string(c ? ",\n    " : "\n    ") + "\"" + kChannels[c] + "\": [";
    for (int s = 0; s < r.num_scales; ++s) {
      out += s ? ",\n      {" : "\n      {";
      for (int m = 0; m < kNumMaps; ++m) {
        out += std::string(m ? ", " : "") + "\"" + kMaps[m] + "\": {\"l1\": " +
               JsonNumber(r.features[s][c][m][0]) + ", \"l4\": " +
               JsonNumber(r.features[s][c][m][1]) + "}";
      }
      out += "}";
    }
    out += "]";
  }
  return out + "\n  }";
}

// What the scorer took an input for: transfer, primaries and the intensity
// target the reference gives it (docs/HDR.md).
std::string JsonColor(const ColorDescription& c) {
  return std::string("{\"transfer\": ") + JsonString(TransferName(c.transfer)) +
         ", \"primaries\": " + JsonString(PrimariesName(c.primaries)) +
         ", \"intensity_target\": " + JsonNumber(IntensityTarget(c)) + "}";
}

std::string JsonReport(const Options& o, const io::Image& ref, const io::Image& dist,
                       const Scorer& scorer, const Result& r) {
  std::string out = "{\n";
  out += "  \"metric\": \"SSIMULACRA 2.1\",\n";
  out += "  \"score\": " + FormatScore(r.score) + ",\n";
  out += "  \"score_exact\": " + JsonNumber(r.score) + ",\n";
  out += "  \"reference\": " + JsonString(o.reference_path) + ",\n";
  out += "  \"distorted\": " + JsonString(o.distorted_path) + ",\n";
  out += "  \"width\": " + std::to_string(ref.width()) + ",\n";
  out += "  \"height\": " + std::to_string(ref.height()) + ",\n";
  out += "  \"reference_color\": " + JsonColor(ref.color()) + ",\n";
  out += "  \"distorted_color\": " + JsonColor(dist.color()) + ",\n";
  out += "  \"scales\": " + std::to_string(r.num_scales) + ",\n";
  out += "  \"backend\": " + JsonString(BackendName(scorer.backend())) + ",\n";
  out += "  \"backend_description\": " + JsonString(scorer.description()) + ",\n";
  out += "  \"features\": " + JsonFeatures(r) + "\n}\n";
  return out;
}

Status WriteFile(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status(StatusCode::kIoError, "cannot write " + path);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) return Status(StatusCode::kIoError, "cannot write " + path);
  return Status::Ok();
}

// Sniffs and loads one input. Returns -1 when it is an image now in `image`,
// 2 when it is not a PNG/JPEG but could be a video, else the exit code.
constexpr int kIsImage = -1;
constexpr int kIsVideo = 2;
int LoadInput(const char* which, const std::string& path, io::Image* image) {
  if (io::IsUri(path)) return kIsVideo;  // only GStreamer reads URIs
  // A file that cannot be read at all is judged by its name: an image's name
  // gets the reference's message, any other is a video that the video mode
  // reports in its words ("cannot open reference clip.mkv: ...").
  if (access(path.c_str(), R_OK) != 0 && !io::HasImageName(path)) return kIsVideo;
  io::FileKind kind;
  if (Status s = io::SniffFile(path, &kind); !s.ok()) return LoadFailure(which, path, s.message());
  if (kind == io::FileKind::kOther) return kIsVideo;
  if (kind == io::FileKind::kText)
    return LoadFailure(which, path, "not a PNG or JPEG image (looks like text)");
  if (Status s = io::LoadImage(path, image); !s.ok()) return LoadFailure(which, path, s.message());
  return kIsImage;
}

int ScoreImages(const Options& o, const io::Image& ref, const io::Image& dist) {
  // Score files of the video mode have no image counterpart: refuse them
  // rather than write nothing.
  if (!o.csv_path.empty() || !o.vmaf_json_path.empty() || !o.summary_path.empty() ||
      !o.plot_path.empty())
    return Fail("ssim2: CSV, vmaf-json, summary and plot output (--csv, -o FILE.csv, --format "
                "vmaf-json, --summary, --plot) are for videos; "
                "for images use --json=FILE or -o FILE.json");
  ScorerOptions so;
  so.backend = o.backend;
  so.cuda_device = o.cuda_device;
  so.cpu_threads = o.cpu_threads;
  so.memory_limit = o.memory_limit;
  // One pair: the GPU's sub-scores are the CPU's and the reference's bit for
  // bit, at a cost of a millisecond (docs/PERFORMANCE.md, "Sequential sums").
  so.sequential_sums = true;
  const bool want_json = o.json || !o.json_path.empty();
  so.all_features = want_json;  // the skipped maps' sub-scores are wanted too
  std::unique_ptr<Scorer> scorer;
  Result result;
  Status s = Scorer::Create(ref.width(), ref.height(), so, &scorer);
  if (s.ok()) s = scorer->Compute(ref.view(), dist.view(), &result);
  if (!s.ok()) return Fail("ssim2: " + s.message());
  if (!scorer->limits().empty()) {
    std::fprintf(stderr, "ssim2: warning: --memory-limit: %s\n", scorer->limits().c_str());
  }
  if (want_json) {
    const std::string json = JsonReport(o, ref, dist, *scorer, result);
    if (!o.json_path.empty()) {
      if (Status w = WriteFile(o.json_path, json); !w.ok()) return Fail("ssim2: " + w.message());
    }
    if (o.json) std::fputs(json.c_str(), stdout);
  }
  if (!o.json) std::printf("%s\n", FormatScore(result.score).c_str());
  // One score: every statistic a gate can name is the score itself.
  if (auto below = QualityGateFailure(o.fail_below, Summarize({result.score}), o.distorted_path)) {
    std::fflush(stdout);
    Fail("ssim2: " + *below);
    return kExitBelowGate;
  }
  return 0;
}

// The reference's order: load the original, check its size alone, then load
// the distorted image and compare sizes.
int Run(const Options& o) {
  io::Image ref, dist;
  int rc = LoadInput("original", o.reference_path, &ref);
  if (rc == kIsVideo) return RunVideoMode(o);
  if (rc != kIsImage) return rc;
  if (!o.more_distorted_paths.empty())
    return Fail("ssim2: images are compared two at a time (REFERENCE DISTORTED); several "
                "distorted files are for videos");
  if (ref.width() < 8 || ref.height() < 8) return Fail("Minimum image size is 8x8 pixels");
  rc = LoadInput("distorted", o.distorted_path, &dist);
  if (rc == kIsVideo) return RunVideoMode(o);
  if (rc != kIsImage) return rc;
  if (ref.width() != dist.width() || ref.height() != dist.height())
    return Fail("Image size mismatch");
  return ScoreImages(o, ref, dist);
}

}  // namespace
}  // namespace cli
}  // namespace ssim2

namespace {

int Main(int argc, char** argv) {
  using namespace ssim2::cli;
  IgnoreFileSizeSignal();
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (!args.empty() && args[0] == "monitor") {
    return ssim2::monitor::RunMonitor({args.begin() + 1, args.end()}, SSIM2_VERSION);
  }
  Options options;
  Command command;
  std::string error;
  if (!ParseArgs(args, &options, &command, &error)) {
    if (error.empty()) {
      std::fputs(UsageText().c_str(), stderr);
    } else {
      std::fprintf(stderr, "ssim2: %s (see ssim2 --help)\n", error.c_str());
    }
    return 1;
  }
  if (command == Command::kHelp || command == Command::kHelpAll ||
      command == Command::kHelpGst) {
    std::fputs(HelpText(command).c_str(), stdout);
    return 0;
  }
  if (command == Command::kVersion) {
    std::fputs(VersionText(SSIM2_VERSION).c_str(), stdout);
    return 0;
  }
  if (command == Command::kListDevices) {
    std::fputs(DeviceListText(ssim2::ListCudaDevices()).c_str(), stdout);
    return 0;
  }
  if (!options.pairs_path.empty()) return RunPairsMode(options);
  return Run(options);
}

}  // namespace

int main(int argc, char** argv) { return ssim2::cli::FinishStdout(Main(argc, argv)); }
