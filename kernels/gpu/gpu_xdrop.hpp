// GPU X-drop seed extension: many seeded X-drop alignments (kernels/reference/reference_xdrop.hpp) on one CUDA
// device, each extension on one warp. This header holds no CUDA types; the kernel and the CUDA runtime
// calls live behind the pimpl (kernels/gpu/gpu_xdrop.cu, docs/gpu_pair_kernels.md "X-drop on the GPU").
//
// Results are those of reference::xdrop_reference and of XdropAligner (the same band and the same
// 32-bit arithmetic as the CPU engine): scores, both extensions, spans, tie-breaks, and the count of
// computed cells. An extension whose lengths do not allow 32-bit scores (xdrop_fits_int32), or whose
// band outgrows every scratch the device can hold, runs on the CPU inside the call. No operations: a
// caller that needs them traces back on the CPU (search/align_gpu_backend.cpp).
//
// Thread safety: a GpuXdropAligner may be used by one thread at a time; aligners of different devices
// may run in parallel threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/reference/reference_xdrop.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::gpu {

// One seeded alignment: residue codes (core/alphabet.hpp, below kMaxCodes) of the scoring scheme's
// alphabet and the seed. The views must stay valid during the align() call only.
struct XdropTask {
  std::string_view query;
  std::string_view target;
  Seed seed;
};

class GpuXdropAligner {
 public:
  // Binds to a device (0-based) and uploads the substitution scores. Throws std::invalid_argument for a
  // device index out of range or X < 0, std::runtime_error (with the failed CUDA call) on a CUDA error.
  // The scoring scheme is copied.
  GpuXdropAligner(int device, const ScoringScheme& scoring, XDrop x);
  ~GpuXdropAligner();
  GpuXdropAligner(GpuXdropAligner&&) noexcept;
  GpuXdropAligner& operator=(GpuXdropAligner&&) noexcept;
  GpuXdropAligner(const GpuXdropAligner&) = delete;
  GpuXdropAligner& operator=(const GpuXdropAligner&) = delete;

  // out[k] = the seeded alignment of tasks[k] (out is resized), as reference::xdrop_reference gives it.
  // Tasks are batched to fit device memory. Blocks until done. Throws, naming the first bad task
  // (0-based): before aligning anything, std::out_of_range for a seed that does not fit its sequences and
  // std::invalid_argument for an empty seed in the middle of both; std::invalid_argument for a residue
  // code >= kMaxCodes, found while a batch is staged (`out` is then unspecified).
  void align(const std::vector<XdropTask>& tasks, std::vector<XdropSpan>& out);

  // Cells computed since construction, counted as XdropAligner counts them (the band of every
  // extension, origin included; work thrown away when a band outgrew shared memory is not counted).
  std::uint64_t cells() const;

  std::string device_name() const;

  // What the last align() call did, for benchmarks. Seconds: host = packing, job lists and results on
  // the calling thread; upload = residues to the device; kernels = device time of the extension
  // kernels (CUDA events), shared-memory pass and global-memory reruns together.
  struct Timings {
    double host = 0;
    double upload = 0;
    double kernels = 0;
    std::uint64_t cells = 0;         // counted as cells()
    std::uint64_t wasted_cells = 0;  // computed by runs stopped because a band outgrew their scratch
    std::uint64_t device_jobs = 0;   // extensions run on the device (trivial empty ones excluded)
    std::uint64_t rerun_jobs = 0;    // runs after a job's first (larger shared rings, then global rings)
    std::uint64_t host_jobs = 0;     // extensions run on the CPU (32-bit bound or no room for their band)
  };
  const Timings& last_timings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpsearch::gpu
