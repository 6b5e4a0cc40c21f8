// WARPSEARCH_HOST_DEVICE: marks the plain functions that GPU kernels and CPU tests share (__host__
// __device__ under nvcc, nothing in a CPU-only build). Private to kernels/gpu.
#pragma once

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define WARPSEARCH_HOST_DEVICE __host__ __device__
#else
#define WARPSEARCH_HOST_DEVICE
#endif
