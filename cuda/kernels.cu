// Kernels of the CUDA engine. The per-sample arithmetic comes from arith.h
// and yuv.h (shared with the CPU path); this file only arranges it over
// threads. Compiled with --fmad=false: a multiply followed by an add is never
// fused unless the code says arith::Fma (__fmaf_rn).
#include "cuda/kernels.h"

#include <cuda_runtime.h>

#include "cuda/kernels_device.cuh"

namespace ssim2 {
namespace cuda {

cudaError_t LaunchPrepare(const PrepareParams& params, cudaStream_t stream) {
  const LaunchShape shape = PrepareShape(params);
  PrepareKernel<<<shape.grid, shape.block, 0, stream>>>(params);
  return cudaGetLastError();
}

cudaError_t LaunchHBlur(const HJob* jobs_device, int num_jobs, int num_blocks,
                        const BlurParams& blur, cudaStream_t stream) {
  if (num_jobs == 0 || num_blocks == 0) return cudaSuccess;
  const LaunchShape shape = HBlurShape(num_blocks);
  HBlurKernel<<<shape.grid, shape.block, 0, stream>>>(jobs_device, num_jobs, blur);
  return cudaGetLastError();
}

cudaError_t LaunchVBlur(const VJob* jobs_device, int num_jobs, int num_blocks,
                        const BlurParams& blur, double* partials, cudaStream_t stream) {
  if (num_jobs == 0 || num_blocks == 0) return cudaSuccess;
  const LaunchShape shape = VBlurShape(num_blocks);
  VBlurKernel<<<shape.grid, shape.block, 0, stream>>>(jobs_device, num_jobs, blur, partials);
  return cudaGetLastError();
}

cudaError_t LaunchReduce(const ReduceParams& params, const double* partials, double* out,
                         cudaStream_t stream) {
  if (params.num_jobs == 0) return cudaSuccess;
  const LaunchShape shape = ReduceShape(params);
  ReduceKernel<<<shape.grid, shape.block, 0, stream>>>(params, partials, out);
  return cudaGetLastError();
}

cudaError_t LaunchSequentialSums(const SeqParams& params, double* out, cudaStream_t stream) {
  if (params.num_jobs == 0) return cudaSuccess;
  const LaunchShape chunks = SeqChunkShape(params);
  SeqApproxKernel<<<chunks.grid, chunks.block, 0, stream>>>(params);
  SeqStepsKernel<<<chunks.grid, chunks.block, 0, stream>>>(params);
  const LaunchShape walk = SeqWalkShape(params);
  SeqWalkKernel<<<walk.grid, walk.block, 0, stream>>>(params, out);
  return cudaGetLastError();
}

cudaError_t LaunchSignature(const SignatureLaunch& launch, cudaStream_t stream) {
  const LaunchShape shape = SignatureShape(launch);
  SignatureKernel<<<shape.grid, shape.block, 0, stream>>>(launch);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace ssim2
