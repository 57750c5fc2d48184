// Y'CbCr to RGB conversion of the CPU path (core/src/cpu/convert_yuv.cpp).
//
// 1. The test clip (testdata/video, BT.709 limited, I420) decoded with
//    GStreamer (matroskademux ! avdec_h264) and converted with YuvToRgb8 must
//    reproduce the rgb24 frames behind testdata/video_rgb_md5.csv. Those were
//    made by zimg (zscale filter=point), which computes in float: the testdata
//    README says the plain formula differs from them in 4 samples of the
//    distorted clip, by one. The test counts the differing samples of every
//    frame: when a frame's MD5 differs, it applies the known off-by-one
//    samples listed below and checks that the MD5 then matches, so the count
//    is exact (not a bound). Expected: 0 in all reference frames; 2 + 1 + 1 in
//    distorted frames 8, 24 and 28, 0 elsewhere.
// 2. Synthetic frames: layouts (I420/NV12/Y444, I420_10LE/P010) agree, known
//    colours land where the equations say, 10-bit keeps its precision, and
//    YuvToLinearRgb is the sRGB table applied to YuvToRgb8.
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cpu/convert.h"
#include "cpu/convert_yuv.h"
#include "cpu/planes.h"
#include "../testdata.h"
#include "ssim2/ssim2.h"

using namespace ssim2;

namespace {

std::string TestdataDir() { return ssim2::testing::TestDataDir(); }

// Samples where zimg's float arithmetic rounds the other way than the double
// formula (found once by flipping near-tie samples until the MD5 matched).
struct KnownDiff {
  int frame, x, y, channel, zimg_minus_ours;
};
const KnownDiff kDistortedDiffs[] = {
    {8, 455, 601, 1, -1},
    {8, 451, 601, 1, -1},
    {24, 390, 569, 1, -1},
    {28, 374, 561, 1, -1},
};

std::string Md5(const std::vector<std::uint8_t>& data) {
  gchar* s = g_compute_checksum_for_data(G_CHECKSUM_MD5, data.data(), data.size());
  std::string r(s);
  g_free(s);
  return r;
}

// A view of the three planes of a mapped frame of a planar Y'CbCr format.
ImageView ThreePlaneView(PixelFormat format, const GstVideoFrame& vf) {
  return ImageView::Planar(
      format, GST_VIDEO_FRAME_WIDTH(&vf), GST_VIDEO_FRAME_HEIGHT(&vf),
      {GST_VIDEO_FRAME_PLANE_DATA(&vf, 0), GST_VIDEO_FRAME_PLANE_DATA(&vf, 1),
       GST_VIDEO_FRAME_PLANE_DATA(&vf, 2)},
      {GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 0), GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 1),
       GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 2)});
}

// Decodes a clip to frames of `format`; returns false when the decoder is
// missing.
bool DecodeClip(const std::string& path, std::vector<GstSample*>* frames,
                const char* decoder = "avdec_h264", const char* format = "I420") {
  GError* err = nullptr;
  std::string desc = "filesrc location=\"" + path + "\" ! matroskademux ! " + decoder +
                     " ! video/x-raw,format=" + format + " ! appsink name=s sync=false";
  GstElement* pipe = gst_parse_launch(desc.c_str(), &err);
  if (!pipe) {
    g_printerr("cannot build '%s': %s\n", desc.c_str(), err ? err->message : "?");
    g_clear_error(&err);
    return false;
  }
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipe), "s");
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  while (GstSample* s = gst_app_sink_pull_sample(GST_APP_SINK(sink))) frames->push_back(s);
  GstBus* bus = gst_element_get_bus(pipe);
  GstMessage* msg = gst_bus_timed_pop_filtered(bus, 0, GST_MESSAGE_ERROR);
  if (msg) {
    gst_message_unref(msg);
    g_printerr("decoding %s failed\n", path.c_str());
  }
  gst_object_unref(bus);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipe);
  return !frames->empty();
}

std::vector<std::vector<std::string>> ReadMd5s() {
  std::ifstream csv(TestdataDir() + "/video_rgb_md5.csv");
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(csv, line);
  while (std::getline(csv, line)) {
    const auto a = line.find(','), b = line.rfind(',');
    rows.push_back({line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return rows;
}

}  // namespace

TEST(Yuv, TestClipMatchesTheReferenceMd5s) {
  gst_init(nullptr, nullptr);
  if (!gst_element_factory_find("avdec_h264") || !gst_element_factory_find("matroskademux")) {
    GTEST_SKIP() << "avdec_h264 (gstreamer1.0-libav) or matroskademux (gstreamer1.0-plugins-good) missing";
  }
  const auto md5 = ReadMd5s();
  ASSERT_EQ(md5.size(), 30u);
  const char* clips[2] = {"reference", "distorted"};
  int totals[2] = {0, 0};
  for (int clip = 0; clip < 2; ++clip) {
    std::vector<GstSample*> frames;
    ASSERT_TRUE(DecodeClip(TestdataDir() + "/video/" + clips[clip] + ".mkv", &frames));
    ASSERT_EQ(frames.size(), 30u);
    for (int n = 0; n < 30; ++n) {
      GstVideoInfo info;
      ASSERT_TRUE(gst_video_info_from_caps(&info, gst_sample_get_caps(frames[n])));
      // The clip signals BT.709 limited range.
      EXPECT_EQ(info.colorimetry.matrix, GST_VIDEO_COLOR_MATRIX_BT709);
      EXPECT_EQ(info.colorimetry.range, GST_VIDEO_COLOR_RANGE_16_235);
      GstVideoFrame vf;
      ASSERT_TRUE(gst_video_frame_map(&vf, &info, gst_sample_get_buffer(frames[n]), GST_MAP_READ));
      const int w = info.width, h = info.height;
      ImageView view = ThreePlaneView(PixelFormat::kI420, vf);
      view.yuv.matrix = YuvMatrix::kBT709;
      view.yuv.range = YuvRange::kLimited;
      std::vector<std::uint8_t> rgb(static_cast<size_t>(w) * h * 3);
      Status s = cpu::YuvToRgb8(view, rgb.data(), w * 3);
      EXPECT_TRUE(s.ok());

      // The linear planes are the sRGB table of these bytes (first frame).
      if (n == 0) {
        cpu::Image3 lin;
        lin.Resize(w, h);
        EXPECT_TRUE(cpu::YuvToLinearRgb(view, &lin, nullptr).ok());
        const float* table = cpu::Srgb8ToLinearTable();
        for (int y = 0; y < h; y += 7)
          for (int x = 0; x < w; x += 3)
            for (int c = 0; c < 3; ++c)
              EXPECT_EQ(lin.plane[c].Row(y)[x], table[rgb[(y * w + x) * 3 + c]]);
      }
      gst_video_frame_unmap(&vf);

      int differing = 0;
      if (Md5(rgb) != md5[n][clip]) {
        if (clip == 1) {
          for (const KnownDiff& d : kDistortedDiffs) {
            if (d.frame != n) continue;
            rgb[(static_cast<size_t>(d.y) * w + d.x) * 3 + d.channel] += d.zimg_minus_ours;
            ++differing;
          }
        }
        if (Md5(rgb) != md5[n][clip]) {
          FAIL() << clips[clip] << " frame " << n
                 << " differs from the MD5 frame in unknown samples";
        }
      }
      if (differing) g_print("%s frame %2d: %d samples differ by one\n", clips[clip], n, differing);
      totals[clip] += differing;
      gst_sample_unref(frames[n]);
    }
    g_print("%s: %d differing samples in 30 frames (%d x %d x 3 samples each)\n", clips[clip],
            totals[clip], 1280, 720);
  }
  EXPECT_EQ(totals[0], 0);
  EXPECT_EQ(totals[1], 4);
}

// The HDR clips (tests/data/hdr/video, HEVC Main10): decoded by GStreamer
// (avdec_h265, I420_10LE), their 16-bit R'G'B' is the frames whose MD5s
// video_scores.csv lists, and each pair of frames, described as the caps say
// (colorimetry bt2100-pq with content-light-level, bt2100-hlg), scores on the
// CPU path with the digits the HDR reference printed for those frames.
TEST(Yuv, HdrClipsGiveTheReferenceFramesAndScores) {
  gst_init(nullptr, nullptr);
  if (!gst_element_factory_find("avdec_h265") || !gst_element_factory_find("matroskademux")) {
    GTEST_SKIP() << "avdec_h265 (gstreamer1.0-libav) or matroskademux (gstreamer1.0-plugins-good) missing";
  }
  const auto rows = ssim2::testing::ReadCsvFile(ssim2::testing::HdrTestDataPath("video_scores.csv"));
  ASSERT_EQ(rows.size(), 20u);
  int same_md5 = 0, same_score = 0;
  for (const std::string clip : {"hdr10", "hlg"}) {
    std::vector<GstSample*> frames[2];
    std::vector<ImageView> views[2];
    std::vector<GstVideoFrame> mapped[2];
    for (int i = 0; i < 2; ++i) {
      const std::string path = ssim2::testing::HdrTestDataPath(
          "video/" + clip + (i == 0 ? "-reference.mkv" : "-distorted.mkv"));
      ASSERT_TRUE(DecodeClip(path, &frames[i], "avdec_h265", "I420_10LE")) << path;
      ASSERT_EQ(frames[i].size(), 10u) << path;
      mapped[i].resize(10);
      for (int n = 0; n < 10; ++n) {
        GstCaps* caps = gst_sample_get_caps(frames[i][n]);
        GstVideoInfo info;
        ASSERT_TRUE(gst_video_info_from_caps(&info, caps));
        EXPECT_EQ(info.colorimetry.matrix, GST_VIDEO_COLOR_MATRIX_BT2020);
        EXPECT_EQ(info.colorimetry.range, GST_VIDEO_COLOR_RANGE_16_235);
        EXPECT_EQ(info.colorimetry.primaries, GST_VIDEO_COLOR_PRIMARIES_BT2020);
        EXPECT_EQ(info.colorimetry.transfer, clip == "hdr10" ? GST_VIDEO_TRANSFER_SMPTE2084
                                                             : GST_VIDEO_TRANSFER_ARIB_STD_B67);
        ASSERT_TRUE(gst_video_frame_map(&mapped[i][n], &info, gst_sample_get_buffer(frames[i][n]),
                                        GST_MAP_READ));
        GstVideoFrame& vf = mapped[i][n];
        ImageView view = ThreePlaneView(PixelFormat::kI420_10LE, vf);
        view.yuv.matrix = YuvMatrix::kBT2020;
        view.yuv.range = YuvRange::kLimited;
        view.color.primaries = Primaries::kBT2020;
        view.color.transfer = clip == "hdr10" ? Transfer::kPq : Transfer::kHlg;
        GstVideoContentLightLevel cll;
        if (gst_video_content_light_level_from_caps(&cll, caps)) {
          view.color.max_cll = MaxCllFromClli(cll.max_content_light_level * 10000u);
        }
        EXPECT_EQ(view.color.max_cll, clip == "hdr10" ? 1569.0f : 0.0f);
        // The 16-bit R'G'B' against the MD5 of the exported frame.
        std::vector<std::uint16_t> rgb(static_cast<size_t>(info.width) * info.height * 3);
        ASSERT_TRUE(cpu::YuvToRgb16(view, rgb.data(), info.width * 3).ok());
        std::vector<std::uint8_t> be(rgb.size() * 2);
        for (size_t k = 0; k < rgb.size(); ++k) {
          be[2 * k] = static_cast<std::uint8_t>(rgb[k] >> 8);
          be[2 * k + 1] = static_cast<std::uint8_t>(rgb[k] & 0xff);
        }
        const auto& row = rows[(clip == "hdr10" ? 0 : 10) + n];
        ASSERT_EQ(row[0], clip);
        EXPECT_EQ(Md5(be), row[3 + i]) << clip << " " << (i ? "distorted" : "reference")
                                       << " frame " << n;
        same_md5 += Md5(be) == row[3 + i];
        views[i].push_back(view);
      }
    }
    ScorerOptions options;
    options.backend = Backend::kCpu;
    for (int n = 0; n < 10; ++n) {
      Result r;
      ASSERT_TRUE(ComputeSsimulacra2(views[0][n], views[1][n], options, &r).ok());
      char printed[64];
      std::snprintf(printed, sizeof printed, "%.8f", r.score);
      const auto& row = rows[(clip == "hdr10" ? 0 : 10) + n];
      EXPECT_EQ(printed, row[2]) << clip << " frame " << n;
      same_score += row[2] == printed;
    }
    for (int i = 0; i < 2; ++i) {
      for (int n = 0; n < 10; ++n) {
        gst_video_frame_unmap(&mapped[i][n]);
        gst_sample_unref(frames[i][n]);
      }
    }
  }
  g_print("HDR clips: %d of 40 frames equal the exported frames, %d of 20 scores print the "
          "reference's digits\n", same_md5, same_score);
}

// A synthetic 4:2:0 frame stored as I420, NV12, Y444 and their 10-bit forms.
struct Synth {
  int w = 18, h = 10;  // even size; odd chroma edge covered by w/2 = 9
  std::vector<std::uint8_t> y, u, v;  // 8-bit planes, chroma (w/2)x(h/2)
  Synth() {
    y.resize(w * h);
    u.resize((w / 2) * (h / 2));
    v.resize(u.size());
    for (int i = 0; i < w * h; ++i) y[i] = static_cast<std::uint8_t>(16 + (i * 37) % 220);
    for (size_t i = 0; i < u.size(); ++i) {
      u[i] = static_cast<std::uint8_t>(16 + (i * 53) % 225);
      v[i] = static_cast<std::uint8_t>(16 + (i * 71 + 9) % 225);
    }
  }
};

std::vector<float> ToFloat(const ImageView& v) {
  std::vector<float> out(static_cast<size_t>(v.width) * v.height * 3);
  Status s = cpu::YuvToRgbFloat(v, out.data(), v.width * 3);
  EXPECT_TRUE(s.ok());
  return out;
}

TEST(Yuv, LayoutsAgree) {
  Synth s;
  const int cw = s.w / 2, ch = s.h / 2;
  ImageView i420 = ImageView::Planar(PixelFormat::kI420, s.w, s.h,
                                     {s.y.data(), s.u.data(), s.v.data()}, {s.w, cw, cw});
  std::vector<std::uint8_t> uv(cw * 2 * ch);
  for (int i = 0; i < cw * ch; ++i) {
    uv[2 * i] = s.u[i];
    uv[2 * i + 1] = s.v[i];
  }
  ImageView nv12 = ImageView::Planar(PixelFormat::kNV12, s.w, s.h,
                                     {s.y.data(), uv.data(), nullptr}, {s.w, cw * 2, 0});
  std::vector<std::uint8_t> u444(s.w * s.h), v444(s.w * s.h);
  for (int y = 0; y < s.h; ++y)
    for (int x = 0; x < s.w; ++x) {
      u444[y * s.w + x] = s.u[(y / 2) * cw + x / 2];
      v444[y * s.w + x] = s.v[(y / 2) * cw + x / 2];
    }
  ImageView y444 = ImageView::Planar(PixelFormat::kY444, s.w, s.h,
                                     {s.y.data(), u444.data(), v444.data()}, {s.w, s.w, s.w});
  const auto a = ToFloat(i420);
  EXPECT_TRUE(a == ToFloat(nv12));
  EXPECT_TRUE(a == ToFloat(y444));

  // 10-bit: the same samples times 4 (exactly the same normalised values in
  // limited range: (4Y - 64) / 876 = (Y - 16) / 219).
  std::vector<std::uint16_t> y10(s.w * s.h), u10(cw * ch), v10(cw * ch), uv10(cw * 2 * ch),
      y010(s.w * s.h);
  for (int i = 0; i < s.w * s.h; ++i) {
    y10[i] = static_cast<std::uint16_t>(s.y[i] * 4 + 0xfc00);  // high junk bits are ignored
    y010[i] = static_cast<std::uint16_t>((s.y[i] * 4) << 6 | 0x15);  // low junk bits ignored
  }
  for (int i = 0; i < cw * ch; ++i) {
    u10[i] = static_cast<std::uint16_t>(s.u[i] * 4);
    v10[i] = static_cast<std::uint16_t>(s.v[i] * 4);
    uv10[2 * i] = static_cast<std::uint16_t>((s.u[i] * 4) << 6);
    uv10[2 * i + 1] = static_cast<std::uint16_t>((s.v[i] * 4) << 6);
  }
  ImageView i010 = ImageView::Planar(PixelFormat::kI420_10LE, s.w, s.h,
                                     {y10.data(), u10.data(), v10.data()},
                                     {s.w * 2, cw * 2, cw * 2});
  ImageView p010 = ImageView::Planar(PixelFormat::kP010_10LE, s.w, s.h,
                                     {y010.data(), uv10.data(), nullptr}, {s.w * 2, cw * 4, 0});
  const auto b = ToFloat(i010);
  EXPECT_TRUE(b == ToFloat(p010));
  // 10-bit keeps precision: the values are the unrounded ones, so they are
  // within half an 8-bit step of the 8-bit result, and not all multiples of 1/255.
  int off_grid = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_LE(std::fabs(a[i] - b[i]), 0.5f / 255.0f + 1e-6f);
    if (std::fabs(b[i] * 255.0f - std::round(b[i] * 255.0f)) > 1e-3f) ++off_grid;
  }
  EXPECT_GT(off_grid, 0);
}

void Pixel(PixelFormat f, YuvMatrix m, YuvRange r, int Y, int U, int V, float out[3]) {
  std::vector<std::uint8_t> y(64, Y), u(16, U), v(16, V);
  std::vector<std::uint16_t> y16(64, Y), u16(16, U), v16(16, V);
  const bool ten = f == PixelFormat::kI420_10LE;
  ImageView im = ten ? ImageView::Planar(f, 8, 8, {y16.data(), u16.data(), v16.data()}, {16, 8, 8})
                     : ImageView::Planar(f, 8, 8, {y.data(), u.data(), v.data()}, {8, 4, 4});
  im.yuv.matrix = m;
  im.yuv.range = r;
  const auto px = ToFloat(im);
  for (int c = 0; c < 3; ++c) out[c] = px[c];
}

TEST(Yuv, KnownColoursLandWhereTheEquationsSay) {
  float p[3];
  // Limited-range white and black, any matrix.
  Pixel(PixelFormat::kI420, YuvMatrix::kBT709, YuvRange::kLimited, 235, 128, 128, p);
  EXPECT_TRUE(p[0] == 1.0f && p[1] == 1.0f && p[2] == 1.0f);
  Pixel(PixelFormat::kI420, YuvMatrix::kBT601, YuvRange::kLimited, 16, 128, 128, p);
  EXPECT_TRUE(p[0] == 0.0f && p[1] == 0.0f && p[2] == 0.0f);
  // Full range: Y is Y/255.
  Pixel(PixelFormat::kI420, YuvMatrix::kBT709, YuvRange::kFull, 200, 128, 128, p);
  EXPECT_TRUE(p[0] == 200 / 255.0f && p[1] == 200 / 255.0f && p[2] == 200 / 255.0f);
  // BT.601 red, rounded to integers (Y 81, Cb 90, Cr 240): R' = 65/219 + 1.402 / 2
  // = 0.99780 -> 254; G' and B' slightly negative -> 0.
  Pixel(PixelFormat::kI420, YuvMatrix::kBT601, YuvRange::kLimited, 81, 90, 240, p);
  EXPECT_EQ(p[0], 254.0f / 255.0f);
  EXPECT_EQ(p[1], 0.0f);
  EXPECT_EQ(p[2], 0.0f);
  // BT.709 with the README's rounded coefficients (1.5748, 0.187324,
  // 0.468124, 1.8556) as an independent check: same 8-bit result.
  for (int Y : {20, 33, 126, 200}) {
    for (int U : {16, 100, 128, 240}) {
      for (int V : {16, 118, 200, 240}) {
        Pixel(PixelFormat::kI420, YuvMatrix::kBT709, YuvRange::kLimited, Y, U, V, p);
        const double yn = (Y - 16) / 219.0, cb = (U - 128) / 224.0, cr = (V - 128) / 224.0;
        const double rgb[3] = {yn + 1.5748 * cr, yn - 0.187324 * cb - 0.468124 * cr,
                               yn + 1.8556 * cb};
        for (int c = 0; c < 3; ++c) {
          const double q = std::fmin(255.0, std::fmax(0.0, std::floor(255.0 * rgb[c] + 0.5)));
          EXPECT_EQ(p[c], static_cast<float>(q) / 255.0f);
        }
      }
    }
  }
  // BT.2020 green, 10-bit limited: Kr .2627, Kb .0593 -> R = Y + 1.4746 Cr.
  Pixel(PixelFormat::kI420_10LE, YuvMatrix::kBT2020, YuvRange::kLimited, 502, 512, 600, p);
  const double yn = (502 - 64) / 876.0, cr = (600 - 512) / 896.0;
  EXPECT_EQ(p[0], static_cast<float>(yn + 2 * (1 - 0.2627) * cr));
  EXPECT_EQ(p[2], static_cast<float>(yn));
  // 10-bit values outside [0, 1] are clamped.
  Pixel(PixelFormat::kI420_10LE, YuvMatrix::kBT709, YuvRange::kLimited, 1019, 512, 512, p);
  EXPECT_EQ(p[0], 1.0f);
  Pixel(PixelFormat::kI420_10LE, YuvMatrix::kBT709, YuvRange::kFull, 4, 512, 512, p);
  EXPECT_EQ(p[1], static_cast<float>(4 / 1023.0));
}

