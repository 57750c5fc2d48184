// What each engine call enqueues. A pass (S scales) is S prepare launches
// (scale 0 from the input, then the smaller scales, each also writing the
// next scale's linear RGB), one horizontal and one vertical launch covering
// all scales, and one reduction: S + 3 launches, plus one copy of 864 bytes
// to the host. A reference with alpha takes two passes per pair (alpha_rule.h).
#include "cuda/passes.h"

#include <string>

#include "alpha_rule.h"
#include "cuda/engine_impl.h"
#include "image_checks.h"
#include "pixel_format.h"

namespace ssim2 {
namespace cuda {

Status LaunchPass(const PassLaunches& pass, cudaStream_t stream) {
  for (int s = 0; s < pass.num_scales; ++s) {
    SSIM2_CUDA_CHECK(LaunchPrepare(pass.prepare[s], stream));
  }
  for (int i = 0; i < pass.num_groups; ++i) {
    const PassLaunches::Group& g = pass.groups[i];
    SSIM2_CUDA_CHECK(LaunchHBlur(g.h_jobs, g.h_count, g.h_blocks, pass.blur, stream));
    SSIM2_CUDA_CHECK(
        LaunchVBlur(g.v_jobs, g.v_count, g.v_blocks, pass.blur, g.partials, stream));
  }
  if (pass.seq) {
    SSIM2_CUDA_CHECK(LaunchSequentialSums(*pass.seq, pass.sums, stream));
  } else if (pass.reduce) {
    SSIM2_CUDA_CHECK(LaunchReduce(*pass.reduce, pass.partials, pass.sums, stream));
  }
  return Status::Ok();
}

Status Engine::Impl::CheckAgainstReference(const ImageView* distorted, std::size_t count) const {
  if (!has_reference) {
    return Status(StatusCode::kInvalidArgument, "no reference set: call SetReference first");
  }
  for (std::size_t i = 0; i < count; ++i) SSIM2_RETURN_IF_ERROR(CheckImage(distorted[i]));
  return Status::Ok();
}

Status Engine::Impl::CheckImage(const ImageView& v) const {
  SSIM2_RETURN_IF_ERROR(ValidateImage(v));
  SSIM2_RETURN_IF_ERROR(ValidateSize(v, width, height));
  if (v.location == MemoryLocation::kCudaDevice) SSIM2_RETURN_IF_ERROR(CheckDeviceImage(v));
  return Status::Ok();
}

// For kCached / kFull the pass's sums land in result slot `result_slot`
// (device) and are copied to the pinned results.
Status Engine::Impl::EnqueuePass(PassMode mode, const InputDesc* ref, const InputDesc* dist,
                                 float background, int result_slot) {
  const PassLaunches pass = PlanPass(layout, tables[slot], base(), cache_base[slot], mode, ref,
                                     dist, background, result_slot);
  SSIM2_RETURN_IF_ERROR(LaunchPass(pass, stream()));
  if (mode == PassMode::kRef) return Status::Ok();
  double* host = reinterpret_cast<double*>(res->results.get()) +
                 static_cast<std::size_t>(result_slot) * kSumsPerResult;
  SSIM2_CUDA_CHECK(cudaMemcpyAsync(host, pass.sums, kSumsPerResult * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream()));
  return Status::Ok();
}

Status Engine::Impl::SetReference(const ImageView& ref) {
  has_reference = false;
  if (layout.is_lane() || layout.is_preparer()) {
    return Status(StatusCode::kInternal, "a batch lane or second engine has no cache of its own");
  }
  SSIM2_RETURN_IF_ERROR(CheckImage(ref));
  if (!base()) return Status(StatusCode::kOutOfMemory, "the engine has no working memory");
  SSIM2_RETURN_IF_ERROR(EnsureCache());
  // With batches in flight the second engine prepares the reference into the
  // slot they do not read, beside them; otherwise this stream, into the
  // current slot, after its readers.
  Impl* writer = this;
  int target = slot;
  if (!batches.empty() && EnsureSecondEngine()) {
    writer = second.get();
    target = 1 - slot;
    // Every read of the current slot on this stream is enqueued by now.
    SSIM2_CUDA_CHECK(cudaEventRecord(res->read_done[slot].get(), stream()));
    res->read_recorded[slot] = true;
  }
  SSIM2_RETURN_IF_ERROR(WaitForReaders(target, writer->stream()));
  SSIM2_RETURN_IF_ERROR(writer->PrepareReference(ref, target));
  if (writer != this) {
    SSIM2_CUDA_CHECK(cudaEventRecord(second->res->ready.get(), second->stream()));
    SSIM2_CUDA_CHECK(cudaStreamWaitEvent(stream(), second->res->ready.get(), 0));
    reference_alpha = second->reference_alpha;
    reference_raw = second->reference_raw;
  }
  slot = target;
  has_reference = true;
  return Status::Ok();
}

Status Engine::Impl::WaitForReaders(int target, cudaStream_t writer) {
  auto wait = [&](const Impl& reader) -> Status {
    if (reader.stream() == writer || !reader.res->read_recorded[target]) return Status::Ok();
    SSIM2_CUDA_CHECK(cudaStreamWaitEvent(writer, reader.res->read_done[target].get(), 0));
    return Status::Ok();
  };
  SSIM2_RETURN_IF_ERROR(wait(*this));
  for (const auto& lane : lanes) SSIM2_RETURN_IF_ERROR(wait(*lane));
  return Status::Ok();
}

Status Engine::Impl::PrepareReference(const ImageView& ref, int target) {
  slot = target;
  if (HasAlpha(ref.format)) {
    // Two passes with different backgrounds follow for every distorted
    // image: keep the samples themselves.
    Upload up;
    char* raw = cache_base[target] + layout.cache.raw_ref;
    if (ref.location == MemoryLocation::kHost) {
      SSIM2_RETURN_IF_ERROR(res->uploads.Prepare(ref, Uploader::kReferenceStaging, raw,
                                                 layout.cache.raw_ref_bytes, stream(), &reference_raw,
                                                 &up));
    } else {
      const FormatTraits& f = *FindFormat(ref.format);
      const std::size_t row = PlaneRowBytes(f, ref.width, 0);
      const int rows = PlaneRows(f, ref.height, 0);
      const std::size_t pitch = UploadPitch(row);
      SSIM2_RETURN_IF_ERROR(res->uploads.Prepare(ref, Uploader::kReferenceStaging, raw,
                                                 layout.cache.raw_ref_bytes, stream(), &reference_raw,
                                                 &up));
      SSIM2_CUDA_CHECK(cudaMemcpy2DAsync(raw, pitch, ref.planes[0], ref.strides[0], row, rows,
                                         cudaMemcpyDeviceToDevice, stream()));
      reference_raw.plane[0] = reinterpret_cast<const unsigned char*>(raw);
      reference_raw.stride[0] = static_cast<long long>(pitch);
    }
    reference_alpha = true;
    return Status::Ok();
  }
  // A host reference is uploaded into the cache slot it is prepared for
  // (CacheLayout::upload: the pass reads it before it writes there).
  InputDesc rd;
  Upload up;
  SSIM2_RETURN_IF_ERROR(res->uploads.Prepare(ref, Uploader::kReferenceStaging,
                                             cache_base[target] + layout.cache.upload,
                                             layout.upload_bytes, stream(), &rd, &up));
  SSIM2_RETURN_IF_ERROR(
      EnqueuePass(PassMode::kRef, &rd, nullptr, AlphaBackground(false, 0), -1));
  reference_alpha = false;
  return Status::Ok();
}

Status Engine::Impl::EnqueuePairPasses(const ImageView& reference, const InputDesc& dist,
                                       const Upload& dist_upload, int first_result,
                                       int* passes) {
  InputDesc rd;
  Upload ref_upload;
  SSIM2_RETURN_IF_ERROR(res->uploads.Prepare(reference, Uploader::kReferenceStaging,
                                             base() + layout.upload[0], layout.upload_bytes,
                                             stream(), &rd, &ref_upload));
  const bool alpha = HasAlpha(reference.format);
  *passes = AlphaPassCount(alpha);
  return ForEachAlphaPass(alpha, [&](int pass, float background) {
    if (pass > 0) {
      // The horizontal pass reused the upload area: upload again.
      SSIM2_RETURN_IF_ERROR(res->uploads.Issue(ref_upload, stream()));
      SSIM2_RETURN_IF_ERROR(res->uploads.Issue(dist_upload, stream()));
    }
    return EnqueuePass(PassMode::kFull, &rd, &dist, background, first_result + pass);
  });
}

Status Engine::Impl::Enqueue(const ImageView* ref, const ImageView& dist, Ticket* ticket,
                             ResultCallback callback, void* user_data) {
  if (!base()) return Status(StatusCode::kOutOfMemory, "the engine has no working memory");
  int slot = 0;
  SSIM2_RETURN_IF_ERROR(res->tickets.NextSlot(&slot));
  if (ref) {
    SSIM2_RETURN_IF_ERROR(ValidatePair(*ref, dist));
    SSIM2_RETURN_IF_ERROR(CheckImage(*ref));
    SSIM2_RETURN_IF_ERROR(CheckImage(dist));
  } else {
    SSIM2_RETURN_IF_ERROR(CheckAgainstReference(&dist, 1));
  }
  // Pair passes (also an alpha reference's) need the reference's planes in
  // the working memory, which then grows, before anything is uploaded to it.
  if (ref || reference_alpha) SSIM2_RETURN_IF_ERROR(EnsurePairMemory());
  InputDesc dd;
  Upload dist_upload;
  SSIM2_RETURN_IF_ERROR(res->uploads.Prepare(dist, res->uploads.NextDistortedStaging(),
                                             base() + layout.upload[1], layout.upload_bytes,
                                             stream(), &dd, &dist_upload));
  int passes = 1;
  const int first_result = slot * kMaxAlphaPasses;
  if (ref) {
    // A pair's passes leave the cached reference alone: they work in
    // xyb[0], not in the cache.
    SSIM2_RETURN_IF_ERROR(EnqueuePairPasses(*ref, dd, dist_upload, first_result, &passes));
  } else if (reference_alpha) {
    passes = AlphaPassCount(true);
    SSIM2_RETURN_IF_ERROR(ForEachAlphaPass(true, [&](int pass, float background) {
      if (pass > 0) SSIM2_RETURN_IF_ERROR(res->uploads.Issue(dist_upload, stream()));
      return EnqueuePass(PassMode::kFull, &reference_raw, &dd, background, first_result + pass);
    }));
  } else {
    SSIM2_RETURN_IF_ERROR(
        EnqueuePass(PassMode::kCached, nullptr, &dd, AlphaBackground(false, 0), first_result));
  }
  const double* sums = reinterpret_cast<const double*>(res->results.get()) +
                       static_cast<std::size_t>(first_result) * kSumsPerResult;
  return res->tickets.Publish(slot, passes, &layout.plan, sums, callback, user_data, stream(),
                              ticket);
}

}  // namespace cuda
}  // namespace ssim2
