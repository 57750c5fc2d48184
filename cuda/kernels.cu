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
                        const BlurParams& blur, cudaStream_t stream) {
  if (num_jobs == 0 || num_blocks == 0) return cudaSuccess;
  const LaunchShape shape = VBlurShape(num_blocks);
  VBlurKernel<<<shape.grid, shape.block, 0, stream>>>(jobs_device, num_jobs, blur);
  return cudaGetLastError();
}

cudaError_t LaunchSums(const SumParams& params, cudaStream_t stream) {
  if (params.num_jobs == 0) return cudaSuccess;
  LaunchShape shape = ChunkSumsShape(params);
  ChunkSumsKernel<<<shape.grid, shape.block, 0, stream>>>(params);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  shape = GroupSumsShape(params);
  GroupSumsKernel<<<shape.grid, shape.block, 0, stream>>>(params);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  shape = ChunkSummariesShape(params);
  ChunkSummariesKernel<<<shape.grid, shape.block, 0, stream>>>(params);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  shape = GroupSummariesShape(params);
  GroupSummariesKernel<<<shape.grid, shape.block, 0, stream>>>(params);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  shape = WalkShape(params);
  WalkKernel<<<shape.grid, shape.block, 0, stream>>>(params);
  return cudaGetLastError();
}

cudaError_t LaunchSignatureRows(const SignatureBatch& batch, cudaStream_t stream) {
  const LaunchShape shape = SignatureRowsShape(batch);
  SignatureRowsKernel<<<shape.grid, shape.block, 0, stream>>>(batch.frames);
  return cudaGetLastError();
}

cudaError_t LaunchSignatureCells(const SignatureBatch& batch, cudaStream_t stream) {
  const LaunchShape shape = SignatureCellsShape(batch);
  SignatureCellsKernel<<<shape.grid, shape.block, 0, stream>>>(batch.frames);
  return cudaGetLastError();
}

cudaError_t LaunchSignatureNormalise(const SignatureBatch& batch, cudaStream_t stream) {
  const LaunchShape shape = SignatureNormaliseShape(batch);
  SignatureNormaliseKernel<<<shape.grid, shape.block, 0, stream>>>(batch.frames);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace ssim2
