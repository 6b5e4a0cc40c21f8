// The long-pair kernel (kernels/gpu/long_pair.hpp): its parameters and device code. Private to the
// long-pair aligner (kernels/gpu/long_pair_impl.cuh), which launches it.
//
// Stripes. Stripe k holds rows k * S + 1 .. (k + 1) * S (S = 32 * R, 1-based rows); lane t holds R of
// them and sweeps the columns one step behind lane t - 1, which hands it, by a shuffle, H and I (the
// vertical gap) of the row above for the column it has just finished (the scheme of
// kernels/gpu/hot_columns.cu). Lane 31 writes the stripe's last row to a ring of two rows in global
// memory, and after every tile of 32 steps publishes how far it got (a fence, then the stripe's
// progress counter). The next stripe's lane 0 reads that row a tile of 32 columns ahead of use, after
// waiting for the counter.
//
// Steps. A step costs one shuffle of H and I from lane to lane, R rows of the recurrence and the
// bookkeeping around them, and in a band the stripes form a chain (each starts S + 95 steps after the
// one above), so a banded pass lasts about (rows) x (one step). The steps of a tile are therefore
// compiled twice: with the test of whether a lane's column is inside the stripe's columns (the first
// tile, where lanes start one after the other, and the last ones), and without it for every other tile,
// whose loop body then has no divergent branch; the subject codes and the top row are handed round by
// shuffles whose sources depend only on the step within the tile, and the progress is published once
// a tile. One H100, 1 Mb DNA, 8 rows a lane: a lone warp's step took about 540 cycles when one loop
// tested every step for its tile, its column's range and its publishing, and takes about 240 so. For
// a related reason a local pass's best cell is kept without a branch (below).
//
// Why two rows suffice: stripe k overwrites column j of the slot stripe k - 2 wrote only once its own
// lane 0 has passed column j + 31, which needed stripe k - 1 to have published past it, so stripe k - 1
// had read column j of that slot already.
// Why it cannot deadlock: warps take stripes from a counter, in order, so the stripe a warp waits for
// belongs to a warp that is running (it took its stripe before), and a pair's stripe 0 waits for nothing.
//
// Outputs: local passes keep each lane's best cell (the largest H; on ties the smallest column, then
// the smallest row, since a lane visits columns in order and its rows top down), reduced per stripe in
// the same order and on the host over stripes. A step where a lane's column maximum rises keeps the
// column's values (a select a row, at every step) and the row is looked up once, at the stripe's end.
// A branch around the lookup, taken only where the best rises, is taken anyway (in a related pair some
// lane's best rises at most steps) and lowers the rate at which the warps issue. Measured against it
// (one H100, 1 Mb DNA pair at 5% mutations): the local start pass in its band (16 rows a lane)
// 0.37-0.38 s against about 0.50 s (Nsight Compute: 1.63 instructions a cycle per multiprocessor
// against 1.33, 6% fewer instructions); an unrelated pair's whole pass (32 rows a lane), where the best
// rarely rises, 0.86 s against 0.82 s.
// Rows first (the pair transposed; a kernel of its own, kRowsFirst), a tie compares the rows. Global
// and semi-global passes write chosen rows (every out_every-th stripe's last row and the pair's last
// row) to rows_out, H and I per column. The stripe that holds the pair's last row may hold rows past it
// (garbage that only feeds rows below): it is compiled apart (kTail), masking those rows out of the
// best cell and taking the last row's values from inside a lane.
//
// Several pairs share a launch (LongPairBatch): their stripes are numbered pair after pair and taken
// from one counter, so the argument above holds for each pair.
#pragma once

#include <climits>
#include <cstdint>
#include <type_traits>

#include "core/alphabet.hpp"
#include "kernels/gpu/dpx.cuh"
#include "kernels/gpu/score_table.cuh"

namespace warpsearch::gpu::detail {

constexpr int kWarpsPerBlock = 4;
constexpr int kNegative = -(1 << 29);  // minus infinity: the CPU traceback's own (kernels/cpu/alignment_rows.hpp)
constexpr unsigned kFull = 0xffffffffu;

// One pair's pass: its sequences, the boundaries, and where its stripes meet and leave their results.
struct LongPairParams {
  const std::uint8_t* rows = nullptr;     // m codes
  const std::uint8_t* columns = nullptr;  // n codes
  int m = 0, n = 0;
  int open = 0, extend = 0;
  int top_open = 0;         // not local: H(r, 0) = I(r, 0) = -(top_open + r * extend)
  bool local = true;        // floor 0, row 0 and column 0 free
  bool rows_first = false;  // local ties: the smallest row, then column (else column, then row)
  bool free_top = false;    // semi-global: row 0 free
  int stripes = 0;
  int2* ring = nullptr;             // 2 x (n + 1): (H, I) of a stripe's last row, entry 0 = column 0
  int* progress = nullptr;          // per stripe: columns of its last row published
  int4* stripe_best = nullptr;      // per stripe (local): (score, column (0-based), row (1-based), 0)
  int out_every = 0;                // stripes between rows written out (0: the last row only)
  int2* rows_out = nullptr;         // (count) x (n + 1)
  int band_low = 0, band_high = 0;  // the diagonals (column - row) computed: -m and n for all
};

// The pairs of one launch. Their stripes are numbered pair after pair (pair i's from first_stripe[i])
// and taken from one counter, so that a stripe waits only for a stripe taken before it.
struct LongPairBatch {
  const LongPairParams* pairs = nullptr;
  const int* first_stripe = nullptr;  // count + 1 entries
  int count = 0;
  int* ticket = nullptr;
  const std::int32_t* matrix = nullptr;          // kMaxCodes x kMaxCodes
  const std::uint32_t* packed_scores = nullptr;  // the packed kernel's table (long_pair_packed_kernel.cuh)
  unsigned long long* stripe_clocks = nullptr;   // the stripe timeline (record_clock), or none
};

// The next stripe of the batch: its pair (-1 once all are taken), its number within the pair, and its
// number within the launch (the counter's value).
struct StripeTicket {
  int pair = -1, stripe = 0, ticket = 0;
};

__device__ __forceinline__ StripeTicket take_stripe(const LongPairBatch& batch, int lane) {
  int ticket = 0;
  if (lane == 0) ticket = atomicAdd(batch.ticket, 1);
  ticket = __shfl_sync(kFull, ticket, 0);
  if (ticket >= batch.first_stripe[batch.count]) return {};
  int pair = 0, last = batch.count - 1;  // the pair whose stripes hold the ticket
  while (pair < last) {
    const int middle = (pair + last + 1) / 2;
    if (batch.first_stripe[middle] <= ticket)
      pair = middle;
    else
      last = middle - 1;
  }
  return {pair, ticket - batch.first_stripe[pair], ticket};
}

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

// The stripe timeline (LongPairAligner::set_stripe_timeline): the device's clock in nanoseconds when a
// warp takes a stripe (kTaken), when the stripe above has let it start (kStarted: after its first wait)
// and when it ends (kEnded), three entries a stripe of the launch, written by lane 0. timeline: the
// launch's (LongPairBatch::stripe_clocks, read where it is used rather than kept in registers through
// the stripe), or nullptr; clock: the stripe's first entry.
constexpr int kTaken = 0, kStarted = 1, kEnded = 2;
__device__ __forceinline__ void record_clock(unsigned long long* timeline, int clock, int which, int lane) {
  if (timeline != nullptr && lane == 0) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    timeline[clock + which] = now;
  }
}

// The stripe's first timeline entry (0 when the launch keeps none).
__device__ __forceinline__ int stripe_clock(const LongPairBatch& batch, const StripeTicket& ticket) {
  return batch.stripe_clocks == nullptr ? 0 : 3 * ticket.ticket;
}

// Publishes that a stripe's last row is written up to `columns` columns (the fence orders the row's
// stores before the counter), for the stripe below's wait_for.
__device__ __forceinline__ void publish(int* progress, int columns) {
  __threadfence();
  *reinterpret_cast<volatile int*>(progress) = columns;
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

// The stripe's best cell from its lanes' (score desc, then column and row, or row and column, asc), to
// stripe_best[k].
__device__ __forceinline__ void write_stripe_best(const LongPairParams& p, int k, int lane, int score, int column,
                                                  int row) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const int other = __shfl_xor_sync(kFull, score, offset);
    const int other_column = __shfl_xor_sync(kFull, column, offset);
    const int other_row = __shfl_xor_sync(kFull, row, offset);
    if (other > score || (other == score && before(p.rows_first, other_column, other_row, column, row))) {
      score = other;
      column = other_column;
      row = other_row;
    }
  }
  if (lane == 0) p.stripe_best[k] = make_int4(score, column, row, 0);
}

// One stripe of one warp. kLocal: track the best cell; kTail: the stripe holds the pair's last row.
// It stays one function, the step a lambda inside it: the step shares the lane's R rows of registers
// with the tile loads around it, and device functions taking those arrays would force them into local
// memory.
template <int R, bool kLocal, bool kTail, bool kRowsFirst>
__device__ __forceinline__ void run_stripe(const LongPairParams& p, const int* scores, int k, int lane,
                                           unsigned long long* timeline, int clock) {
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
  record_clock(timeline, clock, kStarted, lane);
  int code_previous = 0, code_current = load_code(j_begin + lane), code_next = load_code(j_begin + 32 + lane);
  int2 top_current = load_top(j_begin + lane), top_next = load_top(j_begin + 32 + lane);
  // H(first_row, j_begin): the boundary; right of it, lane 0's comes from the row above (the stripe above's
  // last row, or row 0), the other lanes' rows are left of the band there.
  int diagonal = j_begin == 0 ? left_boundary(p, first_row)
                 : lane > 0   ? kNegative
                 : k == 0     ? top_boundary(p, j_begin).x
                              : __ldcg(ring_in + j_begin).x;
  int handed_h = 0, handed_f = kNegative;  // this lane's last row, for lane + 1
  // Local: the best cell's score, column, and the column's values (saved), which give its row at the end.
  int best = 0, best_column = INT_MAX, saved[R];
#pragma unroll
  for (int r = 0; r < R; ++r) saved[r] = 0;
  // The first of the lane's (valid) rows whose value is `value`, R if none.
  const auto first_row_of = [&](const int(&values)[R], int value) {
    int row = R;
#pragma unroll
    for (int r = R - 1; r >= 0; --r)
      if (values[r] == value && (!kTail || r < valid_rows)) row = r;
    return row;
  };
  // Step t (0..31) of the tile of steps from tile_base: lane l works on column j_begin + tile_base + t - l,
  // whose code lane (t - l) & 31 holds, in this tile's codes when l <= t, else in the last tile's.
  // Checked: lanes whose column is outside j_begin .. j_end - 1 keep their state.
  const auto step_once = [&](int tile_base, int t, auto checked) {
    const int column_code = __shfl_sync(kFull, lane <= t ? code_current : code_previous, (t - lane) & 31);
    const int top_h = __shfl_sync(kFull, top_current.x, t);
    const int top_f = __shfl_sync(kFull, top_current.y, t);
    int above_h = __shfl_up_sync(kFull, handed_h, 1);
    int above_f = __shfl_up_sync(kFull, handed_f, 1);
    const int j = j_begin + tile_base + t - lane;
    if (decltype(checked)::value && (j < j_begin || j >= j_end)) return;
    if (lane == 0) {
      above_h = top_h;
      above_f = top_f;
    }
    const int* column_scores = scores + column_code;
    int h_diagonal = diagonal, h = above_h, f = above_f;
    int column_max = 0, out_h = 0, out_f = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      f = dpx::add_max(h, -oe, f - e);
      gap_left[r] = dpx::add_max(left[r], -oe, gap_left[r] - e);
      const int cell = dpx::max3(dpx::add_max(h_diagonal, column_scores[row_code[r]], floor_value), gap_left[r], f);
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
    if (kLocal) {
      // A column maximum above the best keeps the column (its row is found at the end). No branch: in a
      // related pair some lane has a new best at most steps (see the top).
      const bool raised = column_max > best;
#pragma unroll
      for (int r = 0; r < R; ++r) saved[r] = raised ? left[r] : saved[r];
      best_column = raised ? j : best_column;
      // A later column wins a tie only by a smaller row, and only when rows come first.
      if (kRowsFirst && !raised && column_max == best && best > 0 &&
          first_row_of(left, column_max) < first_row_of(saved, best)) {
#pragma unroll
        for (int r = 0; r < R; ++r) saved[r] = left[r];
        best_column = j;
      }
      best = max(best, column_max);
    }
    if (out_row != nullptr) out_row[j + 1] = make_int2(out_h, out_f);
    if (ring_out != nullptr) __stcg(ring_out + j + 1, make_int2(h, f));
  };
  const int width = j_end - j_begin, steps = width + 31;
  for (int tile_base = 0; tile_base < steps; tile_base += 32) {
    if (tile_base > 0) {
      wait_for(ready, min(above_end, j_begin + tile_base + 64), lane);
      code_previous = code_current;
      code_current = code_next;
      code_next = load_code(j_begin + tile_base + 32 + lane);
      top_current = top_next;
      top_next = load_top(j_begin + tile_base + 32 + lane);
    }
    if (tile_base > 0 && tile_base + 31 < width) {  // every lane's column inside at every step
#pragma unroll(32 / R)
      for (int t = 0; t < 32; ++t) step_once(tile_base, t, std::false_type{});
    } else {
      for (int t = 0; t < 32 && tile_base + t < steps; ++t) step_once(tile_base, t, std::true_type{});
    }
    // Lane 31 has written its columns up to j_begin + tile_base (the tile's last step less 31), or the
    // stripe's last: publish them.
    if (ring_out != nullptr) publish(p.progress + k, j_begin + min(tile_base, width - 1) + 1);
  }
  if (kLocal)
    write_stripe_best(p, k, lane, best, best_column, best > 0 ? first_row + first_row_of(saved, best) + 1 : INT_MAX);
}

template <int R>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) long_pair_kernel(const LongPairBatch batch) {
  __shared__ int scores[kMaxCodes * kMaxCodes];
  for (int i = threadIdx.x; i < kMaxCodes * kMaxCodes; i += blockDim.x) scores[i] = batch.matrix[i];
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x & 31);
  for (;;) {
    const StripeTicket ticket = take_stripe(batch, lane);
    if (ticket.pair < 0) return;
    const LongPairParams p = batch.pairs[ticket.pair];
    const int k = ticket.stripe;
    const bool tail = k == p.stripes - 1;
    const int clock = stripe_clock(batch, ticket);
    record_clock(batch.stripe_clocks, clock, kTaken, lane);
    if (p.local && p.rows_first)
      tail ? run_stripe<R, true, true, true>(p, scores, k, lane, batch.stripe_clocks, clock)
           : run_stripe<R, true, false, true>(p, scores, k, lane, batch.stripe_clocks, clock);
    else if (p.local)
      tail ? run_stripe<R, true, true, false>(p, scores, k, lane, batch.stripe_clocks, clock)
           : run_stripe<R, true, false, false>(p, scores, k, lane, batch.stripe_clocks, clock);
    else
      tail ? run_stripe<R, false, true, false>(p, scores, k, lane, batch.stripe_clocks, clock)
           : run_stripe<R, false, false, false>(p, scores, k, lane, batch.stripe_clocks, clock);
    record_clock(batch.stripe_clocks, clock, kEnded, lane);
  }
}

}  // namespace warpsearch::gpu::detail
