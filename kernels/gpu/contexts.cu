#include "kernels/gpu/contexts.hpp"

#include <cuda_runtime.h>

#include <chrono>

namespace warpsearch::gpu {

double create_contexts(const std::vector<int>& devices) {
  const auto started = std::chrono::steady_clock::now();
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // no driver or no device: the engine reports it
    return 0.0;
  }
  std::vector<int> chosen = devices;
  if (chosen.empty())
    for (int device = 0; device < count; ++device) chosen.push_back(device);
  for (int device : chosen) {
    // cudaFree(nullptr) is the documented way to force the context's creation.
    if (device < 0 || device >= count || cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)
      cudaGetLastError();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace warpsearch::gpu
