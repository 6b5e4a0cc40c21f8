// GPU batched pairwise alignment: the score, start and end of many independent (query, target) pairs
// in local, global or semi-global mode, on one CUDA device. This header holds no CUDA types; the
// kernels and the CUDA runtime calls live behind the pimpl (kernels/gpu/pair_aligner.cu, pair_pipeline.cu).
//
// Semantics are those of kernels/reference/reference.hpp's span(): a gap of length k costs open + k * extend;
// end = the optimal cell with the smallest target end, then the smallest query end; start = among the
// optimal alignments ending there, the largest target start, then the largest query start. Local
// alignments of score 0 report every coordinate 0; global spans are the whole pair; semi-global spans
// the whole query. Scores are exact (32-bit arithmetic; the accepted lengths keep every value far from
// overflow). The forward pass gives score and end, the same kernel on the reversed prefixes the start
// (docs/gpu_pair_kernels.md).
//
// Thread safety: a GpuPairAligner may be used by one thread at a time; different aligners (one per
// device) may run in parallel threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/alignment_mode.hpp"
#include "core/span.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::gpu {

// One pair: residue codes (core/alphabet.hpp) of the scoring scheme's alphabet. The views must stay
// valid during the align() call only.
struct PairTask {
  std::string_view query;
  std::string_view target;
};

class GpuPairAligner {
 public:
  // The longest sequence accepted (either side of a pair): keeps every 32-bit value of the recurrence
  // below 2^29 in magnitude for any valid scoring scheme.
  static constexpr std::size_t kMaxSequenceLength = 2'000'000;

  // Binds to a device (0-based) and uploads the scoring tables. Throws std::invalid_argument for a
  // device index out of range and std::runtime_error (with the failed CUDA call) on a CUDA error.
  GpuPairAligner(int device, const ScoringScheme& scoring);
  ~GpuPairAligner();
  GpuPairAligner(GpuPairAligner&&) noexcept;
  GpuPairAligner& operator=(GpuPairAligner&&) noexcept;
  GpuPairAligner(const GpuPairAligner&) = delete;
  GpuPairAligner& operator=(const GpuPairAligner&) = delete;

  // out[k] = the span of pairs[k] (out is resized; the subject is the pair's target). Pairs may have any lengths up to
  // kMaxSequenceLength (empty ones too: see kernels/reference/reference.hpp); they are batched to fit device
  // memory. Blocks until done. Throws std::invalid_argument for AlignmentMode::xdrop
  // (kernels/gpu/gpu_xdrop.hpp aligns those), and naming the first bad pair (0-based index)
  // and position for a residue code outside the alphabet or a sequence that is too long; `out` is then
  // unspecified (codes are checked while packing, after earlier pairs may have been aligned).
  void align(const std::vector<PairTask>& pairs, AlignmentMode mode, std::vector<Span>& out);

  std::string device_name() const;

  // Where the last align() call spent its time, for benchmarks. The call pipelines sub-batches (the
  // host packs one while the device aligns the previous ones), so the parts overlap and add up to
  // more than the call. Seconds:
  //   pack:    host work on the calling thread (validation, packing into pinned memory, job lists,
  //            writing the spans out); only the first sub-batch's packing is not hidden by device work;
  //   upload:  device time of the copies up and the code conversion (CUDA events, summed over sub-batches);
  //   forward: device time from a sub-batch's upload end to its last forward kernel's end, summed;
  //   reverse: device time from there to the sub-batch's spans back on the host (building the reverse
  //            jobs, reverse kernels, starts), summed;
  //   passes:  device time from the first forward start to the last spans back (all passes, the
  //            copies and packing they overlap with included): the call minus the exposed host parts.
  struct Timings {
    double pack = 0;
    double upload = 0;
    double forward = 0;
    double reverse = 0;
    double passes = 0;
    std::uint64_t forward_cells = 0;  // sum of query length x target length
    std::uint64_t reverse_cells = 0;  // cells of the reverse passes' rectangles (end row x end column)
    // Of those, the local ones up to the start's row (start row x end column): what the early exit
    // leaves to compute, plus up to a group's width and a check interval of rows per tile.
    std::uint64_t reverse_cells_to_start = 0;
    std::uint32_t sub_batches = 0;  // summed over the call's batches
    // The calling thread's time (seconds): from the call's start to the first upload enqueued, copying
    // and checking residues (with the pool's threads), enqueuing work, and blocked on results.
    double host_first_upload = 0;
    double host_copy = 0;
    double host_enqueue = 0;
    double host_wait = 0;
  };
  const Timings& last_timings() const;

  // How a batch is cut into sub-batches: one per `residues` residues, each of at least `min_pairs`
  // pairs, at most `max_parts`; the first carries first_percent % of a middle one's cells (its host
  // packing and upload are the only ones no device work hides), the last last_percent % (its reverse
  // pass is the only one no forward work hides); 50 for the first measured best (docs/gpu_pair_kernels.md,
  // "Sub-batches"). The defaults keep every sub-batch large enough to fill an H100 several times over;
  // tests lower them so that a small input (one compute-sanitizer can check in minutes) still has several
  // sub-batches in flight. Results do not depend on them.
  struct SubBatchLimits {
    std::uint64_t residues = std::uint64_t{1} << 22;
    std::size_t min_pairs = 8192;
    std::uint32_t first_percent = 50;  // 1..100
    std::uint32_t last_percent = 100;  // 1..100
    std::size_t max_parts = 8;         // 1..64
    // Pairs batched by size, largest first (within classes 6% apart, in input order): each forward
    // launch lasts at least as long as its longest job (one warp per pair: about 2 ms for 1,000 x
    // 1,000 residues on an H100), and a stream's launches run one after the other, so that pairs in
    // input order made every sub-batch wait for its own longest pairs. Inputs of more than one batch
    // (2^28 residues or 4 M pairs) keep input order. False: input order.
    bool largest_first = true;
  };
  void set_sub_batch_limits(const SubBatchLimits& limits);

  // Kernel choices, for tests and benchmarks; results never depend on them.
  //   reverse_early_exit: a local reverse pass stops once every lane has passed the first row that
  //                       reaches the forward score (no later row can hold the start);
  //   early_exit_check_steps: how often (in wavefront steps) a group checks for it: 1, 2, 4, ... 32;
  //   packed_lanes: local passes whose scores provably fit 16 bits (min(query, target length) x the
  //                 largest score + the largest score + open + extend <= 32767; 8-bit profiles) run
  //                 two columns per 32-bit register (s16x2, DPX on sm_90); the others 32-bit.
  //                 Off by default: on the H100 the packed shapes' forward kernels took 1.5x the
  //                 32-bit ones' time (docs/gpu_pair_kernels.md);
  //   packed_length_limit: > 0 lowers that bound on min(query, target length) (tests: 16- and 32-bit
  //                 pairs in one call); 0 keeps the proven one;
  //   reverse_first: the reverse passes' streams at the device's highest priority, so that freed
  //                 multiprocessors go to their short kernels before the later sub-batches' forward
  //                 kernels (without it the reverse passes fell behind and 2 ms of them were left
  //                 after the last forward kernel; docs/gpu_pair_kernels.md, "The call's timeline").
  // Throws std::invalid_argument for another check interval or a negative limit.
  struct KernelOptions {
    bool reverse_early_exit = true;
    int early_exit_check_steps = 8;
    bool packed_lanes = false;
    int packed_length_limit = 0;
    bool reverse_first = true;
  };
  void set_kernel_options(const KernelOptions& options);

  // A timeline of the last align() call, for benchmarks (off by default: tracing records two timing
  // events around every launch and copy). Device entries: what ran (upload, forward, build, reverse,
  // apply, download), its sub-batch, stream (-1 copy, 0..3 forward, 4..6 reverse), kernel shape
  // (kPairShapes index, -1 for none) and jobs, begin and end in seconds after an event recorded when
  // the call starts. Host entries (stream -2): the calling thread's work per sub-batch, in seconds
  // after the call's start; the two clocks agree to the few microseconds the first event takes.
  struct TraceEntry {
    std::string what;
    int sub_batch = 0;
    int stream = 0;
    int shape = -1;
    std::uint32_t jobs = 0;
    double begin = 0;
    double end = 0;
  };
  void set_trace(bool on);
  const std::vector<TraceEntry>& last_trace() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpsearch::gpu
