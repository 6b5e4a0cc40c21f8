#include "search/gpu_start.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <utility>

#ifdef WARPSEARCH_HAVE_CUDA
#include "kernels/gpu/contexts.hpp"
#endif

namespace warpsearch {

GpuStart::GpuStart([[maybe_unused]] Device device, [[maybe_unused]] std::vector<int> devices) {
#ifdef WARPSEARCH_HAVE_CUDA
  if (device != Device::cpu)
    done_ = std::async(std::launch::async, [devices = std::move(devices)] { return gpu::create_contexts(devices); });
#endif
}

GpuStart::~GpuStart() {
  if (done_.valid()) done_.wait();
}

double GpuStart::seconds() {
  if (done_.valid()) seconds_ = done_.get();
  return seconds_;
}

std::optional<VisibleGpus> visible_gpus(const std::vector<int>& gpus, const char* visible,
                                        std::optional<int> installed) {
  std::vector<std::string> entries;
  if (visible != nullptr) {
    std::stringstream list(visible);
    for (std::string entry; std::getline(list, entry, ',');) entries.push_back(entry);
  } else if (installed) {
    for (int g = 0; g < *installed; ++g) entries.push_back(std::to_string(g));
  }
  if (gpus.empty()) return std::nullopt;
  VisibleGpus result;
  for (std::size_t k = 0; k < gpus.size(); ++k) {
    const int gpu = gpus[k];
    if (gpu < 0 || static_cast<std::size_t>(gpu) >= entries.size() || entries[static_cast<std::size_t>(gpu)].empty() ||
        std::count(gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(k), gpu) > 0)
      return std::nullopt;
    result.variable += (k > 0 ? "," : "") + entries[static_cast<std::size_t>(gpu)];
    result.gpus.push_back(static_cast<int>(k));
  }
  return result;
}

std::optional<int> installed_gpus() {
  std::error_code error;
  std::filesystem::directory_iterator gpus("/proc/driver/nvidia/gpus", error);
  if (error) return std::nullopt;
  int count = 0;
  for (auto it = gpus; it != std::filesystem::directory_iterator(); it.increment(error)) {
    if (error) return std::nullopt;
    ++count;
  }
  return count;
}

}  // namespace warpsearch
