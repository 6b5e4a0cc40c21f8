// The GPU hot-column kernel (kernels/gpu/hot_columns.hpp).
//
// One warp per stripe of a piece. The query is cut into stripes of 32 * kRows rows; lane t holds rows
// [t * kRows, (t + 1) * kRows) of the stripe and sweeps the piece's columns one step behind lane t - 1,
// which hands it, through a shuffle, the H and vertical-gap values of the row above for the column it
// has just finished. Lane 31 writes its last row's values to a boundary row that lane 0 of the next
// stripe's warp reads, publishing how far it got every 32 columns (a fence, then a counter), so the
// stripes of a piece run at once, each a tile or two behind the one above, as the long-pair kernel's
// stripes do (kernels/gpu/long_pair.hpp). Two boundary rows per piece, used in turn, suffice: a stripe
// overwrites column j of the row its stripe - 2 wrote only after computing column j, which needs column j
// of the stripe above, written after that stripe read column j of the stripe - 2's row. Warps take
// stripes in order from a counter (a piece's stripes one after the other), so a warp only waits for a
// stripe a running warp holds, and stripe 0 waits for nothing: no deadlock. A lane whose rows hold a cell
// >= threshold in an owned column writes 1 to that column's flag; several lanes may write the same 1.
// 32-bit values: scores are below 2^7 per pair and queries below 2^22 residues
// (HotColumnScanner::kMaxQueryLength), so no value comes near overflow.
//
// A piece's stripes cost their warps about (query rows) x (columns scanned) cells together, and the piece
// takes about one stripe's sweep of its columns; pieces are a few times more than the device's warp
// slots can run at once, largest first, so that the long ones start early.
#include "kernels/gpu/hot_columns.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/alphabet.hpp"
#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/dpx.cuh"
#include "kernels/gpu/score_table.cuh"

namespace warpsearch::gpu {
namespace {

constexpr int kWarpsPerBlock = 4;
// Query rows per lane: 32 ran the genome benchmark's hot columns at 0.83 T cells/s on an H100, against 0.70
// for 16 and 0.53 for 8 (fewer steps and shuffles per cell; no register spills).
constexpr int kRowsPerLane = 32;
constexpr int kNegative = -(1 << 29);  // "no gap open yet": far below any score, far from overflow

struct Piece {
  std::uint32_t first_stripe = 0;     // the launch's stripe number of its stripe 0
  std::uint64_t query_offset = 0;     // into the codes buffer
  std::uint64_t subject_offset = 0;   // into the codes buffer: the first column scanned
  std::uint64_t flags_offset = 0;     // into the flags buffer: the flag of the first owned column
  std::uint64_t boundary_offset = 0;  // into the boundary buffer: 2 * columns entries
  std::uint32_t query_length = 0;
  std::uint32_t columns = 0;     // columns scanned
  std::uint32_t owned_from = 0;  // the first owned column, relative to the first scanned
  std::int32_t threshold = 1;
};

// The launch's work: its pieces, each stripe's piece (stripe_piece), the stripe counter and each
// stripe's published columns (zeroed before the launch), and the buffers.
struct Launch {
  const Piece* pieces = nullptr;
  const std::uint32_t* stripe_piece = nullptr;
  std::uint32_t stripes = 0;
  int* ticket = nullptr;
  int* progress = nullptr;
  const std::uint8_t* codes = nullptr;
  const std::int32_t* matrix = nullptr;
  std::int32_t gap_open_extend = 0, gap_extend = 0;
  std::uint8_t* flags = nullptr;
  int2* boundary = nullptr;
};

// Waits until the stripe above has published `columns` columns of its boundary row (lane 0 spins; the
// fence after it orders the warp's reads of that row after the counter).
__device__ __forceinline__ void wait_for(const int* progress, int columns, int lane) {
  if (lane == 0)
    while (*reinterpret_cast<const volatile int*>(progress) < columns) __nanosleep(64);
  __syncwarp();
  __threadfence();
}

template <int kRows>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) hot_columns_kernel(const Launch launch) {
  __shared__ std::int32_t scores[kMaxCodes * kMaxCodes];
  for (int k = threadIdx.x; k < kMaxCodes * kMaxCodes; k += blockDim.x) scores[k] = launch.matrix[k];
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x & 31);
  for (;;) {
    int taken = 0;
    if (lane == 0) taken = atomicAdd(launch.ticket, 1);
    const auto number = static_cast<std::uint32_t>(__shfl_sync(0xffffffffu, taken, 0));
    if (number >= launch.stripes) return;
    const Piece piece = launch.pieces[launch.stripe_piece[number]];
    const int index = static_cast<int>(number - piece.first_stripe);  // of the stripe in its piece
    const std::uint8_t* query = launch.codes + piece.query_offset;
    const std::uint8_t* subject = launch.codes + piece.subject_offset;
    std::uint8_t* piece_flags = launch.flags + piece.flags_offset;
    const int columns = static_cast<int>(piece.columns);
    const int owned_from = static_cast<int>(piece.owned_from);
    const int m = static_cast<int>(piece.query_length);
    const int stripe = index * 32 * kRows;  // its first row
    const bool last_stripe = stripe + 32 * kRows >= m;
    int2* boundary_in = launch.boundary + piece.boundary_offset + (index % 2 == 0 ? columns : 0);
    int2* boundary_out = launch.boundary + piece.boundary_offset + (index % 2 == 0 ? 0 : columns);
    const int* above = index > 0 ? launch.progress + number - 1 : nullptr;
    int* published = launch.progress + number;
    const std::int32_t gap_open_extend = launch.gap_open_extend, gap_extend = launch.gap_extend;
    const int first_row = stripe + lane * kRows;
    const int valid_rows = min(kRows, max(0, m - first_row));  // rows of this lane inside the query
    int row_scores[kRows];                                     // offset of each row's query code in the score table
    int left[kRows];                                           // H(i, j - 1)
    int gap_left[kRows];                                       // E(i, j): gap in the query, along the subject
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      row_scores[r] = (r < valid_rows ? query[first_row + r] & (kMaxCodes - 1) : 0) * kMaxCodes;
      left[r] = 0;
      gap_left[r] = kNegative;
    }
    // Subject codes and lane 0's boundary values come in tiles of 32 columns, one per lane, loaded a
    // tile ahead of use (so no step waits for memory) and handed round by shuffles: at step s the lanes
    // work on the 32 consecutive columns s - 31 .. s, so each lane's tile entry has exactly one reader.
    const auto load_code = [&](int j) { return j < columns ? static_cast<int>(subject[j] & (kMaxCodes - 1)) : 0; };
    const auto load_boundary = [&](int j) {
      return above != nullptr && j < columns ? __ldcg(boundary_in + j) : make_int2(0, kNegative);
    };
    if (above != nullptr) wait_for(above, min(columns, 64), lane);
    int code_previous = 0, code_current = load_code(lane), code_next = load_code(32 + lane);
    int2 boundary_current = load_boundary(lane), boundary_next = load_boundary(32 + lane);
    int diagonal = 0;                        // H(first_row - 1, j - 1)
    int handed_h = 0, handed_f = kNegative;  // this lane's last row, for lane + 1
    for (int step = 0; step < columns + 31; ++step) {
      if (step > 0 && (step & 31) == 0) {
        code_previous = code_current;
        code_current = code_next;
        code_next = load_code(step + 32 + lane);
        boundary_current = boundary_next;
        if (above != nullptr) wait_for(above, min(columns, step + 64), lane);
        boundary_next = load_boundary(step + 32 + lane);
      }
      // The column this lane's tile entry serves at this step: in [step - 31, step], congruent to lane.
      const int tile_base = step & ~31;
      const int served = tile_base + lane <= step ? tile_base + lane : tile_base + lane - 32;
      const int column_code =
          __shfl_sync(0xffffffffu, served >= tile_base ? code_current : code_previous, (step - lane) & 31);
      const int boundary_h = __shfl_sync(0xffffffffu, boundary_current.x, step & 31);
      const int boundary_f = __shfl_sync(0xffffffffu, boundary_current.y, step & 31);
      int above_h = __shfl_up_sync(0xffffffffu, handed_h, 1);
      int above_f = __shfl_up_sync(0xffffffffu, handed_f, 1);
      const int j = step - lane;
      if (j < 0 || j >= columns) continue;
      if (lane == 0) {
        above_h = boundary_h;
        above_f = boundary_f;
      }
      int h_diagonal = diagonal;
      int h = above_h, f = above_f;
      int column_max = 0;
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        // DPX on Hopper: max(a + b, c) and max(a, b, c) in one instruction each.
        f = dpx::add_max(h, -gap_open_extend, f - gap_extend);
        gap_left[r] = dpx::add_max(left[r], -gap_open_extend, gap_left[r] - gap_extend);
        const int cell = dpx::max3(dpx::add_max(h_diagonal, scores[row_scores[r] + column_code], 0), gap_left[r], f);
        h_diagonal = left[r];
        left[r] = cell;
        h = cell;
        if (r < valid_rows) column_max = max(column_max, cell);
      }
      diagonal = above_h;
      handed_h = h;
      handed_f = f;
      if (lane == 31 && !last_stripe) {
        __stcg(boundary_out + j, make_int2(h, f));
        if ((j & 31) == 31 || j == columns - 1) {
          __threadfence();
          *reinterpret_cast<volatile int*>(published) = j + 1;
        }
      }
      if (column_max >= piece.threshold && j >= owned_from) piece_flags[j - owned_from] = 1;
    }
    __syncwarp();
  }
}

}  // namespace

struct HotColumnScanner::Impl {
  int device = 0;
  int multiprocessors = 1;
  int blocks_per_multiprocessor = 1;
  std::int32_t gap_open_extend = 0, gap_extend = 0;
  detail::DeviceBuffer<std::int32_t> matrix;
  detail::Stream stream{detail::stream_priority(detail::StreamRank::hits_first)};
};

HotColumnScanner::HotColumnScanner(int device, const ScoringScheme& scoring) {
  const cudaDeviceProp properties = detail::device_properties(device);
  detail::ScopedDevice scope(device);
  impl_ = std::make_unique<Impl>();  // its stream belongs to this device
  impl_->device = device;
  impl_->multiprocessors = properties.multiProcessorCount;
  WARPSEARCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &impl_->blocks_per_multiprocessor, hot_columns_kernel<kRowsPerLane>, 32 * kWarpsPerBlock, 0));
  impl_->gap_open_extend = scoring.gap_open() + scoring.gap_extend();
  impl_->gap_extend = scoring.gap_extend();
  impl_->matrix = detail::upload_score_table(scoring, device);
}

HotColumnScanner::~HotColumnScanner() = default;
HotColumnScanner::HotColumnScanner(HotColumnScanner&&) noexcept = default;
HotColumnScanner& HotColumnScanner::operator=(HotColumnScanner&&) noexcept = default;

void HotColumnScanner::scan(const std::vector<HotColumnTask>& tasks, std::vector<std::vector<std::uint8_t>>& hot) {
  hot.assign(tasks.size(), {});
  std::uint64_t owned_total = 0, code_bytes = 0;
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const HotColumnTask& task = tasks[k];
    if (task.query.size() > kMaxQueryLength)
      throw std::invalid_argument("hot columns: task " + std::to_string(k) + " has a query of " +
                                  std::to_string(task.query.size()) + " residues (at most " +
                                  std::to_string(kMaxQueryLength) + ")");
    if (task.owned_from > task.subject.size() || task.subject.size() > 0xffffffffu)
      throw std::invalid_argument("hot columns: task " + std::to_string(k) + " owns no valid range");
    hot[k].assign(task.subject.size() - task.owned_from, 0);
    owned_total += task.subject.size() - task.owned_from;
    code_bytes += task.query.size() + task.subject.size();
  }
  if (owned_total == 0) return;
  // Pieces: enough for several per warp slot of the device, each owning at least its reach (so that its
  // context at most doubles its cells) and 4,096 columns.
  const std::uint64_t wanted = std::uint64_t{8} * 32 * static_cast<std::uint64_t>(impl_->multiprocessors);
  const std::uint64_t piece_length = std::max<std::uint64_t>(4096, (owned_total + wanted - 1) / wanted);
  std::vector<std::uint8_t> codes;
  codes.reserve(code_bytes);
  std::vector<Piece> pieces;
  std::vector<std::uint64_t> flags_base(tasks.size());
  std::uint64_t flags_total = 0;
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const HotColumnTask& task = tasks[k];
    const std::uint64_t query_offset = codes.size();
    codes.insert(codes.end(), task.query.begin(), task.query.end());
    const std::uint64_t subject_offset = codes.size();
    codes.insert(codes.end(), task.subject.begin(), task.subject.end());
    flags_base[k] = flags_total;
    const std::uint64_t owned = task.subject.size() - task.owned_from;
    flags_total += owned;
    if (task.query.empty()) continue;  // no cell: no hot column
    const std::uint64_t length = std::max<std::uint64_t>(piece_length, task.reach);
    for (std::uint64_t first = task.owned_from; first < task.subject.size(); first += length) {
      const std::uint64_t begin = first > task.reach - 1 ? first - (task.reach - 1) : 0;
      const std::uint64_t end = std::min<std::uint64_t>(task.subject.size(), first + length);
      Piece piece;
      piece.query_offset = query_offset;
      piece.subject_offset = subject_offset + begin;
      piece.flags_offset = flags_base[k] + (first - task.owned_from);
      piece.query_length = static_cast<std::uint32_t>(task.query.size());
      piece.columns = static_cast<std::uint32_t>(end - begin);
      piece.owned_from = static_cast<std::uint32_t>(first - begin);
      piece.threshold = static_cast<std::int32_t>(std::min<std::int64_t>(task.threshold, 1 << 30));
      pieces.push_back(piece);
    }
  }
  // Largest first: the longest pieces start in the first wave.
  std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
    return static_cast<double>(a.query_length) * a.columns > static_cast<double>(b.query_length) * b.columns;
  });
  detail::ScopedDevice scope(impl_->device);
  const cudaStream_t stream = impl_->stream.get();
  // Scratch in the stream's order: the scanner runs while a search's scan kernels do.
  detail::StreamBuffer<std::uint8_t> device_codes(std::max<std::size_t>(1, codes.size()), stream);
  detail::StreamBuffer<std::uint8_t> device_flags(flags_total, stream);
  WARPSEARCH_CUDA_CHECK(
      cudaMemcpyAsync(device_codes.get(), codes.data(), codes.size(), cudaMemcpyHostToDevice, stream));
  WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(device_flags.get(), 0, flags_total, stream));
  // Launches of at most 512 MiB of boundary arrays each (two per piece, one int2 per column).
  constexpr std::uint64_t kBoundaryBudget = std::uint64_t{512} << 20;
  for (std::size_t from = 0; from < pieces.size();) {
    std::size_t to = from;
    std::uint64_t entries = 0;
    while (to < pieces.size() &&
           (to == from || (entries + 2 * std::uint64_t{pieces[to].columns}) * sizeof(int2) <= kBoundaryBudget)) {
      pieces[to].boundary_offset = entries;
      entries += 2 * std::uint64_t{pieces[to].columns};
      ++to;
    }
    const std::size_t count = to - from;
    // Stripes in launch order: each piece's one after the other, the pieces largest first.
    std::vector<std::uint32_t> stripe_piece;
    for (std::size_t k = from; k < to; ++k) {
      pieces[k].first_stripe = static_cast<std::uint32_t>(stripe_piece.size());
      const std::uint32_t stripes = (pieces[k].query_length + 32 * kRowsPerLane - 1) / (32 * kRowsPerLane);
      stripe_piece.insert(stripe_piece.end(), stripes, static_cast<std::uint32_t>(k - from));
    }
    detail::StreamBuffer<Piece> device_pieces(count, stream);
    detail::StreamBuffer<std::uint32_t> device_stripe_piece(stripe_piece.size(), stream);
    detail::StreamBuffer<int> counters(stripe_piece.size() + 1, stream);  // progress, then the ticket
    detail::StreamBuffer<int2> device_boundary(entries, stream);
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(device_pieces.get(), pieces.data() + from, count * sizeof(Piece),
                                          cudaMemcpyHostToDevice, stream));
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(device_stripe_piece.get(), stripe_piece.data(),
                                          stripe_piece.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream));
    WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(counters.get(), 0, counters.size() * sizeof(int), stream));
    Launch launch;
    launch.pieces = device_pieces.get();
    launch.stripe_piece = device_stripe_piece.get();
    launch.stripes = static_cast<std::uint32_t>(stripe_piece.size());
    launch.progress = counters.get();
    launch.ticket = counters.get() + stripe_piece.size();
    launch.codes = device_codes.get();
    launch.matrix = impl_->matrix.get();
    launch.gap_open_extend = impl_->gap_open_extend;
    launch.gap_extend = impl_->gap_extend;
    launch.flags = device_flags.get();
    launch.boundary = device_boundary.get();
    // As many warps as the stripes, at most what the device holds at once (the others would only take
    // stripes later, one after the other, as the resident ones do).
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(
        (stripe_piece.size() + kWarpsPerBlock - 1) / kWarpsPerBlock,
        static_cast<std::size_t>(std::max(1, impl_->blocks_per_multiprocessor)) * impl_->multiprocessors));
    hot_columns_kernel<kRowsPerLane><<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(launch);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
    from = to;  // the buffers are freed after the launch, in the stream's order
  }
  std::vector<std::uint8_t> flags(flags_total);
  WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(flags.data(), device_flags.get(), flags_total, cudaMemcpyDeviceToHost, stream));
  impl_->stream.synchronize();
  for (std::size_t k = 0; k < tasks.size(); ++k)
    std::memcpy(hot[k].data(), flags.data() + flags_base[k], hot[k].size());
}

}  // namespace warpsearch::gpu
