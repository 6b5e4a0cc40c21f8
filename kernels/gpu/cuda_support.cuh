// CUDA error checking and move-only RAII wrappers for device memory, pinned host memory, streams and
// events. Private to kernels/gpu (it exposes CUDA types).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace warpsearch::gpu::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t error, const char* expression, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": CUDA call '" + expression +
                           "' failed: " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
}

}  // namespace warpsearch::gpu::detail

// Throws std::runtime_error naming the file, line and failed expression.
#define WARPSEARCH_CUDA_CHECK(expr)                                                                    \
  do {                                                                                                 \
    const cudaError_t warpsearch_cuda_status_ = (expr);                                                \
    if (warpsearch_cuda_status_ != cudaSuccess)                                                        \
      ::warpsearch::gpu::detail::throw_cuda_error(warpsearch_cuda_status_, #expr, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: a bad configuration shows up here. Define WARPSEARCH_CUDA_SYNC_CHECKS to
// also wait for the kernel and report faults at the launch that caused them.
#ifdef WARPSEARCH_CUDA_SYNC_CHECKS
#define WARPSEARCH_CUDA_CHECK_LAUNCH()              \
  do {                                              \
    WARPSEARCH_CUDA_CHECK(cudaGetLastError());      \
    WARPSEARCH_CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)
#else
#define WARPSEARCH_CUDA_CHECK_LAUNCH() WARPSEARCH_CUDA_CHECK(cudaGetLastError())
#endif

namespace warpsearch::gpu::detail {

// Makes a device current for a scope and restores the previous one.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) {
    WARPSEARCH_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) WARPSEARCH_CUDA_CHECK(cudaSetDevice(device));
  }
  ~ScopedDevice() { cudaSetDevice(previous_); }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

// The properties of a device, after checking that the index names a usable CUDA device: what every
// engine bound to one device (GpuScorer, GpuPairAligner) reads first. Throws std::invalid_argument for a
// bad index.
inline cudaDeviceProp device_properties(int device) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    cudaGetLastError();  // no driver or no GPU: zero usable devices
    devices = 0;
  }
  if (device < 0 || device >= devices)
    throw std::invalid_argument("GPU device " + std::to_string(device) + " does not exist (" + std::to_string(devices) +
                                " usable CUDA devices)");
  cudaDeviceProp properties{};
  WARPSEARCH_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties;
}

// Device memory of n elements of T (uninitialised). Frees on the device it was allocated on.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t count, int device) : count_(count), device_(device) {
    if (count > 0) WARPSEARCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      swap(other);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    std::swap(device_, other.device_);
  }
  void release() noexcept {
    if (data_ == nullptr) return;
    int current = 0;
    cudaGetDevice(&current);
    if (current != device_) cudaSetDevice(device_);
    cudaFree(data_);
    if (current != device_) cudaSetDevice(current);
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
  int device_ = 0;
};

// Device memory of n elements of T allocated and freed in a stream's order (cudaMallocAsync,
// cudaFreeAsync, from the current device's pool), for a call's scratch. cudaFree waits for all the
// device's work first: the hot columns of a genome search's first query, computed while its other
// queries are scanned, waited 0.3 s for the scan's launches in flight (0.04 s alone), and each such
// wait drained the scan's pipeline (tblastn's scan 2.62-2.65 s against 2.43-2.47 s).
// Where the device has no memory pools (cudaDevAttrMemoryPoolsSupported 0: some virtualised GPUs), plain
// cudaMalloc and cudaFree.
template <class T>
class StreamBuffer {
 public:
  StreamBuffer(std::size_t count, cudaStream_t stream) : count_(count), stream_(stream) {
    if (count == 0) return;
    int device = 0, pools = 0;
    WARPSEARCH_CUDA_CHECK(cudaGetDevice(&device));
    WARPSEARCH_CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
    pooled_ = pools != 0;
    if (pooled_)
      WARPSEARCH_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&data_), count * sizeof(T), stream));
    else
      WARPSEARCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  ~StreamBuffer() {
    if (data_ == nullptr) return;
    if (pooled_)
      cudaFreeAsync(data_, stream_);
    else
      cudaFree(data_);
  }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
  cudaStream_t stream_ = nullptr;
  bool pooled_ = false;
};

// Copies `bytes` of host memory to the current device and returns once they are there. cudaMemcpy from
// pageable memory returns when the bytes are staged, before the DMA to the device has completed (CUDA's
// "API synchronization behavior"), and a kernel on a non-blocking stream does not wait for the default
// stream: launched right after, it may read the old contents. So a table uploaded while a search keeps the
// device busy must be waited for: the long-pair aligner, made during a search, ran its first pass on a
// score table not yet there and scored a hit 0 in 15 of 60 runs (H100 and H200), in none of 20 with this
// (bench/results/table_upload_h100.tsv).
inline void copy_to_device(void* device, const void* host, std::size_t bytes) {
  WARPSEARCH_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  WARPSEARCH_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

// Page-locked host memory of n elements of T.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count > 0) WARPSEARCH_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  ~PinnedBuffer() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      if (data_ != nullptr) cudaFreeHost(data_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// Buffers that grow (and never shrink) while other work may run on the device: cudaFree and cudaFreeHost
// wait for every kernel on it, a search's scan launches included, and the hits' aligners grow their
// buffers while the scan runs. An outgrown buffer is kept until this is destroyed instead; growing by
// half at a time, the kept ones hold less than twice the largest. Only for buffers no device work uses when
// they grow.
class OutgrownBuffers {
 public:
  // A DeviceBuffer (where: its device) or a PinnedBuffer (where: nothing) to at least `count` elements.
  template <class Buffer, class... Where>
  void grow(Buffer& buffer, std::size_t count, Where... where) {
    if (buffer.size() >= count) return;
    const std::size_t grown = std::max(count, buffer.size() * 3 / 2);
    if (buffer.size() > 0) kept_.push_back(std::make_shared<Buffer>(std::move(buffer)));
    buffer = Buffer(grown, where...);
  }

 private:
  std::vector<std::shared_ptr<void>> kept_;
};

// Stream priorities. The scan's streams keep the default, the lowest; the kernels that work on a search's
// hits (the pair aligner, the long-pair aligner, the hot-column scanner) run above it, so that while a
// search scans, the multiprocessors its blocks free go to them before the scan's pending blocks (blocks
// already running are never preempted). tblastn against a genome, whose queries' hits are aligned while
// the others are scanned: its hot columns took 0.09-0.10 s in all against 0.19-0.21 s at the scan's
// priority. `hits_first`, above `hits`, for those that should start before the others.
enum class StreamRank { scan, hits, hits_first };
inline int stream_priority(StreamRank rank) {
  int least = 0, greatest = 0;
  WARPSEARCH_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  switch (rank) {
    case StreamRank::scan: return least;
    case StreamRank::hits: return greatest < least ? least - 1 : least;
    case StreamRank::hits_first: return greatest;
  }
  return least;
}

// A non-blocking stream (does not synchronise with the legacy default stream).
class Stream {
 public:
  Stream() { WARPSEARCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  // With a priority (cudaDeviceGetStreamPriorityRange: lower numbers first): the block scheduler starts
  // pending blocks of higher-priority streams first.
  explicit Stream(int priority) {
    WARPSEARCH_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, priority));
  }
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    if (this != &other) {
      if (stream_ != nullptr) cudaStreamDestroy(stream_);
      stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { WARPSEARCH_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

// An event for ordering between streams (timing disabled: cheaper).
class Event {
 public:
  explicit Event(unsigned flags = cudaEventDisableTiming) {
    WARPSEARCH_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags));
  }
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    if (this != &other) {
      if (event_ != nullptr) cudaEventDestroy(event_);
      event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace warpsearch::gpu::detail
