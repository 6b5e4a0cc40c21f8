// The long-pair kernel (kernels/gpu/long_pair.hpp).
//
// Stripes. Stripe k holds rows k * S + 1 .. (k + 1) * S (S = 32 * R, 1-based rows); lane t holds R of
// them and sweeps the columns one step behind lane t - 1, which hands it, by a shuffle, H and I (the
// vertical gap) of the row above for the column it has just finished (the scheme of
// kernels/gpu/hot_columns.cu). Lane 31 writes the stripe's last row to a ring of two rows in global
// memory, and after every 32 columns publishes how far it got (a fence, then the stripe's progress
// counter). The next stripe's lane 0 reads that row a tile of 32 columns ahead of use, after waiting for
// the counter.
//
// Why two rows suffice: stripe k overwrites column j of the slot stripe k - 2 wrote only once its own
// lane 0 has passed column j + 31, which needed stripe k - 1 to have published past it, so stripe k - 1
// had read column j of that slot already.
// Why it cannot deadlock: warps take stripes from a counter, in order, so the stripe a warp waits for
// belongs to a warp that is running (it took its stripe before), and stripe 0 waits for nothing.
//
// Outputs: local passes keep each lane's best cell (the largest H; on ties the smallest column, then
// the smallest row, since a lane visits columns in order and its rows top down), reduced per stripe in
// the same order and on the host over stripes. Global and semi-global passes write chosen rows (every
// out_every-th stripe's last row and the pair's last row) to rows_out, H and I per column. The stripe
// that holds the pair's last row may hold rows past it (garbage that only feeds rows below): it is
// compiled apart (kTail), masking those rows out of the best cell and taking the last row's values from
// inside a lane.
#include "kernels/gpu/long_pair.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/alphabet.hpp"
#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/dpx.cuh"
#include "kernels/gpu/score_table.cuh"
#include "profile/exact_band.hpp"

namespace warpsearch::gpu {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kNegative = -(1 << 29);  // minus infinity: the CPU traceback's own (kernels/cpu/alignment_rows.hpp)
constexpr unsigned kFull = 0xffffffffu;

struct LongPairParams {
  const std::uint8_t* rows = nullptr;     // m codes
  const std::uint8_t* columns = nullptr;  // n codes
  int m = 0, n = 0;
  const std::int32_t* matrix = nullptr;  // kMaxCodes x kMaxCodes
  int open = 0, extend = 0;
  int top_open = 0;         // not local: H(r, 0) = I(r, 0) = -(top_open + r * extend)
  bool local = true;        // floor 0, row 0 and column 0 free
  bool rows_first = false;  // local ties: the smallest row, then column (else column, then row)
  bool free_top = false;    // semi-global: row 0 free
  int stripes = 0;
  int2* ring = nullptr;             // 2 x (n + 1): (H, I) of a stripe's last row, entry 0 = column 0
  int* progress = nullptr;          // per stripe: columns of its last row published
  int* ticket = nullptr;            // the next stripe to take
  int4* stripe_best = nullptr;      // per stripe (local): (score, column (0-based), row (1-based), 0)
  int out_every = 0;                // stripes between rows written out (0: the last row only)
  int2* rows_out = nullptr;         // (count) x (n + 1)
  int band_low = 0, band_high = 0;  // the diagonals (column - row) computed: -m and n for all
};

__device__ __forceinline__ int left_boundary(const LongPairParams& p, int row) {
  return p.local || row == 0 ? 0 : -(p.top_open + row * p.extend);
}

__device__ __forceinline__ int2 top_boundary(const LongPairParams& p, int column) {  // column >= 1
  return make_int2(p.local || p.free_top ? 0 : -(p.open + column * p.extend), kNegative);
}

// Whether cell (column a, row b) precedes cell (column c, row d) among equal scores.
__host__ __device__ __forceinline__ bool before(bool rows_first, int a, int b, int c, int d) {
  return rows_first ? (b < d || (b == d && a < c)) : (a < c || (a == c && b < d));
}

// Waits until the stripe above has published `columns` columns of its last row (lane 0 spins; the
// fence after it orders the warp's reads of that row after the counter).
__device__ __forceinline__ void wait_for(const int* progress, int columns, int lane) {
  if (progress != nullptr) {
    if (lane == 0)
      while (*reinterpret_cast<const volatile int*>(progress) < columns) __nanosleep(64);
    __syncwarp();
    __threadfence();
  }
}

// One stripe of one warp. kLocal: track the best cell; kTail: the stripe holds the pair's last row.
// It stays one function (about 130 lines): the step loop shares the lane's R rows of registers with the
// tile loads around it, and device functions taking those arrays would force them into local memory.
template <int R, bool kLocal, bool kTail>
__device__ __forceinline__ void run_stripe(const LongPairParams& p, const int* scores, int k, int lane) {
  constexpr int S = 32 * R;
  const int oe = p.open + p.extend, e = p.extend;
  const int floor_value = kLocal ? 0 : kNegative;
  const int n = p.n;
  const int first_row = k * S + lane * R;  // this lane's rows: first_row + 1 .. first_row + R
  const int valid_rows = min(R, max(0, p.m - first_row));
  const int stripe_last = min(p.m, (k + 1) * S);
  const int out_lane = (stripe_last - 1 - k * S) / R, out_r = (stripe_last - 1 - k * S) % R;
  int out_index = -1;  // which row of rows_out this stripe's last row is
  if (!kLocal) {
    if (kTail)
      out_index = p.out_every > 0 ? (p.stripes - 1) / p.out_every : 0;
    else if (p.out_every > 0 && (k + 1) % p.out_every == 0)
      out_index = (k + 1) / p.out_every - 1;
  }
  int2* out_row =
      out_index >= 0 && lane == out_lane ? p.rows_out + static_cast<long long>(out_index) * (n + 1) : nullptr;
  if (out_row != nullptr) {
    const int h0 = left_boundary(p, stripe_last);
    out_row[0] = make_int2(h0, h0);
  }
  const int2* ring_in = p.ring + static_cast<long long>((k + 1) & 1) * (n + 1);
  int2* ring_out = !kTail && lane == 31 ? p.ring + static_cast<long long>(k & 1) * (n + 1) : nullptr;
  const int* ready = k > 0 ? p.progress + k - 1 : nullptr;
  // The columns j_begin .. j_end - 1 (cells j + 1) that hold the band's cells of the stripe's rows, and
  // how far the stripe above computed its last row; further right that row counts as minus infinity.
  const int j_begin = max(0, k * S + p.band_low), j_end = min(n, stripe_last + p.band_high);
  const int above_end = k == 0 ? n : min(n, k * S + p.band_high);

  int row_code[R], left[R], gap_left[R];  // per row: score-table offset, H(row, j - 1), D(row, j)
#pragma unroll
  for (int r = 0; r < R; ++r) {
    row_code[r] = (r < valid_rows ? p.rows[first_row + r] & (kMaxCodes - 1) : 0) * kMaxCodes;
    left[r] = j_begin == 0 ? left_boundary(p, first_row + r + 1) : kNegative;
    gap_left[r] = kNegative;
  }
  // Subject codes and lane 0's top row come in tiles of 32 columns, one per lane, a tile ahead of use,
  // handed round by shuffles: at step s the lanes work on columns s - 31 .. s.
  const auto load_code = [&](int j) { return j < n ? static_cast<int>(p.columns[j] & (kMaxCodes - 1)) : 0; };
  const auto load_top = [&](int j) {
    if (j >= above_end) return make_int2(kNegative, kNegative);
    return k == 0 ? top_boundary(p, j + 1) : __ldcg(ring_in + j + 1);
  };
  wait_for(ready, min(above_end, j_begin + 64), lane);
  int code_previous = 0, code_current = load_code(j_begin + lane), code_next = load_code(j_begin + 32 + lane);
  int2 top_current = load_top(j_begin + lane), top_next = load_top(j_begin + 32 + lane);
  // H(first_row, j_begin): the boundary; right of it, lane 0's comes from the row above (the stripe above's
  // last row, or row 0), the other lanes' rows are left of the band there.
  int diagonal = j_begin == 0 ? left_boundary(p, first_row)
                 : lane > 0   ? kNegative
                 : k == 0     ? top_boundary(p, j_begin).x
                              : __ldcg(ring_in + j_begin).x;
  int handed_h = 0, handed_f = kNegative;  // this lane's last row, for lane + 1
  int best = 0, best_column = INT_MAX, best_row = INT_MAX;
  for (int step = 0; step < j_end - j_begin + 31; ++step) {
    if (step > 0 && (step & 31) == 0) {
      wait_for(ready, min(above_end, j_begin + step + 64), lane);
      code_previous = code_current;
      code_current = code_next;
      code_next = load_code(j_begin + step + 32 + lane);
      top_current = top_next;
      top_next = load_top(j_begin + step + 32 + lane);
    }
    const int tile_base = step & ~31;
    const int served = tile_base + lane <= step ? tile_base + lane : tile_base + lane - 32;
    const int column_code = __shfl_sync(kFull, served >= tile_base ? code_current : code_previous, (step - lane) & 31);
    const int top_h = __shfl_sync(kFull, top_current.x, step & 31);
    const int top_f = __shfl_sync(kFull, top_current.y, step & 31);
    int above_h = __shfl_up_sync(kFull, handed_h, 1);
    int above_f = __shfl_up_sync(kFull, handed_f, 1);
    const int j = j_begin + step - lane;
    if (j < j_begin || j >= j_end) continue;
    if (lane == 0) {
      above_h = top_h;
      above_f = top_f;
    }
    int h_diagonal = diagonal, h = above_h, f = above_f;
    int column_max = 0, out_h = 0, out_f = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      f = dpx::add_max(h, -oe, f - e);
      gap_left[r] = dpx::add_max(left[r], -oe, gap_left[r] - e);
      const int cell =
          dpx::max3(dpx::add_max(h_diagonal, scores[row_code[r] + column_code], floor_value), gap_left[r], f);
      h_diagonal = left[r];
      left[r] = cell;
      h = cell;
      if (kLocal) column_max = kTail && r >= valid_rows ? column_max : max(column_max, cell);
      if (kTail && r == out_r) {
        out_h = cell;
        out_f = f;
      }
    }
    diagonal = above_h;
    handed_h = h;
    handed_f = f;
    if (!kTail) {
      out_h = h;
      out_f = f;
    }
    if (kLocal && column_max > 0 && column_max >= best && (column_max > best || p.rows_first)) {
      int row = 0;
#pragma unroll
      for (int r = R - 1; r >= 0; --r)
        if (left[r] == column_max && (!kTail || r < valid_rows)) row = r;
      // A later column wins a tie only by a smaller row, and only when rows come first.
      if (column_max > best || first_row + row + 1 < best_row) {
        best = column_max;
        best_column = j;
        best_row = first_row + row + 1;
      }
    }
    if (out_row != nullptr) out_row[j + 1] = make_int2(out_h, out_f);
    if (ring_out != nullptr) {
      __stcg(ring_out + j + 1, make_int2(h, f));
      if ((j & 31) == 31 || j == j_end - 1) {
        __threadfence();
        *reinterpret_cast<volatile int*>(p.progress + k) = j + 1;
      }
    }
  }
  if (kLocal) {  // the stripe's best: score desc, then column and row (or row and column) asc
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      const int other = __shfl_xor_sync(kFull, best, offset);
      const int other_column = __shfl_xor_sync(kFull, best_column, offset);
      const int other_row = __shfl_xor_sync(kFull, best_row, offset);
      if (other > best || (other == best && before(p.rows_first, other_column, other_row, best_column, best_row))) {
        best = other;
        best_column = other_column;
        best_row = other_row;
      }
    }
    if (lane == 0) p.stripe_best[k] = make_int4(best, best_column, best_row, 0);
  }
}

template <int R>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) long_pair_kernel(const LongPairParams p) {
  __shared__ int scores[kMaxCodes * kMaxCodes];
  for (int i = threadIdx.x; i < kMaxCodes * kMaxCodes; i += blockDim.x) scores[i] = p.matrix[i];
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x & 31);
  for (;;) {
    int k = 0;
    if (lane == 0) k = atomicAdd(p.ticket, 1);
    k = __shfl_sync(kFull, k, 0);
    if (k >= p.stripes) return;
    const bool tail = k == p.stripes - 1;
    if (p.local)
      tail ? run_stripe<R, true, true>(p, scores, k, lane) : run_stripe<R, true, false>(p, scores, k, lane);
    else
      tail ? run_stripe<R, false, true>(p, scores, k, lane) : run_stripe<R, false, false>(p, scores, k, lane);
  }
}

// The pass's outputs on the host.
struct PassResult {
  int score = 0, column = INT_MAX, row = INT_MAX;  // local: the best cell (0-based column, 1-based row)
};

}  // namespace

struct LongPairAligner::Impl {
  explicit Impl(const ScoringScheme& scheme) : scoring(scheme) {}
  ScoringScheme scoring;
  int device = 0;
  int multiprocessors = 1;
  std::int32_t open = 0, extend = 0;
  detail::DeviceBuffer<std::int32_t> matrix;
  detail::Stream stream;
  detail::DeviceBuffer<std::uint8_t> codes;
  detail::DeviceBuffer<int2> ring, rows_out;
  detail::DeviceBuffer<int> counters;
  detail::DeviceBuffer<int4> stripe_best;
  std::uint64_t cells = 0;

  // Buffers outgrown, freed with the aligner: a cudaFree now would wait for every kernel on the device,
  // the other aligners' passes too (growing by half at a time, they hold less than twice the largest).
  // Kept, they also let the pass before on this stream read the old buffer without a wait.
  std::vector<std::shared_ptr<void>> outgrown;

  template <class T>
  void grow(detail::DeviceBuffer<T>& buffer, std::size_t count) {
    if (buffer.size() < count) {
      const std::size_t grown = std::max(count, buffer.size() * 3 / 2);
      outgrown.push_back(std::make_shared<detail::DeviceBuffer<T>>(std::move(buffer)));
      buffer = detail::DeviceBuffer<T>(grown, device);
    }
  }
  double seconds = 0;

  // One pass of rows a against columns b. rows_every: 0 for local (best cell) passes; else the stripes
  // between rows written out (a very large value: the last row only), which come back in `rows`.
  // band: the diagonals computed in a global pass (nullptr: all); the rows come back with minus infinity
  // outside it.
  PassResult pass(std::string_view a, std::string_view b, bool local, bool free_top, std::int32_t top_open,
                  int rows_per_lane, int rows_every, std::vector<int2>* rows, bool rows_first = false,
                  const DiagonalBand* band = nullptr) {
    const int stripe_rows = 32 * rows_per_lane;
    const int m = static_cast<int>(a.size()), n = static_cast<int>(b.size());
    const int stripes = (m + stripe_rows - 1) / stripe_rows;
    detail::ScopedDevice scope(device);
    const cudaStream_t s = stream.get();
    // Buffers kept from call to call, grown when too small: a cudaFree would wait for every kernel on
    // the device, the other aligners' side-by-side passes too.
    grow(codes, a.size() + b.size() + 1);
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(codes.get(), a.data(), a.size(), cudaMemcpyHostToDevice, s));
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(codes.get() + a.size(), b.data(), b.size(), cudaMemcpyHostToDevice, s));
    grow(ring, 2 * (static_cast<std::size_t>(n) + 1));
    grow(counters, static_cast<std::size_t>(stripes) + 1);
    grow(stripe_best, static_cast<std::size_t>(stripes));
    const int out_every = local ? 0 : std::min(rows_every, stripes);
    const std::size_t out_count = local ? 0 : static_cast<std::size_t>((stripes - 1) / out_every + 1);
    grow(rows_out, std::max<std::size_t>(1, out_count * (static_cast<std::size_t>(n) + 1)));
    WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(counters.get(), 0, (static_cast<std::size_t>(stripes) + 1) * sizeof(int), s));
    LongPairParams p;
    p.rows = codes.get();
    p.columns = codes.get() + a.size();
    p.m = m;
    p.n = n;
    p.matrix = matrix.get();
    p.open = open;
    p.extend = extend;
    p.top_open = top_open;
    p.local = local;
    p.rows_first = rows_first;
    p.free_top = free_top;
    p.stripes = stripes;
    p.ring = ring.get();
    p.progress = counters.get();
    p.ticket = counters.get() + stripes;
    p.stripe_best = stripe_best.get();
    p.out_every = local ? 0 : out_every;
    p.rows_out = rows_out.get();
    p.band_low = -m;
    p.band_high = n;
    if (band != nullptr && !local) {
      p.band_low = static_cast<int>(std::clamp<std::int64_t>(band->low, -m, 0));
      p.band_high = static_cast<int>(std::clamp<std::int64_t>(band->high, 0, n));
    }
    const auto kernel = rows_per_lane == 8    ? long_pair_kernel<8>
                        : rows_per_lane == 16 ? long_pair_kernel<16>
                                              : long_pair_kernel<32>;
    int blocks_per_sm = 0;
    WARPSEARCH_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, 32 * kWarpsPerBlock, 0));
    // Warps for every stripe that can be at work at once: all of them, or in a band the width's worth
    // (twice, so that the next stripes are taken while the band's last ones finish); more would spin.
    int busy = stripes;
    if (p.band_low > -m || p.band_high < n)
      busy = static_cast<int>(
          std::min<long long>(stripes, 2 * ((static_cast<long long>(p.band_high) - p.band_low) / stripe_rows + 2)));
    const int blocks = std::max(
        1, std::min((busy + kWarpsPerBlock - 1) / kWarpsPerBlock, std::max(1, blocks_per_sm) * multiprocessors));
    const auto started = std::chrono::steady_clock::now();
    kernel<<<blocks, 32 * kWarpsPerBlock, 0, s>>>(p);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
    PassResult result;
    if (local) {
      std::vector<int4> best(static_cast<std::size_t>(stripes));
      WARPSEARCH_CUDA_CHECK(
          cudaMemcpyAsync(best.data(), stripe_best.get(), best.size() * sizeof(int4), cudaMemcpyDeviceToHost, s));
      stream.synchronize();
      for (const int4& b4 : best)
        if (b4.x > result.score ||
            (b4.x == result.score && before(rows_first, b4.y, b4.z, result.column, result.row))) {
          result.score = b4.x;
          result.column = b4.y;
          result.row = b4.z;
        }
    } else {
      rows->resize(out_count * (static_cast<std::size_t>(n) + 1));
      WARPSEARCH_CUDA_CHECK(
          cudaMemcpyAsync(rows->data(), rows_out.get(), rows->size() * sizeof(int2), cudaMemcpyDeviceToHost, s));
      stream.synchronize();
      if (p.band_low > -m || p.band_high < n) {  // the stripes wrote only their own columns
        for (std::size_t q = 0; q < out_count; ++q) {
          const long long row = q + 1 == out_count ? m : static_cast<long long>(q + 1) * out_every * stripe_rows;
          int2* values = rows->data() + q * (static_cast<std::size_t>(n) + 1);
          const long long first = std::max(1LL, row + p.band_low), last = std::min<long long>(n, row + p.band_high);
          for (long long c = 1; c <= n; ++c)
            if (c < first || c > last) values[c] = make_int2(kNegative, kNegative);
        }
      }
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    for (long long k = 0; k < stripes; ++k) {  // the cells the stripes swept
      const long long first_row = k * stripe_rows, last_row = std::min<long long>(m, first_row + stripe_rows);
      const long long begin = std::max(0LL, first_row + p.band_low),
                      end = std::min<long long>(n, last_row + p.band_high);
      cells +=
          static_cast<std::uint64_t>(std::max(0LL, end - begin)) * static_cast<std::uint64_t>(last_row - first_row);
    }
    return result;
  }

  // Rows per lane: 8 unless the rows give a taller shape two stripes per multiprocessor (more rows per
  // lane amortise a step's shuffles and tile loads; fewer stripes start the later ones sooner). In a
  // band, a stripe starts only once the one above has swept its S = 32 R rows' worth of the diagonal, so
  // the stripes at work at once are those of the band's width, not of the rows: that width decides, and
  // a pass takes about (rows) x (1 + 95 / S) steps one after the other, shorter steps with fewer rows per
  // lane.
  int shape = 0;  // set_rows_per_lane(); 0: by the rows

  // Whether a global span of this many columns is faster in bands. A pass in a band is a chain along
  // the diagonal: each stripe waits for the one above to sweep its rows' worth of columns, so it takes
  // about 0.46 us a row whatever the band's width (one H100: 1 M rows in 0.46-0.48 s, for bands of 8 k and
  // 145 k columns). A whole pass is a chain along the columns, with all its stripes at work: a square
  // 1 M pass takes 0.73 s. A span in bands takes two passes (the guess, then its score's band), so it
  // pays from about 1.26 M columns. The traceback's passes are banded whenever they have a band: Myers
  // and Miller's have half the rows and all the columns, where the band's chain is the shorter (1 Mb x
  // 1 Mb global: 2.5 s against 3.0-3.2 s with whole passes below 630,000 columns).
  bool span_bands_always = false;  // set_span_bands_always()
  bool span_band_pays(std::size_t columns) const {
    return span_bands_always || static_cast<double>(columns) > 2 * 0.45e-6 * 1.4e12;
  }
  int rows_per_lane_for(std::size_t rows, const DiagonalBand* band = nullptr) const {
    if (shape != 0) return shape;
    if (band != nullptr) rows = std::min(rows, band->width());
    for (const int r : {32, 16})
      if (rows >= std::size_t{2} * 32 * static_cast<std::size_t>(r) * static_cast<std::size_t>(multiprocessors))
        return r;
    return 8;
  }
};

LongPairAligner::LongPairAligner(int device, const ScoringScheme& scoring) {
  const cudaDeviceProp properties = detail::device_properties(device);
  detail::ScopedDevice scope(device);
  impl_ = std::make_unique<Impl>(scoring);
  impl_->device = device;
  impl_->multiprocessors = properties.multiProcessorCount;
  impl_->open = scoring.gap_open();
  impl_->extend = scoring.gap_extend();
  impl_->matrix = detail::upload_score_table(scoring, device);
}

LongPairAligner::~LongPairAligner() = default;
LongPairAligner::LongPairAligner(LongPairAligner&&) noexcept = default;
LongPairAligner& LongPairAligner::operator=(LongPairAligner&&) noexcept = default;

bool LongPairAligner::accepts(const ScoringScheme& scoring, std::size_t query_length, std::size_t subject_length,
                              AlignmentMode mode) {
  if (query_length == 0 || query_length > kMaxLength || subject_length > kMaxLength) return false;
  const double best = static_cast<double>(std::min(query_length, subject_length)) * scoring.matrix().max_score();
  const double gaps = static_cast<double>(query_length + subject_length) * scoring.gap_extend() + scoring.gap_open();
  return mode == AlignmentMode::local ? best < (1 << 28) : best + gaps < (1 << 28);
}

void LongPairAligner::reserve_local_spans(std::size_t query_length, std::size_t subject_length) {
  // What a local pass grows (Impl::pass): either sequence may give the rows, and the stripes have at
  // least 256 rows.
  const std::size_t longer = std::max(query_length, subject_length);
  const std::size_t stripes = longer / (32 * 8) + 1;
  detail::ScopedDevice scope(impl_->device);
  impl_->grow(impl_->codes, query_length + subject_length + 1);
  impl_->grow(impl_->ring, 2 * (longer + 1));
  impl_->grow(impl_->counters, stripes + 1);
  impl_->grow(impl_->stripe_best, stripes);
  impl_->grow(impl_->rows_out, 1);
}

Span LongPairAligner::span(std::string_view query, std::string_view subject, AlignmentMode mode) {
  if (mode == AlignmentMode::xdrop || !accepts(impl_->scoring, query.size(), subject.size(), mode))
    throw std::invalid_argument("long pair: a query of " + std::to_string(query.size()) + " and a subject of " +
                                std::to_string(subject.size()) + " residues is not accepted in this mode");
  impl_->cells = 0;
  impl_->seconds = 0;
  Span span;
  const std::string reversed_query(query.rbegin(), query.rend());
  const std::string reversed_subject(subject.rbegin(), subject.rend());
  // The reversed prefix of `length` residues: the tail of the reversed sequence.
  const auto reversed_prefix = [](const std::string& reversed, std::size_t length) {
    return std::string_view(reversed).substr(reversed.size() - length);
  };
  if (mode == AlignmentMode::local) {
    // The shorter sequence gives the rows (fewer stripes, as fast); the tie-break stays the subject's
    // end first, then the query's.
    const bool transposed = subject.size() < query.size();
    // (score, query residues, subject residues) up to the best cell of q against s.
    const auto local_pass = [&](std::string_view q, std::string_view s) {
      if (transposed) {
        const PassResult r = impl_->pass(s, q, true, false, 0, impl_->rows_per_lane_for(s.size()), 0, nullptr, true);
        return std::make_tuple(r.score, static_cast<std::uint64_t>(r.column) + 1, static_cast<std::uint64_t>(r.row));
      }
      const PassResult r = impl_->pass(q, s, true, false, 0, impl_->rows_per_lane_for(q.size()), 0, nullptr);
      return std::make_tuple(r.score, static_cast<std::uint64_t>(r.row), static_cast<std::uint64_t>(r.column) + 1);
    };
    const auto [score, query_end, subject_end] = local_pass(query, subject);
    if (score == 0) return span;
    span.score = score;
    span.query_end = query_end;
    span.subject_end = subject_end;
    const auto [start_score, query_length, subject_length] =
        local_pass(reversed_prefix(reversed_query, query_end), reversed_prefix(reversed_subject, subject_end));
    if (start_score != score)
      throw std::logic_error("long pair: the reverse pass scores " + std::to_string(start_score) +
                             ", the forward pass " + std::to_string(score));
    span.query_begin = query_end - query_length;
    span.subject_begin = subject_end - subject_length;
    return span;
  }
  // Global and semi-global: the last row.
  std::vector<int2> last;
  span.query_end = query.size();
  if (mode == AlignmentMode::global) {
    span.subject_end = subject.size();
    // In bands, as cpu::pair_span: the guess's banded score L, then (unless its band proves L optimal)
    // the band of every alignment scoring L or more.
    const std::optional<DiagonalBand> guess = guess_band(query.size(), subject.size());
    std::optional<DiagonalBand> band;
    if (impl_->span_band_pays(subject.size()) && guess) {
      impl_->pass(query, subject, false, false, impl_->open, impl_->rows_per_lane_for(query.size(), &*guess), INT_MAX,
                  &last, false, &*guess);
      span.score = last[subject.size()].x;
      const AfterGuess after = after_guess(query.size(), subject.size(), span.score, *guess, impl_->scoring);
      if (after.proven) return span;
      band = after.band;
    }
    impl_->pass(query, subject, false, false, impl_->open,
                impl_->rows_per_lane_for(query.size(), band ? &*band : nullptr), INT_MAX, &last, false,
                band ? &*band : nullptr);
    span.score = last[subject.size()].x;
    return span;
  }
  const int rows_per_lane = impl_->rows_per_lane_for(query.size());
  impl_->pass(query, subject, false, true, impl_->open, rows_per_lane, INT_MAX, &last);
  // Semi-global: the smallest optimal subject end (column 0 included), then the same over the reversed
  // subject prefix for the largest optimal start.
  std::size_t end = 0;
  for (std::size_t c = 1; c <= subject.size(); ++c)
    if (last[c].x > last[end].x) end = c;
  span.score = last[end].x;
  span.subject_end = end;
  if (end == 0) return span;
  impl_->pass(reversed_query, reversed_prefix(reversed_subject, end), false, true, impl_->open, rows_per_lane, INT_MAX,
              &last);
  std::size_t start = 0;
  for (std::size_t c = 1; c <= end; ++c)
    if (last[c].x > last[start].x) start = c;
  if (last[start].x != span.score)
    throw std::logic_error("long pair: the reverse semi-global pass scores " + std::to_string(last[start].x) +
                           ", the forward pass " + std::to_string(span.score));
  span.subject_begin = end - start;
  return span;
}

void LongPairAligner::global_rows(std::string_view a, std::string_view b, std::int32_t top_open, std::size_t spacing,
                                  std::vector<std::int32_t>& h, std::vector<std::int32_t>& ins,
                                  const DiagonalBand* band) {
  if (!accepts(impl_->scoring, a.size(), b.size(), AlignmentMode::global) ||
      (spacing < a.size() && (spacing == 0 || spacing % kRowSpacing != 0)))
    throw std::invalid_argument("long pair: rows every " + std::to_string(spacing) + " of " + std::to_string(a.size()) +
                                " x " + std::to_string(b.size()) + " residues are not accepted");
  impl_->cells = 0;
  impl_->seconds = 0;
  // Rows every k stripes need stripes of kRowSpacing rows (8 per lane).
  const int rows_per_lane = spacing < a.size() ? 8 : impl_->rows_per_lane_for(a.size(), band);
  const std::size_t stripe_rows = 32 * static_cast<std::size_t>(rows_per_lane);
  const int every = spacing >= a.size() ? INT_MAX : static_cast<int>(spacing / stripe_rows);
  std::vector<int2> rows;
  impl_->pass(a, b, false, false, top_open, rows_per_lane, every, &rows, false, band);
  h.resize(rows.size());
  ins.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    h[i] = rows[i].x;
    ins[i] = rows[i].y;
  }
}

void LongPairAligner::set_rows_per_lane(int rows) {
  if (rows != 0 && rows != 8 && rows != 16 && rows != 32)
    throw std::invalid_argument("long pair: rows per lane must be 8, 16 or 32 (or 0: by the rows)");
  impl_->shape = rows;
}

void LongPairAligner::set_span_bands_always(bool always) { impl_->span_bands_always = always; }

std::uint64_t LongPairAligner::last_cells() const { return impl_->cells; }
double LongPairAligner::last_seconds() const { return impl_->seconds; }

}  // namespace warpsearch::gpu
