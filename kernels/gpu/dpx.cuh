// DPX max-plus primitives, shared by the GPU kernels (the scan's, the pair aligner's, the hot columns'):
// Hopper's fused integer add-and-max and three-way maximum, on 32-bit values and on two 16-bit halves
// (s16x2). Below sm_90 CUDA computes the same with several instructions; the portable forms here say what
// each computes. Private to kernels/gpu.
#pragma once

#include <cuda_runtime.h>

namespace warpsearch::gpu::dpx {

// max(a + b, c)
__device__ __forceinline__ int add_max(int a, int b, int c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __viaddmax_s32(a, b, c);
#else
  return ::max(a + b, c);
#endif
}

// max(a, b, c)
__device__ __forceinline__ int max3(int a, int b, int c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __vimax3_s32(a, b, c);
#else
  return ::max(::max(a, b), c);
#endif
}

// max(a, b, c, 0)
__device__ __forceinline__ int max3_relu(int a, int b, int c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __vimax3_s32_relu(a, b, c);
#else
  return ::max(::max(a, b), ::max(c, 0));
#endif
}

// Per 16-bit half: max(a + b, c), the add wrapping.
__device__ __forceinline__ unsigned add_max_s16x2(unsigned a, unsigned b, unsigned c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __viaddmax_s16x2(a, b, c);
#else
  return __vmaxs2(__vadd2(a, b), c);
#endif
}

// Per 16-bit half: max(a, b, c).
__device__ __forceinline__ unsigned max3_s16x2(unsigned a, unsigned b, unsigned c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __vimax3_s16x2(a, b, c);
#else
  return __vmaxs2(__vmaxs2(a, b), c);
#endif
}

// Per 16-bit half: max(a, b, c, 0).
__device__ __forceinline__ unsigned max3_relu_s16x2(unsigned a, unsigned b, unsigned c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __vimax3_s16x2_relu(a, b, c);
#else
  return __vmaxs2(__vmaxs2(a, b), __vmaxs2(c, 0u));
#endif
}

}  // namespace warpsearch::gpu::dpx
