// Input formats, alpha, Y'CbCr, asynchronous results, caller streams and
// contexts, and error paths of the CUDA engine, against the CPU path.
//
// Usage: test_cuda_formats [--quick] [gtest options]. Exit 77 without a CUDA
// device.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arith.h"
#include "cuda_test_util.h"
#include "pixel_format.h"
#include "yuv_spec.h"

using namespace ssim2;
using cudatest::BitIdentical;
using cudatest::MaxFeatureDiff;
using cudatest::Yuv;
using cudatest::Converted;
using cudatest::MakeYuv;
using cudatest::YuvView;
using cudatest::Convert;

namespace {

int SamplesOf(PixelFormat f) { return FindFormat(f)->channels; }
bool Is16(PixelFormat f) { return FindFormat(f)->bytes_per_sample == 2; }

// A packed image whose samples follow smooth patterns plus noise; `noise`
// perturbs it (the distorted version).
struct Packed {
  PixelFormat format;
  int w, h, stride;
  std::vector<unsigned char> bytes;
  ImageView View() const { return ImageView::Packed(format, w, h, bytes.data(), stride); }
};

Packed MakePacked(PixelFormat f, int w, int h, std::uint32_t seed, int noise) {
  Packed p;
  p.format = f;
  p.w = w;
  p.h = h;
  const int n = SamplesOf(f);
  const int bytes_per = Is16(f) ? 2 : 1;
  p.stride = w * n * bytes_per + 6;  // padded rows
  p.bytes.assign(static_cast<std::size_t>(p.stride) * h, 0xab);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> nz(-noise, noise);
  const int maxv = Is16(f) ? 65535 : 255;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int s = 0; s < n; ++s) {
        double v = 0.5 + 0.45 * std::sin(0.11 * x + 0.7 * s) * std::cos(0.07 * y + s);
        int iv = static_cast<int>(v * maxv) + (noise ? nz(rng) * (maxv / 255) : 0);
        iv = std::min(maxv, std::max(0, iv));
        unsigned char* at = p.bytes.data() + static_cast<std::size_t>(y) * p.stride +
                            (static_cast<std::size_t>(x) * n + s) * bytes_per;
        if (bytes_per == 1) {
          *at = static_cast<unsigned char>(iv);
        } else {
          const std::uint16_t w16 = static_cast<std::uint16_t>(iv);
          std::memcpy(at, &w16, 2);
        }
      }
  return p;
}

Result CpuScore(const ImageView& a, const ImageView& b) {
  ScorerOptions o;
  o.backend = Backend::kCpu;
  o.all_features = true;
  std::unique_ptr<Scorer> s;
  Result r;
  EXPECT_OK(Scorer::Create(a.width, a.height, o, &s));
  if (s) {
    EXPECT_OK(s->Compute(a, b, &r));
  }
  return r;
}

void CompareWithCpu(const char* what, const ImageView& ref, const ImageView& dist,
                    const Result& cpu) {
  cuda::EngineOptions opt;
  opt.all_features = true;
  cuda::Engine e;
  EXPECT_OK(cuda::Engine::Create(ref.width, ref.height, opt, &e));
  if (!e.valid()) return;
  Result g;
  EXPECT_OK(e.Compute(ref, dist, &g));
  std::string where;
  const double fd = MaxFeatureDiff(cpu, g, &where);
  std::printf("   %-34s gpu %.10f cpu %.10f feat %.2e\n", what, g.score, cpu.score, fd);
  EXPECT_TRUE(std::fabs(g.score - cpu.score) <= 1e-9) << cudatest::Format("%s: gpu %.12f cpu %.12f", what, g.score, cpu.score);
  EXPECT_TRUE(fd <= 1e-10) << cudatest::Format("%s: sub-scores: %s", what, where.c_str());
  // Cached reference path gives the same bits as Compute(ref, dist).
  EXPECT_OK(e.SetReference(ref));
  Result c;
  EXPECT_OK(e.Compute(dist, &c));
  EXPECT_TRUE(BitIdentical(c, g)) << cudatest::Format("%s: cached %.17g != compute %.17g", what, c.score, g.score);
}

void PackedTests(int w, int h) {
  std::printf("-- packed formats and alpha %dx%d\n", w, h);
  struct Case {
    PixelFormat ref, dist;
  };
  const Case cases[] = {
      {PixelFormat::kRGB8, PixelFormat::kRGB8},
      {PixelFormat::kRGBA8, PixelFormat::kRGBA8},
      {PixelFormat::kRGB8, PixelFormat::kRGBA8},   // distorted alpha only: bg 0.5
      {PixelFormat::kRGBA8, PixelFormat::kRGB8},
      {PixelFormat::kBGRA8, PixelFormat::kBGRA8},
      {PixelFormat::kRGBX8, PixelFormat::kBGRX8},
      {PixelFormat::kGray8, PixelFormat::kGray8},
      {PixelFormat::kGrayAlpha8, PixelFormat::kGrayAlpha8},
      {PixelFormat::kRGB16, PixelFormat::kRGB16},
      {PixelFormat::kRGBA16, PixelFormat::kRGBA16},
      {PixelFormat::kGray16, PixelFormat::kGray16},
      {PixelFormat::kGrayAlpha16, PixelFormat::kGrayAlpha16},
  };
  std::uint32_t seed = 100;
  for (const Case& c : cases) {
    const Packed r = MakePacked(c.ref, w, h, seed++, 0);
    const Packed d = MakePacked(c.dist, w, h, seed++, 6);
    const std::string name = std::string(PixelFormatName(c.ref)) + " vs " + PixelFormatName(c.dist);
    CompareWithCpu(name.c_str(), r.View(), d.View(), CpuScore(r.View(), d.View()));
    // The same pair from device memory.
    cudatest::DeviceCopy dr(r.bytes.data(), r.bytes.size()), dd(d.bytes.data(), d.bytes.size());
    ImageView vr = r.View(), vd = d.View();
    vr.planes[0] = dr.ptr;
    vr.location = MemoryLocation::kCudaDevice;
    vd.planes[0] = dd.ptr;
    vd.location = MemoryLocation::kCudaDevice;
    cuda::EngineOptions opt;
    opt.all_features = true;
    cuda::Engine e;
    EXPECT_OK(cuda::Engine::Create(w, h, opt, &e));
    if (!e.valid()) continue;
    Result host, dev, cached;
    EXPECT_OK(e.Compute(r.View(), d.View(), &host));
    EXPECT_OK(e.Compute(vr, vd, &dev));
    EXPECT_TRUE(BitIdentical(host, dev)) << cudatest::Format("%s: device %.17g != host %.17g", name.c_str(), dev.score, host.score);
    EXPECT_OK(e.SetReference(vr));
    EXPECT_OK(e.Compute(vd, &cached));
    EXPECT_TRUE(BitIdentical(host, cached)) << cudatest::Format("%s: device cached %.17g != host %.17g", name.c_str(), cached.score, host.score);
    // Pinned host memory (copied to the device directly, no staging).
    void* pr = nullptr;
    void* pd = nullptr;
    if (cudaMallocHost(&pr, r.bytes.size()) == cudaSuccess &&
        cudaMallocHost(&pd, d.bytes.size()) == cudaSuccess) {
      std::memcpy(pr, r.bytes.data(), r.bytes.size());
      std::memcpy(pd, d.bytes.data(), d.bytes.size());
      ImageView pvr = r.View(), pvd = d.View();
      pvr.planes[0] = pr;
      pvd.planes[0] = pd;
      Result pinned, pinned_cached;
      EXPECT_OK(e.Compute(pvr, pvd, &pinned));
      EXPECT_TRUE(BitIdentical(host, pinned)) << cudatest::Format("%s: pinned %.17g != pageable %.17g", name.c_str(), pinned.score, host.score);
      EXPECT_OK(e.SetReference(pvr));
      EXPECT_OK(e.Compute(pvd, &pinned_cached));
      EXPECT_TRUE(BitIdentical(host, pinned_cached)) << cudatest::Format("%s: pinned cached %.17g != %.17g", name.c_str(), pinned_cached.score, host.score);
    } else {
      EXPECT_TRUE(false) << "cudaMallocHost failed";
    }
    cudaFreeHost(pr);
    cudaFreeHost(pd);
  }
}

void YuvTests(int w, int h) {
  std::printf("-- Y'CbCr %dx%d\n", w, h);
  struct Case {
    PixelFormat f;
    YuvMatrix m;
    YuvRange r;
  };
  const Case cases[] = {
      {PixelFormat::kI420, YuvMatrix::kBT709, YuvRange::kLimited},
      {PixelFormat::kI420, YuvMatrix::kBT601, YuvRange::kFull},
      {PixelFormat::kNV12, YuvMatrix::kBT709, YuvRange::kLimited},
      {PixelFormat::kY444, YuvMatrix::kBT2020, YuvRange::kLimited},
      {PixelFormat::kI420_10LE, YuvMatrix::kBT2020, YuvRange::kLimited},
      {PixelFormat::kI420_10LE, YuvMatrix::kBT709, YuvRange::kFull},
      {PixelFormat::kP010_10LE, YuvMatrix::kBT709, YuvRange::kLimited},
  };
  std::uint32_t seed = 500;
  for (const Case& c : cases) {
    YuvColorimetry col;
    col.matrix = c.m;
    col.range = c.r;
    const Yuv r = MakeYuv(c.f, w, h, col, seed++, 0);
    const Yuv d = MakeYuv(c.f, w, h, col, seed++, 5);
    Converted cr, cd;
    Convert(r, &cr);
    Convert(d, &cd);
    const std::string name = std::string(PixelFormatName(c.f)) + " matrix " +
                             std::to_string(static_cast<int>(c.m)) +
                             (c.r == YuvRange::kFull ? " full" : " limited");
    const Result spec = CpuScore(cr.view, cd.view);
    CompareWithCpu(name.c_str(), YuvView(r), YuvView(d), spec);
    // The CPU path's own Y'CbCr input (cpu/convert_yuv.cpp), when it has one.
    {
      ScorerOptions o;
      o.backend = Backend::kCpu;
      o.all_features = true;
      std::unique_ptr<Scorer> cpu;
      Result direct;
      EXPECT_OK(Scorer::Create(w, h, o, &cpu));
      const Status st = cpu ? cpu->Compute(YuvView(r), YuvView(d), &direct)
                            : Status(StatusCode::kInternal, "no CPU scorer");
      if (st.code() == StatusCode::kUnsupportedFormat) {
        std::printf("   (CPU path has no Y'CbCr input in this build: %s)\n", st.message().c_str());
      } else {
        EXPECT_OK(st);
        EXPECT_TRUE(std::fabs(direct.score - spec.score) <= 1e-9 &&
                       MaxFeatureDiff(direct, spec, nullptr) <= 1e-10) << cudatest::Format("%s: CPU path's own Y'CbCr %.12f != spec conversion %.12f", name.c_str(), direct.score, spec.score);
      }
    }
    // Device planes give the same bits.
    cudatest::DeviceCopy r0(r.p0.data(), r.p0.size()), r1(r.p1.data(), r.p1.size()),
        r2(r.p2.data(), r.p2.size()), d0(d.p0.data(), d.p0.size()), d1(d.p1.data(), d.p1.size()),
        d2(d.p2.data(), d.p2.size());
    ImageView vr = YuvView(r), vd = YuvView(d);
    vr.location = vd.location = MemoryLocation::kCudaDevice;
    vr.planes = {r0.ptr, r1.ptr, vr.planes[2] ? r2.ptr : nullptr};
    vd.planes = {d0.ptr, d1.ptr, vd.planes[2] ? d2.ptr : nullptr};
    cuda::EngineOptions opt;
    opt.all_features = true;
    cuda::Engine e;
    EXPECT_OK(cuda::Engine::Create(w, h, opt, &e));
    if (!e.valid()) continue;
    Result host, dev;
    EXPECT_OK(e.Compute(YuvView(r), YuvView(d), &host));
    EXPECT_OK(e.Compute(vr, vd, &dev));
    EXPECT_TRUE(BitIdentical(host, dev)) << cudatest::Format("%s: device %.17g != host %.17g", name.c_str(), dev.score, host.score);
  }
}

// ---------------------------------------------------------------------------

struct CallbackBox {
  Result result;
  int calls = 0;
};
void OnResult(void* user, const Result& r) {
  CallbackBox* box = static_cast<CallbackBox*>(user);
  box->result = r;
  ++box->calls;
}

void ApiTests() {
  std::printf("-- API: async, streams, contexts, errors\n");
  const int w = 97, h = 61;
  const Packed r = MakePacked(PixelFormat::kRGB8, w, h, 1, 0);
  const Packed d = MakePacked(PixelFormat::kRGB8, w, h, 2, 8);
  const Packed d2 = MakePacked(PixelFormat::kRGB8, w, h, 3, 20);
  cuda::Engine e;
  cuda::EngineOptions opt;
  opt.max_batch = 2;
  EXPECT_OK(cuda::Engine::Create(w, h, opt, &e));
  if (!e.valid()) return;
  EXPECT_TRUE(e.memory_bytes() > 0) << "memory_bytes is 0";
  Result sync1, sync2;
  EXPECT_OK(e.Compute(r.View(), d.View(), &sync1));
  EXPECT_OK(e.Compute(r.View(), d2.View(), &sync2));

  // Asynchronous with Wait and with Query; the ticket limit.
  cuda::Engine::Ticket t1 = 0, t2 = 0, t3 = 0;
  EXPECT_OK(e.ComputeAsync(r.View(), d.View(), &t1));
  EXPECT_OK(e.SetReference(r.View()));
  EXPECT_OK(e.ComputeAsync(d2.View(), &t2));
  const Status over = e.ComputeAsync(d2.View(), &t3);
  EXPECT_TRUE(!over.ok()) << "a third outstanding ticket with max_batch 2 was accepted";
  Result a1, a2;
  EXPECT_OK(e.Wait(t1, &a1));
  bool done = false;
  while (!done) EXPECT_OK(e.Query(t2, &done, &a2));
  EXPECT_TRUE(BitIdentical(a1, sync1)) << cudatest::Format("async %.17g != sync %.17g", a1.score, sync1.score);
  EXPECT_TRUE(BitIdentical(a2, sync2)) << cudatest::Format("async cached %.17g != sync %.17g", a2.score, sync2.score);
  EXPECT_TRUE(!e.Wait(t1, nullptr).ok()) << "waiting twice for a ticket succeeded";
  // Callbacks: each releases its ticket, so more than max_batch of them in a
  // row need no Wait (only the stream to reach them).
  CallbackBox box;
  for (int i = 0; i < 5; ++i) {
    cuda::Engine::Ticket t;
    EXPECT_OK(e.ComputeAsync(r.View(), d.View(), &t, OnResult, &box));
    EXPECT_OK(e.Synchronize());
  }
  EXPECT_TRUE(box.calls == 5 && BitIdentical(box.result, sync1)) << cudatest::Format("callback: %d calls, %.17g", box.calls, box.result.score);
  // Wait on a callback ticket blocks until the callback ran.
  cuda::Engine::Ticket tc;
  EXPECT_OK(e.ComputeAsync(r.View(), d2.View(), &tc, OnResult, &box));
  const Status wc = e.Wait(tc, nullptr);
  EXPECT_TRUE(box.calls == 6) << cudatest::Format("Wait returned (%s) before the callback ran", wc.message().c_str());

  // A pair leaves the cached reference alone, also with both in flight at
  // once (the cached pyramid is copied aside and back on the stream).
  EXPECT_OK(e.SetReference(r.View()));
  Result between, after;
  EXPECT_OK(e.Compute(d.View(), d2.View(), &between));
  EXPECT_OK(e.Compute(d.View(), &after));
  EXPECT_TRUE(BitIdentical(after, sync1)) << "cached reference after a pair";
  cuda::Engine::Ticket tp = 0, tq = 0;
  EXPECT_OK(e.ComputeAsync(d.View(), d2.View(), &tp));
  EXPECT_OK(e.ComputeAsync(d2.View(), &tq));
  Result rp, rq;
  EXPECT_OK(e.Wait(tp, &rp));
  EXPECT_OK(e.Wait(tq, &rq));
  EXPECT_TRUE(BitIdentical(rp, between)) << "asynchronous pair";
  EXPECT_TRUE(BitIdentical(rq, sync2)) << "cached reference behind an asynchronous pair";

  // Errors.
  const Packed small = MakePacked(PixelFormat::kRGB8, w - 1, h, 4, 0);
  Result dummy;
  const Status mismatch = e.Compute(r.View(), small.View(), &dummy);
  EXPECT_TRUE(mismatch.code() == StatusCode::kSizeMismatch) << cudatest::Format("size mismatch gives %s", StatusCodeName(mismatch.code()));
  cuda::Engine tiny;
  const Status too_small = cuda::Engine::Create(7, 8, opt, &tiny);
  EXPECT_TRUE(too_small.code() == StatusCode::kImageTooSmall) << cudatest::Format("7x8 gives %s", StatusCodeName(too_small.code()));
  cuda::Engine huge;
  const Status oom = cuda::Engine::Create(200000, 200000, opt, &huge);
  std::printf("   Create(200000x200000): %s: %s\n", StatusCodeName(oom.code()),
              oom.message().c_str());
  EXPECT_TRUE(oom.code() == StatusCode::kOutOfMemory) << cudatest::Format("absurd size gives %s, not out of memory", StatusCodeName(oom.code()));
  EXPECT_TRUE(!huge.valid()) << "engine valid after a failed Create";
  // Still usable afterwards.
  Result again;
  EXPECT_OK(e.Compute(r.View(), d.View(), &again));
  EXPECT_TRUE(BitIdentical(again, sync1)) << cudatest::Format("after OOM %.17g != %.17g", again.score, sync1.score);

  // An engine made with `options` (on `stream`, when given) scores the pair
  // as the first one did.
  auto expect_same_score = [&](const cuda::EngineOptions& options, const char* what,
                               void* stream = nullptr) {
    cuda::Engine other;
    EXPECT_OK(cuda::Engine::Create(w, h, options, &other));
    Result result;
    if (!other.valid()) return;
    if (stream) {
      EXPECT_TRUE(other.stream() == stream) << "engine does not use the stream";
    }
    EXPECT_OK(other.Compute(r.View(), d.View(), &result));
    EXPECT_TRUE(BitIdentical(result, sync1))
        << cudatest::Format("%s %.17g != %.17g", what, result.score, sync1.score);
  };

  // Caller's stream.
  cudaStream_t stream = nullptr;
  EXPECT_TRUE(cudaStreamCreate(&stream) == cudaSuccess) << "cudaStreamCreate";
  {
    cuda::EngineOptions so;
    so.stream = stream;
    expect_same_score(so, "caller stream", static_cast<void*>(stream));
  }
  cudaStreamDestroy(stream);

  // Caller's context (the current one, as a CUcontext).
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaFree(nullptr) == cudaSuccess &&
      cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q) ==
          cudaSuccess &&
      q == cudaDriverEntryPointSuccess) {
    void* ctx = nullptr;
    reinterpret_cast<int (*)(void**)>(fn)(&ctx);
    cuda::EngineOptions co;
    co.context = ctx;
    expect_same_score(co, "caller context");
  } else {
    EXPECT_TRUE(false) << "cuCtxGetCurrent entry point not found";
  }

  // Move semantics.
  cuda::Engine moved = std::move(e);
  EXPECT_TRUE(moved.valid() && !e.valid()) << "move did not transfer the engine";
  Result rm;
  EXPECT_OK(moved.Compute(r.View(), d.View(), &rm));
  EXPECT_TRUE(BitIdentical(rm, sync1)) << cudatest::Format("moved engine %.17g != %.17g", rm.score, sync1.score);

  // The Scorer interface picks the engine.
  ScorerOptions so;
  so.backend = Backend::kCuda;
  std::unique_ptr<Scorer> scorer;
  EXPECT_OK(Scorer::Create(w, h, so, &scorer));
  if (scorer) {
    EXPECT_TRUE(scorer->backend() == Backend::kCuda) << "Scorer backend is not CUDA";
    Result rs;
    EXPECT_OK(scorer->Compute(r.View(), d.View(), &rs));
    EXPECT_TRUE(std::fabs(rs.score - sync1.score) <= 1e-12) << cudatest::Format("Scorer %.17g vs engine %.17g", rs.score, sync1.score);
    std::printf("   %s, %zu bytes\n", scorer->description().c_str(), scorer->memory_bytes());
  }
}

}  // namespace

TEST(GpuFormats, PackedFormatsAndAlpha) {
  SSIM2_REQUIRE_DEVICE();
  PackedTests(67, 45);
  if (!ssim2::testing::QuickRun()) PackedTests(130, 77);
}

TEST(GpuFormats, YCbCr) {
  SSIM2_REQUIRE_DEVICE();
  YuvTests(67, 45);
  if (!ssim2::testing::QuickRun()) YuvTests(321, 183);
}

TEST(GpuFormats, AsyncStreamsContextsAndErrors) {
  SSIM2_REQUIRE_DEVICE();
  ApiTests();
}
