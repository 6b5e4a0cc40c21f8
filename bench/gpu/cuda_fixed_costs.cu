// CUDA's fixed costs in a bare process: driver initialisation (cudaGetDeviceCount), the context
// (cudaFree(0)), then optional streams, device allocations and pinned host memory, and optionally the
// context's release before the exit (cudaDeviceReset, after freeing what was allocated). The shell's
// clock around the process, less what this prints, is the process's exit with the driver's release of
// whatever context is left (bench/results/cuda_fixed_costs_h100.tsv).
//   nvcc -O2 -arch=sm_90 -o cuda_fixed_costs bench/gpu/cuda_fixed_costs.cu
//   ./cuda_fixed_costs STREAMS ALLOCATIONS ALLOCATION_MB PINNED_MB [RESET]
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const int streams = argc > 1 ? std::atoi(argv[1]) : 0;
  const int allocations = argc > 2 ? std::atoi(argv[2]) : 0;
  const long long allocation_mb = argc > 3 ? std::atoll(argv[3]) : 1;
  const long long pinned_mb = argc > 4 ? std::atoll(argv[4]) : 0;
  const bool reset = argc > 5 && std::atoi(argv[5]) != 0;
  int devices = 0;
  cudaGetDeviceCount(&devices);
  const auto initialised = Clock::now();
  cudaFree(nullptr);
  const auto context = Clock::now();
  std::vector<cudaStream_t> stream(streams);
  for (auto& s : stream) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  std::vector<void*> memory(allocations);
  for (auto& m : memory) {
    cudaMalloc(&m, allocation_mb << 20);
    cudaMemset(m, 0, allocation_mb << 20);
  }
  void* pinned = nullptr;
  if (pinned_mb > 0) cudaMallocHost(&pinned, pinned_mb << 20);
  cudaDeviceSynchronize();
  const auto done = Clock::now();
  if (reset) {
    if (pinned != nullptr) cudaFreeHost(pinned);
    for (void* m : memory) cudaFree(m);
    for (cudaStream_t s : stream) cudaStreamDestroy(s);
    cudaDeviceReset();
  }
  const auto released = Clock::now();
  const auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  std::printf(
      "streams %d allocs %d x %lld MB pinned %lld MB: cuInit %.1f ms, context %.1f ms, work %.1f ms, release %.1f ms\n",
      streams, allocations, allocation_mb, pinned_mb, ms(started, initialised), ms(initialised, context),
      ms(context, done), ms(done, released));
  return 0;
}
