// The GPUs' start-up (CUDA contexts, kernels/gpu/contexts.hpp) run in the background while a command reads
// its inputs, so that its cost overlaps them instead of adding to them; the summaries report it apart.
#pragma once

#include <future>
#include <optional>
#include <string>
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

// CUDA starts every GPU it can see when it initialises, whatever GPUs the program then uses: on a host
// of four H200s a search on one of them waited 1.0-1.1 s for CUDA, 0.30 s with CUDA_VISIBLE_DEVICES
// naming that one (bench/results/multi_gpu_h200x4.tsv). A command given a list of GPUs therefore shows
// CUDA only those, before it starts. visible_gpus(gpus, visible, installed): the CUDA_VISIBLE_DEVICES
// value that shows only the GPUs `gpus` names, and the ordinals they then have (0, 1, ... in the list's
// order). `gpus` are ordinals among the GPUs visible now: the entries of `visible` (the variable's value,
// or null when it is not set), else the `installed` GPUs (the driver's count, when known). nullopt, and
// nothing to change, where the list is empty, repeats a GPU or names one that is not there (the search
// then reports the missing GPU in its own words).
struct VisibleGpus {
  std::string variable;   // the value for CUDA_VISIBLE_DEVICES
  std::vector<int> gpus;  // the ordinals of the same GPUs under it
};
std::optional<VisibleGpus> visible_gpus(const std::vector<int>& gpus, const char* visible,
                                        std::optional<int> installed);

// The GPUs the NVIDIA driver has on this host (Linux: /proc/driver/nvidia/gpus), or nullopt.
std::optional<int> installed_gpus();

}  // namespace warpsearch
