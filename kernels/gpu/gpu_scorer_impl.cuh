// GpuScorer's private state, shared by its two source files: kernels/gpu/gpu_scorer.cu (the device, the
// substitution tables, the resident subjects and their length bins) and kernels/gpu/gpu_scorer_queries.cu
// (the launch sequence of one query, score and score_above). Private to kernels/gpu.
#pragma once

#include "kernels/gpu/gpu_scorer.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/length_bins.hpp"
#include "kernels/gpu/sw_dispatch.hpp"
#include "kernels/gpu/table_copies.hpp"

namespace warpsearch::gpu {
namespace scorer_detail {

using detail::copies_block_threads;
using detail::DeviceBuffer;
using detail::Event;
using detail::kBinCount;
using detail::kBlockThreads;
using detail::kFirstTiledBin;
using detail::kHugeBin;
using detail::kLengthBins;
using detail::kRescoreBin;
using detail::may_use_table_copies;
using detail::PinnedBuffer;
using detail::ScopedDevice;
using detail::Stream;

// Tile edges of the tiled kernels: at most this many bytes per slot (fewer concurrent groups for long
// queries).
constexpr std::size_t kEdgeBudgetBytes = std::size_t{256} << 20;
// Host staging of scores: at most this many bytes per batch of queries.
constexpr std::size_t kScoreStagingBytes = std::size_t{64} << 20;
// Streams for the tiled and one-pass bins of one query. Most bins take about one job's time (their jobs
// fit the device at once), a chain of m steps whatever their size; on four streams a query waited for
// about twelve such chains one after another (1.5-3.5 ms a query against 32.7 M residues, more than
// its cells took). Sixteen run them side by side (docs/gpu_kernels.md, "Launch sequence").
constexpr int kWorkers = 16;

constexpr int kSlots = GpuScorer::kQueriesInFlight;
// Entries of the device list of scores at or above the threshold (score_above), by default.
constexpr std::size_t kDefaultHitCapacity = std::size_t{1} << 20;
// Entries of the device list of hot tiles (score_above_with_hot_tiles), by default.
constexpr std::size_t kDefaultHotTileCapacity = std::size_t{1} << 20;

inline int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

// Database residue codes -> the table's compact codes (letters beyond the alphabet: the padding code).
struct CodeMap {
  std::uint8_t compact[256];
};

// One block of 32 lanes of a bin's kernel to plan (table_copies.hpp): `jobs` consecutive jobs from
// `first_job` (32 / group of them, fewer at the end of a bin), at tile `tile`.
struct PlanTask {
  std::int32_t first_job;
  std::uint16_t tile;
  std::uint8_t group;
  std::uint8_t regs;
  std::uint8_t jobs;
};

// Streams, events and work space of one query in flight.
struct QuerySlot {
  Stream main;
  Stream long_stream;
  std::array<Stream, kWorkers> workers;
  Event forked;
  Event long_done;
  std::array<Event, kWorkers> worker_done;
  DeviceBuffer<std::uint32_t> query;
  DeviceBuffer<std::uint64_t> edges;
  DeviceBuffer<std::int32_t> scores;
  // Saturated subjects to rescore in 32 bits, and how many: [0] those of the one-pass and tiled bins, [1]
  // those of the cooperative bin (long_overflow_list), rescored on the long stream as soon as it ends.
  DeviceBuffer<int> overflow_count;
  DeviceBuffer<std::int32_t> overflow_list;
  DeviceBuffer<std::int32_t> long_overflow_list;
  // Per bin, the jobs the tiled bins' warps have taken past their first (KernelParams::job_counter).
  DeviceBuffer<int> job_counters;
  // score_above: the query's scores at or above its threshold, how many there were (may exceed the
  // capacity), and that count copied back.
  DeviceBuffer<ScoreHit> hits;
  DeviceBuffer<unsigned long long> hit_count;
  PinnedBuffer<unsigned long long> hit_count_back;
  // score_above_with_hot_tiles: the query's hot tiles, how many there were, and that count copied back.
  DeviceBuffer<HotTile> hot_tiles;
  DeviceBuffer<unsigned long long> hot_count;
  PinnedBuffer<unsigned long long> hot_count_back;
  int edge_slots = 0;  // group slots the edge buffer holds for the current query length

  void synchronize() const {
    main.synchronize();
    long_stream.synchronize();
    for (const auto& w : workers) w.synchronize();
  }
};

// Buffers large enough are kept: freeing device memory waits for the whole device, which would stall
// other work on it (another scorer's queries while this one loads), and pinned host memory is slow to
// allocate and free on every call. One too small is released before the larger one is allocated (both
// at once may not fit).
template <class T>
void fit(DeviceBuffer<T>& buffer, std::size_t needed, int device) {
  needed = std::max<std::size_t>(1, needed);
  if (buffer.size() >= needed) return;
  buffer = DeviceBuffer<T>();
  buffer = DeviceBuffer<T>(needed, device);
}
template <class T>
void fit(PinnedBuffer<T>& buffer, std::size_t needed) {
  if (buffer.size() >= needed) return;
  buffer = PinnedBuffer<T>();
  buffer = PinnedBuffer<T>(needed);
}

}  // namespace scorer_detail

using namespace scorer_detail;  // NOLINT: the scorer's own names, in its own files

struct GpuScorer::Impl {
  int device = 0;
  std::string name;
  int sm_count = 0;
  // Compact codes: the scoring alphabet's distinct scored letters, then the padding code.
  std::array<std::uint8_t, kMaxCodes> compact{};
  int alphabet_size = 0;  // codes of the alphabet (below: letters; at or above: padding)
  int n = 0;              // compact codes, padding included
  int gap_first = 0;
  int gap_extend = 0;
  // The substitution table with one copy per row (the bins that do not use copies read it) and, with
  // table_copies > 1, the one with copies (kernels/gpu/table_copies.hpp), each with its own row stride.
  int table_copies = 1;
  int copy_words = 0;
  bool lane_copies = false;  // small alphabets: one table of 32 interleaved copies for every bin
  // A bin runs the table with copies when its jobs fill the device with that shape this many times over:
  // one block per multiprocessor cannot share it with other bins' blocks, so a smaller launch would
  // leave multiprocessors idle (docs/gpu_kernels.md, "Substitution-table copies").
  double copies_min_waves = GpuScorer::kDefaultCopiesMinWaves;
  struct Table {
    DeviceBuffer<std::uint32_t> words;
    int row_words = 0;
    int shared_bytes() const { return static_cast<int>(words.bytes()); }
  };
  Table compact_table;
  Table copies_table;
  // How each bin is launched for the resident subjects (set_subjects): with which table, blocks of how
  // many threads, and how many of them fit a multiprocessor.
  struct LaunchShape {
    bool copies = false;
    int threads = kBlockThreads;
    int blocks_per_sm = 1;
  };
  std::array<LaunchShape, kBinCount> shapes{};
  std::array<LaunchShape, kBinCount> compact_shapes{};  // the candidates, from the constructor
  std::array<LaunchShape, kBinCount> copies_shapes{};
  const Table& table_of(int bin) const { return shapes[bin].copies ? copies_table : compact_table; }
  // The cooperative bin's warps per pair for a query of m rows: cooperative_team_warps(m), but no fewer
  // than its jobs need to fill the device's warps (with few long subjects, their own time is the
  // query's critical path, and a bigger team shortens it).
  int forced_team_warps = 0;  // set_cooperative_team_warps
  int team_warps(int m) const {
    constexpr int kBlockWarps = kBlockThreads / 32;
    if (forced_team_warps > 0) return forced_team_warps;
    const long long device_warps =
        static_cast<long long>(std::max(1, shapes[kHugeBin].blocks_per_sm)) * sm_count * kBlockWarps;
    int k = detail::cooperative_team_warps(m);
    while (k < kBlockWarps && static_cast<long long>(job_count[kHugeBin]) * k < device_warps) k *= 2;
    return k;
  }
  // The streamed kernel's rows a lane for a query of m rows, or 0 for the cooperative kernel
  // (set_long_subject_kernel). The automatic choice (measured, docs/long_sequences.md): the streamed
  // kernel where its padded rows (32 R - m) cost no more than the cooperative tiles' fill (31 steps a
  // tile, against m / 2: a streamed candidate), its jobs, one warp each, fill at least half of the
  // device's warps with the two queries in flight, and the call's streamed candidates give the device at
  // least kStreamedMinWaves waves of such jobs: a lone query's last wave leaves much of the device idle
  // (a 1 kb DNA query alone against 100 Mb: 0.27 s against 0.21-0.23 s with the cooperative kernel).
  static constexpr int kStreamedMinWaves = GpuScorer::kStreamedMinWaves;
  GpuScorer::LongSubjectKernel long_subject_kernel = GpuScorer::LongSubjectKernel::automatic;
  std::array<bool, detail::kStreamedRegCount> streamed_prepared{};  // shared-memory limit set (enqueue_query)
  int streamed_candidates = 0;                                      // of the current call (count_streamed_candidates)
  // The rows a lane for a query of m rows, where the streamed kernel can take it; 0 where not.
  int streamed_fit(int m) const {
    // A stream word holds two columns' entry offsets within a table row, of 16 bits each.
    const long long row_bytes =
        4LL * (lane_copies ? detail::lane_table_row_words(n) : table_copies * detail::table_copy_words(n));
    return m < 1 || m > detail::kStreamedMaxQuery || row_bytes > 0x10000 ? 0 : detail::streamed_regs(m);
  }
  bool streamed_candidate(int m) const {
    const int regs = streamed_fit(m);
    return regs > 0 && m / (32.0 * regs) >= (m / 2.0) / (m / 2.0 + 31);
  }
  void count_streamed_candidates(const std::vector<std::string>& query_codes) {
    streamed_candidates = 0;
    for (const std::string& query : query_codes)
      streamed_candidates += streamed_candidate(static_cast<int>(query.size())) ? 1 : 0;
  }
  int streamed_regs(int m) const {
    using Kernel = GpuScorer::LongSubjectKernel;
    if (long_subject_kernel == Kernel::cooperative) return 0;
    if (long_subject_kernel == Kernel::streamed) return streamed_fit(m);
    const long long device_warps = static_cast<long long>(sm_count) * (detail::kStreamedBlockThreads / 32);
    const long long jobs = job_count[kHugeBin];
    const bool fills =
        2 * jobs * kSlots >= device_warps && jobs * streamed_candidates >= kStreamedMinWaves * device_warps;
    return fills && streamed_candidate(m) ? streamed_fit(m) : 0;
  }
  // Group slots of the tile-edge buffer a block uses for a query of m rows: one per group, one per
  // cooperative team.
  int edge_slots_per_block(int bin, int m) const {
    return kLengthBins[bin].mode == detail::TileMode::cooperative ? kBlockThreads / 32 / team_warps(m)
                                                                  : shapes[bin].threads / kLengthBins[bin].group;
  }
  // The row strides of a query's layouts, one per table: [compact_table's][copies_table's, with copies].
  std::vector<int> row_strides() const {
    std::vector<int> strides{compact_table.row_words};
    if (table_copies > 1) strides.push_back(copies_table.row_words);
    return strides;
  }
  std::array<QuerySlot, kSlots> slots;
  // Pinned host memory of the calls, kept from call to call (kernels/gpu/gpu_scorer_queries.cu): the
  // queries' rows and, for score(), the scores.
  PinnedBuffer<std::uint32_t> query_staging;
  PinnedBuffer<std::int32_t> score_staging;
  std::size_t hit_capacity = kDefaultHitCapacity;           // of each slot's hit list
  std::size_t hot_tile_capacity = kDefaultHotTileCapacity;  // of each slot's list of hot tiles

  // Resident subjects.
  std::size_t count = 0;
  std::uint64_t residues = 0;
  DeviceBuffer<std::uint8_t> d_residues;
  DeviceBuffer<std::uint64_t> d_offsets;
  DeviceBuffer<std::uint32_t> d_lengths;
  DeviceBuffer<std::int32_t> d_jobs;
  std::array<int, kBinCount> job_begin{};  // in jobs (two subject indices each)
  std::array<int, kBinCount> job_count{};
  SetupTimings setup;  // of the last set_subjects
  // With copies: the plan (KernelParams::plan) and each job's first plan block.
  DeviceBuffer<std::uint64_t> d_plan;
  DeviceBuffer<std::uint32_t> d_plan_blocks;
  DeviceBuffer<PlanTask> d_plan_tasks;
  // With copies: the streamed kernel's plan of the cooperative bin's jobs (KernelParams::stream_plan).
  DeviceBuffer<std::uint8_t> d_stream_plan;
  DeviceBuffer<std::uint64_t> d_stream_plan_offsets;
  // set_subjects' own stream and pinned staging buffers: loading a batch waits for nothing else on the
  // device, so another scorer's queries run on meanwhile (the search streams a database through two).
  Stream setup_stream;
  std::array<PinnedBuffer<std::uint8_t>, 2> staging;
  std::array<Event, 2> staged;

  // Host -> device on the setup stream through the two staging buffers: the host copies one piece while
  // the previous one crosses the bus.
  void upload_staged(void* device, const void* host, std::size_t bytes) {
    constexpr std::size_t kPiece = std::size_t{16} << 20;
    for (auto& buffer : staging)
      if (buffer.size() == 0) buffer = PinnedBuffer<std::uint8_t>(kPiece);
    for (std::size_t at = 0, k = 0; at < bytes; at += kPiece, ++k) {
      const std::size_t piece = std::min(kPiece, bytes - at);
      if (k >= 2) WARPSEARCH_CUDA_CHECK(cudaEventSynchronize(staged[k % 2].get()));
      std::memcpy(staging[k % 2].get(), static_cast<const std::uint8_t*>(host) + at, piece);
      WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(static_cast<std::uint8_t*>(device) + at, staging[k % 2].get(), piece,
                                            cudaMemcpyHostToDevice, setup_stream.get()));
      WARPSEARCH_CUDA_CHECK(cudaEventRecord(staged[k % 2].get(), setup_stream.get()));
    }
  }

  explicit Impl(int device_index) : device(device_index) {}

  void synchronize() const {
    for (const auto& slot : slots) slot.synchronize();
  }

  // Grid of a grid-stride launch: enough blocks for the jobs, no more than fit the device at once.
  int grid_for(int bin, long long jobs, int m) const {
    const int jobs_per_block = edge_slots_per_block(bin, m);
    const int resident = std::max(1, shapes[bin].blocks_per_sm) * sm_count;
    return std::max(1, std::min(ceil_div(jobs, jobs_per_block), resident));
  }

  // Sizes a slot's edge buffer for a query of length m: as many group slots as the bins with tile edges
  // can use at once (each a device-full of blocks; the rescoring runs after them) within the byte
  // budget, at least one block's of any bin.
  void reserve_edges(QuerySlot& slot, int m) const {
    const auto resident_slots = [&](int bin) {
      return static_cast<long long>(std::max(1, shapes[bin].blocks_per_sm)) * sm_count * edge_slots_per_block(bin, m);
    };
    long long wanted = 0;
    long long one_block = 1;
    for (int bin = kFirstTiledBin; bin <= kHugeBin; ++bin) wanted += resident_slots(bin);
    wanted = std::max(wanted, resident_slots(kRescoreBin));
    for (int bin = kFirstTiledBin; bin < kBinCount; ++bin)
      one_block = std::max<long long>(one_block, edge_slots_per_block(bin, m));
    const long long affordable =
        static_cast<long long>(kEdgeBudgetBytes / (static_cast<std::size_t>(m) * sizeof(std::uint64_t)));
    slot.edge_slots = static_cast<int>(std::max(one_block, std::min(wanted, affordable)));
    const std::size_t words = static_cast<std::size_t>(slot.edge_slots) * m;
    if (slot.edges.size() < words) slot.edges = DeviceBuffer<std::uint64_t>(words, device);
  }

  // set_subjects' steps (kernels/gpu/gpu_scorer.cu).
  // Jobs per bin, two subject indices each (-1: none), bin after bin; sets job_begin and job_count.
  std::vector<std::int32_t> pair_jobs(const std::uint32_t* lengths, std::size_t count);
  // The launch shape of each bin for its jobs; sets shapes.
  void choose_shapes();
  // With table copies: the plan's tasks (a block of 32 lanes and tile each) and each job's first task.
  void plan_copies(const std::vector<std::int32_t>& jobs, const std::uint32_t* lengths, std::vector<PlanTask>& tasks,
                   std::vector<std::uint32_t>& plan_blocks) const;
  // Uploads the plan's tasks and blocks and computes the plan on the setup stream.
  void upload_plan(const std::vector<PlanTask>& tasks, const std::vector<std::uint32_t>& plan_blocks);
  // With copies: the streamed kernel's plan of the cooperative bin's jobs, on the setup stream.
  void plan_streamed(const std::vector<std::int32_t>& jobs, const std::uint32_t* lengths);

  // Where a query's scores go: all of them into `staged` (pinned host memory), or, with `staged` null,
  // those at or above `threshold` into the slot's hit list, tagged with `query`, and their count into
  // the slot's hit_count_back.
  struct Destination {
    std::int32_t* staged = nullptr;
    int threshold = 0;
    std::uint32_t query = 0;
    bool hot_tiles = false;  // with `staged` null: also the hot tiles into the slot's list
  };

  // Enqueues the scoring of one query (codes premultiplied and padded as KernelParams::query says, in
  // pinned memory) into a slot; the scores reach their destination once the slot's main stream is done.
  // (kernels/gpu/gpu_scorer_queries.cu)
  void enqueue_query(QuerySlot& slot, const std::uint32_t* query, int m, const Destination& to);
  void prepare_slot(QuerySlot& slot, const std::uint32_t* query, int m, std::size_t padded, bool hot_tiles);

  // enqueue_query's steps (kernels/gpu/gpu_scorer_queries.cu).
  // The cooperative bin's jobs (in p) on the streamed kernel of `regs` rows a lane.
  void launch_streamed(const QuerySlot& slot, detail::KernelParams p, int regs, std::size_t padded,
                       cudaStream_t stream);
  // Grids of the bins with tile edges, and whether they run at once (each on its own range of the edge
  // buffer) or one after the other on the long stream.
  struct EdgeGrids {
    std::array<int, kBinCount> grid{};
    bool concurrent = false;
  };
  EdgeGrids edge_grids(const QuerySlot& slot, int m) const;
  // The scores of the query that ran in the slot, to their destination (on the slot's main stream).
  void deliver_scores(QuerySlot& slot, const Destination& to);
  // score_above and score_above_with_hot_tiles (kernels/gpu/gpu_scorer_queries.cu).
  void score_above(const std::vector<std::string>& query_codes, const std::vector<int>& thresholds, bool with_hot_tiles,
                   const HitsAndHotTiles& found);
};

}  // namespace warpsearch::gpu
