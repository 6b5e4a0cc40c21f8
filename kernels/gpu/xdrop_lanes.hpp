// The GPU X-drop engine's per-warp logic, as plain functions that host and device share: the job and
// result records, the scratch layout, the band of an anti-diagonal, one lane's cell, and the
// bookkeeping between anti-diagonals. kernels/gpu/xdrop_kernel.cuh runs them on a warp; the test
// tests/test_xdrop_gpu_logic.cpp runs the same functions for 32 emulated lanes on the CPU. Private to
// kernels/gpu. Without nvcc (a CPU test) this is plain C++.
//
// The definition is kernels/reference/reference_xdrop.hpp; the band and the arithmetic are those of the CPU engine
// (kernels/reference/banded_xdrop.cpp, 32-bit path) step for step, so results, tie-breaks and the count of computed
// cells are identical:
//   band of anti-diagonal d: the rows with a live neighbour on d - 1 (live_low_1 .. live_high_1 + 1) or on
//   d - 2 (live_low_2 + 1 .. live_high_2 + 1), clipped to the matrix (d - n <= i <= min(m, d));
//   cell (i, j = d - i): E from (i, j - 1) and F from (i - 1, j) on d - 1, H from the diagonal (i - 1, j - 1)
//   on d - 2; dead (H < best - X) cells store minus infinity in H, E and F;
//   after the whole anti-diagonal: its best live cell (largest H, then smallest i) replaces the result
//   when strictly larger, `best` takes it, and the live rows become the next bands' sources; two
//   consecutive dead anti-diagonals, or the last one (m + n), end the extension.
//
// Scratch layout (per warp, 32-bit words): kXdropArrays arrays of `rows` words (rows a power of two):
//   [0, 1, 2]: H of the anti-diagonals d with d % 3 = 0, 1, 2;  [3, 4]: E of d % 2 = 0, 1;  [5, 6]: F.
// Row i (-1 <= i <= m + 1) of an anti-diagonal lives at word (i + 1) & (rows - 1) of its arrays: a ring.
// Anti-diagonal d writes its band [low, high] and two sentinels (minus infinity at rows low - 1 and
// high + 1). The next two anti-diagonals read d only at rows low - 1 .. high + 1 (bands never move down
// and grow by at most one row at the top per anti-diagonal), so a ring of rows >= band + 2 words never
// returns a stale or aliased word; a band that does not fit (high - low + 3 > rows) stops the job with
// kXdropOverflow, and the host runs it again with a larger ring (global memory) or on the CPU. Nothing
// else of the scratch is ever read, so it need not be cleared between jobs (xdrop_start_scratch writes
// the few words anti-diagonals 0 and 1 read).
#pragma once

#include <climits>
#include <cstdint>

#include "core/alphabet.hpp"  // kMaxCodes
#include "kernels/gpu/host_device.hpp"

namespace warpsearch::gpu::detail {

inline constexpr int kXdropLanes = 32;
// The CPU engine's 32-bit minus infinity and the level below which a value derives from it.
inline constexpr std::int32_t kXdropMinusInfinity = INT_MIN / 4;
inline constexpr std::int32_t kXdropDeadBelow = kXdropMinusInfinity / 2;
inline constexpr std::uint32_t kXdropNone = 0xFFFFFFFFu;        // "no live row"
inline constexpr int kXdropArrays = 7;                          // H x 3, E x 2, F x 2
inline constexpr int kXdropTableBytes = kMaxCodes * kMaxCodes;  // int8 substitution scores [query][target]

// One extension: a prefix-anchored X-drop over query residues q_0 .. q_{m-1} and target residues
// t_0 .. t_{n-1}, read from the batch's residue buffer at query + step * k and target + step * k
// (step +1: a right extension over the suffixes; -1: a left extension over the reversed prefixes, the
// offsets being those of the residues just before the seed). An offset whose length is 0 is 0.
struct XdropJob {
  std::uint64_t query = 0;
  std::uint64_t target = 0;
  std::uint32_t query_length = 0;
  std::uint32_t target_length = 0;
  std::int32_t step = 1;
  std::uint32_t slot = 0;  // where the host files the result: 2 * task (left) or 2 * task + 1 (right)
};

enum XdropStatus : std::uint32_t {
  kXdropDone = 0,
  kXdropOverflow = 1,  // a band outgrew the scratch ring: the result is not valid, run the job again
};

// The best cell of a job (score, residues consumed), its status and the cells it computed.
struct XdropJobResult {
  std::int32_t score = 0;
  std::uint32_t query_length = 0;
  std::uint32_t target_length = 0;
  std::uint32_t status = kXdropDone;
  std::uint64_t cells = 0;
};

struct XdropScoring {
  std::int32_t open_extend = 0;  // the first residue of a gap: open + extend
  std::int32_t extend = 0;
  std::int32_t x = 0;  // the drop-off, >= 0
};

// One warp's scratch: kXdropArrays rings of `rows` words (a power of two).
struct XdropScratch {
  std::int32_t* words = nullptr;
  std::uint32_t rows = 0;

  WARPSEARCH_HOST_DEVICE std::int32_t* array(std::uint32_t which) const { return words + which * rows; }
  WARPSEARCH_HOST_DEVICE std::uint32_t slot(std::uint32_t row_plus_one) const { return row_plus_one & (rows - 1); }
};

// The warp's state between anti-diagonals (every lane holds the same copy).
struct XdropWarpState {
  std::uint32_t m = 0, n = 0;
  std::uint32_t d = 0;  // the next anti-diagonal
  // First and last live rows of d - 1 and d - 2 (kXdropNone: none live).
  std::uint32_t live_low_1 = kXdropNone, live_high_1 = 0, live_low_2 = kXdropNone, live_high_2 = 0;
  std::int32_t best = 0;  // best live H of the anti-diagonals finished so far
  std::int32_t result_score = 0;
  std::uint32_t result_query = 0, result_target = 0;
  std::uint64_t cells = 0;
  std::uint32_t h_index = 0;   // d % 3
  std::uint32_t ef_index = 0;  // d % 2
  bool previous_all_dead = false;
  bool done = false;
};

// What anti-diagonal d computes: rows low .. high (count of them, 0 = none), the threshold below which a
// cell dies, and the arrays it writes (h, e, f) and reads (h1, e1, f1 of d - 1; h2 of d - 2).
struct XdropBand {
  std::uint32_t low = 0, high = 0, count = 0;
  std::int32_t threshold = 0;
  std::uint32_t h = 0, h1 = 0, h2 = 0, e = 0, e1 = 0, f = 0, f1 = 0;
};

// One lane's view of an anti-diagonal: its first and last live rows and its best cell (the first of its
// largest H: a lane's rows increase). Dead cells hold exactly kXdropMinusInfinity.
struct XdropLaneTrack {
  std::int32_t best = kXdropMinusInfinity;
  std::uint32_t best_row = kXdropNone;
  std::uint32_t first = kXdropNone;
  std::uint32_t last = 0;

  WARPSEARCH_HOST_DEVICE void add(std::uint32_t row, std::int32_t h) {
    const bool live = h != kXdropMinusInfinity;
    if (live && first == kXdropNone) first = row;
    if (live) last = row;
    if (h > best) {
      best = h;
      best_row = row;
    }
  }
};

// The whole warp's view (the warp reduction of the lane tracks): the best cell with the smallest row
// among equal scores, the first and last live rows (live_low kXdropNone: all dead).
struct XdropDiagonalSummary {
  std::int32_t best = kXdropMinusInfinity;
  std::uint32_t best_row = kXdropNone;
  std::uint32_t live_low = kXdropNone;
  std::uint32_t live_high = 0;
};

// The state after anti-diagonal 0 (the origin, score 0, one cell) of an m x n job.
WARPSEARCH_HOST_DEVICE inline XdropWarpState xdrop_start(std::uint32_t m, std::uint32_t n) {
  XdropWarpState state;
  state.m = m;
  state.n = n;
  state.d = 1;
  state.live_low_1 = state.live_high_1 = 0;
  state.cells = 1;
  state.h_index = 1;
  state.ef_index = 1;
  state.done = m == 0 && n == 0;
  return state;
}

// The words anti-diagonals 1 and 2 read before anything wrote them (one lane writes them): anti-diagonal
// 0 (H, E, F at rows -1, 0, 1: the origin's H = 0, minus infinity elsewhere) and rows -1, 0 of the H
// array of anti-diagonal -1 (read as d - 2 by d = 1).
WARPSEARCH_HOST_DEVICE inline void xdrop_start_scratch(const XdropScratch& scratch) {
  for (std::uint32_t row_plus_one = 0; row_plus_one < 3; ++row_plus_one) {
    const std::uint32_t s = scratch.slot(row_plus_one);
    scratch.array(0)[s] = row_plus_one == 1 ? 0 : kXdropMinusInfinity;  // H of d = 0
    scratch.array(3)[s] = kXdropMinusInfinity;                          // E of d = 0
    scratch.array(5)[s] = kXdropMinusInfinity;                          // F of d = 0
    if (row_plus_one < 2) scratch.array(2)[s] = kXdropMinusInfinity;    // H of d = -1
  }
}

// The band of the next anti-diagonal (state.d >= 1, not done).
WARPSEARCH_HOST_DEVICE inline XdropBand xdrop_band(const XdropWarpState& state, const XdropScoring& scoring) {
  XdropBand band;
  const std::uint32_t d = state.d;
  std::uint32_t low = kXdropNone, high = 0;
  if (state.live_low_1 != kXdropNone) {
    low = state.live_low_1;
    high = state.live_high_1 + 1;
  }
  if (state.live_low_2 != kXdropNone) {
    low = low < state.live_low_2 + 1 ? low : state.live_low_2 + 1;
    high = high > state.live_high_2 + 1 ? high : state.live_high_2 + 1;
  }
  if (low != kXdropNone) {
    const std::uint32_t first_row = d > state.n ? d - state.n : 0;
    const std::uint32_t last_row = state.m < d ? state.m : d;
    low = low > first_row ? low : first_row;
    high = high < last_row ? high : last_row;
    if (low <= high) {
      band.low = low;
      band.high = high;
      band.count = high - low + 1;
    }
  }
  const std::int64_t threshold = static_cast<std::int64_t>(state.best) - scoring.x;
  band.threshold = threshold > kXdropDeadBelow + 1 ? static_cast<std::int32_t>(threshold) : kXdropDeadBelow + 1;
  band.h = state.h_index;
  band.h1 = state.h_index == 0 ? 2 : state.h_index - 1;
  band.h2 = state.h_index == 2 ? 0 : state.h_index + 1;  // (d - 2) % 3 = (d + 1) % 3
  band.e = 3 + state.ef_index;
  band.e1 = 3 + (state.ef_index ^ 1);
  band.f = 5 + state.ef_index;
  band.f1 = 5 + (state.ef_index ^ 1);
  return band;
}

// Whether the band, with its two sentinels, fits the ring.
WARPSEARCH_HOST_DEVICE inline bool xdrop_band_fits(const XdropBand& band, std::uint32_t rows) {
  return band.count + 2 <= rows;
}

// The arrays of one anti-diagonal's step, resolved once per anti-diagonal: written (h, e, f), read
// (h1, e1, f1 of d - 1; h2 of d - 2); `mask` = rows - 1.
struct XdropRings {
  std::int32_t *h, *e, *f;
  const std::int32_t *h1, *e1, *f1, *h2;
  std::uint32_t mask;
};

WARPSEARCH_HOST_DEVICE inline XdropRings xdrop_rings(const XdropScratch& scratch, const XdropBand& band) {
  return XdropRings{scratch.array(band.h),  scratch.array(band.e),  scratch.array(band.f),  scratch.array(band.h1),
                    scratch.array(band.e1), scratch.array(band.f1), scratch.array(band.h2), scratch.rows - 1};
}

// A job's two sequences as pointers to their residue 0 and the direction they are read in.
struct XdropSequences {
  const std::uint8_t* query;
  const std::uint8_t* target;
  std::int32_t step;
};

WARPSEARCH_HOST_DEVICE inline XdropSequences xdrop_sequences(const XdropJob& job, const std::uint8_t* residues) {
  return XdropSequences{residues + job.query, residues + job.target, job.step};
}

// The substitution score of cell (i, d - i): s(q_{i-1}, t_{j-1}); 0 on the matrix's first row or column,
// where the diagonal neighbour is outside the matrix (minus infinity) and the score cannot matter.
// table: kMaxCodes x kMaxCodes int8 scores, [query code][target code]. Lengths are below 2^31 (the
// 32-bit bound of xdrop_fits_int32 keeps them far below).
WARPSEARCH_HOST_DEVICE inline std::int32_t xdrop_substitution(const XdropSequences& sequences, const std::int8_t* table,
                                                              std::uint32_t d, std::uint32_t i) {
  const std::uint32_t j = d - i;
  if (i == 0 || j == 0) return 0;
  const std::uint8_t q = sequences.query[sequences.step * static_cast<std::int32_t>(i - 1)];
  const std::uint8_t t = sequences.target[sequences.step * static_cast<std::int32_t>(j - 1)];
  return table[q * kMaxCodes + t];
}

// Cell (i, d - i) of the band: the Gotoh recurrence of the CPU engine's band_recurrence, stored into the
// anti-diagonal's arrays; returns its H (kXdropMinusInfinity when dead).
WARPSEARCH_HOST_DEVICE inline std::int32_t xdrop_cell(const XdropRings& rings, std::int32_t threshold, std::uint32_t i,
                                                      std::int32_t substitution, const XdropScoring& scoring) {
  const std::uint32_t here = (i + 1) & rings.mask;  // row i
  const std::uint32_t above = i & rings.mask;       // row i - 1
  const std::int32_t e_extend = rings.e1[here] - scoring.extend;
  const std::int32_t e_open = rings.h1[here] - scoring.open_extend;
  const std::int32_t f_extend = rings.f1[above] - scoring.extend;
  const std::int32_t f_open = rings.h1[above] - scoring.open_extend;
  const std::int32_t e = e_extend > e_open ? e_extend : e_open;
  const std::int32_t f = f_extend > f_open ? f_extend : f_open;
  const std::int32_t match = rings.h2[above] + substitution;
  const std::int32_t gap = e > f ? e : f;
  const std::int32_t h = match > gap ? match : gap;
  const bool dead = h < threshold;
  rings.h[here] = dead ? kXdropMinusInfinity : h;
  rings.e[here] = dead ? kXdropMinusInfinity : e;
  rings.f[here] = dead ? kXdropMinusInfinity : f;
  return dead ? kXdropMinusInfinity : h;
}

// The sentinels of a non-empty band: lane 0 writes row low - 1, lane 1 row high + 1 (H, E and F).
WARPSEARCH_HOST_DEVICE inline void xdrop_sentinels(const XdropBand& band, const XdropRings& rings, int lane) {
  if (band.count == 0 || lane > 1) return;
  const std::uint32_t s = (lane == 0 ? band.low : band.high + 2) & rings.mask;
  rings.h[s] = kXdropMinusInfinity;
  rings.e[s] = kXdropMinusInfinity;
  rings.f[s] = kXdropMinusInfinity;
}

// After the whole anti-diagonal: result, best, live rows, cells, the next anti-diagonal or the end.
WARPSEARCH_HOST_DEVICE inline void xdrop_finish(XdropWarpState& state, const XdropBand& band,
                                                const XdropDiagonalSummary& summary) {
  const bool all_dead = summary.live_low == kXdropNone;
  if (!all_dead) {
    if (summary.best > state.result_score) {
      state.result_score = summary.best;
      state.result_query = summary.best_row;
      state.result_target = state.d - summary.best_row;
    }
    if (summary.best > state.best) state.best = summary.best;
  }
  state.cells += band.count;
  state.live_low_2 = state.live_low_1;
  state.live_high_2 = state.live_high_1;
  state.live_low_1 = all_dead ? kXdropNone : summary.live_low;
  state.live_high_1 = all_dead ? 0 : summary.live_high;
  state.done = (all_dead && state.previous_all_dead) || state.d == state.m + state.n;
  state.previous_all_dead = all_dead;
  ++state.d;
  state.h_index = state.h_index == 2 ? 0 : state.h_index + 1;
  state.ef_index ^= 1;
}

// The result record of a finished (or overflowed) job.
WARPSEARCH_HOST_DEVICE inline XdropJobResult xdrop_result(const XdropWarpState& state, bool overflow) {
  XdropJobResult result;
  result.score = state.result_score;
  result.query_length = state.result_query;
  result.target_length = state.result_target;
  result.status = overflow ? kXdropOverflow : kXdropDone;
  result.cells = state.cells;
  return result;
}

}  // namespace warpsearch::gpu::detail
