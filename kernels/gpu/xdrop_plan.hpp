// The host side of the GPU X-drop engine, without CUDA: seeds checked, residues laid out, one job per
// extension (left and right of every task, longest first), the job runner's passes (rings in shared
// memory first, tier by tier; jobs whose band outgrew them again with rings in global memory sized for
// them; what is left on the CPU), and the spans assembled. kernels/gpu/gpu_xdrop.cu runs the jobs on the GPU;
// tests/test_xdrop_gpu_logic.cpp runs the same plan with an emulation of the kernel's warps on the CPU.
// Built in every configuration (CUDA or not) so that the test runs everywhere. Private to kernels/gpu.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/gpu/gpu_xdrop.hpp"
#include "kernels/gpu/xdrop_lanes.hpp"
#include "kernels/reference/banded_xdrop.hpp"
#include "kernels/reference/reference_xdrop.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::gpu::detail {

// What runs the extension jobs: the GPU, or in the tests an emulation of its warps.
class XdropJobRunner {
 public:
  virtual ~XdropJobRunner() = default;
  // Room for `count` residue bytes of the next batch (pinned memory on the GPU); the plan fills it
  // before the batch's first run().
  virtual std::uint8_t* stage_residues(std::uint64_t count) = 0;
  // Runs the jobs over the staged residues; results[k] (resized) for jobs[k]. With `shared`, the rings
  // are in shared memory and `rows` is one of shared_tiers(); else they are in global memory, `rows` a
  // power of two. Returns false, running nothing, when the device cannot hold one warp's global rings.
  virtual bool run(const std::vector<XdropJob>& jobs, bool shared, std::uint32_t rows,
                   std::vector<XdropJobResult>& results) = 0;
  // The rows of the shared-memory rings the device offers, smallest first (at least one): every job
  // runs with the first; a job whose band outgrew a tier runs again with the next, then in global rings.
  virtual std::vector<std::uint32_t> shared_tiers() const = 0;
};

// The int8 substitution table of the kernels: [query code][target code], kMaxCodes x kMaxCodes.
std::array<std::int8_t, kXdropTableBytes> xdrop_table(const ScoringScheme& scoring);

// The kernel's scoring constants. Throws std::invalid_argument when X < 0.
XdropScoring xdrop_scoring(const ScoringScheme& scoring, XDrop x);

// Rows of the global rings that hold any band of the job: the smallest power of two of at least
// min(m, n) + 3 (a band has at most min(m, n) + 1 rows, plus two sentinels), and at least `at_least`.
std::uint32_t xdrop_global_rows(const XdropJob& job, std::uint32_t at_least);

// Launch order: the longest first (by min(m, n), the anti-diagonals until one sequence ends, then m + n),
// so that the last jobs claimed are short ones.
void order_xdrop_jobs(std::vector<XdropJob>& jobs);

struct XdropRunStats {
  std::uint64_t cells = 0;
  std::uint64_t wasted_cells = 0;
  std::uint64_t device_jobs = 0;
  std::uint64_t rerun_jobs = 0;  // runs after the first (a job rerun twice counts twice)
  std::uint64_t host_jobs = 0;
};

// out[k] = the seeded alignment of tasks[k], in batches of at most batch_residues residues (a larger
// task is a batch of its own). Checks every seed first (errors name the task, 0-based, see
// GpuXdropAligner::align), then the residue codes of each batch while staging it. `host` runs the
// extensions that cannot run on the device; its cells are counted in stats.cells.
void align_xdrop_tasks(const std::vector<XdropTask>& tasks, const ScoringScheme& scoring, XdropJobRunner& runner,
                       XdropAligner& host, std::uint64_t batch_residues, std::vector<XdropSpan>& out,
                       XdropRunStats& stats);

}  // namespace warpsearch::gpu::detail
