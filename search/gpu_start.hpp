// The GPUs' start-up (CUDA contexts, kernels/gpu/contexts.hpp) run in the background while a command reads
// its inputs, so that its cost overlaps them instead of adding to them; the summaries report it apart.
#pragma once

#include <future>
#include <vector>

#include "search/warpsearch.hpp"

namespace warpsearch {

class GpuStart {
 public:
  // Starts creating the contexts of devices (every usable GPU when empty) on a thread of its own, unless
  // device is Device::cpu or this build has no CUDA (then nothing runs and seconds() is 0).
  GpuStart(Device device, std::vector<int> devices);
  // Waits for the thread: a command that fails early does not leave it running.
  ~GpuStart();
  GpuStart(const GpuStart&) = delete;
  GpuStart& operator=(const GpuStart&) = delete;

  // The seconds the start-up took (waits for it); 0 when nothing was started or no GPU is usable.
  double seconds();

 private:
  std::future<double> done_;
  double seconds_ = 0.0;
};

}  // namespace warpsearch
