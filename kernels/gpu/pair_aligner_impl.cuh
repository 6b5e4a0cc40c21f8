// GpuPairAligner::Impl: the aligner's device state (tables, streams, buffers), its host plan and its
// trace, shared by kernels/gpu/pair_aligner.cu (the API: construction, options, align()) and
// kernels/gpu/pair_pipeline.cu (a batch's sub-batches through the streams). Private to kernels/gpu.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/host_threads.hpp"
#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/pair_aligner.hpp"
#include "kernels/gpu/pair_dispatch.hpp"
#include "kernels/gpu/pair_plan.hpp"

namespace warpsearch::gpu {

using detail::DeviceBuffer;
using detail::Event;
using detail::kPairShapeCount;
using detail::kPairShapes;
using detail::PairEnd;
using detail::PairJob;
using detail::PairKernelParams;
using detail::PairShapeWidths;
using detail::PinnedBuffer;
using detail::ScopedDevice;
using detail::Stream;

namespace detail {

// Residues per batch at most (the actual limit also depends on free device memory).
constexpr std::uint64_t kBatchResidues = std::uint64_t{1} << 28;
// Pairs per batch at most.
constexpr std::size_t kBatchPairs = std::size_t{1} << 22;
// Tile edges: at most this many bytes per stream (7 streams; fewer concurrent groups for very long
// pairs). A pair of kMaxSequenceLength rows needs 8 groups x 2 M rows x 8 bytes = 128 MB.
constexpr std::size_t kEdgeBudgetBytes = std::size_t{128} << 20;
// Streams: one for copies, 4 for forward and 3 for reverse passes, 8 in all: a device runs 8 hardware
// work queues unless CUDA_DEVICE_MAX_CONNECTIONS says otherwise, and a ninth stream shares a queue with
// the first, so that its work also waits for whatever the other's waits for. With 4 reverse streams the
// copy stream shared one: each sub-batch's upload waited until the previous sub-batch's forward pass
// ended (H100 trace, 100,000 local pairs: about 0.3 ms of idle forward streams per sub-batch).
constexpr int kForwardStreams = 4;
constexpr int kReverseStreams = 3;
// Sub-batches: their size limits are GpuPairAligner::SubBatchLimits, whose defaults keep a sub-batch
// large enough to fill the device several times over (an H100 runs about 2,100 one-warp groups at once;
// with 512 pairs per sub-batch, 4,000 DNA pairs of 1-5 kb ran at half the speed of one batch).
// Host threads for packing: at most this many; work below HostThreads::kParallelBytes runs on the calling
// thread.
constexpr unsigned kMaxHostThreads = 16;
// Device counters of a sub-batch: reverse jobs per shape, then the scatter cursors per shape.
constexpr int kCounterWords = 2 * kPairShapeCount;
constexpr unsigned long long kNoError = ~0ull;

// Compact code of each residue code (kernel argument: 32 bytes).
struct CompactMap {
  std::uint8_t code[kMaxCodes];
};

struct ShapeEntry {
  void (*prepare)(int, int*);
  void (*launch)(const PairKernelParams&, int, cudaStream_t);
};

// Packed shapes exist for int8 profiles only (16-bit elements are never packed: empty entries).
template <typename Element, bool Stop, std::size_t S>
inline ShapeEntry make_entry() {
  constexpr detail::PairShape shape = kPairShapes[S];
  if constexpr (shape.packed && sizeof(Element) != 1) {
    return ShapeEntry{nullptr, nullptr};
  } else {
    return ShapeEntry{&detail::prepare_pair_kernel<shape.group, shape.regs, Element, shape.packed, Stop>,
                      &detail::launch_pair_kernel<shape.group, shape.regs, Element, shape.packed, Stop>};
  }
}

template <typename Element, bool Stop, std::size_t... S>
inline std::array<ShapeEntry, kPairShapeCount> make_entries(std::index_sequence<S...>) {
  return {make_entry<Element, Stop, S>()...};
}

// Entries by [wide][stop][shape]: 8-bit or 16-bit profile elements; with the early exit of local reverse
// passes (PairKernelParams::stop_scores) or without.
inline const std::array<ShapeEntry, kPairShapeCount>& shape_entries(bool wide, bool stop) {
  constexpr auto shapes = std::make_index_sequence<kPairShapeCount>{};
  static const auto narrow_entries = make_entries<std::int8_t, false>(shapes);
  static const auto wide_entries = make_entries<std::int16_t, false>(shapes);
  static const auto narrow_stop_entries = make_entries<std::int8_t, true>(shapes);
  static const auto wide_stop_entries = make_entries<std::int16_t, true>(shapes);
  if (stop) return wide ? wide_stop_entries : narrow_stop_entries;
  return wide ? wide_entries : narrow_entries;
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double elapsed_seconds(const Event& from, const Event& to) {
  float ms = 0;
  WARPSEARCH_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms / 1e3;
}

// The events of one sub-batch: timing ones for Timings, the others only order streams.
struct SubBatchEvents {
  Event upload_begin{cudaEventDefault}, upload_end{cudaEventDefault};
  Event forward_begin{cudaEventDefault}, forward_end{cudaEventDefault}, reverse_end{cudaEventDefault};
  Event built;
  std::array<Event, kForwardStreams> forward_done;
  std::array<Event, kReverseStreams> reverse_done;
};

// One sub-batch, packed and staged for upload: members [first, first + count) of the batch, their
// residues [residue_first, + residue_count) of the staging buffer and their forward jobs in launch order.
struct StagedSubBatch {
  std::size_t first = 0;
  std::size_t count = 0;
  std::uint64_t residue_first = 0;
  std::uint64_t residue_count = 0;
  PairJob* jobs = nullptr;
  std::uint64_t reverse_stride = 0;  // rows of the longest multi-tile job (the reverse pass's edge stride)
  std::uint32_t max_cols = 1;
};

}  // namespace detail

using detail::CompactMap;
using detail::elapsed_seconds;
using detail::kBatchPairs;
using detail::kBatchResidues;
using detail::kCounterWords;
using detail::kEdgeBudgetBytes;
using detail::kForwardStreams;
using detail::kMaxHostThreads;
using detail::kNoError;
using detail::kReverseStreams;
using detail::seconds_since;
using detail::shape_entries;
using detail::SubBatchEvents;

struct GpuPairAligner::Impl {
  int device = 0;
  std::string name;
  int sm_count = 0;
  int open = 0;
  int extend = 0;
  int alphabet_codes = 0;  // residue codes accepted: the alphabet's and its padding code
  std::string alphabet_name;
  // Codes scored alike share a profile row (protein U -> C, O -> X), which keeps the widest shape at
  // two blocks per SM: A = alphabet_rows compact codes, the padding code's last.
  CompactMap compact{};
  int alphabet_rows = 0;
  bool wide = false;  // 16-bit profile elements
  // Local passes with min(rows, cols) up to this take packed (16-bit) shapes; 0: none
  // (detail::pair_pack_limit, lowered by KernelOptions::packed_length_limit).
  std::uint32_t pack_limit = 0;
  std::array<int, kPairShapeCount> blocks_per_sm{};       // resident blocks per SM of each shape's kernel,
  std::array<int, kPairShapeCount> blocks_per_sm_stop{};  // and of its early-exit instantiation
  // Score tables s + o, [row code][column code]: rows = target (local) or rows = query.
  DeviceBuffer<std::uint8_t> table_target_rows;
  DeviceBuffer<std::uint8_t> table_query_rows;
  Stream copy_stream;
  std::array<Stream, kForwardStreams> forward_streams;
  std::array<Stream, kReverseStreams> reverse_streams;
  // Tile edges: the forward streams', then the reverse streams'.
  std::array<DeviceBuffer<std::uint64_t>, kForwardStreams + kReverseStreams> edges;
  std::vector<std::unique_ptr<SubBatchEvents>> events;
  KernelOptions kernel_options;
  // Per batch, indexed by the batch's pairs (members) or by sub-batch.
  DeviceBuffer<std::uint8_t> d_residues;
  DeviceBuffer<PairJob> d_jobs;  // forward jobs, each sub-batch in launch order
  DeviceBuffer<PairEnd> d_ends;
  DeviceBuffer<PairJob> d_reverse_jobs;
  DeviceBuffer<PairEnd> d_reverse_ends;
  DeviceBuffer<std::uint32_t> d_reverse_source;
  DeviceBuffer<std::int32_t> d_reverse_scores;
  DeviceBuffer<detail::DeviceSpan> d_spans;   // in launch order
  DeviceBuffer<std::uint32_t> d_counters;     // kCounterWords per sub-batch
  DeviceBuffer<std::uint32_t> d_ranges;       // 2 per shape per sub-batch
  DeviceBuffer<unsigned long long> d_errors;  // per sub-batch
  PinnedBuffer<std::uint8_t> h_residues;
  PinnedBuffer<PairJob> h_jobs;
  PinnedBuffer<detail::DeviceSpan> h_spans;
  PinnedBuffer<unsigned long long> h_errors;
  detail::OutgrownBuffers outgrown;  // the batch buffers' former sizes (reserve_batch runs during scans)
  // Host plan, kept between calls: the batches, their layout and sub-batches (kernels/gpu/pair_plan.hpp),
  // and each sub-batch's launch order.
  detail::PairPlan plan;
  std::vector<std::uint32_t> order;  // per sub-batch: launch position -> member (relative to the sub-batch)
  std::vector<std::uint32_t> part_sorted;
  std::vector<std::uint8_t> part_shapes;  // the shape of each job of part_sorted
  detail::JobOrderScratch order_scratch;
  HostThreads threads{kMaxHostThreads};
  Timings timings;
  // Tracing (set_trace): timing events recorded around launches and copies, read after the call.
  struct PendingTrace {
    TraceEntry entry;
    std::size_t begin_event, end_event;  // into trace_events (device entries)
  };
  bool tracing = false;
  Event trace_origin{cudaEventDefault};
  std::vector<Event> trace_events;
  std::size_t trace_events_used = 0;
  std::vector<PendingTrace> pending_trace;
  std::vector<TraceEntry> trace;

  std::size_t trace_mark(cudaStream_t stream) {
    if (trace_events_used == trace_events.size()) trace_events.emplace_back(cudaEventDefault);
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(trace_events[trace_events_used].get(), stream));
    return trace_events_used++;
  }
  // Runs enqueue(), which puts work on `stream`, between two timing events when tracing.
  template <class Enqueue>
  void traced(const char* what, std::size_t part, int stream_index, cudaStream_t stream, int shape, std::size_t jobs,
              Enqueue&& enqueue) {
    if (!tracing) {
      enqueue();
      return;
    }
    const std::size_t begin = trace_mark(stream);
    enqueue();
    const std::size_t end = trace_mark(stream);
    pending_trace.push_back(
        {TraceEntry{what, static_cast<int>(part), stream_index, shape, static_cast<std::uint32_t>(jobs), 0, 0}, begin,
         end});
  }
  void trace_host(const char* what, std::size_t part, std::chrono::steady_clock::time_point begin,
                  std::uint32_t threads_used = 0) {
    if (!tracing) return;
    const auto since_start = [&](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double>(t - call_start).count();
    };
    trace.push_back(TraceEntry{what, static_cast<int>(part), -2, -1, threads_used, since_start(begin),
                               since_start(std::chrono::steady_clock::now())});
  }
  // After the call's work is done: the device entries' times.
  void finish_trace() {
    for (const PendingTrace& pending : pending_trace) {
      TraceEntry entry = pending.entry;
      float begin_ms = 0, end_ms = 0;
      WARPSEARCH_CUDA_CHECK(
          cudaEventElapsedTime(&begin_ms, trace_origin.get(), trace_events[pending.begin_event].get()));
      WARPSEARCH_CUDA_CHECK(cudaEventElapsedTime(&end_ms, trace_origin.get(), trace_events[pending.end_event].get()));
      entry.begin = begin_ms * 1e-3;
      entry.end = end_ms * 1e-3;
      trace.push_back(std::move(entry));
    }
    pending_trace.clear();
    trace_events_used = 0;
  }

  explicit Impl(int device_index) : device(device_index) {}

  // (Re)creates the streams, all in a row: the driver maps streams to its hardware queues in the order
  // they are created, so that 8 streams made one after the other get 8 different queues.
  void make_streams(bool reverse_first) {
    const int hits = detail::stream_priority(detail::StreamRank::hits);
    copy_stream = Stream(hits);
    for (auto& stream : forward_streams) stream = Stream(hits);
    for (auto& stream : reverse_streams)
      stream = Stream(reverse_first ? detail::stream_priority(detail::StreamRank::hits_first) : hits);
  }

  void synchronize_all() const {
    copy_stream.synchronize();
    for (const auto& stream : forward_streams) stream.synchronize();
    for (const auto& stream : reverse_streams) stream.synchronize();
  }

  int block_threads() const {
    return wide ? detail::kPairBlockThreads<std::int16_t> : detail::kPairBlockThreads<std::int8_t>;
  }

  // Blocks of a launch of `count` jobs of a shape: enough for all of them, at most what stays
  // resident, and (tiled shapes with edges of `edge_stride` words per group) what the edge buffer holds.
  int launch_grid(int shape, std::size_t count, std::uint64_t edge_stride, std::size_t edge_words,
                  bool stop = false) const {
    const int groups_per_block = block_threads() / kPairShapes[shape].group;
    const std::size_t wanted = (count + groups_per_block - 1) / groups_per_block;
    const int per_sm = (stop ? blocks_per_sm_stop : blocks_per_sm)[static_cast<std::size_t>(shape)];
    const std::size_t resident = static_cast<std::size_t>(std::max(1, per_sm)) * sm_count;
    std::size_t grid = std::max<std::size_t>(1, std::min(wanted, resident));
    if (edge_stride > 0)
      grid = std::max<std::size_t>(1, std::min<std::size_t>(grid, edge_words / (edge_stride * groups_per_block)));
    return static_cast<int>(grid);
  }

  // Tile-edge words per stream for passes whose multi-tile jobs have at most `stride` rows.
  std::size_t edge_words_for(std::uint64_t stride) const {
    if (stride == 0) return 0;
    std::size_t words = 0;
    for (int shape = detail::kFirstTiledShape; shape < kPairShapeCount; ++shape) {
      const std::size_t per_block = stride * static_cast<std::size_t>(block_threads() / kPairShapes[shape].group);
      const auto k = static_cast<std::size_t>(shape);
      const std::size_t resident =
          static_cast<std::size_t>(std::max({1, blocks_per_sm[k], blocks_per_sm_stop[k]})) * sm_count;
      words = std::max(words,
                       std::max(per_block, std::min(per_block * resident, kEdgeBudgetBytes / sizeof(std::uint64_t))));
    }
    return words;
  }

  void check_codes(std::string_view codes, std::size_t pair, const char* side) const {
    if (codes.size() > kMaxSequenceLength)
      throw std::invalid_argument("pair " + std::to_string(pair) + ": the " + side + " has " +
                                  std::to_string(codes.size()) + " residues, more than the GPU pair aligner's " +
                                  std::to_string(kMaxSequenceLength));
    const auto* bytes = reinterpret_cast<const unsigned char*>(codes.data());
    if (codes.empty() || *std::max_element(bytes, bytes + codes.size()) < alphabet_codes) return;
    for (std::size_t i = 0; i < codes.size(); ++i) {
      const auto code = static_cast<unsigned char>(codes[i]);
      if (code >= alphabet_codes)
        throw std::invalid_argument("pair " + std::to_string(pair) + ": " + side + " residue " + std::to_string(i + 1) +
                                    " has code " + std::to_string(code) + ", not a residue code of the " +
                                    alphabet_name + " alphabet");
    }
  }

  std::chrono::steady_clock::time_point call_start;  // of the align() call (Timings::host_first_upload)

  // Residues per batch: kBatchResidues, or less where free device memory is short. Asking for free memory
  // (0.06 ms) matters only for work larger than the buffers of an earlier call.
  std::uint64_t batch_residues_for(const detail::PairCounts& counts) const {
    if (counts.listed == 0 || (counts.residues <= d_residues.size() && counts.listed <= d_jobs.size()))
      return kBatchResidues;
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    WARPSEARCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return std::max<std::uint64_t>(1, std::min<std::uint64_t>(kBatchResidues, free_bytes / 4));
  }
  // The plan's layout of a batch in input order, timed and traced.
  detail::LayoutTotals lay_out(const std::vector<PairTask>& pairs, const std::size_t* members, std::size_t count,
                               bool local) {
    const auto clock = std::chrono::steady_clock::now();
    const detail::LayoutTotals totals = plan.lay_out(pairs, members, count, local, threads);
    timings.pack += seconds_since(clock);
    trace_host("layout", 0, clock);
    return totals;
  }
  // The pipeline (kernels/gpu/pair_pipeline.cu): one batch, members[0..count) of the pairs, laid out by
  // the plan; its spans into `out`.
  void align_batch(const std::vector<PairTask>& pairs, const std::size_t* members, std::size_t count,
                   AlignmentMode mode, const detail::LayoutTotals& layout, std::vector<Span>& out);
  // Its steps, sub-batch by sub-batch.
  void reserve_batch(std::size_t count, std::uint64_t residues, std::size_t sub_batches, std::size_t edge_words);
  PairKernelParams pass_params(AlignmentMode mode) const;
  std::uint32_t pass_pack_limit(bool local) const;
  detail::StagedSubBatch pack_sub_batch(const std::vector<PairTask>& pairs, const std::size_t* members,
                                        std::size_t part, bool local, std::uint32_t pass_pack_limit);
  void enqueue_upload(const detail::StagedSubBatch& sub, std::size_t part);
  void enqueue_forward(const detail::StagedSubBatch& sub, std::size_t part, PairKernelParams p, std::size_t edge_words,
                       std::size_t& launches);
  void enqueue_reverse(const detail::StagedSubBatch& sub, std::size_t part, PairKernelParams p, std::size_t edge_words,
                       std::size_t& launches);
  void collect_sub_batch(const std::size_t* members, std::size_t part, AlignmentMode mode, std::vector<Span>& out);
};

}  // namespace warpsearch::gpu
