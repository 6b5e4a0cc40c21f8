// LongPairAligner::Impl: the long-pair aligner's device state (tables, stream, buffers) and its passes
// (laying out each pass's pairs, launching the kernels of kernels/gpu/long_pair_kernel.cuh and
// long_pair_packed_kernel.cuh, reading the results back), shared by kernels/gpu/long_pair.cu (the API:
// construction, options, spans and rows) and kernels/gpu/long_pair_local.cu (local spans and scans of
// several pairs). Private to kernels/gpu.
#pragma once

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/alphabet.hpp"
#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/long_pair.hpp"
#include "kernels/gpu/long_pair_kernel.cuh"
#include "kernels/gpu/long_pair_packed_kernel.cuh"
#include "profile/exact_band.hpp"

namespace warpsearch::gpu {

using detail::before;
using detail::kNegative;
using detail::kWarpsPerBlock;
using detail::long_pair_kernel;
using detail::long_pair_packed_kernel;
using detail::LongPairBatch;
using detail::LongPairParams;

namespace detail {

// The pass's outputs on the host.
struct PassResult {
  int score = 0, column = INT_MAX, row = INT_MAX;  // local: the best cell (0-based column, 1-based row)
  std::vector<int> stripe_scores;                  // local: each stripe's best score
  int stripe_rows = 0;                             // rows a stripe (32 lanes of the pass's shape)
};

inline std::invalid_argument not_accepted(std::size_t query, std::size_t subject) {
  return std::invalid_argument("long pair: a query of " + std::to_string(query) + " and a subject of " +
                               std::to_string(subject) + " residues is not accepted in this mode");
}

}  // namespace detail

using detail::not_accepted;
using detail::PassResult;

struct LongPairAligner::Impl {
  explicit Impl(const ScoringScheme& scheme) : scoring(scheme) {}
  ScoringScheme scoring;
  int device = 0;
  int multiprocessors = 1;
  std::int32_t open = 0, extend = 0;
  detail::DeviceBuffer<std::int32_t> matrix;
  detail::DeviceBuffer<std::uint32_t> packed;  // the packed kernel's table; empty: that kernel is not used
  bool packed_allowed = true;                  // set_packed_passes()
  detail::Stream stream{detail::stream_priority(detail::StreamRank::hits_first)};
  detail::Event finished{cudaEventDisableTiming | cudaEventBlockingSync};  // a pass's kernel
  detail::DeviceBuffer<std::uint8_t> codes;
  detail::DeviceBuffer<int2> ring, rows_out;
  detail::DeviceBuffer<int> counters;
  detail::DeviceBuffer<int4> stripe_best;
  std::uint64_t cells = 0;

  // Buffers outgrown, freed with the aligner (kept, they also let the pass before on this stream read the
  // old buffer without a wait).
  detail::OutgrownBuffers outgrown;

  template <class T>
  void grow(detail::DeviceBuffer<T>& buffer, std::size_t count) {
    outgrown.grow(buffer, count, device);
  }
  template <class T>
  void grow(detail::PinnedBuffer<T>& buffer, std::size_t count) {
    outgrown.grow(buffer, count);
  }
  std::vector<PassTime> pass_times;  // the last call's launches
  // The stripe timeline (set_stripe_timeline): the last call's launches, three clocks a stripe.
  bool timeline = false;
  detail::DeviceBuffer<unsigned long long> clocks;
  detail::PinnedBuffer<unsigned long long> staged_clocks;
  std::vector<std::vector<StripeClock>> timelines;
  // A public call's start: its cells, launches and timelines are counted afresh.
  void begin_call() {
    cells = 0;
    pass_times.clear();
    timelines.clear();
  }

  // One pass of rows a against columns b. rows_every: 0 for local (best cell) passes; else the stripes
  // between rows written out (a very large value: the last row only). band: the diagonals computed in a
  // pass that is not local (nullptr: all).
  struct PassInput {
    std::string_view a, b;
    bool local = true, free_top = false, rows_first = false;
    std::int32_t top_open = 0;
    int rows_every = 0;
    const DiagonalBand* band = nullptr;
  };
  detail::DeviceBuffer<LongPairParams> params;
  detail::DeviceBuffer<int> first_stripes;
  // Page-locked host sides of the copies (passes()).
  detail::PinnedBuffer<std::uint8_t> staged_codes;
  detail::PinnedBuffer<LongPairParams> staged_params;
  detail::PinnedBuffer<int> staged_first;
  detail::PinnedBuffer<int4> staged_best;
  detail::PinnedBuffer<int2> staged_rows;

  // A pass's pair as the kernel reads it, its buffers left to passes().
  LongPairParams describe(const PassInput& in, int stripe_rows) const {
    LongPairParams p;
    p.m = static_cast<int>(in.a.size());
    p.n = static_cast<int>(in.b.size());
    p.open = open;
    p.extend = extend;
    p.top_open = in.top_open;
    p.local = in.local;
    p.rows_first = in.rows_first;
    p.free_top = in.free_top;
    p.stripes = (p.m + stripe_rows - 1) / stripe_rows;
    p.band_low = -p.m;
    p.band_high = p.n;
    if (in.band != nullptr) {
      p.band_low = static_cast<int>(std::clamp<std::int64_t>(in.band->low, -p.m, 0));
      p.band_high = static_cast<int>(std::clamp<std::int64_t>(in.band->high, 0, p.n));
    }
    return p;
  }

  static bool banded(const LongPairParams& p) { return p.band_low > -p.m || p.band_high < p.n; }

  // Warps for every stripe of the pair that can be at work at once: all, or in a band the width's worth
  // and two more. More only spin, waiting for their stripe's turn: with the traceback's dozens of banded
  // passes side by side, twice as many took a 1 Mb global alignment from 1.49-1.60 s to 1.67-1.71 s.
  static long long busy_warps(const LongPairParams& p, int stripe_rows) {
    if (!banded(p)) return p.stripes;
    return std::min<long long>(p.stripes, (static_cast<long long>(p.band_high) - p.band_low) / stripe_rows + 2);
  }

  // The cells the pair's stripes sweep.
  static std::uint64_t swept_cells(const LongPairParams& p, int stripe_rows) {
    std::uint64_t swept = 0;
    for (long long k = 0; k < p.stripes; ++k) {
      const long long first_row = k * stripe_rows, last_row = std::min<long long>(p.m, first_row + stripe_rows);
      const long long begin = std::max(0LL, first_row + p.band_low),
                      end = std::min<long long>(p.n, last_row + p.band_high);
      swept +=
          static_cast<std::uint64_t>(std::max(0LL, end - begin)) * static_cast<std::uint64_t>(last_row - first_row);
    }
    return swept;
  }

  // The passes of `inputs`, each of rows_per_lane rows a lane, in one launch: pairs too small to fill
  // the device alone fill it together. Local passes give their best cells. A pass that is not local
  // comes alone, its rows in `rows` (minus infinity outside its band).
  std::vector<PassResult> passes(const std::vector<PassInput>& inputs, int rows_per_lane, std::vector<int2>* rows);

  // Local passes of any shapes: those of one shape (rows a lane), banded or not (whole passes may take
  // the packed kernel), in one launch; the results in the inputs' order.
  std::vector<PassResult> local_passes(const std::vector<PassInput>& inputs) {
    std::map<std::pair<int, bool>, std::vector<std::size_t>> by_shape;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      by_shape[{rows_per_lane_for(inputs[i].a.size(), inputs[i].band), inputs[i].band != nullptr}].push_back(i);
    std::vector<PassResult> results(inputs.size());
    for (const auto& [key, members] : by_shape) {
      std::vector<PassInput> group;
      for (const std::size_t i : members) group.push_back(inputs[i]);
      std::vector<PassResult> done = passes(group, key.first, nullptr);
      for (std::size_t n = 0; n < members.size(); ++n) {
        done[n].stripe_rows = 32 * key.first;
        results[members[n]] = std::move(done[n]);
      }
    }
    return results;
  }

  // Whether a local pass over whole pairs with this many rows a lane takes the packed kernel
  // (long_pair_packed_kernel.cuh): 16 or 32 rows a lane (with 8, a step is mostly fixed work), and its
  // 16-bit relative values fit (the span of a warp's values over a tile, the gap costs and the largest
  // score within kPackedSpan).
  bool packed_fits(int rows_per_lane) const {
    if (!packed_allowed || packed.size() == 0 || rows_per_lane < 16) return false;
    const long long largest = std::max(scoring.matrix().max_score(), -scoring.matrix().min_score());
    const long long oe = open + extend, d = oe + largest;
    return d * (32LL * rows_per_lane + 70) + oe + largest <= detail::kPackedSpan;
  }

  // The kernel of this shape (packed or not) over the batch's stripes, on as many warps as can work at once.
  void launch(int rows_per_lane, long long busy, bool packed_kernel, const LongPairBatch& batch);

  // A banded pass's stripes wrote only their own columns: the others of its rows (every `spacing`-th
  // row and the last) are minus infinity.
  static void mask_outside_band(const LongPairParams& p, int spacing, std::vector<int2>& rows) {
    const std::size_t width = static_cast<std::size_t>(p.n) + 1, out_count = rows.size() / width;
    for (std::size_t q = 0; q < out_count; ++q) {
      const long long row = q + 1 == out_count ? p.m : static_cast<long long>(q + 1) * spacing;
      int2* values = rows.data() + q * width;
      const long long first = std::max(1LL, row + p.band_low), last = std::min<long long>(p.n, row + p.band_high);
      for (long long c = 1; c <= p.n; ++c)
        if (c < first || c > last) values[c] = make_int2(kNegative, kNegative);
    }
  }

  PassResult pass(std::string_view a, std::string_view b, bool local, bool free_top, std::int32_t top_open,
                  int rows_per_lane, int rows_every, std::vector<int2>* rows, bool rows_first = false,
                  const DiagonalBand* band = nullptr) {
    return passes({PassInput{a, b, local, free_top, rows_first, top_open, rows_every, band}}, rows_per_lane, rows)
        .front();
  }

  // Rows per lane: 8 unless the rows give a taller shape two stripes per multiprocessor (more rows a lane
  // amortise a step's shuffles and tile loads). A band takes at most 16: its pass is a chain of stripe
  // starts about S + 60 steps apart (docs/long_alignment.md, "Left"), the band's width deciding how many
  // work at once. One H100, 1 M rows (`bench/gpu_long_pair_bench --rows-per-lane` 8 / 16 / 32): a band of
  // 302,000 columns 0.34 / 0.36 / 0.39 s, one of 145,000 0.255 / 0.245 / 0.39 s, the whole pass 0.96-1.00 /
  // 0.69-0.71 / 0.64 s.
  int shape = 0;  // set_rows_per_lane(); 0: by the rows

  // Whether a global span of this many columns is faster in bands. A banded pass takes about one step a
  // row (one H100, 1 M rows: 0.20 s in the guess band of 8 k columns, 0.24 s in the related pair's score
  // band of 145 k); a whole one runs at 1.6 T cells/s (a square 1 M pass: 0.63 s). A span in bands takes
  // both banded passes, 0.45-0.55 us a row, so it pays from about 700,000-880,000 columns; the test takes
  // the higher. The traceback's passes are banded whenever they have a band (half the rows, all columns).
  bool span_bands_always = false;  // set_span_bands_always()
  bool span_band_pays(std::size_t columns) const {
    return span_bands_always || static_cast<double>(columns) > 0.55e-6 * 1.6e12;
  }
  // Whether the guess band's pass alone is faster than a whole pass, for a lower bound of the global
  // score (global_score_bound): one banded pass (0.20 s per million rows in the guess band, above)
  // against a whole one (1.6 T cells/s), from about 320,000 columns.
  bool guess_pays(std::size_t columns) const {
    return span_bands_always || static_cast<double>(columns) > 0.2e-6 * 1.6e12;
  }

  // The global score of a against b, in `band` (nullptr: all), from its last row (left in `last`).
  std::int64_t global_corner(std::string_view a, std::string_view b, const DiagonalBand* band,
                             std::vector<int2>& last) {
    pass(a, b, false, false, open, rows_per_lane_for(a.size(), band), INT_MAX, &last, false, band);
    return last[b.size()].x;
  }

  // Whether a local start pass of `rows` x `columns` is faster in its band (local_start_band): a banded
  // pass takes about 0.2-0.5 us a row, a whole local one ran at 1.1 (32-bit) or 1.75 (packed) T cells/s
  // when these constants were set, so the band pays from 330,000 or 525,000 columns more than its width.
  // Both have since got faster together (the 1 Mb benchmark pair: 0.37-0.38 s in its band of 374,000
  // diagonals, 0.40-0.46 s whole and packed), and the rule still chooses the faster there.
  bool start_band_pays(std::size_t rows, std::size_t columns, const DiagonalBand& band) const {
    const double whole_rate = packed_fits(rows_per_lane_for(rows)) ? 1.75e12 : 1.1e12;
    return span_bands_always || static_cast<double>(columns) - static_cast<double>(band.width()) > 0.3e-6 * whole_rate;
  }

  int rows_per_lane_for(std::size_t rows, const DiagonalBand* band = nullptr) const {
    if (shape != 0) return shape;
    if (band != nullptr) rows = std::min(rows, band->width());
    for (const int r : {32, 16})
      if ((band == nullptr || r <= 16) &&
          rows >= std::size_t{2} * 32 * static_cast<std::size_t>(r) * static_cast<std::size_t>(multiprocessors))
        return r;
    return 8;
  }
};

}  // namespace warpsearch::gpu
