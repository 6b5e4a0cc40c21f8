// Launch interface of the GPU Smith-Waterman kernels: the parameters every bin's kernel takes, and the
// per-bin entry points, one explicit instantiation each (sw_onepass_*.cu, sw_tiled_cooperative_rescore.cu). Private to
// kernels/gpu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/length_bins.hpp"

namespace warpsearch::gpu::detail {

// Padding rows around each query: with k rows a step (1, or 2 in the cooperative bin), a lane reads rows
// k * (step - lane) to k * (step - lane + 2) - 1 (the next step's prefetched), from -k * (group - 1) to
// below m + k * (group + 1), so that every lane computes every step without a branch (sw_kernel.cuh).
inline constexpr int kQueryPadding = 72;

// Everything a scoring kernel reads and writes. Device pointers unless noted.
//
// Substitution table: N = alphabet_n compact codes (the scoring alphabet's letters, then one padding
// code N - 1). Entry c = a * N + b of query code q holds score(q, a) in its low 16 bits and score(q, b)
// in its high 16 bits, so one 32-bit load gives the scores of a query residue against the residues of
// two subjects; the 32-bit kernel reads the low half of entry (q, a, a). The table is one copy of the
// entries per row (word q * N * N + c) or several (kernels/gpu/table_copies.hpp: row stride
// table_row_words, entry c of copy k at table_word(k, c, copy_words)); the plan says which copy each
// lane reads per column. Small alphabets use lane copies instead (lane_copies: word
// q * lane_table_row_words(N) + lane_table_word(c, lane), table_copies.hpp), with no plan.
struct KernelParams {
  const std::uint32_t* table = nullptr;
  int table_words = 0;
  int alphabet_n = 0;
  int copy_words = 0;  // table_copy_words(N); unused with one copy
  bool lane_copies = false;
  const std::uint64_t* plan = nullptr;         // per block of 32 lanes one word per lane; null: copy 0
  const std::uint32_t* plan_blocks = nullptr;  // per job: its first plan block (then one per tile)
  const std::uint8_t* residues = nullptr;      // compact codes of all subjects, one byte each
  const std::uint64_t* offsets = nullptr;      // per subject: first residue in `residues`
  const std::uint32_t* lengths = nullptr;      // per subject
  // The bin's jobs: 16-bit bins take two subject indices per job (the second -1 when the bin has an
  // odd count), the 32-bit bin one.
  const std::int32_t* jobs = nullptr;
  int num_jobs = 0;
  const int* device_job_count = nullptr;  // when set, the job count is read here (rescoring)
  // Tiled bins, when set (zeroed before the launch): a warp's first job is its slot, and each next one
  // the next not yet taken, counted here from the end of the first round (sw_kernel.cuh).
  int* job_counter = nullptr;
  // Byte offsets of table rows (compact query code * row stride * 4) of the query's m residues, with
  // kQueryPadding entries of the padding code's row before and after them; `query` points at the first
  // padding entry.
  const std::uint32_t* query = nullptr;
  int query_length = 0;
  int gap_first = 0;               // open + extend: the cost of a gap's first residue
  int gap_extend = 0;              // the cost of each further residue
  std::int32_t* scores = nullptr;  // per subject
  int* overflow_count = nullptr;   // 16-bit kernels append saturated subjects here
  std::int32_t* overflow_list = nullptr;
  std::uint64_t* edges = nullptr;       // tiled kernels: query_length words per group slot (cooperative: per team)
  int team_warps = kBlockThreads / 32;  // cooperative kernel: warps per pair (cooperative_team_warps)
  // The streamed kernel with table copies: each of the bin's jobs' column copies (2 bits a column, 4 a
  // byte, from stream_plan + stream_plan_offsets[job]; table_copies.hpp, StreamPlanner); null: copy 0.
  const std::uint8_t* stream_plan = nullptr;
  const std::uint64_t* stream_plan_offsets = nullptr;
  // Tiled kernels, when hot_tiles is set: each tile of a subject whose cells reach hot_threshold is
  // appended (HotTile); entries beyond hot_capacity are counted, not written.
  HotTile* hot_tiles = nullptr;
  unsigned long long* hot_count = nullptr;
  unsigned long long hot_capacity = 0;
  int hot_threshold = 0;
};

// Sets the kernel's dynamic shared-memory limit (the largest table any launch of it uses).
template <int Bin>
void prepare_bin(int max_shared_bytes);

// Blocks of `threads` with `shared_bytes` of dynamic shared memory that fit one multiprocessor.
template <int Bin>
int bin_occupancy(int threads, int shared_bytes);

// Launches the kernel of a bin: grid blocks of `threads` threads (a multiple of the group, at most
// copies_block_threads(bin); a grid-stride loop over jobs).
template <int Bin>
void launch_bin(const KernelParams& params, int grid, int threads, int shared_bytes, cudaStream_t stream);

struct BinEntry {
  void (*prepare)(int max_shared_bytes);
  int (*occupancy)(int threads, int shared_bytes);
  void (*launch)(const KernelParams& params, int grid, int threads, int shared_bytes, cudaStream_t stream);
};

// The one dispatch table, indexed like kLengthBins.
const BinEntry& bin_entry(int bin);

// The streamed kernel's entry points (kernels/gpu/sw_streamed.cuh) for `regs` query rows a lane
// (kStreamedMinRegs to kStreamedMaxRegs), and their explicit instantiations (sw_streamed_*.cu).
template <int R>
void prepare_streamed(int max_shared_bytes);
template <int R>
int streamed_occupancy(int threads, int shared_bytes);
template <int R>
void launch_streamed(const KernelParams& params, int grid, int threads, int shared_bytes, cudaStream_t stream);
const BinEntry& streamed_entry(int regs);

}  // namespace warpsearch::gpu::detail
