#include "search/gpu_start.hpp"

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

}  // namespace warpsearch
