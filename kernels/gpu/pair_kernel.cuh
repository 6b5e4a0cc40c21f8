// The GPU pair kernel template: one alignment pass (score and end cell) of many independent pairs, a
// group of G lanes per pair. Included by pair_shapes*.cu, which instantiate it per shape; private to
// kernels/gpu. The same kernel gives the start of an alignment: run on the reversed prefixes that end
// at the end cell (PairKernelParams::reverse), its end cell is the start (docs/gpu_pair_kernels.md).
//
// Layout. One sequence of a pair gives the columns, the other the rows. Lane t of a group holds columns
// [tile * G * R + t * R, ... + R) in registers (H and F' of the previous row) and the query-profile
// slice of those columns in shared memory; the row sequence streams through the group as a wavefront
// (lane t computes row s - t at step s) and each lane hands its last column's H and E' to lane t + 1
// by a shuffle. Sequences longer than a tile (G * R columns, G = 32 only) run tile after tile; lane 31
// writes the tile edge (H and E' per row) to global memory and lane 0 reads it back in the next tile,
// 32 rows at a time one chunk ahead, in place (a row is overwritten 31 steps after it was read).
//
// Profile slice (the SequentialProfile layout of profile/query_profile.hpp, restricted to a tile): for
// row code a in 0..A-1, a row of the group's slice holds s(a, column residue) + o for the tile's
// columns, as int8 (Element = std::int8_t, four per 32-bit word, little-endian) or int16 (when a score
// + o does not fit 8 bits); lane t's R columns start at element t * S of the row, S =
// pair_lane_elements(R) (R rounded up to whole words). Columns past the end hold the padding code's
// score. Each lane builds and reads only its own columns, so no
// synchronisation is needed.
//
// Recurrence (a gap of length k costs open + k * extend; o = open + extend, e = extend), E and F kept
// shifted by +o so that every update is one add-max (Hopper DPX VIADDMNMX):
//   E'(r,c) = max(E'(r,c-1) - e, H(r,c-1))        F'(r,c) = max(F'(r-1,c) - e, H(r-1,c))
//   T(r,c)  = max(H(r-1,c-1) + s + o, F'(r,c))    H(r,c)  = max(max(T, E') - o, floor)
// The 32-bit lanes evaluate it as V = max(T - o, floor), H = max(E' - o, V) and
// E'(r,c+1) = max(E'(r,c) - e, V), which equals max(E' - e, H) because o >= e: the chain along a row
// is then one add-max per column (E' to E') instead of three (E', max, H), the other updates hang off
// it. A lane hands on H of its last column and E' of the column after it (tile edges hold the same);
// lane 0's E'(r,1) is H(r,0). The packed lanes keep the first form (their E' is that of the last column).
// floor = 0 (local) or minus infinity. Boundaries (1-based r, c): H(0,c) = 0 unless global, then
// -(open + c * e); H(r,0) = 0 for local, else -(open + r * e); E'(r,0) = F'(0,c) = minus infinity.
//
// Ends and tie-break (kernels/reference/reference.hpp). Local: rows are the target; each lane keeps its best
// (H, row, column), replacing it when a row's maximum is larger, or equal at a smaller row (a later
// tile); the column is the lane's first one holding the maximum. The group reduces by (score desc,
// row asc, column asc): the smallest target end, then the smallest query end. Semiglobal: rows are the
// query; after the last row each lane takes its first maximal column, the group the smallest column,
// column 0 (the whole query against gaps) included. Global: the value of the last cell.
//
// Packed shapes (Packed = true; local passes whose scores provably fit int16, pair_pack_limit in
// pair_dispatch.hpp). Each 32-bit register holds two cells as s16x2: a tile of 2 * G * R columns is cut
// into two strips of G * R; lane t's low halves hold its R columns of strip 0, its high halves the same
// R columns of strip 1, and strip 1 runs G rows behind (lane t: low half row s - t, high half row
// s - t - G at step s), so that strip 1's left neighbour of lane 0, strip 0's last column at row
// s - G, is lane G-1's low output of the previous step. One rotating shuffle (source lane t - 1 mod G)
// hands every lane its input; lane 0 then replaces the low half by its own (boundary or tile edge) and
// moves the received low half up (one PRMT). Tile edges come from lane G-1's high halves. The same
// rotation carries the row codes. Each update is one DPX s16x2 add-max (VIADDMNMX) for two cells; the
// score pair is one PRMT of two int8 profile words (row r's for the low half, row r - G's for the high
// half). Ends: the packed row maximum against best - 1 filters the steps where nothing can change,
// then each half is tracked as a 32-bit lane is (low half first: at the same row it holds the smaller
// columns; ties at a smaller row from the high half replace). High halves before their first row are
// reset to row 0's values after the step; low halves past the last row compute garbage that only
// feeds high halves past it. 16-bit arithmetic wraps; the bound keeps every cell that matters exact.
//
// Early exit of local reverse passes (PairKernelParams::stop_scores, the Stop instantiations). The
// reverse pass knows its best score S: the forward score (every local alignment inside the reversed
// prefixes is one of the whole pair, so none scores more; the optimal alignment itself scores S). Its
// end is the cell with H = S of the smallest row, then the smallest column. Claim: once some computed
// cell (i, j) has H = S, the cells of rows 1..i (all columns, every tile) decide the end, whatever rows
// past i hold. Proof: every cell has H <= S, so the end is the (row, column)-smallest cell with H = S;
// (i, j) is one, so the end has row <= i. Cells of rows <= i depend only on cells of rows <= i (the
// recurrence reads rows r and r - 1 only), so computing rows 1..i of every column exactly, and nothing
// else, finds it. A cell of a later tile (larger columns) at row i loses to (i, j) but one at a row < i
// wins; so later tiles still run, rows 1..i only. Hence `row_limit`: the rows a tile computes,
// min(rows, the smallest row at which a lane has seen S so far), never growing, kept across tiles.
// Lane t computes row s - t at step s, so a tile runs row_limit + G - 1 steps (packed: + 2G - 1);
// every stop_check_mask + 1 steps the group votes (one __any_sync, a reduction only when some lane
// holds S), so the common path costs one compare and one vote per 8 steps. Each lane's best_row is its
// smallest row holding S (ties at a smaller row replace it), so the group's minimum is the smallest
// row seen. Tile edges exist for rows < row_limit, which later tiles never exceed.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/pair_device.cuh"
#include "kernels/gpu/pair_dispatch.hpp"

namespace warpsearch::gpu::detail {

// Stop: the instantiation for local reverse passes with the early exit (stop_scores set); the vote in
// the step loop costs the other passes about 11 registers. Blocks per SM: packed R = 4 shapes use a
// quarter of the (32,16) shape's shared memory, and the single-pass shapes of up to 128 columns little
// more: 4 blocks (64 registers; ptxas gives them 47-56, no spills, where it would take 63-74 with a
// bound of 2), the others 2 (their slices allow no more).
template <int G, int R, typename Element, bool Packed>
inline constexpr int kPairMinBlocks = (Packed && R <= 4) || (!Packed && G * R <= 128) ? 4 : 2;

// The kernel stays one function (about 370 lines) on purpose: its steps share some forty registers of state
// across the row loop, and cutting it into __device__ functions (tried: prologue, column step, epilogue)
// changed the code ptxas emits for the tiled shapes (16 more instructions in the loop); the steps are
// marked by comments instead.
template <int G, int R, typename Element, bool Packed, bool Stop>
__global__ void __launch_bounds__(kPairBlockThreads<Element>, (kPairMinBlocks<G, R, Element, Packed>))
    pair_kernel(const PairKernelParams p) {
  constexpr int kThreads = kPairBlockThreads<Element>;
  constexpr int kStrips = Packed ? 2 : 1;  // packed: strip 1 in the high halves (see the top of this file)
  constexpr int WS = G * R;                // columns per strip
  constexpr int W = WS * kStrips;          // columns per tile
  constexpr int kLag = G * kStrips - 1;    // steps after a tile's last row until every lane has done it
  static_assert(!Packed || (sizeof(Element) == 1 && G == 32), "packed shapes: int8 profiles, tiled");
  constexpr int kGroups = kThreads / G;
  constexpr int kPerWord = 4 / static_cast<int>(sizeof(Element));
  constexpr int kSlot = pair_lane_elements(R, sizeof(Element));  // a lane's elements per slice row (>= R)
  constexpr int kWords = kSlot / kPerWord;                       // the words it loads per row
  constexpr int kStripRow = G * kSlot;                           // elements of a strip per row code
  constexpr int kSliceRow = kStripRow * kStrips;                 // of a group's slice per row code
  static_assert(G == 4 || G == 8 || G == 16 || G == 32, "groups are 4 to 32 lanes of one warp");
  static_assert(R >= 4 && R <= 32 && (!Packed || R % 4 == 0), "4 to 32 columns per lane (packed: whole words)");
  constexpr bool kTiled = G == 32;  // only whole warps prefetch tile edges (one row per lane)

  // The launch's jobs: given by the host, or (reverse jobs built on the device) a range read here.
  const PairJob* jobs = p.jobs;
  PairEnd* ends = p.ends;
  const std::int32_t* stop_scores = p.stop_scores;
  int num_jobs = p.num_jobs;
  if (p.job_range != nullptr) {
    jobs += p.job_range[0];
    ends += p.job_range[0];
    if (stop_scores != nullptr) stop_scores += p.job_range[0];
    num_jobs = ::min(num_jobs, static_cast<int>(p.job_range[1]));
  }
  if (static_cast<long long>(blockIdx.x) * kGroups >= num_jobs) return;  // whole block idle

  const int A = p.alphabet_rows;
  extern __shared__ uint4 shared_words[];
  Element* slices = reinterpret_cast<Element*>(shared_words);
  Element* table = slices + static_cast<std::size_t>(kGroups) * A * kSliceRow;
  for (int k = threadIdx.x; k < A * A; k += kThreads) table[k] = static_cast<const Element*>(p.table)[k];
  __syncthreads();

  const int lane = threadIdx.x % G;
  const int group = threadIdx.x / G;
  const unsigned mask = G == 32 ? 0xFFFFFFFFu : (((1u << G) - 1u) << ((threadIdx.x % 32) / G * G));
  Element* slice = slices + static_cast<std::size_t>(group) * A * kSliceRow;
  const int slot = static_cast<int>(blockIdx.x) * kGroups + group;
  const int slots = static_cast<int>(gridDim.x) * kGroups;
  const bool local = p.mode == AlignmentMode::local;
  const bool global = p.mode == AlignmentMode::global;
  const int open = p.gap_open;
  const int extend = p.gap_extend;
  const int first = open + extend;
  const int floor_value = local ? 0 : kMinusInfinity;
  const bool can_stop = Stop && local && stop_scores != nullptr;
  const int stop_check_mask = p.stop_check_mask;
  const int pad = A - 1;
  std::uint64_t* edges = kTiled ? p.edges + static_cast<std::size_t>(slot) * p.edge_stride : nullptr;

  for (int job = slot; job < num_jobs; job += slots) {
    const PairJob pj = jobs[job];
    const int rows = static_cast<int>(pj.rows);
    const int cols = static_cast<int>(pj.cols);
    // Element r of a pass sequence of length n: forward, or backwards from its end.
    const std::uint8_t* row_seq = p.residues + pj.row_offset + (p.reverse ? rows - 1 : 0);
    const std::uint8_t* col_seq = p.residues + pj.col_offset + (p.reverse ? cols - 1 : 0);
    const int step_sign = p.reverse ? -1 : 1;
    const int tiles = kTiled ? (cols + W - 1) / W : 1;
    // Rows each tile computes: all, until the early exit (local reverse passes) lowers it.
    int row_limit = rows;
    const int stop_score = can_stop ? stop_scores[job] : INT_MAX;

    // The lane's best end so far (row and column 1-based). Semiglobal: column 0 competes, scoring the
    // whole query against gaps; it wins ties, being the smallest column.
    int best = local ? 0 : kMinusInfinity;
    int best_row = -1;
    int best_col = INT_MAX;
    if (p.mode == AlignmentMode::semiglobal && lane == 0) {
      best = -(open + rows * extend);
      best_row = rows;
      best_col = 0;
    }

    for (int tile = 0; tile < tiles; ++tile) {
      const int col_base = tile * W + lane * R;  // 0-based column of h[0] (packed: its low half)
      // The profile slice of this lane's columns (the previous tile's is no longer read by anyone).
#pragma unroll
      for (int strip = 0; strip < kStrips; ++strip) {
        const int strip_base = col_base + strip * WS;
        int codes[R];
#pragma unroll
        for (int j = 0; j < R; ++j) codes[j] = strip_base + j < cols ? col_seq[step_sign * (strip_base + j)] : pad;
        for (int a = 0; a < A; ++a) {
          std::uint32_t* out = reinterpret_cast<std::uint32_t*>(slice + static_cast<std::size_t>(a) * kSliceRow +
                                                                strip * kStripRow + lane * kSlot);
          const Element* scores = table + a * A;
#pragma unroll
          for (int k = 0; k < kWords; ++k) {
            std::uint32_t word = 0;
#pragma unroll
            for (int i = 0; i < kPerWord; ++i) {
              const int j = k * kPerWord + i;  // the slot's elements past R are never read
              const auto bits = static_cast<std::uint32_t>(static_cast<int>(scores[j < R ? codes[j] : pad])) &
                                (sizeof(Element) == 1 ? 0xFFu : 0xFFFFu);
              word |= bits << (8 * sizeof(Element) * i);
            }
            out[k] = word;
          }
        }
      }
      const std::uint32_t* lane_slice = reinterpret_cast<const std::uint32_t*>(slice + lane * kSlot);
      const bool save_edge = kTiled && lane == G - 1 && tile + 1 < tiles;
      std::uint64_t edge_chunk = 0;
      std::uint64_t edge_next = 0;
      auto load_edge = [&](int r) -> std::uint64_t { return r < rows ? edges[r] : 0; };
      if (kTiled && tile > 0) edge_next = load_edge(lane);

      if constexpr (Packed) {
        // Local only. Low halves: strip 0, row r = step - lane; high halves: strip 1, row r - G. Lane 0's
        // high input is lane G-1's low output of the previous step (strip 0's last column, row r - G):
        // a rotating shuffle, lane 0 then putting its own low input (boundary or tile edge) below it.
        // A half outside its rows computes garbage that reaches no counted cell: a low half past the
        // last row feeds only high halves past it; a high half before row 0 is reset to row 0's values
        // (H = 0, F' = minus infinity) after the step, so its neighbours and itself start from them.
        constexpr unsigned kMinus2 = (static_cast<unsigned>(kMinusInfinity16) & 0xFFFFu) * 0x10001u;
        const unsigned minus_extend = pair_of(-extend);
        const unsigned minus_first = pair_of(-first);
        unsigned h[R];
        unsigned f[R];
#pragma unroll
        for (int j = 0; j < R; ++j) {
          h[j] = 0;
          f[j] = kMinus2;
        }
        unsigned h_diag = 0;
        unsigned h_out = 0;
        unsigned e_out = kMinus2;
        // The rotating shuffle's source; lane 0 then joins its own low input below the high half it
        // received (selector 0x5410), the others keep what they received (0x7654): one PRMT.
        const int source = (lane + G - 1) % G;
        const unsigned join = lane == 0 ? 0x5410u : 0x7654u;
        // Row codes travel with the wavefront as (low, high) byte pairs: lane t's codes at step s are
        // lane t-1's at step s-1 (the same rotation); lane 0's low code comes from a chunk of 32 row
        // codes, one per lane, loaded one chunk ahead (as the tile edges), and its high code is lane
        // G-1's low code (selector 0x1140: the chunk's code, then the received low code).
        const unsigned join_code = lane == 0 ? 0x1140u : 0x7654u;
        auto load_code = [&](int x) -> unsigned { return x < rows ? row_seq[step_sign * x] : 0u; };
        unsigned code_chunk = 0;
        unsigned code_next = load_code(lane);
        unsigned codes_out = 0;
        unsigned below_best = pair_of(best - 1);  // best < 32767 in packed passes
        for (int step = 0; step < row_limit + kLag; ++step) {
          const int r = step - lane;  // low half's 0-based row
          const int r_high = r - G;   // high half's
          if ((step & 31) == 0) {
            code_chunk = code_next;
            code_next = load_code(step + 32 + lane);
            if (kTiled && tile > 0) {
              edge_chunk = edge_next;
              edge_next = load_edge(step + 32 + lane);
            }
          }
          const unsigned codes =
              __byte_perm(__shfl_sync(mask, code_chunk, step & 31), __shfl_sync(mask, codes_out, source, G), join_code);
          codes_out = codes;
          unsigned h_in = __shfl_sync(mask, h_out, source, G);
          unsigned e_in = __shfl_sync(mask, e_out, source, G);
          int h_low = 0;
          int e_low = kMinusInfinity16;
          if (kTiled && tile > 0) {
            const std::uint64_t edge = __shfl_sync(mask, edge_chunk, step & 31);
            h_low = static_cast<int>(static_cast<std::uint32_t>(edge));
            e_low = static_cast<int>(static_cast<std::uint32_t>(edge >> 32));
          }
          h_in = __byte_perm(static_cast<unsigned>(h_low), h_in, join);
          e_in = __byte_perm(static_cast<unsigned>(e_low), e_in, join);
          if (r >= 0 && r_high < row_limit) {
            const unsigned code = codes & 0xFFu;
            const unsigned code_high = (codes >> 8) & 0xFFu;
            std::uint32_t words[kWords];
            std::uint32_t words_high[kWords];
            load_words(lane_slice + static_cast<std::size_t>(code) * (kSliceRow / 4), words);
            load_words(lane_slice + static_cast<std::size_t>(code_high) * (kSliceRow / 4) + kStripRow / 4, words_high);
            unsigned diag = h_diag;
            unsigned h_left = h_in;
            unsigned e = e_in;
            h_diag = h_in;
#pragma unroll
            for (int j = 0; j < R; ++j) {
              const unsigned score = unpack_pair(words[j / 4], words_high[j / 4], j % 4);
              e = add_max_s16x2(e, minus_extend, h_left);
              f[j] = add_max_s16x2(f[j], minus_extend, h[j]);
              const unsigned t = add_max_s16x2(diag, score, f[j]);
              const unsigned u = __vmaxs2(t, e);
              diag = h[j];
              h[j] = add_max_s16x2(u, minus_first, 0u);
              h_left = h[j];
            }
            if (r_high < 0) {
#pragma unroll
              for (int j = 0; j < R; ++j) {
                h[j] &= 0xFFFFu;
                f[j] = (f[j] & 0xFFFFu) | (kMinus2 & 0xFFFF0000u);
              }
              h_left = h[R - 1];
              e = (e & 0xFFFFu) | (kMinus2 & 0xFFFF0000u);
            }
            h_out = h_left;
            e_out = e;
            const bool high_live = r_high >= 0 && r_high < row_limit;
            if (save_edge && high_live)
              edges[r_high] = static_cast<std::uint64_t>(static_cast<std::uint32_t>(high_half(h_out))) |
                              (static_cast<std::uint64_t>(static_cast<std::uint32_t>(high_half(e_out))) << 32);
            unsigned row_max2 = h[0];
#pragma unroll
            for (int j = 1; j + 1 < R; j += 2) row_max2 = max3_s16x2(row_max2, h[j], h[j + 1]);
            if constexpr (R % 2 == 0) row_max2 = __vmaxs2(row_max2, h[R - 1]);
            // Either half can change the lane's best only if it reaches it (a larger score, or a tie at
            // a smaller row): one packed max against best - 1 in both halves (kept in below_best)
            // filters the common case; halves outside their rows may pass it, the exact test follows.
            if (__vmaxs2(row_max2, below_best) != below_best) {
              // Low half (row r) first, then high half (row r - G: a smaller row, larger columns).
              const int max_low = low_half(row_max2);
              if (r < row_limit && (max_low > best || (max_low == best && r + 1 < best_row))) {
                int column = R - 1;
#pragma unroll
                for (int j = R - 1; j >= 0; --j)
                  if (low_half(h[j]) == max_low) column = j;
                best = max_low;
                best_row = r + 1;
                best_col = col_base + column + 1;
              }
              const int max_high = high_half(row_max2);
              if (high_live && (max_high > best || (max_high == best && r_high + 1 < best_row))) {
                int column = R - 1;
#pragma unroll
                for (int j = R - 1; j >= 0; --j)
                  if (high_half(h[j]) == max_high) column = j;
                best = max_high;
                best_row = r_high + 1;
                best_col = col_base + WS + column + 1;
              }
              below_best = pair_of(best - 1);
            }
          }
          if (can_stop && (step & stop_check_mask) == stop_check_mask) {
            const bool found = best == stop_score;
            if (__any_sync(mask, found)) {
              const unsigned row = group_min<G>(mask, found ? static_cast<unsigned>(best_row) : ~0u);
              row_limit = ::min(row_limit, static_cast<int>(row));
            }
          }
        }
        if constexpr (kTiled) __syncwarp(mask);
      } else {
        // Row 0: H(0, c) and F'(0, c) (c 1-based); the diagonal of the first row is H(0, col_base).
        int h[R];
        int f[R];
#pragma unroll
        for (int j = 0; j < R; ++j) {
          h[j] = global ? -(open + (col_base + j + 1) * extend) : 0;
          f[j] = kMinusInfinity;
        }
        int h_diag = global && col_base > 0 ? -(open + col_base * extend) : 0;

        int h_out = 0;
        int e_out = kMinusInfinity;
        // The row code of each step is loaded one step ahead.
        int code = lane == 0 && rows > 0 ? row_seq[0] : 0;
        for (int step = 0; step < row_limit + kLag; ++step) {
          const int r = step - lane;  // 0-based row of this step
          const int next_code = r + 1 >= 0 && r + 1 < rows ? row_seq[step_sign * (r + 1)] : 0;
          int h_in = __shfl_up_sync(mask, h_out, 1, G);
          int e_in = __shfl_up_sync(mask, e_out, 1, G);
          if (kTiled && tile > 0) {
            if ((step & 31) == 0) {
              edge_chunk = edge_next;
              edge_next = load_edge(step + 32 + lane);
            }
            const std::uint64_t edge = __shfl_sync(mask, edge_chunk, step & 31);
            if (lane == 0) {
              h_in = static_cast<int>(static_cast<std::uint32_t>(edge));
              e_in = static_cast<int>(static_cast<std::uint32_t>(edge >> 32));
            }
          } else if (lane == 0) {
            h_in = local ? 0 : -(open + (r + 1) * extend);
            e_in = h_in;  // E'(r, 1) = max(E'(r, 0) - e, H(r, 0)), E'(r, 0) = minus infinity
          }
          if (r >= 0 && r < row_limit) {
            std::uint32_t words[kWords];
            load_words(lane_slice + static_cast<std::size_t>(code) * (kSliceRow * sizeof(Element) / 4), words);
            int diag = h_diag;
            int e = e_in;  // E'(r, the lane's first column)
            h_diag = h_in;
            // The E' chain along the row is one add-max per column (see the top of the file): v, the
            // cell without its left gap, does not depend on E', and E'(r, c + 1) needs only v.
#pragma unroll
            for (int j = 0; j < R; ++j) {
              const int score = unpack<Element>(words[j / kPerWord], j % kPerWord);
              f[j] = add_max(f[j], -extend, h[j]);
              const int t = add_max(diag, score, f[j]);
              const int v = add_max(t, -first, floor_value);
              diag = h[j];
              h[j] = add_max(e, -first, v);
              e = add_max(e, -extend, v);
            }
            h_out = h[R - 1];
            e_out = e;
            if (save_edge)
              edges[r] = static_cast<std::uint64_t>(static_cast<std::uint32_t>(h_out)) |
                         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(e_out)) << 32);
            if (local) {
              int row_max = h[0];
#pragma unroll
              for (int j = 1; j + 1 < R; j += 2) row_max = max3(row_max, h[j], h[j + 1]);
              if constexpr (R % 2 == 0) row_max = ::max(row_max, h[R - 1]);
              // Rare: the lane's best improves (or ties at a smaller row, from a later tile).
              if (row_max > best || (row_max == best && r + 1 < best_row)) {
                int column = R - 1;
#pragma unroll
                for (int j = R - 1; j >= 0; --j)
                  if (h[j] == row_max) column = j;
                best = row_max;
                best_row = r + 1;
                best_col = col_base + column + 1;
              }
            } else if (r == rows - 1) {
              // The last row: semiglobal takes the lane's first maximal column, global the last cell.
#pragma unroll
              for (int j = 0; j < R; ++j) {
                const int c = col_base + j;
                const bool candidate = global ? c == cols - 1 : c < cols && h[j] > best;
                if (candidate) {
                  best = h[j];
                  best_row = rows;
                  best_col = c + 1;
                }
              }
            }
          }
          code = next_code;
          if (can_stop && (step & stop_check_mask) == stop_check_mask) {
            const bool found = best == stop_score;  // best_row: the lane's smallest row holding S
            if (__any_sync(mask, found)) {
              const unsigned row = group_min<G>(mask, found ? static_cast<unsigned>(best_row) : ~0u);
              row_limit = ::min(row_limit, static_cast<int>(row));
            }
          }
        }
        // The next tile's lane 0 reads what lane 31 wrote.
        if constexpr (kTiled) __syncwarp(mask);
      }
    }

#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) {
      const int other = __shfl_xor_sync(mask, best, offset, G);
      const int other_row = __shfl_xor_sync(mask, best_row, offset, G);
      const int other_col = __shfl_xor_sync(mask, best_col, offset, G);
      if (better_end(other, other_row, other_col, best, best_row, best_col)) {
        best = other;
        best_row = other_row;
        best_col = other_col;
      }
    }
    if (lane == 0) {
      PairEnd end;
      end.score = best;
      end.row_end = best_row > 0 ? static_cast<std::uint32_t>(best_row) : 0u;
      end.col_end = best_row > 0 ? static_cast<std::uint32_t>(best_col) : 0u;
      ends[job] = end;
    }
  }
}

template <int G, int R, typename Element, bool Packed, bool Stop>
void prepare_pair_kernel(int alphabet_rows, int* blocks_per_sm) {
  const int bytes = static_cast<int>(pair_shared_bytes<Element>(G, R, alphabet_rows, Packed));
  const auto kernel = pair_kernel<G, R, Element, Packed, Stop>;
  WARPSEARCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  WARPSEARCH_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, kernel, kPairBlockThreads<Element>, bytes));
}

template <int G, int R, typename Element, bool Packed, bool Stop>
void launch_pair_kernel(const PairKernelParams& params, int grid, cudaStream_t stream) {
  const std::size_t bytes = pair_shared_bytes<Element>(G, R, params.alphabet_rows, Packed);
  pair_kernel<G, R, Element, Packed, Stop><<<grid, kPairBlockThreads<Element>, bytes, stream>>>(params);
  WARPSEARCH_CUDA_CHECK_LAUNCH();
}

}  // namespace warpsearch::gpu::detail

// Explicit instantiation of one shape's entry points (pair_shapes*.cu).
#define WARPSEARCH_INSTANTIATE_PAIR_SHAPE(G, R, Element, Packed, Stop)                                \
  template void warpsearch::gpu::detail::prepare_pair_kernel<G, R, Element, Packed, Stop>(int, int*); \
  template void warpsearch::gpu::detail::launch_pair_kernel<G, R, Element, Packed, Stop>(             \
      const warpsearch::gpu::detail::PairKernelParams&, int, cudaStream_t)

// Every 32-bit shape (kPairShapes[0 .. kFirstPackedShape)) of one element type, with or without the
// early exit (pair_shapes32_*.cu).
#define WARPSEARCH_PAIR_SHAPE_32(S, Element, Stop)                                 \
  WARPSEARCH_INSTANTIATE_PAIR_SHAPE(warpsearch::gpu::detail::kPairShapes[S].group, \
                                    warpsearch::gpu::detail::kPairShapes[S].regs, Element, false, Stop)
#define WARPSEARCH_INSTANTIATE_32BIT_PAIR_SHAPES(Element, Stop) \
  WARPSEARCH_PAIR_SHAPE_32(0, Element, Stop);                   \
  WARPSEARCH_PAIR_SHAPE_32(1, Element, Stop);                   \
  WARPSEARCH_PAIR_SHAPE_32(2, Element, Stop);                   \
  WARPSEARCH_PAIR_SHAPE_32(3, Element, Stop);                   \
  WARPSEARCH_PAIR_SHAPE_32(4, Element, Stop);                   \
  WARPSEARCH_PAIR_SHAPE_32(5, Element, Stop);                   \
  WARPSEARCH_PAIR_SHAPE_32(6, Element, Stop);                   \
  WARPSEARCH_PAIR_SHAPE_32(7, Element, Stop);                   \
  static_assert(warpsearch::gpu::detail::kFirstPackedShape == 8, "instantiate every 32-bit shape")
