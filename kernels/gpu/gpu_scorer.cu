// GpuScorer: device buffers, the substitution table, length binning of the subjects and the launch
// sequence of one query (see kernels/gpu/sw_kernel.cuh for the kernels themselves).
//
// Queries alternate between two slots, each with its own streams and work space, so that one query's
// tail overlaps the next query's start. Within a slot, per query:
//   main:     upload query, clear overflow count, fork
//   long:     cooperative bin (subjects longer than 4096)
//   worker k: the tiled bins (1025..4096, one per tile width), then the single-tile bins, round-robin
//             over the workers, longest first (bins run concurrently: a small bin alone would leave
//             most of the device idle); the bins with tile edges share the edge buffer in ranges
//   main:     join, 32-bit rescoring of saturated subjects, copy scores to pinned host memory
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

using detail::DeviceBuffer;
using detail::Event;
using detail::kBinCount;
using detail::copies_block_threads;
using detail::kBlockThreads;
using detail::may_use_table_copies;
using detail::kLengthBins;
using detail::kHugeBin;
using detail::kFirstTiledBin;
using detail::kRescoreBin;
using detail::PinnedBuffer;
using detail::ScopedDevice;
using detail::Stream;

int usable_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return 0;
  }
  return count;
}

namespace {

// Tile edges of the tiled kernels: at most this many bytes per slot (fewer concurrent groups for long
// queries).
constexpr std::size_t kEdgeBudgetBytes = std::size_t{256} << 20;
// Host staging of scores: at most this many bytes per batch of queries.
constexpr std::size_t kScoreStagingBytes = std::size_t{64} << 20;
constexpr int kWorkers = 4;  // streams for the single-tile bins of one query

constexpr int kSlots = 2;    // queries in flight
// Entries of the device list of scores at or above the threshold (score_above), by default.
constexpr std::size_t kDefaultHitCapacity = std::size_t{1} << 20;

int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

// Appends the subjects scoring at least `threshold` to the call's hit list (in any order: the host
// sorts them); entries beyond the capacity are counted, not written, and the host falls back.
__global__ void select_hits(const std::int32_t* scores, std::uint32_t count, int threshold, std::uint32_t query,
                            ScoreHit* hits, unsigned long long capacity, unsigned long long* hit_count) {
  for (std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < count; s += gridDim.x * blockDim.x) {
    const std::int32_t score = scores[s];
    if (score >= threshold) {
      const unsigned long long at = atomicAdd(hit_count, 1ull);
      if (at < capacity) hits[at] = ScoreHit{query, s, score};
    }
  }
}

// Database residue codes -> the table's compact codes (letters beyond the alphabet: the padding code).
struct CodeMap {
  std::uint8_t compact[256];
};

__global__ void compact_codes(std::uint8_t* residues, std::size_t count, const CodeMap map) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    residues[i] = map.compact[residues[i]];
}

// One block of 32 lanes of a bin's kernel to plan (table_copies.hpp): `jobs` consecutive jobs from
// `first_job` (32 / group of them, fewer at the end of a bin), at tile `tile`.
struct PlanTask {
  std::int32_t first_job;
  std::uint16_t tile;
  std::uint8_t group;
  std::uint8_t regs;
  std::uint8_t jobs;
};

// The plan of every task: for each register, the 32 lanes' table entries (code pairs of their column)
// placed over the copies by plan_register; lane l's word holds its copy per register.
__global__ void plan_table_copies(const PlanTask* tasks, std::size_t count, const std::int32_t* jobs,
                                  const std::uint8_t* residues, const std::uint64_t* offsets,
                                  const std::uint32_t* lengths, int n, int copies, std::uint64_t* plan) {
  for (std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; t < count;
       t += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const PlanTask task = tasks[t];
    std::uint64_t words[32] = {};
    for (int j = 0; j < task.regs; ++j) {
      int entries[32];
      int choice[32];
      for (int l = 0; l < 32; ++l) {
        const int g = l / task.group;
        entries[l] = -1;
        if (g >= task.jobs) continue;
        const std::int32_t sa = jobs[2 * (task.first_job + g)];
        const std::int32_t sb = jobs[2 * (task.first_job + g) + 1];
        const std::uint32_t column =
            static_cast<std::uint32_t>(task.tile) * task.group * task.regs + (l % task.group) * task.regs + j;
        const int a = column < lengths[sa] ? residues[offsets[sa] + column] : n - 1;
        const int b = sb >= 0 && column < lengths[sb] ? residues[offsets[sb] + column] : n - 1;
        entries[l] = a * n + b;
      }
      detail::plan_register(entries, copies, choice);
      for (int l = 0; l < 32; ++l) words[l] |= static_cast<std::uint64_t>(choice[l]) << (detail::kPlanBits * j);
    }
    for (int l = 0; l < 32; ++l) plan[t * 32 + l] = words[l];
  }
}

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
  DeviceBuffer<int> overflow_count;
  DeviceBuffer<std::int32_t> overflow_list;
  // score_above: the query's scores at or above its threshold, how many there were (may exceed the
  // capacity), and that count copied back.
  DeviceBuffer<ScoreHit> hits;
  DeviceBuffer<unsigned long long> hit_count;
  PinnedBuffer<unsigned long long> hit_count_back;
  int edge_slots = 0;  // group slots the edge buffer holds for the current query length

  void synchronize() const {
    main.synchronize();
    long_stream.synchronize();
    for (const auto& w : workers) w.synchronize();
  }
};

}  // namespace

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
  // Group slots of the tile-edge buffer a block uses: one per group, one per cooperative block.
  int edge_slots_per_block(int bin) const {
    return kLengthBins[bin].mode == detail::TileMode::cooperative ? 1 : shapes[bin].threads / kLengthBins[bin].group;
  }
  // The row strides of a query's layouts, one per table: [compact_table's][copies_table's, with copies].
  std::vector<int> row_strides() const {
    std::vector<int> strides{compact_table.row_words};
    if (table_copies > 1) strides.push_back(copies_table.row_words);
    return strides;
  }
  std::array<QuerySlot, kSlots> slots;
  std::size_t hit_capacity = kDefaultHitCapacity;  // of each slot's hit list

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
  int grid_for(int bin, long long jobs) const {
    const int jobs_per_block = edge_slots_per_block(bin);
    const int resident = std::max(1, shapes[bin].blocks_per_sm) * sm_count;
    return std::max(1, std::min(ceil_div(jobs, jobs_per_block), resident));
  }

  // Sizes a slot's edge buffer for a query of length m: as many group slots as the bins with tile edges
  // can use at once (each a device-full of blocks; the rescoring runs after them) within the byte
  // budget, at least one block's of any bin.
  void reserve_edges(QuerySlot& slot, int m) const {
    const auto resident_slots = [&](int bin) {
      return static_cast<long long>(std::max(1, shapes[bin].blocks_per_sm)) * sm_count * edge_slots_per_block(bin);
    };
    long long wanted = 0;
    long long one_block = 1;
    for (int bin = kFirstTiledBin; bin <= kHugeBin; ++bin) wanted += resident_slots(bin);
    wanted = std::max(wanted, resident_slots(kRescoreBin));
    for (int bin = kFirstTiledBin; bin < kBinCount; ++bin)
      one_block = std::max<long long>(one_block, edge_slots_per_block(bin));
    const long long affordable = static_cast<long long>(kEdgeBudgetBytes / (static_cast<std::size_t>(m) * sizeof(std::uint64_t)));
    slot.edge_slots = static_cast<int>(std::max(one_block, std::min(wanted, affordable)));
    const std::size_t words = static_cast<std::size_t>(slot.edge_slots) * m;
    if (slot.edges.size() < words) slot.edges = DeviceBuffer<std::uint64_t>(words, device);
  }

  // Where a query's scores go: all of them into `staged` (pinned host memory), or, with `staged` null,
  // those at or above `threshold` into the slot's hit list, tagged with `query`, and their count into
  // the slot's hit_count_back.
  struct Destination {
    std::int32_t* staged = nullptr;
    int threshold = 0;
    std::uint32_t query = 0;
  };

  // Enqueues the scoring of one query (codes premultiplied and padded as KernelParams::query says, in
  // pinned memory) into a slot; the scores reach their destination once the slot's main stream is done.
  void enqueue_query(QuerySlot& slot, const std::uint32_t* query, int m, const Destination& to) {
    const std::size_t padded = static_cast<std::size_t>(m) + 2 * detail::kQueryPadding;
    const std::size_t uploaded = padded * (table_copies > 1 ? 2 : 1);  // one layout per row stride
    if (slot.query.size() < uploaded) slot.query = DeviceBuffer<std::uint32_t>(uploaded, device);
    if (slot.scores.size() < count) {
      slot.scores = DeviceBuffer<std::int32_t>(count, device);
      slot.overflow_list = DeviceBuffer<std::int32_t>(count, device);
    }
    if (slot.overflow_count.size() == 0) slot.overflow_count = DeviceBuffer<int>(1, device);
    reserve_edges(slot, m);

    cudaStream_t main = slot.main.get();
    WARPSEARCH_CUDA_CHECK(
        cudaMemcpyAsync(slot.query.get(), query, uploaded * sizeof(std::uint32_t), cudaMemcpyHostToDevice, main));
    WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(slot.overflow_count.get(), 0, sizeof(int), main));
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(slot.forked.get(), main));

    detail::KernelParams p;
    p.alphabet_n = n;
    p.copy_words = copy_words;
    p.residues = d_residues.get();
    p.offsets = d_offsets.get();
    p.lengths = d_lengths.get();
    p.gap_first = gap_first;
    p.gap_extend = gap_extend;
    p.scores = slot.scores.get();
    p.overflow_count = slot.overflow_count.get();
    p.overflow_list = slot.overflow_list.get();
    p.query_length = m;
    p.edges = slot.edges.get();
    const auto edge_grid_cap = [&](int bin) { return std::max(1, slot.edge_slots / edge_slots_per_block(bin)); };
    const auto launch = [&](int bin, int grid, cudaStream_t stream) {
      const Table& t = table_of(bin);
      const bool copies = shapes[bin].copies;
      p.table = t.words.get();
      p.table_words = static_cast<int>(t.words.size());
      p.query = slot.query.get() + (copies ? padded : 0);
      p.plan = copies ? d_plan.get() : nullptr;
      p.plan_blocks = copies ? d_plan_blocks.get() + job_begin[bin] : nullptr;
      detail::bin_entry(bin).launch(p, grid, shapes[bin].threads, t.shared_bytes(), stream);
    };

    // The bins with tile edges (cooperative and tiled) run at once, each on its own range of the edge
    // buffer's group slots: one after the other, each bin's last wave (its longest pairs) made the long
    // stream the critical path of short queries. The cooperative bin, whose longest pairs are the
    // critical path of the whole query, goes on the long stream with its full grid (one slot per block);
    // the tiled ones go on the worker streams before the one-pass bins, their grids scaled down to share
    // the other slots. If a bin would get no block, they all run one after the other on the long stream.
    std::array<int, kBinCount> edge_grid{};
    long long wanted_slots = 0;
    for (int bin = kFirstTiledBin; bin <= kHugeBin; ++bin)
      if (job_count[bin] > 0) edge_grid[bin] = grid_for(bin, job_count[bin]);
    for (int bin = kFirstTiledBin; bin < kHugeBin; ++bin)
      wanted_slots += static_cast<long long>(edge_grid[bin]) * edge_slots_per_block(bin);
    const long long tiled_slots = slot.edge_slots - static_cast<long long>(edge_grid[kHugeBin]) * edge_slots_per_block(kHugeBin);
    bool concurrent = tiled_slots > 0;
    if (concurrent && wanted_slots > tiled_slots)
      for (int bin = kFirstTiledBin; bin < kHugeBin; ++bin)
        if (job_count[bin] > 0) {
          edge_grid[bin] = static_cast<int>(static_cast<long long>(edge_grid[bin]) * tiled_slots / wanted_slots);
          concurrent = concurrent && edge_grid[bin] > 0;
        }

    cudaStream_t lng = slot.long_stream.get();
    WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(lng, slot.forked.get(), 0));
    for (int k = 0; k < kWorkers; ++k)
      WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(slot.workers[k].get(), slot.forked.get(), 0));
    int next_worker = 0;
    long long edge_offset = 0;  // in group slots
    for (int bin = kHugeBin; bin >= kFirstTiledBin; --bin) {  // the longest subjects first
      if (job_count[bin] == 0) continue;
      p.jobs = d_jobs.get() + 2 * static_cast<std::size_t>(job_begin[bin]);
      p.num_jobs = job_count[bin];
      if (!concurrent) {
        launch(bin, std::min(grid_for(bin, p.num_jobs), edge_grid_cap(bin)), lng);
        continue;
      }
      p.edges = slot.edges.get() + static_cast<std::size_t>(edge_offset) * static_cast<std::size_t>(m);
      edge_offset += static_cast<long long>(edge_grid[bin]) * edge_slots_per_block(bin);
      cudaStream_t stream = lng;
      if (bin != kHugeBin) {
        stream = slot.workers[next_worker].get();
        next_worker = (next_worker + 1) % kWorkers;
      }
      launch(bin, edge_grid[bin], stream);
    }
    p.edges = slot.edges.get();
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(slot.long_done.get(), lng));
    for (int bin = kFirstTiledBin - 1; bin >= 0; --bin) {  // longest bins first
      if (job_count[bin] == 0) continue;
      p.jobs = d_jobs.get() + 2 * static_cast<std::size_t>(job_begin[bin]);
      p.num_jobs = job_count[bin];
      launch(bin, grid_for(bin, p.num_jobs), slot.workers[next_worker].get());
      next_worker = (next_worker + 1) % kWorkers;
    }
    for (int k = 0; k < kWorkers; ++k) {
      WARPSEARCH_CUDA_CHECK(cudaEventRecord(slot.worker_done[k].get(), slot.workers[k].get()));
      WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(main, slot.worker_done[k].get(), 0));
    }
    WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(main, slot.long_done.get(), 0));
    // Rescoring: the job count is on the device; the grid covers every subject at worst.
    p.jobs = slot.overflow_list.get();
    p.num_jobs = 0;
    p.device_job_count = slot.overflow_count.get();
    launch(kRescoreBin, std::min(grid_for(kRescoreBin, static_cast<long long>(count)), edge_grid_cap(kRescoreBin)), main);
    if (to.staged != nullptr) {
      WARPSEARCH_CUDA_CHECK(
          cudaMemcpyAsync(to.staged, slot.scores.get(), count * sizeof(std::int32_t), cudaMemcpyDeviceToHost, main));
    } else {
      const int threads = 256;
      const int grid = std::max(1, std::min(ceil_div(static_cast<long long>(count), threads), 4 * sm_count));
      if (slot.hits.size() != hit_capacity) slot.hits = DeviceBuffer<ScoreHit>(hit_capacity, device);
      if (slot.hit_count.size() == 0) {
        slot.hit_count = DeviceBuffer<unsigned long long>(1, device);
        slot.hit_count_back = PinnedBuffer<unsigned long long>(1);
      }
      WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(slot.hit_count.get(), 0, sizeof(unsigned long long), main));
      select_hits<<<grid, threads, 0, main>>>(slot.scores.get(), static_cast<std::uint32_t>(count), to.threshold,
                                               to.query, slot.hits.get(), slot.hits.size(), slot.hit_count.get());
      WARPSEARCH_CUDA_CHECK_LAUNCH();
      WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(slot.hit_count_back.get(), slot.hit_count.get(),
                                            sizeof(unsigned long long), cudaMemcpyDeviceToHost, main));
    }
  }
};

GpuScorer::GpuScorer(int device, const ScoringScheme& scoring, int table_copies) {
  if (table_copies < 1 || table_copies > detail::kMaxTableCopies)
    throw std::invalid_argument("GpuScorer: table copies must be 1 to " + std::to_string(detail::kMaxTableCopies) +
                                ", not " + std::to_string(table_copies));
  const cudaDeviceProp properties = detail::device_properties(device);
  ScopedDevice scoped(device);
  impl_ = std::make_unique<Impl>(device);
  Impl& s = *impl_;
  s.name = properties.name;
  s.sm_count = properties.multiProcessorCount;

  const SubstitutionMatrix& matrix = scoring.matrix();
  const Alphabet& alphabet = matrix.alphabet();
  s.alphabet_size = alphabet.size();
  // Distinct letters the codes are scored as (protein U -> C and O -> X share their letter's row).
  std::vector<std::uint8_t> letters;
  for (int c = 0; c < alphabet.size(); ++c) {
    const std::uint8_t scored = alphabet.scored_as(static_cast<std::uint8_t>(c));
    if (std::find(letters.begin(), letters.end(), scored) == letters.end()) letters.push_back(scored);
  }
  s.n = static_cast<int>(letters.size()) + 1;
  const int pad = s.n - 1;
  s.compact.fill(static_cast<std::uint8_t>(pad));
  for (int c = 0; c < alphabet.size(); ++c) {
    const std::uint8_t scored = alphabet.scored_as(static_cast<std::uint8_t>(c));
    s.compact[static_cast<std::size_t>(c)] =
        static_cast<std::uint8_t>(std::find(letters.begin(), letters.end(), scored) - letters.begin());
  }
  s.gap_first = scoring.gap_open() + scoring.gap_extend();
  s.gap_extend = scoring.gap_extend();

  // Padding scores at most 0 against everything: a column past a subject's end can never raise a
  // local score (every path through it continues from a cell of at least its value).
  const int pad_score = std::min(matrix.min_score(), 0);
  auto score_of = [&](int q, int a) {
    if (q == pad || a == pad) return pad_score;
    return matrix.score(letters[static_cast<std::size_t>(q)], letters[static_cast<std::size_t>(a)]);
  };
  // Copies that do not fit the device's shared memory are dropped (one copy must fit).
  const auto table_bytes = [&](int copies) {
    return static_cast<std::size_t>(s.n) * detail::table_row_words(s.n, copies) * sizeof(std::uint32_t);
  };
  while (table_copies > 1 && table_bytes(table_copies) > properties.sharedMemPerBlockOptin) --table_copies;
  if (table_bytes(1) > properties.sharedMemPerBlockOptin)
    throw std::runtime_error("GPU " + s.name + ": the substitution table needs " + std::to_string(table_bytes(1)) +
                             " bytes of shared memory, the device allows " +
                             std::to_string(properties.sharedMemPerBlockOptin));
  s.table_copies = table_copies;
  s.copy_words = detail::table_copy_words(s.n);
  const auto build = [&](int copies) {
    Impl::Table table;
    table.row_words = detail::table_row_words(s.n, copies);
    std::vector<std::uint32_t> host(static_cast<std::size_t>(s.n) * table.row_words, 0u);
    for (int q = 0; q < s.n; ++q)
      for (int a = 0; a < s.n; ++a)
        for (int b = 0; b < s.n; ++b) {
          const auto lo = static_cast<std::uint32_t>(score_of(q, a)) & 0xFFFFu;
          const auto hi = static_cast<std::uint32_t>(score_of(q, b)) & 0xFFFFu;
          const auto entry = static_cast<std::uint32_t>(a * s.n + b);
          for (int k = 0; k < copies; ++k)
            host[static_cast<std::size_t>(q) * table.row_words +
                 detail::table_word(k, entry, static_cast<std::uint32_t>(s.copy_words))] = lo | (hi << 16);
        }
    table.words = DeviceBuffer<std::uint32_t>(host.size(), s.device);
    WARPSEARCH_CUDA_CHECK(cudaMemcpy(table.words.get(), host.data(), host.size() * sizeof(std::uint32_t),
                                     cudaMemcpyHostToDevice));
    return table;
  };
  s.compact_table = build(1);
  if (s.table_copies > 1) s.copies_table = build(s.table_copies);
  for (int bin = 0; bin < kBinCount; ++bin) {
    const detail::BinEntry& entry = detail::bin_entry(bin);
    const bool copies = s.table_copies > 1 && may_use_table_copies(bin);
    entry.prepare(copies ? s.copies_table.shared_bytes() : s.compact_table.shared_bytes());
    s.compact_shapes[bin] = {false, kBlockThreads, entry.occupancy(kBlockThreads, s.compact_table.shared_bytes())};
    s.copies_shapes[bin] = s.compact_shapes[bin];
    if (copies)
      s.copies_shapes[bin] = {true, copies_block_threads(bin),
                              entry.occupancy(copies_block_threads(bin), s.copies_table.shared_bytes())};
  }
  s.shapes = s.compact_shapes;
}

GpuScorer::~GpuScorer() {
  if (impl_) {
    // Buffers free themselves on their device; make sure no work still uses them (errors ignored: a
    // destructor never throws).
    for (const auto& slot : impl_->slots) {
      cudaStreamSynchronize(slot.main.get());
      cudaStreamSynchronize(slot.long_stream.get());
      for (const auto& w : slot.workers) cudaStreamSynchronize(w.get());
    }
  }
}
GpuScorer::GpuScorer(GpuScorer&&) noexcept = default;
GpuScorer& GpuScorer::operator=(GpuScorer&&) noexcept = default;

std::uint64_t GpuScorer::bytes_for_subjects(std::uint64_t residues, std::size_t subjects,
                                            std::size_t max_query_length) {
  // Per subject: up to 3 bytes of word padding, offset (8), length (4), job entry (4), plan block (4),
  // and in each slot a score and an overflow entry (4 + 4). Per slot: the tile edges (at most the
  // budget), the query in both layouts and the hit list.
  // The plan: 256 bytes per block of 32 lanes and tile, at most one per job (one or two subjects), plus
  // the tiles of at least 320 columns, plus a partial block per bin.
  const std::uint64_t per_subject = 3 + 8 + 4 + 4 + 4 + kSlots * (4 + 4);
  const std::uint64_t per_slot = kEdgeBudgetBytes + 8 * (max_query_length + 2 * detail::kQueryPadding);
  const std::uint64_t plan = 256 * (subjects + residues / 320 + kBinCount);
  return residues + per_subject * subjects + plan + kSlots * (per_slot + kDefaultHitCapacity * sizeof(ScoreHit));
}

std::uint64_t GpuScorer::free_device_memory() const {
  ScopedDevice scoped(impl_->device);
  std::size_t free = 0, total = 0;
  WARPSEARCH_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  // What this scorer holds now is released before the next batch is allocated.
  std::uint64_t held = impl_->d_residues.bytes() + impl_->d_offsets.bytes() + impl_->d_lengths.bytes() +
                       impl_->d_jobs.bytes() + impl_->d_plan.bytes() + impl_->d_plan_blocks.bytes();
  for (const auto& slot : impl_->slots) held += slot.scores.bytes() + slot.overflow_list.bytes() + slot.edges.bytes();
  return free + held;
}

std::uint64_t GpuScorer::resident_residues() const { return impl_->residues; }
std::size_t GpuScorer::resident_subjects() const { return impl_->count; }
std::string GpuScorer::device_name() const { return impl_->name; }

void GpuScorer::set_subjects(const SubjectBatch& subjects) {
  Impl& s = *impl_;
  ScopedDevice scoped(s.device);
  s.synchronize();
  if (subjects.count > static_cast<std::size_t>(0x7FFFFFFF))
    throw std::invalid_argument("GpuScorer::set_subjects: more than 2^31 - 1 subjects in one batch");
  const std::size_t count = subjects.count;
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };

  // The subjects' words go up as they are, one byte per residue (SubjectBatch: residue k of subject i is
  // byte 4 * word_offsets[i] + k), in one copy of the range they span, and become compact codes on the
  // device: a pass over hundreds of MB on the host took 0.3 s of the 262 M-residue set's 0.36 s here.
  const std::uint32_t* lengths = subjects.lengths;
  std::uint64_t first_word = count > 0 ? ~std::uint64_t{0} : 0, end_word = 0;
  for (std::size_t i = 0; i < count; ++i) {
    first_word = std::min(first_word, subjects.word_offsets[i]);
    end_word = std::max(end_word, subjects.word_offsets[i] + (std::uint64_t{lengths[i]} + 3) / 4);
  }
  std::vector<std::uint64_t> offsets(count);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    offsets[i] = 4 * (subjects.word_offsets[i] - first_word);
    total += lengths[i];
  }
  const std::size_t residue_bytes = static_cast<std::size_t>(4 * (end_word - first_word));

  // Jobs per bin: subjects sorted by length (a database chunk already is), paired with their neighbour.
  // The tiled bins run longest first, so that their grid-stride loops end with short jobs.
  std::vector<std::int32_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  if (!std::is_sorted(lengths, lengths + count))
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int32_t a, std::int32_t b) { return lengths[a] < lengths[b]; });
  std::array<std::vector<std::int32_t>, kBinCount> members;
  for (std::int32_t i : order) members[static_cast<std::size_t>(detail::bin_of_length(lengths[i]))].push_back(i);
  for (int bin = kFirstTiledBin; bin <= kHugeBin; ++bin)
    std::reverse(members[static_cast<std::size_t>(bin)].begin(), members[static_cast<std::size_t>(bin)].end());
  std::vector<std::int32_t> jobs;
  for (int bin = 0; bin < kBinCount; ++bin) {
    auto& list = members[static_cast<std::size_t>(bin)];
    if (list.size() % 2 != 0) list.push_back(-1);
    s.job_begin[bin] = static_cast<int>(jobs.size() / 2);
    s.job_count[bin] = static_cast<int>(list.size() / 2);
    jobs.insert(jobs.end(), list.begin(), list.end());
  }

  // The launch shape of each bin: the table with copies where its jobs fill the device with it
  // copies_min_waves times over.
  for (int bin = 0; bin < kBinCount; ++bin) {
    const Impl::LaunchShape& copies = s.copies_shapes[bin];
    const long long device_groups =
        static_cast<long long>(copies.blocks_per_sm) * s.sm_count * (copies.threads / kLengthBins[bin].group);
    s.shapes[bin] = copies.copies && copies.blocks_per_sm > 0 && s.job_count[bin] > 0 &&
                            static_cast<double>(s.job_count[bin]) >= s.copies_min_waves * static_cast<double>(device_groups)
                        ? copies
                        : s.compact_shapes[bin];
  }

  // A plan block per block of 32 lanes and tile of the bins with copies, in job order; each job's first.
  std::vector<PlanTask> tasks;
  std::vector<std::uint32_t> plan_blocks;
  if (s.table_copies > 1) {
    plan_blocks.resize(jobs.size() / 2);
    for (int bin = 0; bin < kBinCount; ++bin) {
      if (!s.shapes[bin].copies) continue;
      const int group = kLengthBins[bin].group;
      const int per_block = 32 / group;  // jobs whose groups share a warp
      const std::uint64_t width = static_cast<std::uint64_t>(group) * kLengthBins[bin].regs;
      for (int first = 0; first < s.job_count[bin]; first += per_block) {
        const int job = s.job_begin[bin] + first;
        const int in_block = std::min(per_block, s.job_count[bin] - first);
        std::uint64_t longest = 0;
        for (int k = 0; k < in_block; ++k)
          for (int side = 0; side < 2; ++side) {
            const std::int32_t subject = jobs[2 * static_cast<std::size_t>(job + k) + side];
            if (subject >= 0) longest = std::max<std::uint64_t>(longest, lengths[subject]);
          }
        const std::uint64_t tiles = kLengthBins[bin].mode == detail::TileMode::single ? 1 : (longest + width - 1) / width;
        for (int k = 0; k < in_block; ++k) plan_blocks[job + k] = static_cast<std::uint32_t>(tasks.size());
        for (std::uint64_t tile = 0; tile < tiles; ++tile)
          tasks.push_back(PlanTask{job, static_cast<std::uint16_t>(tile), static_cast<std::uint8_t>(group),
                                   static_cast<std::uint8_t>(kLengthBins[bin].regs),
                                   static_cast<std::uint8_t>(in_block)});
      }
    }
  }

  s.setup.pack_seconds = seconds_since(started);
  const auto upload_started = Clock::now();
  s.count = count;
  s.residues = total;
  // Buffers large enough are kept: freeing device memory waits for the whole device, which would stall
  // other work on it (another scorer's queries while this one loads). One too small is released before
  // the larger one is allocated (both at once may not fit).
  const auto fit = [&](auto& buffer, std::size_t needed) {
    using Buffer = std::remove_reference_t<decltype(buffer)>;
    needed = std::max<std::size_t>(1, needed);
    if (buffer.size() >= needed) return;
    buffer = Buffer();
    buffer = Buffer(needed, s.device);
  };
  fit(s.d_residues, residue_bytes);
  fit(s.d_offsets, count);
  fit(s.d_lengths, count);
  fit(s.d_jobs, jobs.size());
  cudaStream_t setup = s.setup_stream.get();
  if (residue_bytes > 0) {
    s.upload_staged(s.d_residues.get(), subjects.words + first_word, residue_bytes);
    CodeMap map;
    for (int code = 0; code < 256; ++code)
      map.compact[code] = code < s.alphabet_size ? s.compact[static_cast<std::size_t>(code)] : static_cast<std::uint8_t>(s.n - 1);
    const int grid = std::max(1, std::min(ceil_div(static_cast<long long>(residue_bytes), 256 * 16), 8 * s.sm_count));
    compact_codes<<<grid, 256, 0, setup>>>(s.d_residues.get(), residue_bytes, map);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
  }
  // From pageable memory: each call returns once its source is staged by the driver.
  if (count > 0) {
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(s.d_offsets.get(), offsets.data(), count * sizeof(std::uint64_t),
                                          cudaMemcpyHostToDevice, setup));
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(s.d_lengths.get(), lengths, count * sizeof(std::uint32_t),
                                          cudaMemcpyHostToDevice, setup));
  }
  if (!jobs.empty())
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(s.d_jobs.get(), jobs.data(), jobs.size() * sizeof(std::int32_t),
                                          cudaMemcpyHostToDevice, setup));
  s.setup.upload_seconds = seconds_since(upload_started);
  const auto plan_started = Clock::now();
  if (!tasks.empty()) {
    fit(s.d_plan_blocks, plan_blocks.size());
    fit(s.d_plan, tasks.size() * 32);
    fit(s.d_plan_tasks, tasks.size());
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(s.d_plan_blocks.get(), plan_blocks.data(),
                                          plan_blocks.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice, setup));
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(s.d_plan_tasks.get(), tasks.data(), tasks.size() * sizeof(PlanTask),
                                          cudaMemcpyHostToDevice, setup));
    const int threads = 128;
    const int grid = std::max(1, std::min(ceil_div(static_cast<long long>(tasks.size()), threads), 64 * s.sm_count));
    plan_table_copies<<<grid, threads, 0, setup>>>(s.d_plan_tasks.get(), tasks.size(), s.d_jobs.get(),
                                                   s.d_residues.get(), s.d_offsets.get(), s.d_lengths.get(), s.n,
                                                   s.table_copies, s.d_plan.get());
    WARPSEARCH_CUDA_CHECK_LAUNCH();
  }
  // The query slots' streams do not wait for the setup stream: the batch is ready when this returns.
  WARPSEARCH_CUDA_CHECK(cudaStreamSynchronize(setup));
  s.setup.plan_seconds = seconds_since(plan_started);
}

GpuScorer::SetupTimings GpuScorer::setup_timings() const { return impl_->setup; }

namespace {

// Queries as table-row byte offsets (compact code * row stride * 4) between padding rows
// (KernelParams::query), once per row stride (one per table: with copies, [compact table's][copies
// table's] per query), in pinned memory for asynchronous uploads; start[q] = query q's first padding row.
struct PackedQueries {
  PinnedBuffer<std::uint32_t> rows;
  std::vector<std::size_t> start;
};

PackedQueries pack_queries(const std::vector<std::string>& query_codes, const std::vector<int>& row_strides,
                           int n, int alphabet_size, const std::uint8_t* compact) {
  std::size_t total = 0;
  for (const auto& q : query_codes) {
    if (q.size() > static_cast<std::size_t>(0x3FFFFFFF))
      throw std::invalid_argument("GpuScorer::score: a query longer than 2^30 residues");
    total += (q.size() + 2 * detail::kQueryPadding) * row_strides.size();
  }
  PackedQueries packed{PinnedBuffer<std::uint32_t>(total), std::vector<std::size_t>(query_codes.size())};
  std::size_t at = 0;
  for (std::size_t q = 0; q < query_codes.size(); ++q) {
    packed.start[q] = at;
    for (const int stride : row_strides) {
      const auto row_of = [&](int code) { return static_cast<std::uint32_t>(code * stride) * 4u; };
      std::uint32_t* rows = packed.rows.get() + at;
      std::fill(rows, rows + query_codes[q].size() + 2 * detail::kQueryPadding, row_of(n - 1));
      for (std::size_t i = 0; i < query_codes[q].size(); ++i) {
        const auto code = static_cast<std::uint8_t>(query_codes[q][i]);
        rows[detail::kQueryPadding + i] = row_of(code < alphabet_size ? compact[code] : n - 1);
      }
      at += query_codes[q].size() + 2 * detail::kQueryPadding;
    }
  }
  return packed;
}

}  // namespace

void GpuScorer::score(const std::vector<std::string>& query_codes, std::int32_t* scores) {
  Impl& s = *impl_;
  if (s.count == 0 || query_codes.empty()) return;
  ScopedDevice scoped(s.device);
  s.synchronize();
  const PackedQueries packed = pack_queries(query_codes, s.row_strides(), s.n, s.alphabet_size, s.compact.data());

  const std::size_t batch = std::max<std::size_t>(
      1, std::min(query_codes.size(), kScoreStagingBytes / (s.count * sizeof(std::int32_t))));
  PinnedBuffer<std::int32_t> h_scores(batch * s.count);
  for (std::size_t first = 0; first < query_codes.size(); first += batch) {
    const std::size_t last = std::min(query_codes.size(), first + batch);
    for (std::size_t q = first; q < last; ++q) {
      std::int32_t* staged = h_scores.get() + (q - first) * s.count;
      const int m = static_cast<int>(query_codes[q].size());
      if (m == 0) {
        std::fill(staged, staged + s.count, 0);
        continue;
      }
      Impl::Destination to;
      to.staged = staged;
      s.enqueue_query(s.slots[q % kSlots], packed.rows.get() + packed.start[q], m, to);
    }
    s.synchronize();
    std::memcpy(scores + first * s.count, h_scores.get(), (last - first) * s.count * sizeof(std::int32_t));
  }
}

void GpuScorer::score_above(const std::vector<std::string>& query_codes, const std::vector<int>& thresholds,
                            const HitsOfQuery& found) {
  Impl& s = *impl_;
  if (thresholds.size() != query_codes.size())
    throw std::invalid_argument("GpuScorer::score_above: one threshold per query");
  if (query_codes.size() > 0xFFFFFFFFu) throw std::invalid_argument("GpuScorer::score_above: too many queries");
  if (query_codes.empty()) return;
  std::vector<ScoreHit> hits;
  if (s.count == 0) {
    for (std::size_t q = 0; q < query_codes.size(); ++q) found(q, hits);
    return;
  }
  ScopedDevice scoped(s.device);
  s.synchronize();
  const PackedQueries packed = pack_queries(query_codes, s.row_strides(), s.n, s.alphabet_size, s.compact.data());

  // A slot's query is done once its main stream is (the other streams join it): its hits come back
  // while the other slot's query runs. When more passed than the list holds (a threshold that passes
  // most subjects), its scores, still in the slot, come back whole and are filtered here.
  std::vector<std::int32_t> all_scores;
  const auto collect = [&](QuerySlot& slot, std::size_t q) {
    slot.main.synchronize();
    const unsigned long long passed = *slot.hit_count_back.get();
    hits.clear();
    if (passed <= slot.hits.size()) {
      hits.resize(static_cast<std::size_t>(passed));
      if (passed > 0)
        WARPSEARCH_CUDA_CHECK(
            cudaMemcpy(hits.data(), slot.hits.get(), hits.size() * sizeof(ScoreHit), cudaMemcpyDeviceToHost));
    } else {
      all_scores.resize(s.count);
      WARPSEARCH_CUDA_CHECK(cudaMemcpy(all_scores.data(), slot.scores.get(), s.count * sizeof(std::int32_t),
                                       cudaMemcpyDeviceToHost));
      for (std::size_t k = 0; k < s.count; ++k)
        if (all_scores[k] >= thresholds[q])
          hits.push_back(ScoreHit{static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(k), all_scores[k]});
    }
    std::sort(hits.begin(), hits.end(), [](const ScoreHit& a, const ScoreHit& b) { return a.subject < b.subject; });
    found(q, hits);
  };

  std::array<std::size_t, kSlots> in_slot{};  // the query each slot runs, if busy[slot]
  std::array<bool, kSlots> busy{};
  std::size_t enqueued = 0;
  for (std::size_t q = 0; q < query_codes.size(); ++q) {
    const int m = static_cast<int>(query_codes[q].size());
    if (m == 0) {  // an empty query scores 0 against every subject
      hits.clear();
      if (thresholds[q] <= 0)
        for (std::size_t k = 0; k < s.count; ++k)
          hits.push_back(ScoreHit{static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(k), 0});
      found(q, hits);
      continue;
    }
    const std::size_t k = enqueued++ % kSlots;
    if (busy[k]) collect(s.slots[k], in_slot[k]);
    Impl::Destination to;
    to.threshold = thresholds[q];
    to.query = static_cast<std::uint32_t>(q);
    s.enqueue_query(s.slots[k], packed.rows.get() + packed.start[q], m, to);
    in_slot[k] = q;
    busy[k] = true;
  }
  for (std::size_t i = 0; i < kSlots; ++i) {  // the last queries, in the order they were enqueued
    const std::size_t k = (enqueued + i) % kSlots;
    if (busy[k]) collect(s.slots[k], in_slot[k]);
  }
}

void GpuScorer::score_above(const std::vector<std::string>& query_codes, const std::vector<int>& thresholds,
                            std::vector<ScoreHit>& hits) {
  hits.clear();
  score_above(query_codes, thresholds, [&](std::size_t, const std::vector<ScoreHit>& of_query) {
    hits.insert(hits.end(), of_query.begin(), of_query.end());
  });
  std::sort(hits.begin(), hits.end(), [](const ScoreHit& a, const ScoreHit& b) {
    return a.query != b.query ? a.query < b.query : a.subject < b.subject;
  });
}

void GpuScorer::set_hit_capacity(std::size_t hits) { impl_->hit_capacity = std::max<std::size_t>(1, hits); }

void GpuScorer::set_table_copies_min_waves(double waves) { impl_->copies_min_waves = std::max(0.0, waves); }

}  // namespace warpsearch::gpu
