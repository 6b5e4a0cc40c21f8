// GpuXdropAligner: the device side of the GPU X-drop engine. The plan (seeds, residue layout, jobs,
// reruns, CPU fallback, spans) is kernels/gpu/xdrop_plan.cpp; this file runs its jobs on one GPU:
//   per batch: the residues are staged in pinned memory by the plan and uploaded once, before the first
//   run; a run copies its jobs up, zeroes the claim counter, launches xdrop_kernel (one warp per job,
//   grid of at most the resident blocks, jobs claimed one at a time), and copies the results back.
//   Shared-memory runs: every job with rings of kXdropSharedTiers[0] rows per warp in shared memory,
//   those whose band outgrew them with the next tier (the grid: at most the resident blocks).
//   Global-memory runs: jobs whose band outgrew every tier, with rings sized for their longest job (rows
//   a power of two); as many warps as are resident and fit min(half the free memory,
//   kGlobalScratchBudget), at least one, else the run is refused and the plan takes the jobs to the CPU.
#include "kernels/gpu/gpu_xdrop.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/xdrop_kernel.cuh"
#include "kernels/gpu/xdrop_plan.hpp"
#include "kernels/reference/banded_xdrop.hpp"

namespace warpsearch::gpu {

using detail::DeviceBuffer;
using detail::Event;
using detail::kXdropArrays;
using detail::kXdropBlockThreads;
using detail::kXdropWarpsPerBlock;
using detail::PinnedBuffer;
using detail::ScopedDevice;
using detail::Stream;
using detail::XdropJob;
using detail::XdropJobResult;

namespace {

// Residues per batch at most (and a quarter of the free device memory).
constexpr std::uint64_t kBatchResidues = std::uint64_t{1} << 28;
// Global rings of the reruns: at most this many bytes (and half the free device memory).
constexpr std::uint64_t kGlobalScratchBudget = std::uint64_t{4} << 30;

template <class T>
void ensure_device(DeviceBuffer<T>& buffer, std::size_t count, int device) {
  if (buffer.size() < count) {
    buffer = DeviceBuffer<T>();  // free first: the buffers can be large
    buffer = DeviceBuffer<T>(count, device);
  }
}

template <class T>
void ensure_pinned(PinnedBuffer<T>& buffer, std::size_t count) {
  if (buffer.size() < count) {
    buffer = PinnedBuffer<T>();
    buffer = PinnedBuffer<T>(count);
  }
}

double elapsed_seconds(const Event& from, const Event& to) {
  float ms = 0;
  WARPSEARCH_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms / 1e3;
}

using KernelFunction = void (*)(detail::XdropKernelParams);

// The kernels by scratch place: the shared tiers (kXdropSharedTiers), then the global rings.
struct XdropKernelEntry {
  int shared_rows;  // 0: global rings
  KernelFunction kernel;
};

template <std::size_t... T>
constexpr std::array<XdropKernelEntry, sizeof...(T) + 1> make_kernel_entries(std::index_sequence<T...>) {
  return {XdropKernelEntry{detail::kXdropSharedTiers[T], &detail::xdrop_kernel<detail::kXdropSharedTiers[T]>}...,
          XdropKernelEntry{0, &detail::xdrop_kernel<0>}};
}

const auto& kernel_entries() {
  static const auto entries = make_kernel_entries(std::make_index_sequence<detail::kXdropSharedTierCount>{});
  return entries;
}

// Runs the plan's jobs on one device. The aligner makes its device current around every call.
class DeviceRunner final : public detail::XdropJobRunner {
 public:
  DeviceRunner(int device, const cudaDeviceProp& properties, const ScoringScheme& scoring, XDrop x)
      : device_(device), sm_count_(properties.multiProcessorCount), scoring_(detail::xdrop_scoring(scoring, x)) {
    const auto table = detail::xdrop_table(scoring);
    table_ = DeviceBuffer<std::int8_t>(table.size(), device);
    detail::copy_to_device(table_.get(), table.data(), table.size());
    counter_ = DeviceBuffer<std::uint32_t>(1, device);
    const auto& entries = kernel_entries();
    for (std::size_t e = 0; e < entries.size(); ++e) {
      const std::size_t shared = detail::xdrop_shared_bytes(entries[e].shared_rows);
      if (shared > properties.sharedMemPerBlockOptin) {
        if (entries[e].shared_rows == detail::kXdropSharedTiers[0])
          throw std::runtime_error("GPU " + std::string(properties.name) + ": the X-drop kernel needs " +
                                   std::to_string(shared) + " bytes of shared memory per block, the device allows " +
                                   std::to_string(properties.sharedMemPerBlockOptin));
        continue;  // a larger tier the device cannot hold: its jobs go to the global rings
      }
      WARPSEARCH_CUDA_CHECK(cudaFuncSetAttribute(entries[e].kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(shared)));
      WARPSEARCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm_[e], entries[e].kernel,
                                                                          kXdropBlockThreads, shared));
      blocks_per_sm_[e] = std::max(1, blocks_per_sm_[e]);
      if (entries[e].shared_rows > 0) tiers_.push_back(static_cast<std::uint32_t>(entries[e].shared_rows));
    }
  }

  std::uint8_t* stage_residues(std::uint64_t count) override {
    ensure_pinned(h_residues_, static_cast<std::size_t>(std::max<std::uint64_t>(count, 1)));
    staged_ = count;
    uploaded_ = false;
    return h_residues_.get();
  }

  std::vector<std::uint32_t> shared_tiers() const override { return tiers_; }

  bool run(const std::vector<XdropJob>& jobs, bool shared, std::uint32_t rows,
           std::vector<XdropJobResult>& results) override {
    results.resize(jobs.size());
    if (jobs.empty()) return true;
    const std::size_t count = jobs.size();
    cudaStream_t stream = stream_.get();
    const auto& entries = kernel_entries();
    std::size_t entry = entries.size() - 1;  // global rings
    if (shared) {
      entry = 0;
      while (entry + 1 < entries.size() && entries[entry].shared_rows != static_cast<int>(rows)) ++entry;
      if (entries[entry].shared_rows != static_cast<int>(rows))
        throw std::logic_error("GpuXdropAligner: no shared tier of " + std::to_string(rows) + " rows");
    }
    const std::uint64_t resident =
        static_cast<std::uint64_t>(blocks_per_sm_[entry]) * static_cast<std::uint64_t>(sm_count_) * kXdropWarpsPerBlock;
    std::uint64_t warps = std::min<std::uint64_t>(count, resident);
    if (!shared) {
      const std::uint64_t slot_words = std::uint64_t{kXdropArrays} * rows;
      std::size_t free_bytes = 0, total_bytes = 0;
      WARPSEARCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      const std::uint64_t budget = scratch_.bytes() + std::min<std::uint64_t>(free_bytes / 2, kGlobalScratchBudget);
      warps = std::min<std::uint64_t>(warps, budget / (slot_words * 4));
      if (warps == 0) return false;
      ensure_device(scratch_, static_cast<std::size_t>(warps * slot_words), device_);
    }
    if (!uploaded_) {
      ensure_device(d_residues_, static_cast<std::size_t>(std::max<std::uint64_t>(staged_, 1)), device_);
      WARPSEARCH_CUDA_CHECK(cudaEventRecord(upload_begin_.get(), stream));
      WARPSEARCH_CUDA_CHECK(
          cudaMemcpyAsync(d_residues_.get(), h_residues_.get(), staged_, cudaMemcpyHostToDevice, stream));
      WARPSEARCH_CUDA_CHECK(cudaEventRecord(upload_end_.get(), stream));
      uploaded_ = true;
      pending_upload_ = true;
    }
    ensure_pinned(h_jobs_, count);
    ensure_pinned(h_results_, count);
    ensure_device(d_jobs_, count, device_);
    ensure_device(d_results_, count, device_);
    std::memcpy(h_jobs_.get(), jobs.data(), count * sizeof(XdropJob));
    WARPSEARCH_CUDA_CHECK(
        cudaMemcpyAsync(d_jobs_.get(), h_jobs_.get(), count * sizeof(XdropJob), cudaMemcpyHostToDevice, stream));
    WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(counter_.get(), 0, sizeof(std::uint32_t), stream));

    detail::XdropKernelParams p;
    p.residues = d_residues_.get();
    p.jobs = d_jobs_.get();
    p.results = d_results_.get();
    p.job_count = static_cast<std::uint32_t>(count);
    p.next_job = counter_.get();
    p.table = table_.get();
    p.scoring = scoring_;
    if (!shared) {
      p.global_scratch = scratch_.get();
      p.global_rows = rows;
      p.global_slots = static_cast<std::uint32_t>(warps);
    }
    const int grid =
        static_cast<int>(std::max<std::uint64_t>(1, (warps + kXdropWarpsPerBlock - 1) / kXdropWarpsPerBlock));
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(kernel_begin_.get(), stream));
    entries[entry].kernel<<<grid, kXdropBlockThreads, detail::xdrop_shared_bytes(entries[entry].shared_rows), stream>>>(
        p);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(kernel_end_.get(), stream));
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(h_results_.get(), d_results_.get(), count * sizeof(XdropJobResult),
                                          cudaMemcpyDeviceToHost, stream));
    stream_.synchronize();
    std::memcpy(results.data(), h_results_.get(), count * sizeof(XdropJobResult));
    if (pending_upload_) {
      upload_seconds += elapsed_seconds(upload_begin_, upload_end_);
      pending_upload_ = false;
    }
    kernel_seconds += elapsed_seconds(kernel_begin_, kernel_end_);
    return true;
  }

  void synchronize() const { stream_.synchronize(); }
  cudaStream_t stream() const { return stream_.get(); }

  double upload_seconds = 0;
  double kernel_seconds = 0;

 private:
  int device_;
  int sm_count_;
  detail::XdropScoring scoring_;
  std::array<int, detail::kXdropSharedTierCount + 1> blocks_per_sm_{};  // by kernel entry
  std::vector<std::uint32_t> tiers_;
  Stream stream_;
  Event upload_begin_{cudaEventDefault}, upload_end_{cudaEventDefault};
  Event kernel_begin_{cudaEventDefault}, kernel_end_{cudaEventDefault};
  DeviceBuffer<std::int8_t> table_;
  DeviceBuffer<std::uint32_t> counter_;
  PinnedBuffer<std::uint8_t> h_residues_;
  DeviceBuffer<std::uint8_t> d_residues_;
  std::uint64_t staged_ = 0;
  bool uploaded_ = false;
  bool pending_upload_ = false;
  PinnedBuffer<XdropJob> h_jobs_;
  DeviceBuffer<XdropJob> d_jobs_;
  PinnedBuffer<XdropJobResult> h_results_;
  DeviceBuffer<XdropJobResult> d_results_;
  DeviceBuffer<std::int32_t> scratch_;
};

}  // namespace

struct GpuXdropAligner::Impl {
  int device;
  std::string name;
  ScoringScheme scoring;  // before host: the CPU aligner keeps a reference to it
  XDrop x;
  DeviceRunner runner;
  XdropAligner host;
  std::uint64_t cells = 0;
  Timings timings;

  Impl(int device_index, const cudaDeviceProp& properties, const ScoringScheme& scheme, XDrop drop)
      : device(device_index),
        name(properties.name),
        scoring(scheme),
        x(drop),
        runner(device_index, properties, scoring, drop),
        host(scoring, drop) {}
};

GpuXdropAligner::GpuXdropAligner(int device, const ScoringScheme& scoring, XDrop x) {
  if (x.value < 0) throw std::invalid_argument("the X-drop must be at least 0, not " + std::to_string(x.value));
  const cudaDeviceProp properties = detail::device_properties(device);
  ScopedDevice scoped(device);
  impl_ = std::make_unique<Impl>(device, properties, scoring, x);
}

GpuXdropAligner::~GpuXdropAligner() {
  // Buffers free themselves on their device; make sure no work still uses them (errors ignored: a
  // destructor never throws).
  if (impl_) cudaStreamSynchronize(impl_->runner.stream());
}
GpuXdropAligner::GpuXdropAligner(GpuXdropAligner&&) noexcept = default;
GpuXdropAligner& GpuXdropAligner::operator=(GpuXdropAligner&&) noexcept = default;

std::uint64_t GpuXdropAligner::cells() const { return impl_->cells; }
std::string GpuXdropAligner::device_name() const { return impl_->name; }
const GpuXdropAligner::Timings& GpuXdropAligner::last_timings() const { return impl_->timings; }

void GpuXdropAligner::align(const std::vector<XdropTask>& tasks, std::vector<XdropSpan>& out) {
  Impl& s = *impl_;
  ScopedDevice scoped(s.device);
  const auto clock = std::chrono::steady_clock::now();
  s.timings = Timings{};
  s.runner.upload_seconds = 0;
  s.runner.kernel_seconds = 0;
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPSEARCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t batch_residues =
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(kBatchResidues, free_bytes / 4));
  detail::XdropRunStats stats;
  try {
    detail::align_xdrop_tasks(tasks, s.scoring, s.runner, s.host, batch_residues, out, stats);
  } catch (...) {
    s.runner.synchronize();
    throw;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count();
  s.cells += stats.cells;
  Timings& t = s.timings;
  t.upload = s.runner.upload_seconds;
  t.kernels = s.runner.kernel_seconds;
  t.host = std::max(0.0, seconds - t.upload - t.kernels);
  t.cells = stats.cells;
  t.wasted_cells = stats.wasted_cells;
  t.device_jobs = stats.device_jobs;
  t.rerun_jobs = stats.rerun_jobs;
  t.host_jobs = stats.host_jobs;
}

}  // namespace warpsearch::gpu
