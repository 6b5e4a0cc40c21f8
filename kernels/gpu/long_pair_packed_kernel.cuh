// The long-pair kernel's packed form (kernels/gpu/long_pair.hpp): a local pass over a whole pair of
// nucleotide sequences, two cells per 32-bit register, in 16-bit values relative to a base. Private to
// the long-pair aligner (kernels/gpu/long_pair_impl.cuh), which launches it where it fits
// (Impl::packed_fits) and the 32-bit kernel (long_pair_kernel.cuh) otherwise. The stripes, their order
// and the ring between them are that kernel's.
//
// Two halves. A lane holds R rows as R / 2 words: word w's low half is row w of the lane's rows, its high
// half row R / 2 + w, one column behind. So a step computes the low half at column j and the high half
// at column j - 1, whose row above (the low half's last row) the previous step finished, and the s16x2
// DPX instructions take both at once: per word one add-max for the diagonal, a three-way maximum, the
// open cost subtracted, and two add-max for the gaps: 2.5 DPX-rate instructions a cell where the 32-bit
// kernel spends six. Lane t runs two columns behind lane t - 1, whose high half hands it, by a
// shuffle, H and the next row's vertical gap (F) of the column it has just finished, and the column's
// code with them; lane 0 takes both from the ring (the stripe above) and the subject.
//
// Relative values. Adjacent cells of the DP differ by at most d = open + extend + max |score| (H(i, j)
// >= F(i, j) >= H(i - 1, j) - open - extend, H(i, j) >= H(i - 1, j - 1) + min score, and the upper
// bounds by induction), so the cells a warp touches during a tile of 32 steps (32 R rows, about 100
// columns) lie within d x (32 R + 70) of the cell its lane 0 held at the tile's start. Each tile therefore
// subtracts that cell's value from every register (the base grows by it), and the 16-bit values stay
// exact while that span, the gap costs and the largest score fit 32,000 (Impl::packed_fits; 11,000 for
// DNA at 2/-3 and gaps 5/2 with 32 rows a lane). The floor of a local pass, 0, is -base relative; where
// that lies below 16 bits the floor cannot bind (every cell of the warp is then above 0). Values leaving
// the warp (the ring, the best cells) are absolute 32-bit.
//
// Edges without checks. Columns before a lane's first and past the last hold the padding code, whose
// scores are negative: before the first, every cell computes to the local boundary (H = 0, a gap of
// -open - extend), exactly what the first column needs; past the last, and in the rows past the pair's
// last in the last stripe, every cell is a real cell's value less a gap cost or plus a negative score,
// or 0, so none can be the best. The ring takes only real columns.
//
// Best cells: each half keeps its own (the largest H; on ties the smallest column, then row, or row then
// column). A step compares its halves' column maxima with their bests (one 16-bit maximum); where one
// is above, it keeps the column's words (a select a word), and the best's row is looked up in them once,
// at the stripe's end. Below an alignment's path the cells grow with every column, so a lane's best
// rises at about a quarter of the steps of a related pair: with the row looked up at each rise (two
// compares a word), a related 1 Mb pair's pass took 1.02-1.04 s, with the words kept 0.57 s. The keep
// has no branch (the selects run at every step): a branch taken only where a best rises is taken
// anyway, since some lane of the warp has a new best at most steps, and its divergent path costs more
// than the selects (measured with it, a related 1 Mb pair's pass: 215 G instructions against 179 G at
// the same rate, Nsight Compute; an unrelated pair's pass 0.53 s against 0.44 s). Rows first (a kernel
// of its own, kRowsFirst), a tie in a half's column maximum compares rows (rare: a tie needs an equal
// score). The warp reduces the 64 bests as the 32-bit kernel does.
//
// Speed (one H100, 1 Mb x 1 Mb DNA, 32 rows a lane): an unrelated pair's pass 0.44 s against 0.80-0.86 s
// in the 32-bit kernel (2.3 against 1.2 T cells/s). Before the keep lost its branch, each stripe swept
// its 1 M columns in about 0.44 s and stripe k + 1 started about 57 us after stripe k (timed on the
// device), so the pass is the stripes' own speed: one or two warps a scheduler, each step bound by its
// latency (Nsight Compute then: 0.44 instructions issued a cycle per scheduler, the top stall a
// fixed-latency dependency). 64 rows a lane (489 stripes, 225 registers) took 0.64 s against 0.53 s; the steps
// unrolled by 2 or 8 instead of 4, the same within the runs' spread. With 8 rows a lane (4 words) a
// step's fixed work (four shuffles, the handoffs, the best's test) weighs as much as its words: the
// unrelated pair's pass 0.90-0.93 s against 0.99-1.02, but `align` of a local 100 kb pair, whose passes
// take that shape, 0.49-0.52 s against 0.41-0.44. So the packed kernel takes shapes of 16 and 32 rows a
// lane.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/gpu/long_pair_kernel.cuh"
#include "profile/scoring.hpp"

namespace warpsearch::gpu::detail {

// Codes 0 .. kPackedCodes - 1: the nucleotide alphabet (A C G T N) and its padding code.
constexpr int kPackedCodes = 6;
// Table copies: entry e of copy c at word e * kPackedCopies + c, lane l reading copy l % kPackedCopies,
// so that only the four lanes sharing a copy can meet on a bank: 2.9 shared-memory wavefronts a lookup
// (Nsight Compute), which the latency-bound steps do not feel (their shared-memory stalls are small).
constexpr int kPackedCopies = 8;
// The packed table: entry (low row code * 6 + high row code) * 36 + low column code * 6 + high column
// code holds the low pair's score in its low half and the high pair's in its high half.
constexpr int kPackedEntries = kPackedCodes * kPackedCodes * kPackedCodes * kPackedCodes;
constexpr int kPackedWords = kPackedEntries * kPackedCopies;
// Minus infinity in 16 bits, far enough from -32768 that subtracting a gap cost or adding a score
// cannot wrap; and the top of the relative values, which no cell reaches (kPackedSpan below).
constexpr int kPackedMinusInfinity = -32512;
constexpr int kPackedTop = 32767;
// The largest span of relative values packed_pass_fits allows.
constexpr int kPackedSpan = 32000;

// The table above, on the host, for a nucleotide scheme; empty for another.
inline std::vector<std::uint32_t> packed_score_table(const ScoringScheme& scoring) {
  if (scoring.matrix().alphabet().size() != kPackedCodes - 1) return {};
  const auto half = [&](int row, int column) {
    return static_cast<std::uint32_t>(static_cast<std::uint16_t>(
        static_cast<std::int16_t>(scoring.score(static_cast<std::uint8_t>(row), static_cast<std::uint8_t>(column)))));
  };
  std::vector<std::uint32_t> table(kPackedWords);
  for (int low_row = 0; low_row < kPackedCodes; ++low_row)
    for (int high_row = 0; high_row < kPackedCodes; ++high_row)
      for (int low_column = 0; low_column < kPackedCodes; ++low_column)
        for (int high_column = 0; high_column < kPackedCodes; ++high_column) {
          const int entry =
              ((low_row * kPackedCodes + high_row) * kPackedCodes + low_column) * kPackedCodes + high_column;
          for (int copy = 0; copy < kPackedCopies; ++copy)
            table[static_cast<std::size_t>(entry * kPackedCopies + copy)] =
                half(low_row, low_column) | half(high_row, high_column) << 16;
        }
  return table;
}

__device__ __forceinline__ unsigned pack_halves(int low, int high) {
  return (static_cast<unsigned>(low) & 0xffffu) | (static_cast<unsigned>(high) << 16);
}
__device__ __forceinline__ int low_half(unsigned v) { return static_cast<short>(v & 0xffffu); }
__device__ __forceinline__ int high_half(unsigned v) { return static_cast<int>(v) >> 16; }
__device__ __forceinline__ int to_relative(int absolute, int base) {
  return min(max(absolute - base, kPackedMinusInfinity), kPackedTop);
}
// The word at a shared-memory address.
__device__ __forceinline__ unsigned shared_word(unsigned address) {
  unsigned word;
  asm("ld.shared.u32 %0, [%1];" : "=r"(word) : "r"(address));
  return word;
}
// Both halves less delta, at least minus infinity.
__device__ __forceinline__ unsigned rebased(unsigned v, unsigned delta) {
  const unsigned floor_value = pack_halves(kPackedMinusInfinity, kPackedMinusInfinity);
  return __vmaxs2(__vsubss2(v, delta), floor_value);
}

// The first of a lane's words whose half (0: low, 1: high) holds value.
template <int W>
__device__ __forceinline__ int first_word(const unsigned (&words)[W], int half, int value) {
  int word = W;
#pragma unroll
  for (int w = W - 1; w >= 0; --w)
    if ((half == 0 ? low_half(words[w]) : high_half(words[w])) == value) word = w;
  return word;
}

// One stripe of one warp (see above and run_stripe in long_pair_kernel.cuh). It stays one function, the
// step a lambda inside it, for the reason run_stripe does.
template <int R, bool kRowsFirst>
__device__ __forceinline__ void run_packed_stripe(const LongPairParams& p, const unsigned* table, int k, int lane,
                                                  unsigned long long* timeline, int clock) {
  constexpr int W = R / 2, S = 32 * R, kPad = kPackedCodes - 1;
  const int n = p.n, oe = p.open + p.extend;
  const unsigned minus_oe = pack_halves(-oe, -oe), minus_e = pack_halves(-p.extend, -p.extend);
  const unsigned minus_infinity = pack_halves(kPackedMinusInfinity, kPackedMinusInfinity);
  const int first_row = k * S + lane * R;  // word w: rows first_row + 1 + w (low), first_row + 1 + W + w (high)
  const bool below = k + 1 < p.stripes;    // a stripe below reads this one's last row
  const int2* ring_in = p.ring + static_cast<long long>((k + 1) & 1) * (n + 1);
  int2* ring_out = below && lane == 31 ? p.ring + static_cast<long long>(k & 1) * (n + 1) : nullptr;
  const int* ready = k > 0 ? p.progress + k - 1 : nullptr;
  const auto row_code = [&](int row) { return row < p.m ? min(static_cast<int>(p.rows[row]), kPad) : kPad; };
  // Per word: the shared-memory address of its row pair's entries in this lane's copy. A step adds its
  // column pair's offset (one add and one load a word; indexing the table instead took two multiply-adds).
  unsigned row_address[W];
  const unsigned table_address = static_cast<unsigned>(__cvta_generic_to_shared(table));
#pragma unroll
  for (int w = 0; w < W; ++w)
    row_address[w] = table_address +
                     4u * static_cast<unsigned>((row_code(first_row + w) * kPackedCodes + row_code(first_row + W + w)) *
                                                    kPackedCodes * kPackedCodes * kPackedCopies +
                                                lane % kPackedCopies);
  const unsigned boundary = pack_halves(0, -oe);  // (H, F of the row below) on a local pass's edges
  unsigned left[W], gap[W];                       // H(row, j - 1), the horizontal gap into (row, j)
#pragma unroll
  for (int w = 0; w < W; ++w) {
    left[w] = 0;
    gap[w] = pack_halves(kPackedMinusInfinity, kPackedMinusInfinity);
  }
  unsigned diagonal = 0;       // the previous step's rows above, both halves
  unsigned own = boundary;     // (H, F) below the low half's last row, at the previous step's column
  unsigned handed = boundary;  // (H, F) below the high half's last row: lane + 1's next row above
  int code_handed = kPad;      // the high half's column code: lane + 1's next low column
  int code_before = kPad;      // the previous step's low column code: this step's high column
  int base = 0;
  unsigned floor_value = 0;
  // Each half's best: its score (0: none yet), column, and the words of that column (saved, their values
  // relative to the base of that step, saved_base), which give its row at the end. best_relative holds
  // both bests relative to the base; best, their absolute values, is brought up to date once a tile.
  int best[2] = {0, 0}, best_column[2] = {INT_MAX, INT_MAX}, saved_base[2] = {0, 0};
  unsigned saved[W];
#pragma unroll
  for (int w = 0; w < W; ++w) saved[w] = 0;
  unsigned best_relative = 0;
  const auto keep_column = [&](unsigned mask) {  // the current words into saved, in the halves of mask
#pragma unroll
    for (int w = 0; w < W; ++w) saved[w] = (left[w] & mask) | (saved[w] & ~mask);
  };
  // best from best_relative. A half at minus infinity lies below every cell the warp holds, one at the
  // top (a best more than 16 bits above the base: past the end of an alignment, the cells fall far
  // below it) above every cell: either way no cell raised it, and it is unchanged.
  const auto update_best = [&] {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int relative = half == 0 ? low_half(best_relative) : high_half(best_relative);
      if (relative > kPackedMinusInfinity && relative < kPackedTop) best[half] = relative + base;
    }
  };
  const auto load_code = [&](int j) { return j >= 0 && j < n ? min(static_cast<int>(p.columns[j]), kPad) : kPad; };
  const auto load_top = [&](int j) {  // absolute (H, F of the row below) of the row above column j
    if (k == 0 || j >= n) return make_int2(0, -oe);
    return __ldcg(ring_in + j + 1);
  };
  wait_for(ready, min(n, 64), lane);
  record_clock(timeline, clock, kStarted, lane);
  int code_current = load_code(lane), code_next = load_code(32 + lane);
  int2 top_current = load_top(lane), top_next = load_top(32 + lane);
  unsigned top_packed = 0;

  // Step t of the tile from tile_base: lane l's low half at column tile_base + t - 2 l.
  const auto step = [&](int tile_base, int t) {
    unsigned from_above = __shfl_up_sync(kFull, handed, 1);
    int code = __shfl_up_sync(kFull, code_handed, 1);
    const unsigned top = __shfl_sync(kFull, top_packed, t);
    const int top_code = __shfl_sync(kFull, code_current, t);
    if (lane == 0) {
      from_above = top;
      code = top_code;
    }
    const unsigned above = __byte_perm(from_above, own, 0x5410);  // H: low from above, high from own low half
    unsigned f = __byte_perm(from_above, own, 0x7632);            // F of the words' first rows
    const unsigned column_bytes = 4u * static_cast<unsigned>((code * kPackedCodes + code_before) * kPackedCopies);
    unsigned h_diagonal = diagonal;
    diagonal = above;
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const unsigned cell = dpx::max3_s16x2(
          dpx::add_max_s16x2(h_diagonal, shared_word(row_address[w] + column_bytes), floor_value), gap[w], f);
      h_diagonal = left[w];
      left[w] = cell;
      // cell - open - extend (never below minus infinity); the add-max writes a new register where the
      // two-operand 16x2 add needed a copy of the cell first.
      const unsigned opened = dpx::add_max_s16x2(cell, minus_oe, minus_infinity);
      f = dpx::add_max_s16x2(f, minus_e, opened);
      gap[w] = dpx::add_max_s16x2(gap[w], minus_e, opened);
    }
    own = __byte_perm(left[W - 1], f, 0x5410);
    handed = __byte_perm(left[W - 1], f, 0x7632);
    code_handed = code_before;
    code_before = code;
    unsigned column_max = left[0];
#pragma unroll
    for (int w = 1; w < W; w += 2)
      column_max = w + 1 < W ? dpx::max3_s16x2(column_max, left[w], left[w + 1]) : __vmaxs2(column_max, left[w]);
    const int j = tile_base + t - 2 * lane;  // the low half's column (the high half's is j - 1)
    // A half whose column maximum is above its best keeps the column (its row is found at the end). No
    // branch: some lane of a related pair's warp has a new best at most steps (see the top).
    const unsigned raised = __vmaxs2(column_max, best_relative);
    const unsigned mask = __vminu2(raised ^ best_relative, 0x00010001u) * 0xffffu;  // 0xffff where raised
    keep_column(mask);
    best_column[0] = mask & 1u ? j : best_column[0];
    best_column[1] = mask >> 31 ? j - 1 : best_column[1];
    saved_base[0] = mask & 1u ? base : saved_base[0];
    saved_base[1] = mask >> 31 ? base : saved_base[1];
    if (kRowsFirst) {  // on ties the smaller row wins, at any column
      const unsigned same = column_max ^ raised;
      if ((same & 0xffffu) == 0 || (same >> 16) == 0) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int value = half == 0 ? low_half(column_max) : high_half(column_max);
          if (((half == 0 ? same & 0xffffu : same >> 16) != 0) || best_column[half] == INT_MAX ||
              ((half == 0 ? mask & 1u : mask >> 31) != 0))
            continue;
          if (first_word(left, half, value) < first_word(saved, half, value + base - saved_base[half])) {
            keep_column(half == 0 ? 0x0000ffffu : 0xffff0000u);
            best_column[half] = j - half;
            saved_base[half] = base;
          }
        }
      }
    }
    best_relative = raised;
    if (ring_out != nullptr && j - 1 >= 0 && j - 1 < n)
      __stcg(ring_out + j, make_int2(low_half(handed) + base, high_half(handed) + base));
  };

  const int steps = n + 63;  // lane 31's high half reaches column n - 1 at step n + 62
  for (int tile_base = 0; tile_base < steps; tile_base += 32) {
    if (tile_base > 0) {
      wait_for(ready, min(n, tile_base + 64), lane);
      code_current = code_next;
      code_next = load_code(tile_base + 32 + lane);
      top_current = top_next;
      top_next = load_top(tile_base + 32 + lane);
    }
    // The new base: lane 0's first cell, which every value of the tile lies near.
    const int delta = __shfl_sync(kFull, low_half(left[0]), 0);
    const unsigned delta2 = pack_halves(delta, delta);
    update_best();
    base += delta;
#pragma unroll
    for (int w = 0; w < W; ++w) {
      left[w] = rebased(left[w], delta2);
      gap[w] = rebased(gap[w], delta2);
    }
    diagonal = rebased(diagonal, delta2);
    own = rebased(own, delta2);
    handed = rebased(handed, delta2);
    const int floor_relative = to_relative(0, base);
    floor_value = pack_halves(floor_relative, floor_relative);
    best_relative = pack_halves(to_relative(best[0], base), to_relative(best[1], base));
    top_packed = pack_halves(to_relative(top_current.x, base), to_relative(top_current.y, base));
#pragma unroll 4
    for (int t = 0; t < 32; ++t) step(tile_base, t);
    // Lane 31 has written the columns up to tile_base + 31 - 63: publish them.
    if (ring_out != nullptr) publish(p.progress + k, min(n, max(0, tile_base + 32 - 63)));
  }
  // The lane's best of both halves, then the warp's.
  update_best();
  int best_row[2] = {INT_MAX, INT_MAX};
#pragma unroll
  for (int half = 0; half < 2; ++half)
    if (best[half] > 0)
      best_row[half] = first_row + half * W + first_word(saved, half, best[half] - saved_base[half]) + 1;
  int score = best[0], column = best_column[0], row = best_row[0];
  if (best[1] > score || (best[1] == score && before(p.rows_first, best_column[1], best_row[1], column, row))) {
    score = best[1];
    column = best_column[1];
    row = best_row[1];
  }
  write_stripe_best(p, k, lane, score, column, row);
}

template <int R>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) long_pair_packed_kernel(const LongPairBatch batch) {
  __shared__ unsigned table[kPackedWords];
  for (int i = threadIdx.x; i < kPackedWords; i += blockDim.x) table[i] = batch.packed_scores[i];
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x & 31);
  for (;;) {
    const StripeTicket ticket = take_stripe(batch, lane);
    if (ticket.pair < 0) return;
    const LongPairParams& p = batch.pairs[ticket.pair];
    const int clock = stripe_clock(batch, ticket);
    record_clock(batch.stripe_clocks, clock, kTaken, lane);
    p.rows_first ? run_packed_stripe<R, true>(p, table, ticket.stripe, lane, batch.stripe_clocks, clock)
                 : run_packed_stripe<R, false>(p, table, ticket.stripe, lane, batch.stripe_clocks, clock);
    record_clock(batch.stripe_clocks, clock, kEnded, lane);
  }
}

}  // namespace warpsearch::gpu::detail
