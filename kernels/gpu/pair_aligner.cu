// GpuPairAligner: validation, batching, the score tables, the job lists of the forward and reverse
// passes and their launches (see kernels/gpu/pair_kernel.cuh for the kernel itself).
//
// Per batch of pairs (residues packed into pinned memory, one upload):
//   forward pass: one job per pair; local: rows = target, columns = query (the query's profile);
//                 semi-global and global: rows = query, columns = target (the end is read in the
//                 last row). Gives the score and the end.
//   reverse pass: local pairs of positive score and semi-global pairs with a non-empty target part:
//                 the same kernel on the prefixes ending at the end, read backwards; its end is the
//                 start. Global spans are the whole pair: no reverse pass.
// Within a pass, jobs are grouped by kernel shape (by column count, pair_shape_for), each group
// sorted by cells, longest first (grid-stride loops then end with short jobs), and the shapes run on
// four streams at once, each with its own tile-edge buffer.
#include "kernels/gpu/pair_aligner.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/pair_dispatch.hpp"

namespace warpsearch::gpu {

using detail::DeviceBuffer;
using detail::kPairShapeCount;
using detail::kPairShapes;
using detail::PairEnd;
using detail::PairJob;
using detail::PairKernelParams;
using detail::PinnedBuffer;
using detail::ScopedDevice;
using detail::Stream;

namespace {

// Residues per batch at most (the actual limit also depends on free device memory).
constexpr std::uint64_t kBatchResidues = std::uint64_t{1} << 28;
// Pairs per batch at most.
constexpr std::size_t kBatchPairs = std::size_t{1} << 22;
// Tile edges: at most this many bytes per stream (fewer concurrent groups for very long pairs).
constexpr std::size_t kEdgeBudgetBytes = std::size_t{256} << 20;
constexpr int kStreams = 4;

// Compact code of each residue code (kernel argument: 32 bytes).
struct CompactMap {
  std::uint8_t code[kMaxCodes];
};

struct ShapeEntry {
  void (*prepare)(int, int*);
  void (*launch)(const PairKernelParams&, int, cudaStream_t);
};

template <typename Element, std::size_t... S>
std::array<ShapeEntry, kPairShapeCount> make_entries(std::index_sequence<S...>) {
  return {ShapeEntry{&detail::prepare_pair_kernel<kPairShapes[S].group, kPairShapes[S].regs, Element>,
                     &detail::launch_pair_kernel<kPairShapes[S].group, kPairShapes[S].regs, Element>}...};
}

// Entries by [wide][shape]: 8-bit or 16-bit profile elements.
const std::array<ShapeEntry, kPairShapeCount>& shape_entries(bool wide) {
  static const auto narrow_entries = make_entries<std::int8_t>(std::make_index_sequence<kPairShapeCount>{});
  static const auto wide_entries = make_entries<std::int16_t>(std::make_index_sequence<kPairShapeCount>{});
  return wide ? wide_entries : narrow_entries;
}

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

// Runs fn(begin, end) over [0, count) split into contiguous ranges on up to 16 host threads (one when
// the work is small): packing and checking 100 M residues is otherwise a large part of a call.
template <class Fn>
void parallel_ranges(std::size_t count, std::uint64_t bytes, Fn fn) {
  const unsigned hardware = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  const auto threads = static_cast<std::size_t>(bytes < (std::uint64_t{8} << 20) ? 1u : hardware);
  if (threads <= 1 || count < 2 * threads) {
    fn(std::size_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t chunk = (count + threads - 1) / threads;
  for (std::size_t begin = 0; begin < count; begin += chunk)
    pool.emplace_back([&fn, begin, end = std::min(count, begin + chunk)] { fn(begin, end); });
  for (auto& thread : pool) thread.join();
}

// Residue codes -> compact codes (the profile's rows), in place.
__global__ void compact_codes_kernel(std::uint8_t* residues, std::uint64_t count, CompactMap map) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride)
    residues[k] = map.code[residues[k]];
}

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
  std::array<int, kPairShapeCount> blocks_per_sm{};
  // Score tables s + o, [row code][column code]: rows = target (local) or rows = query.
  DeviceBuffer<std::uint8_t> table_target_rows;
  DeviceBuffer<std::uint8_t> table_query_rows;
  std::array<Stream, kStreams> streams;
  std::array<DeviceBuffer<std::uint64_t>, kStreams> edges;
  DeviceBuffer<std::uint8_t> d_residues;
  DeviceBuffer<PairJob> d_jobs;
  DeviceBuffer<PairEnd> d_ends;
  PinnedBuffer<std::uint8_t> h_residues;
  PinnedBuffer<PairJob> h_jobs;
  PinnedBuffer<PairEnd> h_ends;
  Timings timings;

  explicit Impl(int device_index) : device(device_index) {}

  void synchronize() const {
    for (const auto& stream : streams) stream.synchronize();
  }

  // Runs one pass over `jobs` and returns their ends in the same order.
  std::vector<PairEnd> run_pass(const std::vector<PairJob>& jobs, AlignmentMode mode, bool reverse) {
    std::vector<PairEnd> ends(jobs.size());
    if (jobs.empty()) return ends;
    // Jobs grouped by shape, widest shapes first, each group by cells, largest first.
    std::vector<int> shape_of(jobs.size());
    for (std::size_t k = 0; k < jobs.size(); ++k) shape_of[k] = detail::pair_shape_for(jobs[k].cols);
    std::vector<std::size_t> order(jobs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (shape_of[a] != shape_of[b]) return shape_of[a] > shape_of[b];
      const std::uint64_t cells_a = std::uint64_t{jobs[a].rows} * jobs[a].cols;
      const std::uint64_t cells_b = std::uint64_t{jobs[b].rows} * jobs[b].cols;
      if (cells_a != cells_b) return cells_a > cells_b;
      return a < b;
    });
    ensure_pinned(h_jobs, jobs.size());
    ensure_pinned(h_ends, jobs.size());
    ensure_device(d_jobs, jobs.size(), device);
    ensure_device(d_ends, jobs.size(), device);
    for (std::size_t k = 0; k < jobs.size(); ++k) h_jobs.get()[k] = jobs[order[k]];

    // Launch plan per shape: first job, count, grid, and the edge rows of its multi-tile jobs.
    struct Launch {
      int shape;
      std::size_t first;
      std::size_t count;
      int grid;
      std::uint64_t edge_stride;
      int stream;
    };
    std::vector<Launch> launches;
    std::array<std::size_t, kStreams> edge_words{};
    for (std::size_t k = 0; k < jobs.size();) {
      const int shape = shape_of[order[k]];
      std::size_t end = k;
      std::uint64_t stride = 0;
      const auto width = static_cast<std::uint32_t>(kPairShapes[shape].group * kPairShapes[shape].regs);
      while (end < jobs.size() && shape_of[order[end]] == shape) {
        if (h_jobs.get()[end].cols > width) stride = std::max<std::uint64_t>(stride, h_jobs.get()[end].rows);
        ++end;
      }
      const int threads = wide ? detail::kPairBlockThreads<std::int16_t> : detail::kPairBlockThreads<std::int8_t>;
      const int groups_per_block = threads / kPairShapes[shape].group;
      const std::size_t count = end - k;
      const std::size_t wanted = (count + groups_per_block - 1) / groups_per_block;
      const std::size_t resident = static_cast<std::size_t>(std::max(1, blocks_per_sm[shape])) * sm_count;
      std::size_t grid = std::max<std::size_t>(1, std::min(wanted, resident));
      if (stride > 0) {
        const std::size_t block_bytes = stride * groups_per_block * sizeof(std::uint64_t);
        grid = std::max<std::size_t>(1, std::min(grid, kEdgeBudgetBytes / block_bytes));
      }
      const int stream = static_cast<int>(launches.size() % kStreams);
      edge_words[stream] = std::max<std::size_t>(edge_words[stream], stride * grid * groups_per_block);
      launches.push_back({shape, k, count, static_cast<int>(grid), stride, stream});
      k = end;
    }
    for (int s = 0; s < kStreams; ++s) ensure_device(edges[s], edge_words[s], device);

    cudaStream_t first_stream = streams[0].get();
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(d_jobs.get(), h_jobs.get(), jobs.size() * sizeof(PairJob),
                                          cudaMemcpyHostToDevice, first_stream));
    streams[0].synchronize();  // the other streams read the jobs too
    PairKernelParams p;
    p.residues = d_residues.get();
    p.table = mode == AlignmentMode::local ? table_target_rows.get() : table_query_rows.get();
    p.alphabet_rows = alphabet_rows;
    p.gap_open = open;
    p.gap_extend = extend;
    p.mode = mode;
    p.reverse = reverse;
    const auto& entries = shape_entries(wide);
    for (const Launch& launch : launches) {
      p.jobs = d_jobs.get() + launch.first;
      p.num_jobs = static_cast<int>(launch.count);
      p.ends = d_ends.get() + launch.first;
      p.edges = edges[launch.stream].get();
      p.edge_stride = launch.edge_stride;
      entries[launch.shape].launch(p, launch.grid, streams[launch.stream].get());
    }
    synchronize();
    WARPSEARCH_CUDA_CHECK(cudaMemcpy(h_ends.get(), d_ends.get(), jobs.size() * sizeof(PairEnd), cudaMemcpyDeviceToHost));
    for (std::size_t k = 0; k < jobs.size(); ++k) ends[order[k]] = h_ends.get()[k];
    return ends;
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

  // Aligns pairs [first, last) whose residues fit one batch; `out` already holds the trivial spans.
  void align_batch(const std::vector<PairTask>& pairs, const std::vector<std::size_t>& members, AlignmentMode mode,
                   std::vector<PairSpan>& out) {
    auto clock = std::chrono::steady_clock::now();
    std::uint64_t residues = 0;
    for (const std::size_t k : members) residues += pairs[k].query.size() + pairs[k].target.size();
    ensure_pinned(h_residues, residues);
    ensure_device(d_residues, residues, device);
    std::vector<std::uint64_t> query_offset(members.size());
    std::vector<std::uint64_t> target_offset(members.size());
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
      query_offset[i] = at;
      at += pairs[members[i]].query.size();
      target_offset[i] = at;
      at += pairs[members[i]].target.size();
    }
    std::uint8_t* staged = h_residues.get();
    parallel_ranges(members.size(), residues, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const PairTask& task = pairs[members[i]];
        std::memcpy(staged + query_offset[i], task.query.data(), task.query.size());
        std::memcpy(staged + target_offset[i], task.target.data(), task.target.size());
      }
    });
    timings.pack += seconds_since(clock);
    clock = std::chrono::steady_clock::now();
    WARPSEARCH_CUDA_CHECK(cudaMemcpy(d_residues.get(), h_residues.get(), residues, cudaMemcpyHostToDevice));
    const auto grid = static_cast<int>(std::min<std::uint64_t>((residues + 255) / 256, 4096));
    compact_codes_kernel<<<grid, 256, 0, streams[0].get()>>>(d_residues.get(), residues, compact);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
    streams[0].synchronize();
    timings.upload += seconds_since(clock);

    // Forward: score and end.
    clock = std::chrono::steady_clock::now();
    const bool local = mode == AlignmentMode::local;
    std::vector<PairJob> jobs(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
      const auto m = static_cast<std::uint32_t>(pairs[members[i]].query.size());
      const auto n = static_cast<std::uint32_t>(pairs[members[i]].target.size());
      jobs[i] = local ? PairJob{target_offset[i], query_offset[i], n, m} : PairJob{query_offset[i], target_offset[i], m, n};
      timings.forward_cells += std::uint64_t{m} * n;
    }
    const std::vector<PairEnd> forward = run_pass(jobs, mode, false);
    timings.forward += seconds_since(clock);

    // Reverse: the start, from the prefixes ending at the end.
    clock = std::chrono::steady_clock::now();
    std::vector<PairJob> reverse_jobs;
    std::vector<std::size_t> reverse_member;
    for (std::size_t i = 0; i < members.size(); ++i) {
      PairSpan& span = out[members[i]];
      const auto m = static_cast<std::uint32_t>(pairs[members[i]].query.size());
      const auto n = static_cast<std::uint32_t>(pairs[members[i]].target.size());
      span = PairSpan{};
      span.score = forward[i].score;
      if (local) {
        if (span.score <= 0) {
          span.score = 0;
          continue;
        }
        span.query_end = forward[i].col_end;
        span.target_end = forward[i].row_end;
        reverse_jobs.push_back({target_offset[i], query_offset[i], span.target_end, span.query_end});
      } else if (mode == AlignmentMode::semiglobal) {
        span.query_end = m;
        span.target_end = forward[i].col_end;
        span.target_begin = span.target_end;
        if (span.target_end == 0) continue;
        reverse_jobs.push_back({query_offset[i], target_offset[i], m, span.target_end});
      } else {
        span.query_end = m;
        span.target_end = n;
        continue;
      }
      reverse_member.push_back(members[i]);
      timings.reverse_cells += std::uint64_t{reverse_jobs.back().rows} * reverse_jobs.back().cols;
    }
    const std::vector<PairEnd> reverse = run_pass(reverse_jobs, mode, true);
    for (std::size_t r = 0; r < reverse_jobs.size(); ++r) {
      PairSpan& span = out[reverse_member[r]];
      if (reverse[r].score != span.score)
        throw std::logic_error("GPU pair aligner: pair " + std::to_string(reverse_member[r]) + ": the reverse pass scores " +
                               std::to_string(reverse[r].score) + ", the forward pass " + std::to_string(span.score));
      if (local) {
        span.target_begin = span.target_end - reverse[r].row_end;
        span.query_begin = span.query_end - reverse[r].col_end;
      } else {
        span.target_begin = span.target_end - reverse[r].col_end;
      }
    }
    timings.reverse += seconds_since(clock);
  }
};

GpuPairAligner::GpuPairAligner(int device, const ScoringScheme& scoring) {
  const cudaDeviceProp properties = detail::device_properties(device);
  ScopedDevice scoped(device);
  impl_ = std::make_unique<Impl>(device);
  Impl& s = *impl_;
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
  for (int a = 0; a < a_rows; ++a)
    for (int b = 0; b < a_rows; ++b) {
      const auto index = static_cast<std::size_t>(a * a_rows + b);
      const std::uint8_t code_a = representative[static_cast<std::size_t>(a)];
      const std::uint8_t code_b = representative[static_cast<std::size_t>(b)];
      target_rows[index] = scoring.score(code_b, code_a) + first;
      query_rows[index] = scoring.score(code_a, code_b) + first;
      if (target_rows[index] > 127 || target_rows[index] < -128) s.wide = true;
    }
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

  const auto& entries = shape_entries(s.wide);
  for (int shape = 0; shape < kPairShapeCount; ++shape) {
    const std::size_t bytes =
        s.wide ? detail::pair_shared_bytes<std::int16_t>(kPairShapes[shape].group, kPairShapes[shape].regs, a_rows)
               : detail::pair_shared_bytes<std::int8_t>(kPairShapes[shape].group, kPairShapes[shape].regs, a_rows);
    if (bytes > properties.sharedMemPerBlockOptin)
      throw std::runtime_error("GPU " + s.name + ": the pair kernel needs " + std::to_string(bytes) +
                               " bytes of shared memory per block, the device allows " +
                               std::to_string(properties.sharedMemPerBlockOptin));
    entries[static_cast<std::size_t>(shape)].prepare(a_rows, &s.blocks_per_sm[static_cast<std::size_t>(shape)]);
  }
}

GpuPairAligner::~GpuPairAligner() {
  if (impl_) {
    // Buffers free themselves on their device; make sure no work still uses them (errors ignored: a
    // destructor never throws).
    for (const auto& stream : impl_->streams) cudaStreamSynchronize(stream.get());
  }
}
GpuPairAligner::GpuPairAligner(GpuPairAligner&&) noexcept = default;
GpuPairAligner& GpuPairAligner::operator=(GpuPairAligner&&) noexcept = default;

std::string GpuPairAligner::device_name() const { return impl_->name; }
const GpuPairAligner::Timings& GpuPairAligner::last_timings() const { return impl_->timings; }

void GpuPairAligner::align(const std::vector<PairTask>& pairs, AlignmentMode mode, std::vector<PairSpan>& out) {
  Impl& s = *impl_;
  ScopedDevice scoped(s.device);
  s.timings = Timings{};
  const auto clock = std::chrono::steady_clock::now();
  // Checked in parallel; the first bad pair is then checked again alone, for its message.
  std::uint64_t all_residues = 0;
  for (const PairTask& task : pairs) all_residues += task.query.size() + task.target.size();
  std::atomic<std::size_t> first_bad{pairs.size()};
  parallel_ranges(pairs.size(), all_residues, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end && k < first_bad.load(); ++k) {
      try {
        s.check_codes(pairs[k].query, k, "query");
        s.check_codes(pairs[k].target, k, "target");
      } catch (const std::invalid_argument&) {
        std::size_t seen = first_bad.load();
        while (k < seen && !first_bad.compare_exchange_weak(seen, k)) {
        }
        return;
      }
    }
  });
  if (first_bad.load() < pairs.size()) {
    s.check_codes(pairs[first_bad].query, first_bad, "query");
    s.check_codes(pairs[first_bad].target, first_bad, "target");
  }
  out.assign(pairs.size(), PairSpan{});

  // Empty sequences are settled here (kernels/reference.hpp): local 0; semi-global with an empty
  // query 0, with an empty target the query against one gap; global one gap of the other's length.
  std::vector<std::size_t> work;
  work.reserve(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto m = static_cast<std::uint32_t>(pairs[k].query.size());
    const auto n = static_cast<std::uint32_t>(pairs[k].target.size());
    if (m > 0 && n > 0) {
      work.push_back(k);
      continue;
    }
    PairSpan& span = out[k];
    if (mode == AlignmentMode::local || (mode == AlignmentMode::semiglobal && m == 0)) continue;
    const std::uint32_t gap = m + n;  // one of them is 0
    span.score = gap == 0 ? 0 : -(s.open + static_cast<int>(gap) * s.extend);
    span.query_end = m;
    span.target_end = mode == AlignmentMode::global ? n : 0;
  }
  s.timings.pack += seconds_since(clock);

  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  WARPSEARCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t batch_residues = std::max<std::uint64_t>(1, std::min<std::uint64_t>(kBatchResidues, free_bytes / 4));
  std::vector<std::size_t> members;
  std::uint64_t residues = 0;
  for (std::size_t i = 0; i <= work.size(); ++i) {
    const std::uint64_t size = i < work.size() ? pairs[work[i]].query.size() + pairs[work[i]].target.size() : 0;
    const bool flush = i == work.size() || (!members.empty() && (residues + size > batch_residues ||
                                                                  members.size() >= kBatchPairs));
    if (flush && !members.empty()) {
      s.align_batch(pairs, members, mode, out);
      members.clear();
      residues = 0;
    }
    if (i < work.size()) {
      members.push_back(work[i]);
      residues += size;
    }
  }
}

}  // namespace warpsearch::gpu
