// Frame signatures of CUDA device images (ssim2::FrameSignatureMaker): bit
// for bit the host's, for every pixel format, at odd sizes and at sizes
// smaller than the grid, one at a time and in batches collected in any order;
// no wait for the device before a signature is collected; and the errors of
// the device path.
//
// Usage: test_cuda_signature [--quick] [gtest options]. Exit 77 without a
// CUDA device. Built twice: on the device and on the emulated runtime (CI).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#if defined(SSIM2_EMULATED_RUNTIME)
#include "emulated_runtime.h"
#endif
#include "cuda/kernels.h"
#include "pixel_format.h"
#include "ssim2/alignment.h"

namespace {

using ssim2::FrameSignature;
using ssim2::FrameSignatureMaker;
using ssim2::ImageView;
using ssim2::MemoryLocation;
using ssim2::PixelFormat;
using ssim2::StatusCode;

// One image of random samples, on the host and copied to the device with the
// same strides (each row padded by a few samples, so that strides are not
// row widths).
struct TestImage {
  std::vector<std::vector<std::uint8_t>> host_planes;
  std::vector<cudatest::DeviceCopy> device_planes;
  ImageView host;
  ImageView device;
};

std::unique_ptr<TestImage> MakeImage(PixelFormat format, int width, int height,
                                     std::mt19937* rng) {
  const ssim2::FormatTraits& f = *ssim2::FindFormat(format);
  auto image = std::make_unique<TestImage>();
  std::array<const void*, 3> host{}, device{};
  std::array<std::ptrdiff_t, 3> strides{};
  for (int p = 0; p < f.num_planes; ++p) {
    const std::size_t row = ssim2::PlaneRowBytes(f, width, p);
    const std::size_t stride = row + 3 * f.bytes_per_sample;
    const int rows = ssim2::PlaneRows(f, height, p);
    std::vector<std::uint8_t> bytes(stride * rows);
    if (f.family == ssim2::FormatFamily::kLinearPlanar) {
      // Linear values a little beyond 0..1, as a converter may give.
      std::uniform_real_distribution<float> value(-0.05f, 1.2f);
      for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
        const float v = value(*rng);
        std::memcpy(&bytes[i], &v, 4);
      }
    } else {
      // Every bit random: 10-bit formats get stray bits outside their samples.
      for (auto& b : bytes) b = static_cast<std::uint8_t>((*rng)());
    }
    image->device_planes.emplace_back(bytes.data(), bytes.size());
    EXPECT_NE(image->device_planes.back().ptr, nullptr) << "cudaMalloc failed";
    host[p] = bytes.data();
    device[p] = image->device_planes.back().ptr;
    strides[p] = static_cast<std::ptrdiff_t>(stride);
    image->host_planes.push_back(std::move(bytes));
  }
  for (int p = 0; p < f.num_planes; ++p) host[p] = image->host_planes[p].data();
  image->host = ImageView::Planar(format, width, height, host, strides);
  image->device = ImageView::Planar(format, width, height, device, strides,
                                    MemoryLocation::kCudaDevice);
  return image;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Equal bit for bit: grid, mean, contrast and every cell.
void ExpectSameSignature(const FrameSignature& host, const FrameSignature& device,
                         const std::string& what) {
  ASSERT_FALSE(host.empty()) << what;
  EXPECT_EQ(device.grid_width, host.grid_width) << what;
  EXPECT_EQ(device.grid_height, host.grid_height) << what;
  EXPECT_TRUE(SameBits(device.mean, host.mean))
      << what << ": mean " << device.mean << " vs " << host.mean;
  EXPECT_TRUE(SameBits(device.contrast, host.contrast))
      << what << ": contrast " << device.contrast << " vs " << host.contrast;
  ASSERT_EQ(device.cells.size(), host.cells.size()) << what;
  EXPECT_EQ(std::memcmp(device.cells.data(), host.cells.data(), host.cells.size() * sizeof(float)),
            0)
      << what << ": cells differ";
}

std::unique_ptr<FrameSignatureMaker> NewMaker(int batch = FrameSignatureMaker::Options().batch) {
  FrameSignatureMaker::Options options;
  options.batch = batch;
  std::unique_ptr<FrameSignatureMaker> maker;
  EXPECT_TRUE(FrameSignatureMaker::Create(options, &maker).ok());
  return maker;
}

struct Size {
  int width, height;
};

TEST(DeviceSignature, EqualsHostForEveryFormat) {
  SSIM2_REQUIRE_DEVICE();
  // Odd sizes (cells of unequal widths), 1080p less a pixel, and sizes
  // smaller than the grid in one direction or both (one cell per pixel).
  const Size sizes[] = {{33, 17}, {641, 361}, {1919, 1079}, {17, 33}, {100, 7}, {5, 3}};
  std::mt19937 rng(20);
  std::unique_ptr<FrameSignatureMaker> maker = NewMaker();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const ssim2::FormatTraits& f : ssim2::kPixelFormats) {
    for (const Size& size : sizes) {
      const std::string what = cudatest::Format("%s %dx%d", f.name, size.width, size.height);
      const auto image = MakeImage(f.format, size.width, size.height, &rng);
      FrameSignature host, device, device_default_stream;
      ASSERT_TRUE(ssim2::ComputeFrameSignature(image->host, &host).ok()) << what;
      const ssim2::Status s = maker->Compute(image->device, stream, &device);
      ASSERT_TRUE(s.ok()) << what << ": " << s.message();
      ExpectSameSignature(host, device, what);
      // The one-off call: the current context, the default stream.
      ASSERT_TRUE(ssim2::ComputeFrameSignature(image->device, &device_default_stream).ok()) << what;
      ExpectSameSignature(host, device_default_stream, what + " (ComputeFrameSignature)");
    }
  }
  cudaStreamDestroy(stream);
}

TEST(DeviceSignature, ScratchIsKeptFromFrameToFrame) {
  SSIM2_REQUIRE_DEVICE();
  std::mt19937 rng(7);
  std::unique_ptr<FrameSignatureMaker> maker = NewMaker();
  EXPECT_EQ(maker->device_bytes(), 0u) << "nothing allocated before the first device frame";
  const auto a = MakeImage(PixelFormat::kI420, 640, 360, &rng);
  const auto b = MakeImage(PixelFormat::kI420, 640, 360, &rng);
  FrameSignature sa, sb;
  ASSERT_TRUE(maker->Compute(a->device, nullptr, &sa).ok());
  const std::size_t held = maker->device_bytes();
  EXPECT_GT(held, 0u);
  ASSERT_TRUE(maker->Compute(b->device, nullptr, &sb).ok());
  EXPECT_EQ(maker->device_bytes(), held) << "a second frame of one size allocates nothing";
  const auto small = MakeImage(PixelFormat::kI420, 64, 36, &rng);
  ASSERT_TRUE(maker->Compute(small->device, nullptr, &sb).ok());
  EXPECT_EQ(maker->device_bytes(), held) << "a smaller frame reuses the scratch";
  // Host images through the same maker.
  FrameSignature host;
  ASSERT_TRUE(maker->Compute(a->host, nullptr, &host).ok());
  ExpectSameSignature(host, sa, "I420 640x360 through one maker");
}

TEST(DeviceSignature, MisalignedDeviceImageIsAnError) {
  SSIM2_REQUIRE_DEVICE();
  std::vector<std::uint8_t> bytes(64 * 3 * 2 * 20 + 2, 0);
  cudatest::DeviceCopy plane(bytes.data(), bytes.size());
  ASSERT_NE(plane.ptr, nullptr);
  // 16-bit samples at an odd address.
  const ImageView odd = ImageView::Packed(PixelFormat::kRGB16, 64, 20,
                                          static_cast<const std::uint8_t*>(plane.ptr) + 1,
                                          64 * 3 * 2, MemoryLocation::kCudaDevice);
  std::unique_ptr<FrameSignatureMaker> maker = NewMaker();
  FrameSignature s;
  s.cells.assign(3, 1.0f);
  const ssim2::Status status = maker->Compute(odd, nullptr, &s);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.message();
  EXPECT_NE(status.message().find("multiples of 2 bytes"), std::string::npos) << status.message();
  EXPECT_TRUE(s.empty()) << "a failed call leaves an empty signature";
  FrameSignatureMaker::Ticket t = 7;
  EXPECT_EQ(maker->Enqueue(odd, nullptr, &t).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(t, 0u) << "a refused image gets no ticket";
  EXPECT_EQ(maker->in_flight(), 0u);
}

TEST(DeviceSignature, BatchesEqualHostInAnyOrderOfCollection) {
  SSIM2_REQUIRE_DEVICE();
  // Frames of several formats and sizes in batches of 4 (the last one
  // partial), among them one of more cells than the normalisation keeps in
  // shared memory (2x40000: a grid of 1x6788).
  struct Case {
    PixelFormat format;
    Size size;
  };
  const Case cases[] = {{PixelFormat::kI420, {1919, 1079}}, {PixelFormat::kRGB8, {641, 361}},
                        {PixelFormat::kLinearRGBPlanarF32, {100, 7}}, {PixelFormat::kP010_10LE, {33, 17}},
                        {PixelFormat::kGray8, {2, 40000}},      {PixelFormat::kNV12, {640, 360}},
                        {PixelFormat::kRGBA16, {17, 33}},       {PixelFormat::kI420, {1920, 1080}},
                        {PixelFormat::kBGRX8, {5, 3}},          {PixelFormat::kY444, {64, 36}}};
  constexpr std::size_t kFrames = sizeof cases / sizeof *cases;
  std::mt19937 rng(11);
  std::vector<std::unique_ptr<TestImage>> images;
  for (const Case& c : cases) images.push_back(MakeImage(c.format, c.size.width, c.size.height, &rng));
  std::unique_ptr<FrameSignatureMaker> maker = NewMaker(4);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  std::vector<FrameSignatureMaker::Ticket> tickets;
  for (const auto& image : images) {
    FrameSignatureMaker::Ticket t = 0;
    const ssim2::Status s = maker->Enqueue(image->device, stream, &t);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_NE(t, 0u);
    tickets.push_back(t);
  }
  EXPECT_EQ(maker->in_flight(), kFrames);
  EXPECT_FALSE(maker->Ready(tickets.back())) << "the last batch is still open";
  // Newest first: the open batch is launched by its first collection.
  for (std::size_t k = kFrames; k-- > 0;) {
    const std::string what = cudatest::Format("%s %dx%d", ssim2::PixelFormatName(cases[k].format),
                                              cases[k].size.width, cases[k].size.height);
    FrameSignature host, device;
    ASSERT_TRUE(ssim2::ComputeFrameSignature(images[k]->host, &host).ok()) << what;
    const ssim2::Status s = maker->Collect(tickets[k], &device);
    ASSERT_TRUE(s.ok()) << what << ": " << s.message();
    ExpectSameSignature(host, device, what);
  }
  EXPECT_EQ(maker->in_flight(), 0u);
  FrameSignature again;
  const ssim2::Status twice = maker->Collect(tickets[0], &again);
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument) << "a ticket is spent once collected";
  EXPECT_NE(twice.message().find("not in flight"), std::string::npos) << twice.message();
  cudaStreamDestroy(stream);
}

// A batch is one kernel for up to kSignatureFramesPerLaunch frames: their
// blocks sum the cell rows and each frame's last block normalises it. Every
// format at odd sizes (cells of unequal widths and heights, grids of
// different heights in one launch, so that blocks beyond a frame's rows have
// nothing to do), in one batch of the largest size: several launches, the
// counters each leaves behind reused by the next.
TEST(DeviceSignature, OneBatchOfEveryFormatAtOddSizes) {
  SSIM2_REQUIRE_DEVICE();
  const Size sizes[] = {{641, 361}, {33, 17}, {17, 33}};
  std::mt19937 rng(23);
  std::vector<std::unique_ptr<TestImage>> images;
  std::vector<std::string> names;
  for (const ssim2::FormatTraits& f : ssim2::kPixelFormats) {
    for (const Size& size : sizes) {
      images.push_back(MakeImage(f.format, size.width, size.height, &rng));
      names.push_back(cudatest::Format("%s %dx%d", f.name, size.width, size.height));
    }
  }
  ASSERT_LE(images.size(), 64u);
  ASSERT_GT(images.size(), 2u * ssim2::cuda::kSignatureFramesPerLaunch)
      << "more frames than two launches hold";
  std::unique_ptr<FrameSignatureMaker> maker = NewMaker(64);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (int round = 0; round < 2; ++round) {
#if defined(SSIM2_EMULATED_RUNTIME)
    const emu::Counts before = emu::GetCounts();
#endif
    std::vector<FrameSignatureMaker::Ticket> tickets;
    for (const auto& image : images) {
      FrameSignatureMaker::Ticket t = 0;
      ASSERT_TRUE(maker->Enqueue(image->device, stream, &t).ok());
      tickets.push_back(t);
    }
    ASSERT_TRUE(maker->Flush().ok());
#if defined(SSIM2_EMULATED_RUNTIME)
    const std::size_t per_launch = ssim2::cuda::kSignatureFramesPerLaunch;
    EXPECT_EQ(emu::GetCounts().signature_launches - before.signature_launches,
              (images.size() + per_launch - 1) / per_launch);
#endif
    for (std::size_t i = 0; i < images.size(); ++i) {
      const std::string what = names[i] + cudatest::Format(", round %d", round);
      FrameSignature host, device;
      ASSERT_TRUE(ssim2::ComputeFrameSignature(images[i]->host, &host).ok()) << what;
      const ssim2::Status s = maker->Collect(tickets[i], &device);
      ASSERT_TRUE(s.ok()) << what << ": " << s.message();
      ExpectSameSignature(host, device, what);
    }
  }
  cudaStreamDestroy(stream);
}

TEST(DeviceSignature, FlushLaunchesThePartialBatch) {
  SSIM2_REQUIRE_DEVICE();
  std::mt19937 rng(5);
  const auto image = MakeImage(PixelFormat::kI420, 320, 180, &rng);
  std::unique_ptr<FrameSignatureMaker> maker = NewMaker(8);
  FrameSignatureMaker::Ticket t = 0;
  ASSERT_TRUE(maker->Enqueue(image->device, nullptr, &t).ok());
  EXPECT_FALSE(maker->Ready(t)) << "one frame of 8: its batch waits for more";
  ASSERT_TRUE(maker->Flush().ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(maker->Ready(t)) << "launched by Flush() and finished";
  FrameSignature host, device;
  ASSERT_TRUE(ssim2::ComputeFrameSignature(image->host, &host).ok());
  ASSERT_TRUE(maker->Collect(t, &device).ok());
  ExpectSameSignature(host, device, "I420 320x180 after Flush()");
  // Host images take tickets too, ready at once.
  ASSERT_TRUE(maker->Enqueue(image->host, nullptr, &t).ok());
  EXPECT_TRUE(maker->Ready(t));
  ASSERT_TRUE(maker->Collect(t, &device).ok());
  ExpectSameSignature(host, device, "I420 320x180 host image through Enqueue()");
}

TEST(DeviceSignature, BatchOutOfRangeIsRefused) {
  for (int batch : {0, 65}) {
    FrameSignatureMaker::Options options;
    options.batch = batch;
    std::unique_ptr<FrameSignatureMaker> maker;
    const ssim2::Status s = FrameSignatureMaker::Create(options, &maker);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << batch;
    EXPECT_NE(s.message().find("1..64"), std::string::npos) << s.message();
    EXPECT_FALSE(maker);
  }
}

#if defined(SSIM2_EMULATED_RUNTIME)
// The point of batches: enqueuing frames waits for nothing, and each batch
// is one launch however many frames it holds; collecting waits at most
// once per batch. (Counts of the emulated runtime; the device benchmark
// measures what that saves.)
TEST(DeviceSignature, EnqueueNeverWaitsAndBatchesShareLaunches) {
  std::mt19937 rng(9);
  constexpr int kBatch = 4;
  std::vector<std::unique_ptr<TestImage>> images;
  for (int i = 0; i < 3 * kBatch + 1; ++i) {
    images.push_back(MakeImage(PixelFormat::kNV12, 160, 90, &rng));
  }
  std::unique_ptr<FrameSignatureMaker> maker = NewMaker(kBatch);
  // A first full batch allocates the scratch (growing it waits for the
  // batches in flight); later batches of that size reuse it.
  std::vector<FrameSignatureMaker::Ticket> warm(kBatch);
  for (int i = 0; i < kBatch; ++i) {
    ASSERT_TRUE(maker->Enqueue(images[i]->device, nullptr, &warm[i]).ok());
  }
  for (FrameSignatureMaker::Ticket t : warm) {
    FrameSignature s;
    ASSERT_TRUE(maker->Collect(t, &s).ok());
  }
  const emu::Counts before = emu::GetCounts();
  std::vector<FrameSignatureMaker::Ticket> tickets;
  for (const auto& image : images) {
    FrameSignatureMaker::Ticket t = 0;
    ASSERT_TRUE(maker->Enqueue(image->device, nullptr, &t).ok());
    tickets.push_back(t);
  }
  const emu::Counts enqueued = emu::GetCounts();
  EXPECT_EQ(enqueued.waits, before.waits) << "Enqueue() waited for the device";
  EXPECT_EQ(enqueued.signature_launches - before.signature_launches, 3u)
      << "three full batches, one launch each; the 13th frame's batch is open";
  for (std::size_t i = 0; i < tickets.size(); ++i) {
    FrameSignature host, device;
    ASSERT_TRUE(ssim2::ComputeFrameSignature(images[i]->host, &host).ok());
    ASSERT_TRUE(maker->Collect(tickets[i], &device).ok());
    ExpectSameSignature(host, device, "NV12 160x90, frame " + std::to_string(i));
  }
  const emu::Counts collected = emu::GetCounts();
  EXPECT_EQ(collected.signature_launches - before.signature_launches, 4u);
  EXPECT_LE(collected.waits - before.waits, 4u) << "at most one wait per batch";
}

// A stream handle that is not a stream: the emulated runtime refuses it as
// the driver does (on a device, a destroyed stream is undefined behaviour,
// so this runs only here).
TEST(DeviceSignature, BadStreamIsAnError) {
  std::mt19937 rng(3);
  const auto image = MakeImage(PixelFormat::kNV12, 64, 36, &rng);
  std::unique_ptr<FrameSignatureMaker> maker = NewMaker();
  int not_a_stream = 0;
  FrameSignature s;
  const ssim2::Status status = maker->Compute(image->device, &not_a_stream, &s);
  EXPECT_EQ(status.code(), StatusCode::kCudaError) << status.message();
  EXPECT_NE(status.message().find("cudaErrorInvalidResourceHandle"), std::string::npos)
      << status.message();
  EXPECT_TRUE(s.empty());
  // The maker still works afterwards.
  FrameSignature host;
  ASSERT_TRUE(maker->Compute(image->device, nullptr, &s).ok());
  ASSERT_TRUE(ssim2::ComputeFrameSignature(image->host, &host).ok());
  ExpectSameSignature(host, s, "NV12 64x36 after a bad stream");
}
#endif

}  // namespace
