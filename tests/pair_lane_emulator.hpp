// The GPU pair kernel's per-lane logic (kernels/gpu/pair_kernel.cuh) emulated on the CPU, lane by lane
// and step by step, and compared with reference::span: the wavefront of G lanes holding R columns each,
// the shuffles (a lane reads its left neighbour's outputs of the previous step), the 32-bit recurrence in
// the kernel's form (one add-max per column along a row), tiles and their edges
// (narrow tiles too, so that short sequences cross many tiles), the per-lane end tracking with its tie
// rule, the group reduction, the host's pass-to-pass bookkeeping (pair_dispatch.hpp: forward_span,
// reverse_job_of, apply_reverse_end, called in the device's order) and the early exit of local
// reverse passes (PairKernelParams::stop_scores: the group votes every stop_check_mask + 1 steps and
// then runs rows up to the smallest row holding the forward score, in this tile and every later one),
// and the packed (s16x2) shapes of local passes: two strips per tile, strip 1 in the high halves G rows
// behind, the rotating shuffle with lane 0's fix-up, the reset of high halves before their first row,
// per-half end tracking, tile edges from the high halves, 16-bit wrapping arithmetic (and a check that
// no cell that counts leaves int16 under pair_pack_limit).
// Runs without a GPU; what only the device checks is the CUDA mechanics (shuffles, votes, edge
// prefetch, PRMT selectors).
// The tests: tests/test_pair_kernel_logic.cpp.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/alignment_mode.hpp"
#include "kernels/gpu/pair_dispatch.hpp"
#include "kernels/reference/reference.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/random_sequences.hpp"

namespace pair_lane_emulator {

using warpsearch::AlignmentMode;
using warpsearch::GapExtend;
using warpsearch::GapOpen;
using warpsearch::ScoringScheme;
using warpsearch::SubstitutionMatrix;

using warpsearch::gpu::detail::kMinusInfinity;
using warpsearch::gpu::detail::PairEnd;
using warpsearch::gpu::detail::PairJob;
namespace detail = warpsearch::gpu::detail;

struct Shape {
  int group;
  int regs;
  bool tiled;
  bool packed = false;
};

struct PassOptions {
  AlignmentMode mode = AlignmentMode::local;
  bool reverse = false;
  int stop_score = INT_MAX;  // INT_MAX: no early exit
  int stop_check_mask = 7;
};

struct PassResult {
  PairEnd end;
  std::uint64_t cells = 0;      // lane-row updates x R (padding columns included), as the kernel computes them
  std::uint64_t overflows = 0;  // packed: live cells whose 32-bit value left int16
};

// One half of an s16x2 register.
using Half = std::int16_t;
struct Pair16 {
  Half low = 0, high = 0;
};
inline Half wrap(int v) { return static_cast<Half>(static_cast<std::uint16_t>(static_cast<unsigned>(v) & 0xFFFFu)); }

inline bool better_end(int score_a, int row_a, int col_a, int score_b, int row_b, int col_b) {
  if (score_a != score_b) return score_a > score_b;
  if (row_a != row_b) return row_a < row_b;
  return col_a < col_b;
}

// The early exit's vote: the smallest row at which a lane holds the stop score lowers row_limit.
inline void vote(const std::vector<int>& best, const std::vector<int>& best_row, int stop_score, int& row_limit) {
  unsigned row = ~0u;
  for (std::size_t t = 0; t < best.size(); ++t)
    if (best[t] == stop_score) row = std::min(row, static_cast<unsigned>(best_row[t]));
  if (row != ~0u) row_limit = std::min(row_limit, static_cast<int>(row));
}

// The group's reduction (butterfly: any order gives the same minimum of a total order).
inline PairEnd group_end(const std::vector<int>& best, const std::vector<int>& best_row,
                         const std::vector<int>& best_col) {
  int b = best[0], br = best_row[0], bc = best_col[0];
  for (std::size_t t = 1; t < best.size(); ++t)
    if (better_end(best[t], best_row[t], best_col[t], b, br, bc)) {
      b = best[t];
      br = best_row[t];
      bc = best_col[t];
    }
  PairEnd end;
  end.score = b;
  end.row_end = br > 0 ? static_cast<std::uint32_t>(br) : 0u;
  end.col_end = br > 0 ? static_cast<std::uint32_t>(bc) : 0u;
  return end;
}

// One pass of one job, as one group of the kernel runs it. residues: the batch's residue codes;
// score(row code, column code) = s (the kernel's table holds s + o).
template <class Score>
PassResult emulate_pass(const std::string& residues, const PairJob& job, const Shape& shape,
                        const ScoringScheme& scoring, const PassOptions& o, Score score) {
  const int G = shape.group;
  const int R = shape.regs;
  const int W = G * R;
  const int rows = static_cast<int>(job.rows);
  const int cols = static_cast<int>(job.cols);
  REQUIRE((shape.tiled || cols <= W));
  const bool local = o.mode == AlignmentMode::local;
  const bool global = o.mode == AlignmentMode::global;
  const int open = scoring.gap_open();
  const int extend = scoring.gap_extend();
  const int first = open + extend;
  const int floor_value = local ? 0 : kMinusInfinity;
  const int pad_score = scoring.matrix().min_score();
  const bool can_stop = local && o.stop_score != INT_MAX;
  auto row_code = [&](int r) {
    return static_cast<std::uint8_t>(residues[job.row_offset + (o.reverse ? rows - 1 - r : r)]);
  };
  auto col_code = [&](int c) {
    return static_cast<std::uint8_t>(residues[job.col_offset + (o.reverse ? cols - 1 - c : c)]);
  };

  std::vector<int> best(G, local ? 0 : kMinusInfinity), best_row(G, -1), best_col(G, INT_MAX);
  if (o.mode == AlignmentMode::semiglobal) {
    best[0] = -(open + rows * extend);
    best_row[0] = rows;
    best_col[0] = 0;
  }
  std::vector<std::int64_t> edge_h(static_cast<std::size_t>(rows), 0x5A5A5A5A), edge_e(edge_h);  // garbage
  const int tiles = shape.tiled ? (cols + W - 1) / W : 1;
  int row_limit = rows;
  PassResult result;
  for (int tile = 0; tile < tiles; ++tile) {
    std::vector<std::vector<int>> h(static_cast<std::size_t>(G)), f(h);
    std::vector<int> h_diag(static_cast<std::size_t>(G)), h_out(static_cast<std::size_t>(G), 0),
        e_out(static_cast<std::size_t>(G), kMinusInfinity);
    for (int t = 0; t < G; ++t) {
      const int col_base = tile * W + t * R;
      for (int j = 0; j < R; ++j) {
        h[t].push_back(global ? -(open + (col_base + j + 1) * extend) : 0);
        f[t].push_back(kMinusInfinity);
      }
      h_diag[t] = global && col_base > 0 ? -(open + col_base * extend) : 0;
    }
    for (int step = 0; step < row_limit + G - 1; ++step) {
      // Shuffle up: every lane reads its left neighbour's outputs of the previous step.
      const std::vector<int> h_prev = h_out;
      const std::vector<int> e_prev = e_out;
      for (int t = 0; t < G; ++t) {
        const int r = step - t;
        const int col_base = tile * W + t * R;
        int h_in = t > 0 ? h_prev[t - 1] : 0;
        int e_in = t > 0 ? e_prev[t - 1] : kMinusInfinity;
        if (t == 0) {
          if (tile > 0) {
            if (r >= 0 && r < rows) {
              h_in = static_cast<int>(edge_h[r]);
              e_in = static_cast<int>(edge_e[r]);
            }
          } else {
            h_in = local ? 0 : -(open + (r + 1) * extend);
            e_in = h_in;  // E'(r, 1) = H(r, 0)
          }
        }
        if (r < 0 || r >= row_limit) continue;
        result.cells += R;
        int diag = h_diag[t];
        int e = e_in;  // E' of the lane's first column
        h_diag[t] = h_in;
        for (int j = 0; j < R; ++j) {
          const int c = col_base + j;
          const int s = (c < cols ? score(row_code(r), col_code(c)) : pad_score) + first;
          f[t][j] = std::max(f[t][j] - extend, h[t][j]);
          const int tt = std::max(diag + s, f[t][j]);
          const int v = std::max(tt - first, floor_value);
          diag = h[t][j];
          h[t][j] = std::max(e - first, v);
          e = std::max(e - extend, v);  // E' of the next column
        }
        h_out[t] = h[t][R - 1];
        e_out[t] = e;
        if (shape.tiled && t == G - 1 && tile + 1 < tiles) {
          edge_h[r] = h_out[t];
          edge_e[r] = e_out[t];
        }
        if (local) {
          const int row_max = *std::max_element(h[t].begin(), h[t].end());
          if (row_max > best[t] || (row_max == best[t] && r + 1 < best_row[t])) {
            const int column = static_cast<int>(std::find(h[t].begin(), h[t].end(), row_max) - h[t].begin());
            best[t] = row_max;
            best_row[t] = r + 1;
            best_col[t] = col_base + column + 1;
          }
        } else if (r == rows - 1) {
          for (int j = 0; j < R; ++j) {
            const int c = col_base + j;
            const bool candidate = global ? c == cols - 1 : c < cols && h[t][j] > best[t];
            if (candidate) {
              best[t] = h[t][j];
              best_row[t] = rows;
              best_col[t] = c + 1;
            }
          }
        }
      }
      // The vote (after the step's cells, as in the kernel).
      if (can_stop && (step & o.stop_check_mask) == o.stop_check_mask) vote(best, best_row, o.stop_score, row_limit);
    }
  }
  result.end = group_end(best, best_row, best_col);
  return result;
}

// A lane's best cell so far: its score, row and column (1-based; row -1: none yet).
struct LaneEnd {
  int score, row, col;
};

// The rows a packed lane just computed: the low half's (-1: not live) and the high half's (-1: not
// counted), and the columns of the low strip's first register and of a strip.
struct PackedRows {
  int low, high, col_base, strip_width;
};

// A packed lane's end tracking after a step: the kernel's filter (a packed max against best - 1 in both
// halves), then the low half's row, then the high half's.
inline void track_packed_end(const std::vector<Pair16>& lane, const PackedRows& rows, LaneEnd& end) {
  int max_low = lane[0].low, max_high = lane[0].high;
  for (std::size_t j = 1; j < lane.size(); ++j) {
    max_low = std::max<int>(max_low, lane[j].low);
    max_high = std::max<int>(max_high, lane[j].high);
  }
  const Half below = wrap(end.score - 1);
  if (std::max(wrap(max_low), below) == below && std::max(wrap(max_high), below) == below) return;
  if (rows.low >= 0 && (max_low > end.score || (max_low == end.score && rows.low + 1 < end.row))) {
    int column = 0;
    while (lane[static_cast<std::size_t>(column)].low != max_low) ++column;
    end = {max_low, rows.low + 1, rows.col_base + column + 1};
  }
  if (rows.high >= 0 && (max_high > end.score || (max_high == end.score && rows.high + 1 < end.row))) {
    int column = 0;
    while (lane[static_cast<std::size_t>(column)].high != max_high) ++column;
    end = {max_high, rows.high + 1, rows.col_base + rows.strip_width + column + 1};
  }
}

// A packed pass (local), as the kernel's `if constexpr (Packed)` branch runs it.
template <class Score>
PassResult emulate_packed_pass(const std::string& residues, const PairJob& job, const Shape& shape,
                               const ScoringScheme& scoring, const PassOptions& o, Score score) {
  const int G = shape.group;
  const int R = shape.regs;
  const int WS = G * R;
  const int W = 2 * WS;
  const int rows = static_cast<int>(job.rows);
  const int cols = static_cast<int>(job.cols);
  REQUIRE(o.mode == AlignmentMode::local);
  const int extend = scoring.gap_extend();
  const int first = scoring.gap_open() + extend;
  const int pad_score = scoring.matrix().min_score();
  const bool can_stop = o.stop_score != INT_MAX;
  constexpr int kMinus = -16384;
  auto row_code = [&](int r) {
    return static_cast<std::uint8_t>(residues[job.row_offset + (o.reverse ? rows - 1 - r : r)]);
  };
  auto col_code = [&](int c) {
    return static_cast<std::uint8_t>(residues[job.col_offset + (o.reverse ? cols - 1 - c : c)]);
  };
  PassResult result;
  // max(a + b, c) per half, wrapping; `live` halves are checked against int16.
  auto add_max = [&](Half a, int b, Half c, bool live) {
    const int exact = a + b;
    if (live && exact != wrap(exact) && std::max(exact, int{c}) == exact) ++result.overflows;
    return std::max(wrap(exact), c);
  };
  std::vector<int> best(G, 0), best_row(G, -1), best_col(G, INT_MAX);
  std::vector<std::int64_t> edge_h(static_cast<std::size_t>(rows), 0x5A5A5A5A), edge_e(edge_h);  // garbage
  const int tiles = (cols + W - 1) / W;
  int row_limit = rows;
  for (int tile = 0; tile < tiles; ++tile) {
    std::vector<std::vector<Pair16>> h(static_cast<std::size_t>(G), std::vector<Pair16>(static_cast<std::size_t>(R)));
    std::vector<std::vector<Pair16>> f(h);
    for (auto& lane : f)
      for (auto& v : lane) v = {kMinus, kMinus};
    std::vector<Pair16> h_diag(static_cast<std::size_t>(G)), h_out(static_cast<std::size_t>(G)),
        e_out(static_cast<std::size_t>(G), Pair16{kMinus, kMinus});
    // Row codes (low, high) travel with the wavefront: rotated like H, lane 0's low code from the chunk
    // of row codes (0 past the last row), its high code lane G-1's low code.
    std::vector<std::pair<int, int>> codes_out(static_cast<std::size_t>(G), {0, 0});
    for (int step = 0; step < row_limit + 2 * G - 1; ++step) {
      const std::vector<Pair16> h_prev = h_out;  // the rotating shuffle reads the previous step's outputs
      const std::vector<Pair16> e_prev = e_out;
      const std::vector<std::pair<int, int>> codes_prev = codes_out;
      for (int t = 0; t < G; ++t) {
        const int r = step - t;
        const int r_high = r - G;
        const int col_base = tile * W + t * R;
        Pair16 h_in = h_prev[static_cast<std::size_t>((t + G - 1) % G)];
        Pair16 e_in = e_prev[static_cast<std::size_t>((t + G - 1) % G)];
        std::pair<int, int> codes = codes_prev[static_cast<std::size_t>((t + G - 1) % G)];
        if (t == 0) codes = {step < rows ? row_code(step) : 0, codes.first};
        codes_out[t] = codes;
        if (t == 0) {
          int h_low = 0;
          int e_low = kMinus;
          if (tile > 0) {
            h_low = r >= 0 && r < rows ? static_cast<int>(edge_h[r]) : 0;
            e_low = r >= 0 && r < rows ? static_cast<int>(edge_e[r]) : 0;
          }
          h_in = {wrap(h_low), h_in.low};  // __byte_perm(low, rotated, 0x5410)
          e_in = {wrap(e_low), e_in.low};
        }
        if (r < 0 || r_high >= row_limit) continue;
        result.cells += 2 * R;
        const bool low_live = r < row_limit;
        const bool high_live = r_high >= 0;
        const auto code = static_cast<std::uint8_t>(codes.first);
        const auto code_high = static_cast<std::uint8_t>(codes.second);
        Pair16 diag = h_diag[t];
        Pair16 h_left = h_in;
        Pair16 e = e_in;
        h_diag[t] = h_in;
        for (int j = 0; j < R; ++j) {
          const int c_low = col_base + j;
          const int c_high = col_base + WS + j;
          const int s_low = (c_low < cols ? score(code, col_code(c_low)) : pad_score) + first;
          const int s_high = (c_high < cols ? score(code_high, col_code(c_high)) : pad_score) + first;
          Pair16& hj = h[t][j];
          Pair16& fj = f[t][j];
          e = {add_max(e.low, -extend, h_left.low, low_live), add_max(e.high, -extend, h_left.high, high_live)};
          fj = {add_max(fj.low, -extend, hj.low, low_live), add_max(fj.high, -extend, hj.high, high_live)};
          const Pair16 tt = {add_max(diag.low, s_low, fj.low, low_live),
                             add_max(diag.high, s_high, fj.high, high_live)};
          const Pair16 u = {std::max(tt.low, e.low), std::max(tt.high, e.high)};
          diag = hj;
          hj = {add_max(u.low, -first, 0, low_live), add_max(u.high, -first, 0, high_live)};
          h_left = hj;
        }
        if (r_high < 0) {
          for (int j = 0; j < R; ++j) {
            h[t][j].high = 0;
            f[t][j].high = kMinus;
          }
          h_left = h[t][R - 1];
          e.high = kMinus;
        }
        h_out[t] = h_left;
        e_out[t] = e;
        const bool high_counted = r_high >= 0 && r_high < row_limit;
        if (t == G - 1 && tile + 1 < tiles && high_counted) {
          edge_h[r_high] = h_out[t].high;
          edge_e[r_high] = e_out[t].high;
        }
        LaneEnd end{best[t], best_row[t], best_col[t]};
        track_packed_end(h[t], {low_live ? r : -1, high_counted ? r_high : -1, col_base, WS}, end);
        best[t] = end.score;
        best_row[t] = end.row;
        best_col[t] = end.col;
      }
      if (can_stop && (step & o.stop_check_mask) == o.stop_check_mask) vote(best, best_row, o.stop_score, row_limit);
    }
  }
  result.end = group_end(best, best_row, best_col);
  return result;
}

template <class Score>
PassResult run_pass(const std::string& residues, const PairJob& job, const Shape& shape, const ScoringScheme& scoring,
                    const PassOptions& o, Score score) {
  if (shape.packed) return emulate_packed_pass(residues, job, shape, scoring, o, score);
  return emulate_pass(residues, job, shape, scoring, o, score);
}

// The largest min(rows, cols) of a packed pass, as GpuPairAligner computes it.
inline std::uint32_t pack_limit_of(const ScoringScheme& scoring) {
  const int first = scoring.gap_open() + scoring.gap_extend();
  const int max_profile = scoring.matrix().max_score() + first;
  const bool wide = max_profile > 127 || scoring.matrix().min_score() + first < -128;
  return detail::pair_pack_limit(scoring.matrix().max_score(), max_profile, scoring.gap_extend(), wide);
}

// The shape a pass takes: the aligner's (pair_shape_for), or a forced one.
inline Shape aligner_shape(const PairJob& job, std::uint32_t pack_limit) {
  const auto& s =
      detail::kPairShapes[detail::pair_shape_for(job.cols, detail::pair_shape_widths(), job.rows, pack_limit)];
  return Shape{s.group, s.regs, s.group == 32, s.packed};
}

struct SpanRun {
  detail::DeviceSpan span;
  std::uint64_t reverse_cells = 0;
  std::uint64_t overflows = 0;
  bool packed = false;  // the forward pass ran packed
  bool reverse_score_matches = true;
};

// Forward pass, the host's bookkeeping, reverse pass, as the aligner runs them for one pair.
// forced: a shape for both passes (a packed one only where the aligner may pack, local passes within
// the bound, whatever their columns; else the aligner's shape).
inline SpanRun emulate_span(const std::string& query, const std::string& target, const ScoringScheme& scoring,
                            AlignmentMode mode, const Shape* forced, bool early_exit, int check_mask, bool packing) {
  const std::string residues = query + target;
  const bool local = mode == AlignmentMode::local;
  const auto m = static_cast<std::uint32_t>(query.size());
  const auto n = static_cast<std::uint32_t>(target.size());
  const PairJob forward = local ? PairJob{m, 0, n, m} : PairJob{0, m, m, n};
  auto score = [&](std::uint8_t row, std::uint8_t col) {
    return local ? scoring.score(col, row) : scoring.score(row, col);
  };
  PassOptions o;
  o.mode = mode;
  const std::uint32_t pack_limit = local && packing ? pack_limit_of(scoring) : 0;
  auto shape_of = [&](const PairJob& job) {
    const Shape chosen = aligner_shape(job, pack_limit);
    if (forced == nullptr) return chosen;
    if (forced->packed && (pack_limit == 0 || std::min(job.rows, job.cols) > pack_limit)) return chosen;
    return *forced;
  };
  const Shape forward_shape = shape_of(forward);
  const PassResult fwd = run_pass(residues, forward, forward_shape, scoring, o, score);
  SpanRun run;
  run.packed = forward_shape.packed;
  run.overflows = fwd.overflows;
  run.span = detail::forward_span(mode, forward, fwd.end);
  PairJob reverse;
  if (detail::reverse_job_of(mode, forward, fwd.end, reverse)) {
    o.reverse = true;
    if (local && early_exit) o.stop_score = fwd.end.score;
    o.stop_check_mask = check_mask;
    const PassResult rev = run_pass(residues, reverse, shape_of(reverse), scoring, o, score);
    run.reverse_cells = rev.cells;
    run.overflows += rev.overflows;
    run.reverse_score_matches = rev.end.score == run.span.score;
    detail::apply_reverse_end(mode, rev.end, run.span);
  }
  return run;
}

inline bool same_span(const detail::DeviceSpan& got, const warpsearch::Span& expected) {
  return got.score == expected.score && got.query_begin == expected.query_begin &&
         got.query_end == expected.query_end && got.subject_begin == expected.subject_begin &&
         got.subject_end == expected.subject_end;
}

struct Pair {
  std::string query, target;
};

inline Pair planted_pair(std::mt19937_64& rng, std::size_t query_length, std::size_t target_length, int alphabet_size) {
  using warpsearch::test::mutated_codes;
  using warpsearch::test::random_codes;
  Pair pair{random_codes(rng, query_length, alphabet_size), random_codes(rng, target_length, alphabet_size)};
  if (query_length < 4 || target_length < 4 || rng() % 3 == 0) return pair;  // a third unrelated
  const std::size_t begin = std::uniform_int_distribution<std::size_t>(0, query_length / 2)(rng);
  const std::size_t length = std::uniform_int_distribution<std::size_t>(1, query_length - begin)(rng);
  std::string piece = mutated_codes(rng, pair.query.substr(begin, length), alphabet_size, 0.25, 3);
  piece.resize(std::min(piece.size(), target_length));
  const std::size_t at = std::uniform_int_distribution<std::size_t>(0, target_length - piece.size())(rng);
  pair.target.replace(at, piece.size(), piece);
  return pair;
}

}  // namespace pair_lane_emulator
