// GpuPairAligner: validation, batching, the score tables, the job lists of the forward and reverse
// passes and their launches (see kernels/gpu/pair_kernel.cuh for the kernel itself).
//
// Per batch of pairs (at most 2^28 residues and 4 M pairs; 100,000 protein pairs are one batch):
//   forward pass: one job per pair; local: rows = target, columns = query (the query's profile);
//                 semi-global and global: rows = query, columns = target (the end is read in the
//                 last row). Gives the score and the end.
//   reverse pass: local pairs of positive score and semi-global pairs with a non-empty target part:
//                 the same kernel on the prefixes ending at the end, read backwards; its end is the
//                 start. Global spans are the whole pair: no reverse pass.
//
// Pipeline. A batch's pairs are ordered by size, largest first (one warp aligns a pair, so the long
// ones must start early), and cut into up to 8 sub-batches of contiguous pairs and about equal cells. The
// calling thread (with a pool of host threads) lays out and packs sub-batch k + 1 into pinned memory,
// checks its codes and orders its forward jobs while the device works on sub-batch k; nothing of a sub-batch
// waits for the host once it is enqueued:
//   copy stream:      residues and forward jobs up, residue codes -> compact codes;
//   forward streams:  (4) the forward jobs, grouped by kernel shape (by column count, pair_shape_for),
//                     each group by cells, largest first (grid-stride loops end with short jobs);
//   reverse streams:  (3) a small kernel turns the forward ends into spans and reverse jobs, compacted
//                     by shape (atomic counters); the reverse launches read their job range on the
//                     device; a last small kernel adds the starts to the spans (and checks that the
//                     reverse score equals the forward score); the spans go back to pinned memory.
// Forward streams move on to the next sub-batch while the reverse streams finish this one. Every
// stream has its own tile-edge buffer. The host waits once per batch, at the end, and writes the spans
// into `out`. Warm calls allocate nothing (buffers, events and threads are kept).
#include "kernels/gpu/pair_aligner.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/pair_dispatch.hpp"

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

namespace {

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
// Host threads for packing: at most this many; work below kParallelBytes runs on the calling thread.
constexpr unsigned kMaxHostThreads = 16;
constexpr std::uint64_t kParallelBytes = std::uint64_t{1} << 20;
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
ShapeEntry make_entry() {
  constexpr detail::PairShape shape = kPairShapes[S];
  if constexpr (shape.packed && sizeof(Element) != 1) {
    return ShapeEntry{nullptr, nullptr};
  } else {
    return ShapeEntry{&detail::prepare_pair_kernel<shape.group, shape.regs, Element, shape.packed, Stop>,
                      &detail::launch_pair_kernel<shape.group, shape.regs, Element, shape.packed, Stop>};
  }
}

template <typename Element, bool Stop, std::size_t... S>
std::array<ShapeEntry, kPairShapeCount> make_entries(std::index_sequence<S...>) {
  return {make_entry<Element, Stop, S>()...};
}

// Entries by [wide][stop][shape]: 8-bit or 16-bit profile elements; with the early exit of local reverse
// passes (PairKernelParams::stop_scores) or without.
const std::array<ShapeEntry, kPairShapeCount>& shape_entries(bool wide, bool stop) {
  constexpr auto shapes = std::make_index_sequence<kPairShapeCount>{};
  static const auto narrow_entries = make_entries<std::int8_t, false>(shapes);
  static const auto wide_entries = make_entries<std::int16_t, false>(shapes);
  static const auto narrow_stop_entries = make_entries<std::int8_t, true>(shapes);
  static const auto wide_stop_entries = make_entries<std::int16_t, true>(shapes);
  if (stop) return wide ? wide_stop_entries : narrow_stop_entries;
  return wide ? wide_entries : narrow_entries;
}

// Grows (never shrinks) a buffer; only called while no device work uses it.
template <class T>
void ensure_device(DeviceBuffer<T>& buffer, std::size_t count, int device) {
  if (buffer.size() < count) buffer = DeviceBuffer<T>(std::max<std::size_t>(count, buffer.size() * 3 / 2), device);
}

template <class T>
void ensure_pinned(PinnedBuffer<T>& buffer, std::size_t count) {
  if (buffer.size() < count) buffer = PinnedBuffer<T>(std::max<std::size_t>(count, buffer.size() * 3 / 2));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double elapsed_seconds(const Event& from, const Event& to) {
  float ms = 0;
  WARPSEARCH_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms / 1e3;
}

// A fixed pool of host threads that runs fn(begin, end) over chunks of [0, count), the calling thread
// taking part; run() returns when every chunk is done. The workers start on the first parallel run and
// are joined by the destructor. fn must not throw. One run at a time (the aligner's thread).
//
// Built for latency: align() runs several parallel passes of tens of microseconds before its first
// upload, and a sleeping thread takes tens to hundreds of microseconds to wake (on the H100 machine the
// calling thread did most of the first passes alone). So run() waits for the chunks, not for the
// workers (one still waking finds the run over and goes back to wait), and a worker spins (yielding)
// for kSpin after a run before it sleeps again: long enough to stay awake from one align() call to
// the next under a steady load, as OpenMP runtimes keep their threads (Intel's: 200 ms). A chunk is
// claimed by compare-and-swap on one word holding the run's number and the next index, so that a
// worker late for one run can claim nothing of the next.
class HostThreads {
 public:
  HostThreads() = default;
  HostThreads(const HostThreads&) = delete;
  HostThreads& operator=(const HostThreads&) = delete;
  ~HostThreads() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& worker : workers_) worker.join();
  }

  void run(std::size_t count, std::size_t grain, std::uint64_t bytes, const std::function<void(std::size_t, std::size_t)>& fn) {
    grain = std::max<std::size_t>(1, grain);
    if (bytes < kParallelBytes || count <= grain) {
      participants_.store(1, std::memory_order_relaxed);
      if (count > 0) fn(0, count);
      return;
    }
    if (workers_.empty()) start();
    std::uint64_t run = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &fn;
      count_ = count;
      grain_ = grain;
      done_.store(0, std::memory_order_relaxed);
      participants_.store(0, std::memory_order_relaxed);
      run = ++run_;
      claim_.store(run << kRunShift, std::memory_order_release);
    }
    wake_.notify_all();
    work(run, fn, count, grain);
    while (done_.load(std::memory_order_acquire) < count) std::this_thread::yield();
  }
  // Threads that ran chunks of the last run, the caller included (for traces).
  unsigned last_participants() const { return participants_.load(std::memory_order_relaxed); }

 private:
  static constexpr int kRunShift = 40;  // claim_: run number above, next index below (< 2^40)
  static constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << kRunShift) - 1;
  static constexpr std::chrono::milliseconds kSpin{20};

  void start() {
    const unsigned threads = std::max(1u, std::min(kMaxHostThreads, std::thread::hardware_concurrency()));
    for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this] { worker(); });
  }
  // Claims and runs chunks of run `run` until none is left (or another run has begun).
  void work(std::uint64_t run, const std::function<void(std::size_t, std::size_t)>& fn, std::size_t count,
            std::size_t grain) {
    for (bool first = true;; first = false) {
      std::uint64_t word = claim_.load(std::memory_order_acquire);
      std::size_t begin = 0;
      do {
        begin = static_cast<std::size_t>(word & kIndexMask);
        if (word >> kRunShift != run || begin >= count) return;
      } while (!claim_.compare_exchange_weak(word, word + grain, std::memory_order_acq_rel));
      if (first) participants_.fetch_add(1, std::memory_order_relaxed);
      const std::size_t end = std::min(count, begin + grain);
      fn(begin, end);
      done_.fetch_add(end - begin, std::memory_order_release);
    }
  }
  void worker() {
    std::uint64_t seen = 0;
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + kSpin;
      while (claim_.load(std::memory_order_acquire) >> kRunShift == seen && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      const std::function<void(std::size_t, std::size_t)>* task = nullptr;
      std::size_t count = 0;
      std::size_t grain = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || run_ != seen; });
        if (stop_) return;
        seen = run_;
        task = task_;
        count = count_;
        grain = grain_;
      }
      work(seen, *task, count, grain);
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::thread> workers_;
  // The current run, written under the mutex.
  const std::function<void(std::size_t, std::size_t)>* task_ = nullptr;
  std::size_t count_ = 0;
  std::size_t grain_ = 1;
  std::uint64_t run_ = 0;
  bool stop_ = false;
  std::atomic<std::uint64_t> claim_{0};
  std::atomic<std::size_t> done_{0};  // items of the current run done
  std::atomic<unsigned> participants_{0};
};

// Residue codes -> compact codes (the profile's rows), in place.
__global__ void compact_codes_kernel(std::uint8_t* residues, std::uint64_t count, CompactMap map) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride)
    residues[k] = map.code[residues[k]];
}

// The reverse jobs of a sub-batch, step 1: how many per shape (counters[0..S-1], zeroed before).
__global__ void count_reverse_jobs_kernel(const PairJob* jobs, const PairEnd* ends, std::uint32_t count,
                                          AlignmentMode mode, PairShapeWidths widths, std::uint32_t pack_limit,
                                          std::uint32_t* counters) {
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    PairJob reverse;
    if (detail::reverse_job_of(mode, jobs[k], ends[k], reverse))
      atomicAdd(&counters[detail::pair_shape_for(reverse.cols, widths, reverse.rows, pack_limit)], 1u);
  }
}

// Step 2: every job's span as far as the forward pass gives it, and the reverse jobs, shape by shape
// (in any order within a shape) at reverse_jobs[range of the shape]; source[slot] = the forward job,
// reverse_scores[slot] its score (the reverse pass's best: its early exit, pair_kernel.cuh).
// ranges[2 s], ranges[2 s + 1] = first slot and count of shape s.
__global__ void build_reverse_jobs_kernel(const PairJob* jobs, const PairEnd* ends, std::uint32_t count,
                                          AlignmentMode mode, PairShapeWidths widths, std::uint32_t pack_limit,
                                          std::uint32_t* counters, std::uint32_t* ranges, PairJob* reverse_jobs,
                                          std::uint32_t* source, std::int32_t* reverse_scores, PairSpan* spans) {
  std::uint32_t first[kPairShapeCount];
  std::uint32_t total = 0;
  for (int s = 0; s < kPairShapeCount; ++s) {
    first[s] = total;
    total += counters[s];
  }
  if (blockIdx.x == 0 && threadIdx.x < kPairShapeCount) {
    ranges[2 * threadIdx.x] = first[threadIdx.x];
    ranges[2 * threadIdx.x + 1] = counters[threadIdx.x];
  }
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    const PairJob job = jobs[k];
    const PairEnd end = ends[k];
    spans[k] = detail::forward_span(mode, job, end);
    PairJob reverse;
    if (detail::reverse_job_of(mode, job, end, reverse)) {
      const int shape = detail::pair_shape_for(reverse.cols, widths, reverse.rows, pack_limit);
      const std::uint32_t slot = first[shape] + atomicAdd(&counters[kPairShapeCount + shape], 1u);
      reverse_jobs[slot] = reverse;
      source[slot] = k;
      reverse_scores[slot] = end.score;
    }
  }
}

// Step 3, after the reverse pass: the starts. A reverse score other than the forward score (an
// internal error) records the smallest such job, with the reverse score, in *error.
__global__ void apply_reverse_ends_kernel(const std::uint32_t* counters, const PairEnd* reverse_ends,
                                          const std::uint32_t* source, AlignmentMode mode, PairSpan* spans,
                                          unsigned long long* error) {
  std::uint32_t total = 0;
  for (int s = 0; s < kPairShapeCount; ++s) total += counters[s];
  for (std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < total; r += gridDim.x * blockDim.x) {
    const std::uint32_t k = source[r];
    const PairEnd end = reverse_ends[r];
    PairSpan span = spans[k];
    if (end.score != span.score)
      atomicMin(error, (static_cast<unsigned long long>(k) << 32) | static_cast<std::uint32_t>(end.score));
    detail::apply_reverse_end(mode, end, span);
    spans[k] = span;
  }
}

int small_kernel_grid(std::size_t count) {
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>((count + 255) / 256, 1024)));
}

// Columns a single-pass shape takes at most: a pass with more runs tile after tile, and its tile edges
// need a word per row (the edge buffers' stride).
constexpr std::uint32_t kSinglePassColumns =
    static_cast<std::uint32_t>(kPairShapes[detail::kFirstTiledShape - 1].group * kPairShapes[detail::kFirstTiledShape - 1].regs);

// The forward job of a pair whose residues are at `at` (query, then target).
PairJob forward_job(std::uint64_t at, std::uint32_t m, std::uint32_t n, bool local) {
  return local ? PairJob{at + m, at, n, m} : PairJob{at, at + m, m, n};
}

// A batch's totals: residues, forward cells and the rows of its longest multi-tile job (the tile-edge
// stride).
struct LayoutTotals {
  std::uint64_t residues = 0;
  std::uint64_t cells = 0;
  std::uint64_t stride = 0;
};

// Pairs of one size class in one chunk of align()'s first pass: counted there, then (the counting
// sort) turned into where they go: position, residue offset and cell offset of the next one.
struct ClassTally {
  std::uint64_t pairs = 0;
  std::uint64_t residues = 0;
  std::uint64_t cells = 0;
};

// What align()'s first pass found in one chunk of the pairs.
struct ChunkCount {
  std::size_t listed = 0;  // non-empty pairs
  std::uint64_t residues = 0;
  std::uint64_t stride = 0;  // rows of its longest multi-tile forward job
  bool too_long = false;
  std::uint16_t smallest_class = 0xFFFF;  // of their size classes (the histogram's non-zero range)
  std::uint16_t largest_class = 0;
};

// The events of one sub-batch: timing ones for Timings, the others only order streams.
struct SubBatchEvents {
  Event upload_begin{cudaEventDefault}, upload_end{cudaEventDefault};
  Event forward_begin{cudaEventDefault}, forward_end{cudaEventDefault}, reverse_end{cudaEventDefault};
  Event built;
  std::array<Event, kForwardStreams> forward_done;
  std::array<Event, kReverseStreams> reverse_done;
};

}  // namespace

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
  SubBatchLimits sub_batch_limits;
  KernelOptions kernel_options;
  // Per batch, indexed by the batch's pairs (members) or by sub-batch.
  DeviceBuffer<std::uint8_t> d_residues;
  DeviceBuffer<PairJob> d_jobs;  // forward jobs, each sub-batch in launch order
  DeviceBuffer<PairEnd> d_ends;
  DeviceBuffer<PairJob> d_reverse_jobs;
  DeviceBuffer<PairEnd> d_reverse_ends;
  DeviceBuffer<std::uint32_t> d_reverse_source;
  DeviceBuffer<std::int32_t> d_reverse_scores;
  DeviceBuffer<PairSpan> d_spans;  // in launch order
  DeviceBuffer<std::uint32_t> d_counters;  // kCounterWords per sub-batch
  DeviceBuffer<std::uint32_t> d_ranges;    // 2 per shape per sub-batch
  DeviceBuffer<unsigned long long> d_errors;  // per sub-batch
  PinnedBuffer<std::uint8_t> h_residues;
  PinnedBuffer<PairJob> h_jobs;
  PinnedBuffer<PairSpan> h_spans;
  PinnedBuffer<unsigned long long> h_errors;
  // Host plan, kept between calls.
  // The batch's layout in member order: residues (query, then target) from query_offset, forward jobs,
  // and (batches in input order) cells before each member (count + 1 values).
  std::vector<std::uint64_t> query_offset, cell_prefix, chunk_sums, chunk_strides;
  std::vector<PairJob> jobs;
  std::vector<std::uint32_t> order;  // per sub-batch: launch position -> member (relative to the sub-batch)
  std::vector<std::uint32_t> part_sorted;
  std::vector<std::uint8_t> part_shapes;  // the shape of each job of part_sorted
  std::vector<std::size_t> bounds;
  detail::JobOrderScratch order_scratch;
  std::vector<std::size_t> work;  // the pairs to align, in the order they are batched
  bool batch_presorted = false;    // work is by size, largest first (SubBatchLimits::largest_first)
  std::vector<ChunkCount> chunk_counts;
  std::vector<std::size_t> listed_pairs;
  std::vector<std::uint16_t> size_class_of;  // of listed_pairs
  std::vector<ClassTally> class_tallies;  // [size class][chunk], within each chunk's class range
  std::vector<detail::SizeClassRun> class_runs;  // of a batch sorted by size class (batch_presorted)
  std::size_t sort_chunks = 1;  // align()'s chunks of the pairs: sort_pairs * c / sort_chunks on
  std::size_t sort_pairs = 0;
  HostThreads threads;
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
    pending_trace.push_back({TraceEntry{what, static_cast<int>(part), stream_index, shape,
                                        static_cast<std::uint32_t>(jobs), 0, 0},
                             begin, end});
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
      WARPSEARCH_CUDA_CHECK(cudaEventElapsedTime(&begin_ms, trace_origin.get(), trace_events[pending.begin_event].get()));
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
    int least = 0, greatest = 0;
    WARPSEARCH_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    copy_stream = Stream(least);
    for (auto& stream : forward_streams) stream = Stream(least);
    for (auto& stream : reverse_streams) stream = Stream(reverse_first ? greatest : least);
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
      const std::size_t resident = static_cast<std::size_t>(std::max({1, blocks_per_sm[k], blocks_per_sm_stop[k]})) * sm_count;
      words = std::max(words, std::max(per_block, std::min(per_block * resident, kEdgeBudgetBytes / sizeof(std::uint64_t))));
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
        throw std::invalid_argument("pair " + std::to_string(pair) + ": " + side + " residue " +
                                    std::to_string(i + 1) + " has code " + std::to_string(code) +
                                    ", not a residue code of the " + alphabet_name + " alphabet");
    }
  }

  std::chrono::steady_clock::time_point call_start;  // of the align() call (Timings::host_first_upload)

  std::size_t sub_batch_parts(std::uint64_t residues, std::size_t count) const {
    return std::max<std::size_t>(
        1, std::min({std::max<std::size_t>(1, std::min<std::size_t>(64, sub_batch_limits.max_parts)),
                     static_cast<std::size_t>(residues / std::max<std::uint64_t>(1, sub_batch_limits.residues)),
                     count / std::max<std::size_t>(1, sub_batch_limits.min_pairs)}));
  }
  std::uint32_t first_percent() const {
    return std::max<std::uint32_t>(1, std::min<std::uint32_t>(100, sub_batch_limits.first_percent));
  }
  std::uint32_t last_percent() const {
    return std::max<std::uint32_t>(1, std::min<std::uint32_t>(100, sub_batch_limits.last_percent));
  }
  LayoutTotals lay_out(const std::vector<PairTask>& pairs, const std::size_t* members, std::size_t count, bool local);
  void lay_out_sorted(const std::vector<PairTask>& pairs, std::size_t begin, std::size_t end, bool local);
  void align_batch(const std::vector<PairTask>& pairs, const std::size_t* members, std::size_t count, AlignmentMode mode,
                   const LayoutTotals& layout, std::vector<PairSpan>& out);
};

namespace {

// Copies codes to `to` and returns their largest code (0 for none): one pass over the source, the
// check reading the copy while it is in cache.
unsigned char copy_codes(std::uint8_t* to, std::string_view codes) {
  std::memcpy(to, codes.data(), codes.size());
  unsigned char largest = 0;
  for (std::size_t i = 0; i < codes.size(); ++i) largest = std::max(largest, to[i]);
  return largest;
}

}  // namespace

// The layout of a batch in input order (a batch sorted largest first is laid out sub-batch by sub-batch,
// lay_out_sorted), and its sub-batches: in chunks on the pool's threads (this loop over every pair delays the first upload: 1.2 ms for
// 100,000 pairs on one core of the H100 machine), residues and cells per chunk first, then each chunk
// from its offsets.
LayoutTotals GpuPairAligner::Impl::lay_out(const std::vector<PairTask>& pairs, const std::size_t* members,
                                           std::size_t count, bool local) {
  const auto clock = std::chrono::steady_clock::now();
  query_offset.resize(count);
  cell_prefix.resize(count + 1);
  jobs.resize(count);
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(64, count / 2048));
  const std::uint64_t layout_bytes = chunks > 1 ? kParallelBytes : 0;  // in parallel from 4,096 pairs
  chunk_sums.assign(2 * (chunks + 1), 0);  // residues, then cells, before each chunk (after the scan)
  chunk_strides.assign(chunks, 0);         // the rows of each chunk's longest multi-tile job
  auto chunk_begin = [&](std::size_t c) { return count * c / chunks; };
  threads.run(chunks, 1, layout_bytes, [&](std::size_t first_chunk, std::size_t end_chunk) {
    for (std::size_t c = first_chunk; c < end_chunk; ++c) {
      std::uint64_t chunk_residues = 0, chunk_cells = 0;
      for (std::size_t i = chunk_begin(c); i < chunk_begin(c + 1); ++i) {
        const PairTask& task = pairs[members[i]];
        chunk_residues += task.query.size() + task.target.size();
        chunk_cells += std::uint64_t{task.query.size()} * task.target.size();
      }
      chunk_sums[c + 1] = chunk_residues;
      chunk_sums[chunks + 1 + c + 1] = chunk_cells;
    }
  });
  for (std::size_t c = 0; c < chunks; ++c) {
    chunk_sums[c + 1] += chunk_sums[c];
    chunk_sums[chunks + 1 + c + 1] += chunk_sums[chunks + 1 + c];
  }
  threads.run(chunks, 1, layout_bytes, [&](std::size_t first_chunk, std::size_t end_chunk) {
    for (std::size_t c = first_chunk; c < end_chunk; ++c) {
      std::uint64_t at = chunk_sums[c];
      std::uint64_t cells = chunk_sums[chunks + 1 + c];
      std::uint64_t stride = 0;
      for (std::size_t i = chunk_begin(c); i < chunk_begin(c + 1); ++i) {
        const auto m = static_cast<std::uint32_t>(pairs[members[i]].query.size());
        const auto n = static_cast<std::uint32_t>(pairs[members[i]].target.size());
        query_offset[i] = at;
        jobs[i] = forward_job(at, m, n, local);
        at += std::uint64_t{m} + n;
        cell_prefix[i] = cells;
        cells += std::uint64_t{m} * n;
        if (jobs[i].cols > kSinglePassColumns) stride = std::max<std::uint64_t>(stride, jobs[i].rows);
      }
      chunk_strides[c] = stride;
    }
  });
  cell_prefix[count] = chunk_sums[2 * chunks + 1];
  const LayoutTotals totals{chunk_sums[chunks], cell_prefix[count],
                            *std::max_element(chunk_strides.begin(), chunk_strides.end())};
  detail::split_by_weight(cell_prefix, sub_batch_parts(totals.residues, count), bounds, first_percent(),
                          last_percent());
  timings.pack += seconds_since(clock);
  trace_host("layout", 0, clock);
  return totals;
}

// Positions [begin, end) of a batch that align() sorted by size class (batch_presorted): their pairs
// (work), residue offsets and forward jobs, from the offsets the sort left in the class tallies. Each
// chunk walks its pairs of the classes those positions hold and keeps those that land inside. Laid out
// sub-batch by sub-batch, just before packing: only the first one's layout precedes the first upload
// (the whole batch's, scattered by size class, took 0.3-0.5 ms of 16 threads on the H100 machine).
void GpuPairAligner::Impl::lay_out_sorted(const std::vector<PairTask>& pairs, std::size_t begin, std::size_t end,
                                          bool local) {
  auto run_of = [&](std::size_t position) {
    return std::upper_bound(class_runs.begin(), class_runs.end(), position,
                            [](std::size_t p, const detail::SizeClassRun& run) { return p < run.first_position; }) -
           1;
  };
  const std::size_t largest = run_of(begin)->size_class;
  const std::size_t smallest = run_of(end - 1)->size_class;
  const std::size_t chunks = sort_chunks;
  threads.run(chunks, 1, chunks > 1 ? kParallelBytes : 0, [&](std::size_t first_chunk, std::size_t end_chunk) {
    for (std::size_t c = first_chunk; c < end_chunk; ++c) {
      const ChunkCount& count = chunk_counts[c];
      const std::size_t low = std::max<std::size_t>(smallest, count.smallest_class);
      const std::size_t high = std::min<std::size_t>(largest, count.largest_class);
      if (count.listed == 0 || low > high) continue;
      std::array<ClassTally, detail::kSizeClasses> cursor;  // this chunk's, here (no false sharing)
      for (std::size_t size_class = low; size_class <= high; ++size_class)
        cursor[size_class] = class_tallies[size_class * chunks + c];
      const std::size_t chunk_begin = sort_pairs * c / chunks;
      for (std::size_t i = chunk_begin; i < chunk_begin + count.listed; ++i) {
        const std::size_t size_class = size_class_of[i];
        if (size_class < low || size_class > high) continue;
        const std::size_t k = listed_pairs[i];
        const auto m = static_cast<std::uint32_t>(pairs[k].query.size());
        const auto n = static_cast<std::uint32_t>(pairs[k].target.size());
        ClassTally& t = cursor[size_class];
        const std::uint64_t to = t.pairs++;
        if (to >= begin && to < end) {
          work[to] = k;
          query_offset[to] = t.residues;
          jobs[to] = forward_job(t.residues, m, n, local);
        }
        t.residues += std::uint64_t{m} + n;
      }
    }
  });
}

// Aligns the pairs members[0..count) (non-empty sequences, valid lengths), whose residues fit one batch,
// cut into sub-batches (bounds) and laid out (query_offset, jobs; a batch sorted by size class one
// sub-batch at a time, here), and writes their spans into `out`.
void GpuPairAligner::Impl::align_batch(const std::vector<PairTask>& pairs, const std::size_t* members, std::size_t count,
                                       AlignmentMode mode, const LayoutTotals& layout, std::vector<PairSpan>& out) {
  auto clock = std::chrono::steady_clock::now();
  const bool local = mode == AlignmentMode::local;
  const std::uint64_t residues = layout.residues;
  timings.forward_cells += layout.cells;
  const std::size_t sub_batches = bounds.size() - 1;
  timings.sub_batches += static_cast<std::uint32_t>(sub_batches);

  // Buffers and edges for the whole batch, before anything is enqueued (growing one synchronises).
  const std::size_t edge_words = edge_words_for(layout.stride);
  for (auto& edge : edges) ensure_device(edge, edge_words, device);
  ensure_pinned(h_residues, residues);
  ensure_pinned(h_jobs, count);
  ensure_pinned(h_spans, count);
  ensure_pinned(h_errors, sub_batches);
  ensure_device(d_residues, residues, device);
  ensure_device(d_jobs, count, device);
  ensure_device(d_ends, count, device);
  ensure_device(d_reverse_jobs, count, device);
  ensure_device(d_reverse_ends, count, device);
  ensure_device(d_reverse_source, count, device);
  ensure_device(d_reverse_scores, count, device);
  ensure_device(d_spans, count, device);
  ensure_device(d_counters, sub_batches * kCounterWords, device);
  ensure_device(d_ranges, sub_batches * kCounterWords, device);
  ensure_device(d_errors, sub_batches, device);
  while (events.size() < sub_batches) events.push_back(std::make_unique<SubBatchEvents>());
  order.resize(count);
  WARPSEARCH_CUDA_CHECK(
      cudaMemsetAsync(d_counters.get(), 0, sub_batches * kCounterWords * sizeof(std::uint32_t), reverse_streams[0].get()));
  WARPSEARCH_CUDA_CHECK(
      cudaMemsetAsync(d_errors.get(), 0xFF, sub_batches * sizeof(unsigned long long), reverse_streams[0].get()));

  PairKernelParams base;
  base.residues = d_residues.get();
  base.table = local ? table_target_rows.get() : table_query_rows.get();
  base.alphabet_rows = alphabet_rows;
  base.gap_open = open;
  base.gap_extend = extend;
  base.mode = mode;
  const auto& entries = shape_entries(wide, false);
  constexpr PairShapeWidths widths = detail::pair_shape_widths();
  // Packed (16-bit) shapes: local passes only, both directions, pairs within the proven bound.
  std::uint32_t pass_pack_limit = 0;
  if (local && kernel_options.packed_lanes) {
    pass_pack_limit = pack_limit;
    if (kernel_options.packed_length_limit > 0)
      pass_pack_limit = std::min(pass_pack_limit, static_cast<std::uint32_t>(kernel_options.packed_length_limit));
  }
  timings.pack += seconds_since(clock);
  trace_host("plan", 0, clock);

  // Launches go round robin over the streams, continuing from sub-batch to sub-batch: pairs batched
  // largest first make sub-batches of one or two kernel shapes.
  std::size_t forward_launches = 0;
  std::size_t reverse_launches = 0;
  for (std::size_t part = 0; part < sub_batches; ++part) {
    clock = std::chrono::steady_clock::now();
    const std::size_t first = bounds[part];
    const std::size_t n = bounds[part + 1] - first;
    if (batch_presorted) lay_out_sorted(pairs, first, first + n, local);
    const PairTask& last_pair = pairs[members[first + n - 1]];
    const std::uint64_t residue_first = query_offset[first];
    const std::uint64_t residue_count =
        query_offset[first + n - 1] + last_pair.query.size() + last_pair.target.size() - residue_first;
    // Pack and check (host threads), then the launch order of the forward jobs.
    std::atomic<bool> bad_code{false};
    std::uint8_t* staged = h_residues.get();
    const auto copy_clock = std::chrono::steady_clock::now();
    threads.run(n, 64, residue_count, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = first + begin; i < first + end; ++i) {
        const PairTask& task = pairs[members[i]];
        const unsigned char largest =
            std::max(copy_codes(staged + query_offset[i], task.query),
                     copy_codes(staged + query_offset[i] + task.query.size(), task.target));
        if (largest >= alphabet_codes) bad_code.store(true);
      }
    });
    timings.host_copy += seconds_since(copy_clock);
    if (bad_code.load()) {
      synchronize_all();  // earlier sub-batches may still read the buffers
      // Pairs are batched largest first: the first bad pair in input order is named.
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        check_codes(pairs[k].query, k, "query");
        check_codes(pairs[k].target, k, "target");
      }
    }
    std::uint32_t* part_order = order.data() + first;
    // Pairs batched largest first (align(), batch_presorted) are by cells already: then only grouped by
    // shape.
    detail::order_pair_jobs(jobs.data() + first, n, part_sorted, part_shapes, order_scratch, pass_pack_limit,
                            batch_presorted);
    std::copy(part_sorted.begin(), part_sorted.end(), part_order);
    PairJob* staged_jobs = h_jobs.get() + first;
    std::uint64_t reverse_stride = 0;
    std::uint32_t max_cols = 1;
    for (std::size_t j = 0; j < n; ++j) {
      staged_jobs[j] = jobs[first + part_order[j]];
      max_cols = std::max(max_cols, staged_jobs[j].cols);
      if (staged_jobs[j].cols > kSinglePassColumns)
        reverse_stride = std::max<std::uint64_t>(reverse_stride, staged_jobs[j].rows);
    }
    timings.pack += seconds_since(clock);
    trace_host("pack", part, clock, threads.last_participants());

    SubBatchEvents& ev = *events[part];
    clock = std::chrono::steady_clock::now();
    if (part == 0 && timings.host_first_upload == 0) timings.host_first_upload = seconds_since(call_start);
    // Up: residues, jobs, compact codes.
    cudaStream_t copy = copy_stream.get();
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.upload_begin.get(), copy));
    traced("upload", part, -1, copy, -1, n, [&] {
      WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(d_residues.get() + residue_first, staged + residue_first, residue_count,
                                            cudaMemcpyHostToDevice, copy));
      WARPSEARCH_CUDA_CHECK(
          cudaMemcpyAsync(d_jobs.get() + first, staged_jobs, n * sizeof(PairJob), cudaMemcpyHostToDevice, copy));
      compact_codes_kernel<<<small_kernel_grid(residue_count / 4), 256, 0, copy>>>(d_residues.get() + residue_first,
                                                                                   residue_count, compact);
      WARPSEARCH_CUDA_CHECK_LAUNCH();
    });
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.upload_end.get(), copy));

    // Forward: one launch per shape present, round robin over the forward streams; a stream waits for
    // this sub-batch's upload only (not for other streams' earlier launches), and the reverse pass for
    // the streams this sub-batch used.
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.forward_begin.get(), copy));  // the upload's end (Timings)
    unsigned used_streams = 0;
    PairKernelParams p = base;
    p.reverse = false;
    for (std::size_t j = 0; j < n;) {
      const int shape = part_shapes[j];
      const std::uint32_t width = widths.width[shape];
      std::uint64_t stride = 0;
      std::size_t end = j;
      for (; end < n && part_shapes[end] == shape; ++end)
        if (staged_jobs[end].cols > width) stride = std::max<std::uint64_t>(stride, staged_jobs[end].rows);
      const int stream = forward_launches++ % kForwardStreams;
      p.jobs = d_jobs.get() + first + j;
      p.ends = d_ends.get() + first + j;
      p.num_jobs = static_cast<int>(end - j);
      p.job_range = nullptr;
      p.edges = edges[static_cast<std::size_t>(stream)].get();
      p.edge_stride = stride;
      cudaStream_t on = forward_streams[static_cast<std::size_t>(stream)].get();
      if ((used_streams >> stream & 1u) == 0) {
        WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(on, ev.upload_end.get(), 0));
        used_streams |= 1u << stream;
      }
      traced("forward", part, stream, on, shape, end - j, [&] {
        entries[static_cast<std::size_t>(shape)].launch(p, launch_grid(shape, end - j, stride, edge_words), on);
      });
      j = end;
    }
    cudaStream_t join = reverse_streams[0].get();
    for (int s = 0; s < kForwardStreams; ++s) {
      if ((used_streams >> s & 1u) == 0) continue;
      const auto k = static_cast<std::size_t>(s);
      WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.forward_done[k].get(), forward_streams[k].get()));
      WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(join, ev.forward_done[k].get(), 0));
    }
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.forward_end.get(), join));

    // Spans and reverse jobs on the device, then the reverse launches (job ranges read there).
    std::uint32_t* counters = d_counters.get() + part * kCounterWords;
    std::uint32_t* ranges = d_ranges.get() + part * kCounterWords;
    const auto n32 = static_cast<std::uint32_t>(n);
    traced("build", part, kForwardStreams, join, -1, n, [&] {
      count_reverse_jobs_kernel<<<small_kernel_grid(n), 256, 0, join>>>(d_jobs.get() + first, d_ends.get() + first,
                                                                          n32, mode, widths, pass_pack_limit, counters);
      WARPSEARCH_CUDA_CHECK_LAUNCH();
      build_reverse_jobs_kernel<<<small_kernel_grid(n), 256, 0, join>>>(
          d_jobs.get() + first, d_ends.get() + first, n32, mode, widths, pass_pack_limit, counters, ranges,
          d_reverse_jobs.get() + first, d_reverse_source.get() + first, d_reverse_scores.get() + first,
          d_spans.get() + first);
      WARPSEARCH_CUDA_CHECK_LAUNCH();
    });
    if (mode != AlignmentMode::global) {
      WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.built.get(), join));
      for (int s = 1; s < kReverseStreams; ++s)
        WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(reverse_streams[static_cast<std::size_t>(s)].get(), ev.built.get(), 0));
      const unsigned shapes = detail::pair_shapes_up_to(max_cols, pass_pack_limit);
      p.reverse = true;
      p.stop_scores = local && kernel_options.reverse_early_exit ? d_reverse_scores.get() + first : nullptr;
      p.stop_check_mask = kernel_options.early_exit_check_steps - 1;
      const auto& reverse_entries = shape_entries(wide, p.stop_scores != nullptr);
      for (int shape = kPairShapeCount - 1; shape >= 0; --shape) {
        if ((shapes >> shape & 1u) == 0) continue;
        const bool tiled = shape >= detail::kFirstTiledShape;
        const int stream = reverse_launches++ % kReverseStreams;
        p.jobs = d_reverse_jobs.get() + first;
        p.ends = d_reverse_ends.get() + first;
        p.num_jobs = static_cast<int>(n);
        p.job_range = ranges + 2 * shape;
        p.edges = edges[static_cast<std::size_t>(kForwardStreams + stream)].get();
        p.edge_stride = tiled ? reverse_stride : 0;
        const int grid = launch_grid(shape, n, p.edge_stride, edge_words, p.stop_scores != nullptr);
        cudaStream_t on = reverse_streams[static_cast<std::size_t>(stream)].get();
        traced("reverse", part, kForwardStreams + stream, on, shape, 0,
               [&] { reverse_entries[static_cast<std::size_t>(shape)].launch(p, grid, on); });
      }
      for (int s = 1; s < kReverseStreams; ++s) {
        WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.reverse_done[static_cast<std::size_t>(s)].get(), reverse_streams[static_cast<std::size_t>(s)].get()));
        WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(join, ev.reverse_done[static_cast<std::size_t>(s)].get(), 0));
      }
      traced("apply", part, kForwardStreams, join, -1, n, [&] {
        apply_reverse_ends_kernel<<<small_kernel_grid(n), 256, 0, join>>>(counters, d_reverse_ends.get() + first,
                                                                            d_reverse_source.get() + first, mode,
                                                                            d_spans.get() + first, d_errors.get() + part);
        WARPSEARCH_CUDA_CHECK_LAUNCH();
      });
    }
    traced("download", part, kForwardStreams, join, -1, n, [&] {
      WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(h_spans.get() + first, d_spans.get() + first, n * sizeof(PairSpan),
                                            cudaMemcpyDeviceToHost, join));
      WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(h_errors.get() + part, d_errors.get() + part, sizeof(unsigned long long),
                                            cudaMemcpyDeviceToHost, join));
    });
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.reverse_end.get(), join));
    timings.host_enqueue += seconds_since(clock);
    trace_host("enqueue", part, clock);
  }

  // Results, sub-batch by sub-batch as they arrive.
  for (std::size_t part = 0; part < sub_batches; ++part) {
    SubBatchEvents& ev = *events[part];
    clock = std::chrono::steady_clock::now();
    WARPSEARCH_CUDA_CHECK(cudaEventSynchronize(ev.reverse_end.get()));
    timings.host_wait += seconds_since(clock);
    trace_host("wait", part, clock);
    clock = std::chrono::steady_clock::now();
    const std::size_t first = bounds[part];
    const std::size_t n = bounds[part + 1] - first;
    const std::uint32_t* part_order = order.data() + first;
    const PairSpan* spans = h_spans.get() + first;
    if (h_errors.get()[part] != kNoError) {
      synchronize_all();
      const std::size_t j = static_cast<std::size_t>(h_errors.get()[part] >> 32);
      const auto reverse_score = static_cast<std::int32_t>(static_cast<std::uint32_t>(h_errors.get()[part]));
      throw std::logic_error("GPU pair aligner: pair " + std::to_string(members[first + part_order[j]]) +
                             ": the reverse pass scores " + std::to_string(reverse_score) + ", the forward pass " +
                             std::to_string(spans[j].score));
    }
    // Into `out` on the pool's threads: the writes land all over it (members by size), a cache miss
    // each; the last sub-batch, the one with the most pairs, is the call's host tail.
    std::atomic<std::uint64_t> reverse_cells{0}, reverse_cells_to_start{0};
    threads.run(n, 2048, n * 64, [&](std::size_t begin, std::size_t end) {
      std::uint64_t cells = 0, cells_to_start = 0;
      for (std::size_t j = begin; j < end; ++j) {
        const PairSpan& span = spans[j];
        out[members[first + part_order[j]]] = span;
        if (local ? span.score > 0 : mode == AlignmentMode::semiglobal && span.target_end > 0)
          cells += local ? std::uint64_t{span.target_end} * span.query_end : std::uint64_t{span.query_end} * span.target_end;
        if (local && span.score > 0) cells_to_start += std::uint64_t{span.target_end - span.target_begin} * span.query_end;
      }
      reverse_cells.fetch_add(cells, std::memory_order_relaxed);
      reverse_cells_to_start.fetch_add(cells_to_start, std::memory_order_relaxed);
    });
    timings.reverse_cells += reverse_cells.load();
    timings.reverse_cells_to_start += reverse_cells_to_start.load();
    timings.pack += seconds_since(clock);
    trace_host("spans", part, clock, threads.last_participants());
    timings.upload += elapsed_seconds(ev.upload_begin, ev.upload_end);
    timings.forward += elapsed_seconds(ev.forward_begin, ev.forward_end);
    timings.reverse += elapsed_seconds(ev.forward_end, ev.reverse_end);
  }
  timings.passes += elapsed_seconds(events[0]->forward_begin, events[sub_batches - 1]->reverse_end);
}

GpuPairAligner::GpuPairAligner(int device, const ScoringScheme& scoring) {
  const cudaDeviceProp properties = detail::device_properties(device);
  ScopedDevice scoped(device);
  impl_ = std::make_unique<Impl>(device);
  Impl& s = *impl_;
  s.make_streams(s.kernel_options.reverse_first);
  s.name = properties.name;
  s.sm_count = properties.multiProcessorCount;
  s.open = scoring.gap_open();
  s.extend = scoring.gap_extend();
  const Alphabet& alphabet = scoring.matrix().alphabet();
  s.alphabet_codes = alphabet.size() + 1;
  s.alphabet_name = alphabet.name();
  // One representative code per compact code: the distinct letters codes are scored as, then padding.
  std::vector<std::uint8_t> representative;
  for (int c = 0; c < alphabet.size(); ++c) {
    const std::uint8_t scored = alphabet.scored_as(static_cast<std::uint8_t>(c));
    if (std::find(representative.begin(), representative.end(), scored) == representative.end())
      representative.push_back(scored);
  }
  representative.push_back(alphabet.pad_code());
  s.alphabet_rows = static_cast<int>(representative.size());
  std::fill(std::begin(s.compact.code), std::end(s.compact.code), static_cast<std::uint8_t>(s.alphabet_rows - 1));
  for (int c = 0; c < alphabet.size(); ++c)
    s.compact.code[c] = static_cast<std::uint8_t>(
        std::find(representative.begin(), representative.end(), alphabet.scored_as(static_cast<std::uint8_t>(c))) -
        representative.begin());

  // s + o for every pair of compact codes (padding included: it scores the matrix minimum).
  const int first = s.open + s.extend;
  const int a_rows = s.alphabet_rows;
  std::vector<int> target_rows(static_cast<std::size_t>(a_rows) * a_rows);
  std::vector<int> query_rows(target_rows.size());
  int max_profile = INT_MIN;
  for (int a = 0; a < a_rows; ++a)
    for (int b = 0; b < a_rows; ++b) {
      const auto index = static_cast<std::size_t>(a * a_rows + b);
      const std::uint8_t code_a = representative[static_cast<std::size_t>(a)];
      const std::uint8_t code_b = representative[static_cast<std::size_t>(b)];
      target_rows[index] = scoring.score(code_b, code_a) + first;
      query_rows[index] = scoring.score(code_a, code_b) + first;
      if (target_rows[index] > 127 || target_rows[index] < -128) s.wide = true;
      max_profile = std::max(max_profile, target_rows[index]);
    }
  s.pack_limit = detail::pair_pack_limit(scoring.matrix().max_score(), max_profile, s.extend, s.wide);
  const std::size_t element = s.wide ? 2 : 1;
  auto upload = [&](const std::vector<int>& values, DeviceBuffer<std::uint8_t>& buffer) {
    std::vector<std::uint8_t> bytes(values.size() * element);
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (s.wide) {
        const auto v = static_cast<std::int16_t>(values[k]);
        std::memcpy(bytes.data() + 2 * k, &v, 2);
      } else {
        bytes[k] = static_cast<std::uint8_t>(static_cast<std::int8_t>(values[k]));
      }
    }
    buffer = DeviceBuffer<std::uint8_t>(bytes.size(), s.device);
    WARPSEARCH_CUDA_CHECK(cudaMemcpy(buffer.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  };
  upload(target_rows, s.table_target_rows);
  upload(query_rows, s.table_query_rows);

  for (int shape = 0; shape < kPairShapeCount; ++shape) {
    const auto& entry = shape_entries(s.wide, false)[static_cast<std::size_t>(shape)];
    if (entry.prepare == nullptr) continue;  // a packed shape of 16-bit elements: never chosen
    const detail::PairShape& k = kPairShapes[shape];
    const std::size_t bytes = s.wide ? detail::pair_shared_bytes<std::int16_t>(k.group, k.regs, a_rows, k.packed)
                                     : detail::pair_shared_bytes<std::int8_t>(k.group, k.regs, a_rows, k.packed);
    if (bytes > properties.sharedMemPerBlockOptin)
      throw std::runtime_error("GPU " + s.name + ": the pair kernel needs " + std::to_string(bytes) +
                               " bytes of shared memory per block, the device allows " +
                               std::to_string(properties.sharedMemPerBlockOptin));
    entry.prepare(a_rows, &s.blocks_per_sm[static_cast<std::size_t>(shape)]);
    shape_entries(s.wide, true)[static_cast<std::size_t>(shape)].prepare(
        a_rows, &s.blocks_per_sm_stop[static_cast<std::size_t>(shape)]);
  }
}

GpuPairAligner::~GpuPairAligner() {
  if (impl_) {
    // Buffers free themselves on their device; make sure no work still uses them (errors ignored: a
    // destructor never throws).
    cudaStreamSynchronize(impl_->copy_stream.get());
    for (const auto& stream : impl_->forward_streams) cudaStreamSynchronize(stream.get());
    for (const auto& stream : impl_->reverse_streams) cudaStreamSynchronize(stream.get());
  }
}
GpuPairAligner::GpuPairAligner(GpuPairAligner&&) noexcept = default;
GpuPairAligner& GpuPairAligner::operator=(GpuPairAligner&&) noexcept = default;

std::string GpuPairAligner::device_name() const { return impl_->name; }
const GpuPairAligner::Timings& GpuPairAligner::last_timings() const { return impl_->timings; }
void GpuPairAligner::set_sub_batch_limits(const SubBatchLimits& limits) { impl_->sub_batch_limits = limits; }
void GpuPairAligner::set_trace(bool on) { impl_->tracing = on; }
const std::vector<GpuPairAligner::TraceEntry>& GpuPairAligner::last_trace() const { return impl_->trace; }
void GpuPairAligner::set_kernel_options(const KernelOptions& options) {
  const int steps = options.early_exit_check_steps;
  if (steps < 1 || steps > 32 || (steps & (steps - 1)) != 0)
    throw std::invalid_argument("GpuPairAligner: early_exit_check_steps must be 1, 2, 4, 8, 16 or 32, not " +
                                std::to_string(steps));
  if (options.packed_length_limit < 0)
    throw std::invalid_argument("GpuPairAligner: packed_length_limit must be 0 (the proven bound) or positive, not " +
                                std::to_string(options.packed_length_limit));
  if (options.reverse_first != impl_->kernel_options.reverse_first) {
    ScopedDevice scoped(impl_->device);
    impl_->synchronize_all();
    impl_->make_streams(options.reverse_first);
  }
  impl_->kernel_options = options;
}

void GpuPairAligner::align(const std::vector<PairTask>& pairs, AlignmentMode mode, std::vector<PairSpan>& out) {
  Impl& s = *impl_;
  ScopedDevice scoped(s.device);
  s.timings = Timings{};
  const auto clock = std::chrono::steady_clock::now();
  s.call_start = clock;
  s.trace.clear();
  if (s.tracing) WARPSEARCH_CUDA_CHECK(cudaEventRecord(s.trace_origin.get(), s.copy_stream.get()));
  // Codes are checked while packing (the first bad pair is then checked again alone, for its message);
  // lengths here. A too long sequence is rare: then every pair is checked in order, so that the first
  // bad pair is named whatever is wrong with it. Empty sequences are settled here
  // (kernels/reference/reference.hpp): local 0; semi-global with an empty query 0, with an empty target the query
  // against one gap; global one gap of the other's length. One pass over the pairs.
  out.resize(pairs.size());
  // In chunks on the pool's threads (one thread took 0.4-0.5 ms for 100,000 pairs, before the first
  // upload): each chunk lists its non-empty pairs at its own offset of `listed_pairs`, with their size
  // classes and per class their count, residues and cells; then the lists close up into `work`. When the
  // pairs make one batch and SubBatchLimits::largest_first is on (see there for why), that is a stable
  // counting sort, largest pairs first, which also lays the batch out (residue offsets, forward jobs,
  // cells before each pair): the tallies give each chunk's pairs of each class their position, residue
  // and cell offsets, so no other pass over the pairs precedes the first sub-batch's packing.
  const bool largest_first = s.sub_batch_limits.largest_first;
  const bool local = mode == AlignmentMode::local;
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(64, pairs.size() / 2048));
  auto chunk_begin = [&](std::size_t c) { return pairs.size() * c / chunks; };
  s.listed_pairs.resize(pairs.size());
  s.size_class_of.resize(pairs.size());
  s.sort_chunks = chunks;
  s.sort_pairs = pairs.size();
  std::vector<ChunkCount>& counts = s.chunk_counts;
  counts.assign(chunks, ChunkCount{});
  // Tallies [size class][chunk], so that the offsets' serial pass reads them in order; each chunk counts
  // in its own array and writes out its classes' range (the other entries are stale, never read).
  std::vector<ClassTally>& tallies = s.class_tallies;
  if (largest_first) tallies.resize(chunks * detail::kSizeClasses);
  s.threads.run(chunks, 1, chunks > 1 ? kParallelBytes : 0, [&](std::size_t first_chunk, std::size_t end_chunk) {
    for (std::size_t c = first_chunk; c < end_chunk; ++c) {
      ChunkCount count;
      std::array<ClassTally, detail::kSizeClasses> tally{};
      for (std::size_t k = chunk_begin(c); k < chunk_begin(c + 1); ++k) {
        const std::size_t m = pairs[k].query.size();
        const std::size_t n = pairs[k].target.size();
        count.too_long = count.too_long || m > kMaxSequenceLength || n > kMaxSequenceLength;
        if (m > 0 && n > 0) {
          const std::size_t at = chunk_begin(c) + count.listed++;
          s.listed_pairs[at] = k;
          if (largest_first) {
            const std::uint64_t cells = std::uint64_t{m} * n;
            const std::uint16_t size_class = detail::pair_size_class(cells);
            s.size_class_of[at] = size_class;
            ClassTally& t = tally[size_class];
            ++t.pairs;
            t.residues += m + n;
            t.cells += cells;
            count.smallest_class = std::min(count.smallest_class, size_class);
            count.largest_class = std::max(count.largest_class, size_class);
          }
          count.residues += m + n;
          const std::size_t rows = local ? n : m;  // forward_job's
          if ((local ? m : n) > kSinglePassColumns) count.stride = std::max<std::uint64_t>(count.stride, rows);
          continue;
        }
        PairSpan& span = out[k];
        span = PairSpan{};
        if (local || (mode == AlignmentMode::semiglobal && m == 0)) continue;
        const auto gap = static_cast<std::uint32_t>(m + n);  // one of them is 0
        span.score = gap == 0 ? 0 : -(s.open + static_cast<int>(gap) * s.extend);
        span.query_end = static_cast<std::uint32_t>(m);
        span.target_end = mode == AlignmentMode::global ? static_cast<std::uint32_t>(n) : 0;
      }
      for (std::size_t size_class = count.smallest_class; size_class <= count.largest_class; ++size_class)
        tallies[size_class * chunks + c] = tally[size_class];
      counts[c] = count;
    }
  });
  s.trace_host("lengths", 0, clock, s.threads.last_participants());
  bool too_long = false;
  std::uint64_t work_residues = 0;
  std::size_t listed = 0;
  std::size_t smallest_class = detail::kSizeClasses, largest_class = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    listed += counts[c].listed;
    work_residues += counts[c].residues;
    too_long = too_long || counts[c].too_long;
    if (counts[c].listed == 0) continue;
    smallest_class = std::min<std::size_t>(smallest_class, counts[c].smallest_class);
    largest_class = std::max<std::size_t>(largest_class, counts[c].largest_class);
  }
  std::vector<std::size_t>& work = s.work;
  work.resize(listed);
  // Inputs of several batches keep input order: sorted, their last batch held only the smallest pairs,
  // whose host packing then outlasted the device (1 M pairs, H100: 849 against 925 GCUPS). Free device
  // memory (0.06 ms to ask) matters only for work larger than the buffers of an earlier call.
  std::uint64_t batch_residues = kBatchResidues;
  if (listed > 0 && (work_residues > s.d_residues.size() || listed > s.d_jobs.size())) {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    WARPSEARCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    batch_residues = std::max<std::uint64_t>(1, std::min<std::uint64_t>(kBatchResidues, free_bytes / 4));
  }
  const bool one_batch = work_residues <= batch_residues && listed <= kBatchPairs;
  s.batch_presorted = largest_first && one_batch;
  LayoutTotals layout;
  if (s.batch_presorted) {
    // Where each chunk's pairs of each size class go: classes from the largest, chunks in order (a
    // stable counting sort); the runs of positions per class cut the sub-batches, and each sub-batch is
    // laid out just before it is packed (lay_out_sorted).
    ClassTally next;
    std::uint64_t stride = 0;
    s.class_runs.clear();
    for (std::size_t size_class = largest_class + 1; size_class-- > smallest_class;) {
      detail::SizeClassRun run;
      run.size_class = static_cast<std::uint16_t>(size_class);
      run.first_position = next.pairs;
      run.first_cells = next.cells;
      for (std::size_t c = 0; c < chunks; ++c) {
        if (size_class < counts[c].smallest_class || size_class > counts[c].largest_class) continue;
        ClassTally& t = tallies[size_class * chunks + c];
        const ClassTally here = t;
        t = next;
        next.pairs += here.pairs;
        next.residues += here.residues;
        next.cells += here.cells;
      }
      run.pairs = next.pairs - run.first_position;
      run.cells = next.cells - run.first_cells;
      if (run.pairs > 0) s.class_runs.push_back(run);
    }
    for (std::size_t c = 0; c < chunks; ++c) stride = std::max(stride, counts[c].stride);
    s.query_offset.resize(listed);
    s.jobs.resize(listed);
    layout = LayoutTotals{work_residues, next.cells, stride};
    detail::split_runs_by_weight(s.class_runs, s.sub_batch_parts(work_residues, listed), s.bounds, s.first_percent(),
                                 s.last_percent());
  } else {
    std::size_t to = 0;
    for (std::size_t c = 0; c < chunks; ++c)
      for (std::size_t i = chunk_begin(c); i < chunk_begin(c) + counts[c].listed; ++i) work[to++] = s.listed_pairs[i];
  }
  if (too_long)
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      s.check_codes(pairs[k].query, k, "query");
      s.check_codes(pairs[k].target, k, "target");
    }
  s.timings.pack += seconds_since(clock);
  s.trace_host("check", 0, clock);
  if (work.empty()) return;
  if (one_batch) {
    if (!s.batch_presorted) layout = s.lay_out(pairs, work.data(), work.size(), local);
    s.align_batch(pairs, work.data(), work.size(), mode, layout, out);
    if (s.tracing) s.finish_trace();
    return;
  }
  std::size_t first = 0;
  std::uint64_t residues = 0;
  for (std::size_t i = 0; i <= work.size(); ++i) {
    const std::uint64_t size = i < work.size() ? pairs[work[i]].query.size() + pairs[work[i]].target.size() : 0;
    const bool flush = i == work.size() || (i > first && (residues + size > batch_residues || i - first >= kBatchPairs));
    if (flush && i > first) {
      layout = s.lay_out(pairs, work.data() + first, i - first, local);
      s.align_batch(pairs, work.data() + first, i - first, mode, layout, out);
      first = i;
      residues = 0;
    }
    residues += size;
  }
  if (s.tracing) s.finish_trace();
}

}  // namespace warpsearch::gpu
