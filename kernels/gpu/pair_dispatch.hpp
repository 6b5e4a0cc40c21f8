// The pair kernels' parameters, their one table of shapes, the entry points that pair_shapes*.cu
// instantiate (kernels/gpu/pair_kernel.cuh defines them), and the plain functions of the host's plan
// (job order, sub-batches) and of the pass-to-pass bookkeeping that host and device share (reverse job
// of a forward end, span from the ends). Private to kernels/gpu. Without nvcc (a CPU test) only the
// plain parts are visible.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/alignment_mode.hpp"
#include "kernels/gpu/host_device.hpp"
#include "kernels/gpu/pair_aligner.hpp"

namespace warpsearch::gpu::detail {

// One pass of one pair: rows x cols cells (both at least 1). Reversed passes read both sequences
// backwards from offset + length - 1.
struct PairJob {
  std::uint64_t row_offset;  // into PairKernelParams::residues
  std::uint64_t col_offset;
  std::uint32_t rows;
  std::uint32_t cols;
};

// The best cell of a pass: 1-based row and column (= 0-based exclusive ends); 0, 0 when a local pass
// found no positive cell.
struct PairEnd {
  std::int32_t score;
  std::uint32_t row_end;
  std::uint32_t col_end;
};

struct PairKernelParams {
  const std::uint8_t* residues = nullptr;  // compact codes, below alphabet_rows
  const PairJob* jobs = nullptr;
  int num_jobs = 0;
  PairEnd* ends = nullptr;  // ends[k] for jobs[k]
  // When set, the launch's jobs are known on the device only (reverse jobs built there): jobs and ends
  // start at job_range[0] and there are min(num_jobs, job_range[1]) of them.
  const std::uint32_t* job_range = nullptr;
  const void* table = nullptr;  // Element[alphabet_rows^2]: [row code][column code] = s + o
  int alphabet_rows = 0;        // A: compact codes (codes scored alike share one), padding last
  int gap_open = 0;
  int gap_extend = 0;
  AlignmentMode mode = AlignmentMode::local;
  bool reverse = false;
  std::uint64_t* edges = nullptr;  // tile edges (G = 32 shapes): edge_stride words per group slot
  std::uint64_t edge_stride = 0;   // at least the rows of every job of more than one tile
  // Local reverse passes only (the early exit, pair_kernel.cuh): stop_scores[k] = the best score of
  // jobs[k] (the forward score), indexed like jobs (job_range included). Once a lane holds it at row i,
  // rows past i cannot change the end, so the group stops after row i (and later tiles run rows <= i).
  // The group checks every stop_check_mask + 1 steps (a power of two).
  const std::int32_t* stop_scores = nullptr;
  int stop_check_mask = 7;
};

// "Minus infinity" of the 32-bit recurrence: far below any reachable value (|H| < 2^29 for the
// sequence lengths the aligner accepts) and safe to subtract a gap cost from.
inline constexpr int kMinusInfinity = INT_MIN / 2;

// Threads per block: int16 slices are twice as large, so blocks are half as large to keep two or more
// blocks per SM.
template <typename Element>
inline constexpr int kPairBlockThreads = sizeof(Element) == 1 ? 256 : 128;

// Profile elements a lane's slot of a slice holds: R rounded up to whole 32-bit words (a lane reads its
// row with 16-, 8- or 4-byte loads, as the word count allows), so that a tiled shape may take any R.
WARPSEARCH_HOST_DEVICE constexpr int pair_lane_elements(int regs, std::size_t element_bytes) {
  const int per_word = static_cast<int>(4 / element_bytes);
  return (regs + per_word - 1) / per_word * per_word;
}

// Shared memory of a block: its groups' profile slices (packed shapes: two columns per register), then
// the score table.
template <typename Element>
constexpr std::size_t pair_shared_bytes(int group, int regs, int alphabet_rows, bool packed = false) {
  const std::size_t groups = static_cast<std::size_t>(kPairBlockThreads<Element> / group);
  const std::size_t slot = static_cast<std::size_t>(pair_lane_elements(regs, sizeof(Element)));
  const std::size_t slices = groups * alphabet_rows * group * slot * (packed ? 2 : 1) * sizeof(Element);
  const std::size_t table = static_cast<std::size_t>(alphabet_rows) * alphabet_rows * sizeof(Element);
  return slices + ((table + 15) & ~std::size_t{15});
}

// The shapes: G lanes per pair, R registers per lane. G < 32 shapes take sequences of at most G * R
// columns in one pass; G = 32 shapes walk tiles of G * R columns (tile edges in global memory).
// Packed shapes (local passes whose scores provably fit 16 bits, pair_pack_limit) hold two columns per
// register, s16x2: tiles of 2 * G * R columns, cut into two strips of G * R, strip 1 in the high
// halves running G rows behind strip 0 (pair_kernel.cuh).
struct PairShape {
  int group;
  int regs;
  bool packed = false;
};
// Tiled widths 256, 384 and 512: a pass of 100..1,000 columns computes 19% more columns than it has.
// Widths 32 columns apart would bring that to 6%, but were slower on the H100 (docs/gpu_pair_kernels.md,
// "Alternatives measured and set aside"): a sub-batch's jobs spread over three times as many launches,
// each too small to fill the device.
inline constexpr PairShape kPairShapes[] = {{4, 4},  {8, 4},   {16, 4},  {16, 8},       {16, 12},
                                            {32, 8}, {32, 12}, {32, 16}, {32, 4, true}, {32, 8, true}};
inline constexpr int kPairShapeCount = static_cast<int>(sizeof(kPairShapes) / sizeof(kPairShapes[0]));
inline constexpr int kFirstTiledShape = 5;
inline constexpr int kFirstPackedShape = 8;  // packed shapes last, all tiled

constexpr bool pair_shapes_are_valid() {
  for (int s = 0; s < kPairShapeCount; ++s) {
    const PairShape& shape = kPairShapes[s];
    if (shape.group != 4 && shape.group != 8 && shape.group != 16 && shape.group != 32) return false;
    if (shape.regs < 4 || shape.regs > 32) return false;
    if ((shape.packed || shape.group < 32) && shape.regs % 4 != 0) return false;  // whole int8 words
    if ((shape.group == 32) != (s >= kFirstTiledShape)) return false;
    if (shape.packed != (s >= kFirstPackedShape)) return false;
    if (s > 0 && s < kFirstTiledShape && shape.group * shape.regs <= kPairShapes[s - 1].group * kPairShapes[s - 1].regs)
      return false;
  }
  return kPairShapeCount <= 32;  // shape sets are bit masks (pair_shapes_up_to)
}
static_assert(pair_shapes_are_valid(),
              "kPairShapes: single-pass shapes (G < 32) by ascending width, then the "
              "tiled G = 32 shapes, the packed ones last; R from 4 to 32, a multiple of 4 "
              "unless tiled and not packed");

// Columns per tile of each shape (G * R, twice that packed): a value type, so that device code (which
// cannot read the host's kPairShapes) chooses shapes with the same function.
struct PairShapeWidths {
  std::uint32_t width[kPairShapeCount];
};
constexpr PairShapeWidths pair_shape_widths() {
  PairShapeWidths widths{};
  for (int s = 0; s < kPairShapeCount; ++s)
    widths.width[s] =
        static_cast<std::uint32_t>(kPairShapes[s].group * kPairShapes[s].regs * (kPairShapes[s].packed ? 2 : 1));
  return widths;
}

// The shape of a pass with `cols` columns: the narrowest single-pass shape that holds them, else the
// tiled shape computing the fewest padded columns (ties: fewer, wider tiles). With pack_limit > 0 (a
// local pass whose scores fit 16 bits when min(rows, cols) <= pack_limit, see pair_pack_limit), a pass
// beyond the single-pass shapes that meets the limit takes a packed shape, chosen the same way.
WARPSEARCH_HOST_DEVICE constexpr int pair_shape_for(std::uint32_t cols, const PairShapeWidths& widths,
                                                    std::uint32_t rows = 0, std::uint32_t pack_limit = 0) {
  for (int s = 0; s < kFirstTiledShape; ++s)
    if (cols <= widths.width[s]) return s;
  const bool packed = pack_limit > 0 && (rows < cols ? rows : cols) <= pack_limit;
  const int from = packed ? kFirstPackedShape : kFirstTiledShape;
  const int to = packed ? kPairShapeCount : kFirstPackedShape;
  int chosen = from;
  std::uint64_t chosen_columns = ~std::uint64_t{0};
  for (int s = from; s < to; ++s) {
    const std::uint64_t width = widths.width[s];
    const std::uint64_t columns = (cols + width - 1) / width * width;
    if (columns <= chosen_columns) {
      chosen = s;
      chosen_columns = columns;
    }
  }
  return chosen;
}
constexpr int pair_shape_for(std::uint32_t cols) { return pair_shape_for(cols, pair_shape_widths()); }

// The largest min(rows, cols) of a local pass that packed (16-bit) shapes may take: every value of the
// shifted recurrence then stays within int16. With o = open + extend: H <= min(rows, cols) * max_score
// (an alignment has at most that many pairs), T = H(diag) + s + o <= H + max_profile (the largest
// s + o), E' and F' <= H. From below: H >= 0, T >= s + o >= -128 (int8 profiles), max(T, E') - o >=
// -128 - o before the floor, and minus infinity (-16384) minus one extend, at once raised to an H. So
// H_max + max_profile <= 32767 suffices. 0 (never packed) for 16-bit profile elements or extends
// beyond 8,000.
constexpr std::uint32_t pair_pack_limit(int max_score, int max_profile, int extend, bool wide_elements) {
  if (wide_elements || extend > 8000 || max_profile > 32767 - 1) return 0;
  const int per_pair = max_score > 1 ? max_score : 1;
  return static_cast<std::uint32_t>((32767 - (max_profile > 0 ? max_profile : 0)) / per_pair);
}

// ---- Pass-to-pass bookkeeping (the device runs these between the passes; CPU tests check them).

// A pair's span on the device (the host hands out core/span.hpp's Span): a 32-bit score, which the
// accepted lengths keep far from overflow (GpuPairAligner::kMaxSequenceLength), in 20 bytes.
struct DeviceSpan {
  std::int32_t score = 0;
  std::uint32_t query_begin = 0;
  std::uint32_t query_end = 0;
  std::uint32_t subject_begin = 0;
  std::uint32_t subject_end = 0;
};

// The span known from the forward pass of a pair (kernels/reference/reference.hpp's conventions): local rows =
// target, columns = query, score 0 -> all zero; semi-global and global rows = query, columns = target,
// the span covers the whole query (semi-global: the target part ends at the end's column; global: the
// whole pair). Starts not yet known stay at the ends (set by apply_reverse_end).
WARPSEARCH_HOST_DEVICE inline DeviceSpan forward_span(AlignmentMode mode, const PairJob& forward, const PairEnd& end) {
  DeviceSpan span{};
  if (mode == AlignmentMode::local) {
    if (end.score <= 0) return span;
    span.score = end.score;
    span.query_end = end.col_end;
    span.subject_end = end.row_end;
    span.query_begin = span.query_end;
    span.subject_begin = span.subject_end;
  } else if (mode == AlignmentMode::semiglobal) {
    span.score = end.score;
    span.query_end = forward.rows;
    span.subject_end = end.col_end;
    span.subject_begin = span.subject_end;
  } else {
    span.score = end.score;
    span.query_end = forward.rows;
    span.subject_end = forward.cols;
  }
  return span;
}

// The reverse pass of a pair (both sequences read backwards from the end cell): false when there is
// none (local score 0, semi-global with an empty target part, global). Its columns are at most the
// forward pass's.
WARPSEARCH_HOST_DEVICE inline bool reverse_job_of(AlignmentMode mode, const PairJob& forward, const PairEnd& end,
                                                  PairJob& reverse) {
  if (mode == AlignmentMode::local) {
    if (end.score <= 0) return false;
    reverse = PairJob{forward.row_offset, forward.col_offset, end.row_end, end.col_end};
    return true;
  }
  if (mode == AlignmentMode::semiglobal) {
    if (end.col_end == 0) return false;
    reverse = PairJob{forward.row_offset, forward.col_offset, forward.rows, end.col_end};
    return true;
  }
  return false;
}

// The start from the reverse pass's end (its end cell counted from the forward end, backwards).
WARPSEARCH_HOST_DEVICE inline void apply_reverse_end(AlignmentMode mode, const PairEnd& reverse, DeviceSpan& span) {
  if (mode == AlignmentMode::local) {
    span.subject_begin = span.subject_end - reverse.row_end;
    span.query_begin = span.query_end - reverse.col_end;
  } else {
    span.subject_begin = span.subject_end - reverse.col_end;
  }
}

// ---- The host's plan (plain functions, tests/test_pair_plan.cpp).

// pair_shape_for on the host: looked up for unpacked passes of up to 4,096 columns (the job lists
// take a shape per job, several times per sub-batch).
inline int job_shape(const PairJob& job, std::uint32_t pack_limit) {
  constexpr std::uint32_t kTabled = 4096;
  static const std::vector<std::uint8_t> table = [] {
    std::vector<std::uint8_t> shapes(kTabled + 1);
    for (std::uint32_t c = 0; c <= kTabled; ++c) shapes[c] = static_cast<std::uint8_t>(pair_shape_for(c));
    return shapes;
  }();
  if (pack_limit == 0 && job.cols <= kTabled) return table[job.cols];
  return pair_shape_for(job.cols, pair_shape_widths(), job.rows, pack_limit);
}

// Launch order of a pass's jobs: by shape (pair_shape_for with pack_limit), highest shape index first,
// then by cells, largest first (grid-stride loops then end with short jobs), then by index. A stable
// LSD radix sort on a 46-bit key (shape, 2^42 - 1 - cells; cells below 2^42 for sequences of at most
// 2^21 residues), skipping the byte positions where all keys agree: O(n), no comparator. With
// `presorted` (the jobs already by cells, largest first, as the aligner batches pairs), a stable
// counting sort by shape alone. `order` receives the permutation and `shapes` the shape at each
// position; the other vectors are scratch space, kept by the caller so that warm calls allocate
// nothing.
struct JobOrderScratch {
  std::vector<std::uint64_t> keys, keys_tmp;
  std::vector<std::uint32_t> index_tmp;
  std::vector<std::uint8_t> shape_of;
};
inline void order_pair_jobs(const PairJob* jobs, std::size_t count, std::vector<std::uint32_t>& order,
                            std::vector<std::uint8_t>& shapes, JobOrderScratch& scratch, std::uint32_t pack_limit = 0,
                            bool presorted = false) {
  constexpr std::uint64_t kCellMask = (std::uint64_t{1} << 42) - 1;
  order.resize(count);
  shapes.resize(count);
  if (presorted) {
    scratch.shape_of.resize(count);
    std::size_t start[kPairShapeCount + 1] = {};
    for (std::size_t k = 0; k < count; ++k) {
      const auto shape = static_cast<std::uint8_t>(job_shape(jobs[k], pack_limit));
      scratch.shape_of[k] = shape;
      ++start[kPairShapeCount - shape];  // highest shape first
    }
    for (int s = 0; s < kPairShapeCount; ++s) start[s + 1] += start[s];
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint8_t shape = scratch.shape_of[k];
      const std::size_t to = start[kPairShapeCount - 1 - shape]++;
      order[to] = static_cast<std::uint32_t>(k);
      shapes[to] = shape;
    }
    return;
  }
  scratch.keys.resize(count);
  scratch.keys_tmp.resize(count);
  scratch.index_tmp.resize(count);
  std::uint64_t* keys = scratch.keys.data();
  std::uint64_t* keys_tmp = scratch.keys_tmp.data();
  std::uint32_t* index = order.data();
  std::uint32_t* index_tmp = scratch.index_tmp.data();
  std::uint64_t differ = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint64_t cells = std::min(kCellMask, std::uint64_t{jobs[k].rows} * jobs[k].cols);
    const auto shape = static_cast<std::uint64_t>(kPairShapeCount - 1 - job_shape(jobs[k], pack_limit));
    keys[k] = (shape << 42) | (kCellMask - cells);
    index[k] = static_cast<std::uint32_t>(k);
    differ |= keys[k] ^ keys[0];
  }
  for (int shift = 0; shift < 48; shift += 8) {
    if (((differ >> shift) & 0xFF) == 0) continue;
    std::size_t start[257] = {};
    for (std::size_t k = 0; k < count; ++k) ++start[((keys[k] >> shift) & 0xFF) + 1];
    for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t to = start[(keys[k] >> shift) & 0xFF]++;
      keys_tmp[to] = keys[k];
      index_tmp[to] = index[k];
    }
    std::swap(keys, keys_tmp);
    std::swap(index, index_tmp);
  }
  if (index != order.data()) std::copy(index, index + count, order.data());
  for (std::size_t k = 0; k < count; ++k) shapes[k] = static_cast<std::uint8_t>(kPairShapeCount - 1 - (keys[k] >> 42));
}

// Contiguous parts of about equal weight: bounds[i], bounds[i + 1] delimit part i, from 0 to n; at
// most `parts` parts, none empty (fewer when there are fewer items). position_of(w) = the first
// boundary (0..n) with at least w of the `total` weight before it. first_percent < 100 makes part 0 that
// share of the middle parts' weight (the aligner's first sub-batch, whose packing and upload nothing
// hides), last_percent the last part's (its reverse pass, which no forward work hides); with two parts,
// their ratio.
template <class PositionOf>
void split_weight(std::size_t n, std::uint64_t total, std::size_t parts, std::vector<std::size_t>& bounds,
                  std::uint32_t first_percent, std::uint32_t last_percent, PositionOf position_of) {
  bounds.assign(1, 0);
  if (n == 0) return;
  parts = std::max<std::size_t>(1, std::min(parts, n));
  // Part weights in percent: first_percent, 100 for each middle part, last_percent.
  const long double sum =
      parts == 1 ? 100.0L : first_percent + last_percent + 100.0L * static_cast<long double>(parts - 2);
  for (std::size_t i = 1; i < parts; ++i) {
    std::uint64_t goal = total / parts * i + total % parts * i / parts;  // total * i / parts
    if (first_percent != 100 || last_percent != 100) {                   // the weight of parts 0..i-1 over all
      const long double before = first_percent + 100.0L * static_cast<long double>(i - 1);
      goal = static_cast<std::uint64_t>(static_cast<long double>(total) * before / sum);
    }
    std::size_t k = position_of(goal);
    k = std::min(std::max(k, bounds.back() + 1), n - (parts - i));  // one item at least to each part
    bounds.push_back(k);
  }
  bounds.push_back(n);
}

// split_weight of items with prefix[k] = the weight of items 0..k-1 (n + 1 values, non-decreasing).
inline void split_by_weight(const std::vector<std::uint64_t>& prefix, std::size_t parts,
                            std::vector<std::size_t>& bounds, std::uint32_t first_percent = 100,
                            std::uint32_t last_percent = 100) {
  const std::size_t n = prefix.empty() ? 0 : prefix.size() - 1;
  split_weight(n, n == 0 ? 0 : prefix[n] - prefix[0], parts, bounds, first_percent, last_percent, [&](std::uint64_t w) {
    return static_cast<std::size_t>(std::lower_bound(prefix.begin(), prefix.end(), prefix[0] + w) - prefix.begin());
  });
}

// The positions of one size class in a batch sorted by size class, largest first (GpuPairAligner:
// align() sorts, then lays out each sub-batch just before packing it, so only its weights per class are
// known when the sub-batches are cut).
struct SizeClassRun {
  std::uint16_t size_class = 0;
  std::uint64_t first_position = 0;
  std::uint64_t pairs = 0;
  std::uint64_t first_cells = 0;  // cells of the positions before
  std::uint64_t cells = 0;
};

// split_weight of such a batch (runs in position order, none empty), the cells before a position
// inside a run interpolated: a class's pairs differ by at most 1/16 in cells.
inline void split_runs_by_weight(const std::vector<SizeClassRun>& runs, std::size_t parts,
                                 std::vector<std::size_t>& bounds, std::uint32_t first_percent = 100,
                                 std::uint32_t last_percent = 100) {
  const std::size_t n = runs.empty() ? 0 : static_cast<std::size_t>(runs.back().first_position + runs.back().pairs);
  const std::uint64_t total = runs.empty() ? 0 : runs.back().first_cells + runs.back().cells;
  split_weight(n, total, parts, bounds, first_percent, last_percent, [&](std::uint64_t w) -> std::size_t {
    // The last run starting with at most w cells before it, then the position inside it.
    auto run = std::upper_bound(runs.begin(), runs.end(), w,
                                [](std::uint64_t goal, const SizeClassRun& r) { return goal < r.first_cells; });
    if (run == runs.begin()) return 0;
    --run;
    if (run->cells == 0) return static_cast<std::size_t>(run->first_position);
    const long double inside = std::ceil(static_cast<long double>(w - run->first_cells) *
                                         static_cast<long double>(run->pairs) / static_cast<long double>(run->cells));
    return static_cast<std::size_t>(run->first_position +
                                    std::min<std::uint64_t>(run->pairs, static_cast<std::uint64_t>(inside)));
  });
}

// Size classes of pairs by cells, for ordering them largest first (the aligner's sub-batches): 16 per
// power of two (classes 6% apart), from 1 cell up to 2^64. Monotonic in cells.
inline constexpr std::size_t kSizeClasses = 64 * 16;
inline std::uint16_t pair_size_class(std::uint64_t cells) {
  if (cells < 16) return static_cast<std::uint16_t>(cells);
  const int log2 = 63 - __builtin_clzll(cells);
  const auto fraction = static_cast<std::uint16_t>((cells >> (log2 - 4)) & 15u);  // the 4 bits after the leading 1
  return static_cast<std::uint16_t>(log2 * 16 + fraction);
}

// Shapes that a pass with 1..max_cols columns can take: bit s for shape s (with pack_limit > 0, the
// packed ones too). Every tiled shape is chosen at a column count equal to its width (at most 1,024),
// so beyond 4,096 columns all of them are taken as possible.
inline unsigned pair_shapes_up_to(std::uint32_t max_cols, std::uint32_t pack_limit = 0) {
  constexpr PairShapeWidths widths = pair_shape_widths();
  unsigned shapes = 0;
  for (std::uint32_t c = 1; c <= std::min<std::uint32_t>(max_cols, 4096); ++c) {
    shapes |= 1u << pair_shape_for(c, widths);
    if (pack_limit > 0) shapes |= 1u << pair_shape_for(c, widths, 1, pack_limit);
  }
  if (max_cols > 4096)
    for (int s = kFirstTiledShape; s < (pack_limit > 0 ? kPairShapeCount : kFirstPackedShape); ++s) shapes |= 1u << s;
  return shapes;
}

#if defined(__CUDACC__)
template <int G, int R, typename Element, bool Packed, bool Stop>
void prepare_pair_kernel(int alphabet_rows, int* blocks_per_sm);
template <int G, int R, typename Element, bool Packed, bool Stop>
void launch_pair_kernel(const PairKernelParams& params, int grid, cudaStream_t stream);
#endif

}  // namespace warpsearch::gpu::detail
