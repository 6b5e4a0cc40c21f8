// PairPlan: the host plan of GpuPairAligner::align, CUDA-free (built in every configuration). Private to
// kernels/gpu: kernels/gpu/pair_aligner.cu runs it, kernels/gpu/pair_pipeline.cu enqueues what it laid out.
//
// One pass over the pairs (count_pairs), in chunks on the pool's threads (one thread took 0.4-0.5 ms for
// 100,000 pairs, before the first upload): each chunk lists its non-empty pairs at its own offset of
// `listed_pairs`, with their size classes and per class their count, residues and cells; empty pairs
// get their spans there. Then the lists close up into `work`: in input order (list_in_input_order), or,
// when the pairs make one batch and SubBatchLimits::largest_first is on (see there for why), by a stable
// counting sort, largest pairs first (sort_by_size_class), which also lays the batch out: the tallies
// give each chunk's pairs of each class their position, residue and cell offsets, so no other pass over
// the pairs precedes the first sub-batch's packing (lay_out_sorted lays out one sub-batch just before it
// is packed). A batch in input order is laid out whole (lay_out). Either way `bounds` cuts the batch
// into sub-batches of about equal cells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/host_threads.hpp"
#include "core/alignment_mode.hpp"
#include "kernels/gpu/pair_aligner.hpp"
#include "kernels/gpu/pair_dispatch.hpp"

namespace warpsearch::gpu::detail {

// Columns a single-pass shape takes at most: a pass with more runs tile after tile, and its tile edges
// need a word per row (the edge buffers' stride).
constexpr std::uint32_t kSinglePassColumns =
    static_cast<std::uint32_t>(kPairShapes[kFirstTiledShape - 1].group * kPairShapes[kFirstTiledShape - 1].regs);

// The forward job of a pair whose residues are at `at` (query, then target).
inline PairJob forward_job(std::uint64_t at, std::uint32_t m, std::uint32_t n, bool local) {
  return local ? PairJob{at + m, at, n, m} : PairJob{at, at + m, m, n};
}

// A batch's totals: residues, forward cells and the rows of its longest multi-tile job (the tile-edge
// stride).
struct LayoutTotals {
  std::uint64_t residues = 0;
  std::uint64_t cells = 0;
  std::uint64_t stride = 0;
};

// Pairs of one size class in one chunk of the first pass: counted there, then (the counting sort)
// turned into where they go: position, residue offset and cell offset of the next one.
struct ClassTally {
  std::uint64_t pairs = 0;
  std::uint64_t residues = 0;
  std::uint64_t cells = 0;
};

// What the first pass found in one chunk of the pairs.
struct ChunkCount {
  std::size_t listed = 0;  // non-empty pairs
  std::uint64_t residues = 0;
  std::uint64_t stride = 0;  // rows of its longest multi-tile forward job
  bool too_long = false;
  std::uint16_t smallest_class = 0xFFFF;  // of their size classes (the histogram's non-zero range)
  std::uint16_t largest_class = 0;
};

// What the first pass found in all the pairs.
struct PairCounts {
  std::size_t listed = 0;  // non-empty pairs
  std::uint64_t residues = 0;
  bool too_long = false;  // a sequence longer than GpuPairAligner::kMaxSequenceLength
  std::size_t smallest_class = kSizeClasses;
  std::size_t largest_class = 0;
};

struct PairPlan {
  GpuPairAligner::SubBatchLimits limits;
  // The pairs to align (non-empty), in the order they are batched.
  std::vector<std::size_t> work;
  bool batch_presorted = false;  // work is by size, largest first (SubBatchLimits::largest_first)
  // The batch's layout in member order: residues (query, then target) from query_offset, forward jobs,
  // and (batches in input order) cells before each member (count + 1 values).
  std::vector<std::uint64_t> query_offset, cell_prefix;
  std::vector<PairJob> jobs;
  std::vector<std::size_t> bounds;  // sub-batch k: members [bounds[k], bounds[k + 1])

  // The first pass: counts, size classes, the spans of empty pairs in `out` (sized to the pairs) (see
  // kernels/reference/reference.hpp: local 0; semi-global with an empty query 0, with an empty target the
  // query against one gap; global one gap of the other's length).
  PairCounts count_pairs(const std::vector<PairTask>& pairs, AlignmentMode mode, int gap_open, int gap_extend,
                         std::vector<Span>& out, HostThreads& threads);
  // After count_pairs: `work` in input order.
  void list_in_input_order();
  // After count_pairs (with limits.largest_first): the counting sort, its size-class runs and the
  // sub-batch bounds; the totals of the one batch.
  LayoutTotals sort_by_size_class(const PairCounts& counts);
  // The layout of a batch in input order, members[0..count), and its sub-batches.
  LayoutTotals lay_out(const std::vector<PairTask>& pairs, const std::size_t* members, std::size_t count, bool local,
                       HostThreads& threads);
  // Positions [begin, end) of a batch sorted by size class: their pairs (work), residue offsets and jobs.
  void lay_out_sorted(const std::vector<PairTask>& pairs, std::size_t begin, std::size_t end, bool local,
                      HostThreads& threads);

  // Sub-batches of a batch of `residues` in `count` pairs, and the first's and the last's share of it.
  std::size_t sub_batch_parts(std::uint64_t residues, std::size_t count) const;
  std::uint32_t first_percent() const;
  std::uint32_t last_percent() const;

 private:
  std::vector<std::uint64_t> chunk_sums_, chunk_strides_;
  std::vector<ChunkCount> chunk_counts_;
  std::vector<std::size_t> listed_pairs_;
  std::vector<std::uint16_t> size_class_of_;  // of listed_pairs_
  std::vector<ClassTally> class_tallies_;     // [size class][chunk], within each chunk's class range
  std::vector<SizeClassRun> class_runs_;      // of a batch sorted by size class (batch_presorted)
  std::size_t sort_chunks_ = 1;               // the first pass's chunks of the pairs: sort_pairs_ * c / sort_chunks_ on
  std::size_t sort_pairs_ = 0;
};

}  // namespace warpsearch::gpu::detail
