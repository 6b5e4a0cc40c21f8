// The long-pair aligner (kernels/gpu/long_pair.hpp): the host side, which lays out each pass's pairs,
// launches the kernel (kernels/gpu/long_pair_kernel.cuh) and reads the results back.
#include "kernels/gpu/long_pair.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "core/alphabet.hpp"
#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/long_pair_kernel.cuh"
#include "kernels/gpu/long_pair_packed_kernel.cuh"
#include "profile/exact_band.hpp"

namespace warpsearch::gpu {
namespace {

using detail::before;
using detail::kNegative;
using detail::kWarpsPerBlock;
using detail::long_pair_kernel;
using detail::long_pair_packed_kernel;
using detail::LongPairBatch;
using detail::LongPairParams;

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
  std::vector<PassResult> passes(const std::vector<PassInput>& inputs, int rows_per_lane, std::vector<int2>* rows) {
    const int stripe_rows = 32 * rows_per_lane;
    const std::size_t count = inputs.size();
    const bool local = inputs.front().local;
    if (!local && count != 1) throw std::logic_error("long pair: a pass that writes rows runs alone");
    std::vector<LongPairParams> host(count);
    std::vector<int> first(count + 1, 0);
    std::size_t code_bytes = 0, ring_entries = 0;
    long long busy = 0;
    for (std::size_t i = 0; i < count; ++i) {
      host[i] = describe(inputs[i], stripe_rows);
      first[i + 1] = first[i] + host[i].stripes;
      code_bytes += inputs[i].a.size() + inputs[i].b.size();
      ring_entries += 2 * (static_cast<std::size_t>(host[i].n) + 1);
      busy += busy_warps(host[i], stripe_rows);
    }
    const int stripes = first[count];
    const LongPairParams& only = host.front();
    const bool packed_kernel =
        local && packed_fits(rows_per_lane) &&
        std::none_of(host.begin(), host.end(), [](const LongPairParams& p) { return banded(p); });
    const int out_every = local ? 0 : std::min(inputs.front().rows_every, only.stripes);
    const std::size_t out_count = local ? 0 : static_cast<std::size_t>((only.stripes - 1) / out_every + 1);
    detail::ScopedDevice scope(device);
    const cudaStream_t s = stream.get();
    // Buffers kept from call to call, grown when too small: a cudaFree would wait for every kernel on
    // the device, the other aligners' side-by-side passes too.
    grow(codes, code_bytes + 1);
    grow(ring, ring_entries);
    grow(counters, static_cast<std::size_t>(stripes) + 1);
    grow(stripe_best, static_cast<std::size_t>(stripes));
    grow(rows_out, std::max<std::size_t>(1, out_count * (static_cast<std::size_t>(only.n) + 1)));
    grow(params, count);
    grow(first_stripes, count + 1);
    // Every copy goes through page-locked host buffers: a copy from or to pageable memory is staged by the
    // driver under a lock of its own, and one waiting for its kernel holds that lock until the kernel ends,
    // so that the traceback's passes side by side would wait for one another (with pageable copies a
    // 15,625-row pass that takes 3.5 ms on the device took up to 110 ms from its request to its rows).
    const std::size_t out_entries = local ? 0 : out_count * (static_cast<std::size_t>(only.n) + 1);
    grow(staged_codes, code_bytes + 1);
    grow(staged_params, count);
    grow(staged_first, count + 1);
    grow(staged_best, static_cast<std::size_t>(stripes));
    if (timeline) {
      grow(clocks, 3 * static_cast<std::size_t>(stripes));
      grow(staged_clocks, 3 * static_cast<std::size_t>(stripes));
    }
    grow(staged_rows, std::max<std::size_t>(1, out_entries));
    std::size_t code_at = 0, ring_at = 0;
    for (std::size_t i = 0; i < count; ++i) {
      LongPairParams& p = host[i];
      std::copy(inputs[i].b.begin(), inputs[i].b.end(),
                std::copy(inputs[i].a.begin(), inputs[i].a.end(), staged_codes.get() + code_at));
      p.rows = codes.get() + code_at;
      p.columns = codes.get() + code_at + inputs[i].a.size();
      code_at += inputs[i].a.size() + inputs[i].b.size();
      p.ring = ring.get() + ring_at;
      ring_at += 2 * (static_cast<std::size_t>(p.n) + 1);
      p.progress = counters.get() + first[i];
      p.stripe_best = stripe_best.get() + first[i];
      p.out_every = out_every;
      p.rows_out = rows_out.get();
    }
    std::copy(host.begin(), host.end(), staged_params.get());
    std::copy(first.begin(), first.end(), staged_first.get());
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(codes.get(), staged_codes.get(), code_bytes, cudaMemcpyHostToDevice, s));
    WARPSEARCH_CUDA_CHECK(
        cudaMemcpyAsync(params.get(), staged_params.get(), count * sizeof(LongPairParams), cudaMemcpyHostToDevice, s));
    WARPSEARCH_CUDA_CHECK(
        cudaMemcpyAsync(first_stripes.get(), staged_first.get(), (count + 1) * sizeof(int), cudaMemcpyHostToDevice, s));
    WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(counters.get(), 0, (static_cast<std::size_t>(stripes) + 1) * sizeof(int), s));
    const auto started = std::chrono::steady_clock::now();
    launch(rows_per_lane, busy, packed_kernel,
           {params.get(), first_stripes.get(), static_cast<int>(count), counters.get() + stripes, matrix.get(),
            packed.get(), timeline ? clocks.get() : nullptr});
    if (local)
      WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(staged_best.get(), stripe_best.get(),
                                            static_cast<std::size_t>(stripes) * sizeof(int4), cudaMemcpyDeviceToHost,
                                            s));
    else
      WARPSEARCH_CUDA_CHECK(
          cudaMemcpyAsync(staged_rows.get(), rows_out.get(), out_entries * sizeof(int2), cudaMemcpyDeviceToHost, s));
    if (timeline)
      WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(staged_clocks.get(), clocks.get(),
                                            3 * static_cast<std::size_t>(stripes) * sizeof(unsigned long long),
                                            cudaMemcpyDeviceToHost, s));
    // The wait blocks the thread rather than spinning on a core, which the traceback's other threads need.
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(finished.get(), s));
    WARPSEARCH_CUDA_CHECK(cudaEventSynchronize(finished.get()));
    std::vector<PassResult> results(count);
    if (local) {
      for (std::size_t i = 0; i < count; ++i)
        for (int k = first[i]; k < first[i + 1]; ++k) {
          const int4& b4 = staged_best.get()[k];
          PassResult& result = results[i];
          if (b4.x > result.score ||
              (b4.x == result.score && before(inputs[i].rows_first, b4.y, b4.z, result.column, result.row)))
            result = {b4.x, b4.y, b4.z};
        }
    } else {
      rows->assign(staged_rows.get(), staged_rows.get() + out_entries);
      if (banded(only)) mask_outside_band(only, out_every * stripe_rows, *rows);
    }
    if (timeline) {
      std::vector<StripeClock>& launch = timelines.emplace_back(static_cast<std::size_t>(stripes));
      for (std::size_t k = 0; k < launch.size(); ++k)
        launch[k] = {staged_clocks.get()[3 * k], staged_clocks.get()[3 * k + 1], staged_clocks.get()[3 * k + 2]};
    }
    PassTime time{0, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()};
    for (const LongPairParams& p : host) time.cells += swept_cells(p, stripe_rows);
    cells += time.cells;
    pass_times.push_back(time);
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
  void launch(int rows_per_lane, long long busy, bool packed_kernel, const LongPairBatch& batch) {
    const auto kernel = packed_kernel         ? (rows_per_lane == 16 ? long_pair_packed_kernel<16>  // 16 or 32
                                                                     : long_pair_packed_kernel<32>)
                        : rows_per_lane == 8  ? long_pair_kernel<8>
                        : rows_per_lane == 16 ? long_pair_kernel<16>
                                              : long_pair_kernel<32>;
    int blocks_per_sm = 0;
    WARPSEARCH_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, 32 * kWarpsPerBlock, 0));
    const long long most = static_cast<long long>(std::max(1, blocks_per_sm)) * multiprocessors;
    const int blocks =
        static_cast<int>(std::max<long long>(1, std::min((busy + kWarpsPerBlock - 1) / kWarpsPerBlock, most)));
    kernel<<<blocks, 32 * kWarpsPerBlock, 0, stream.get()>>>(batch);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
  }

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

LongPairAligner::LongPairAligner(int device, const ScoringScheme& scoring) {
  const cudaDeviceProp properties = detail::device_properties(device);
  detail::ScopedDevice scope(device);
  impl_ = std::make_unique<Impl>(scoring);
  impl_->device = device;
  impl_->multiprocessors = properties.multiProcessorCount;
  impl_->open = scoring.gap_open();
  impl_->extend = scoring.gap_extend();
  impl_->matrix = detail::upload_score_table(scoring, device);
  const std::vector<std::uint32_t> packed = detail::packed_score_table(scoring);
  if (!packed.empty()) {
    impl_->packed = detail::DeviceBuffer<std::uint32_t>(packed.size(), device);
    detail::copy_to_device(impl_->packed.get(), packed.data(), packed.size() * sizeof(std::uint32_t));
  }
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

std::vector<Span> LongPairAligner::local_spans(const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
                                               bool with_starts) {
  for (const auto& [query, subject] : pairs)
    if (!accepts(impl_->scoring, query.size(), subject.size(), AlignmentMode::local))
      throw std::invalid_argument("long pair: a query of " + std::to_string(query.size()) + " and a subject of " +
                                  std::to_string(subject.size()) + " residues is not accepted in this mode");
  impl_->begin_call();
  std::vector<Span> spans(pairs.size());
  if (pairs.empty()) return spans;
  // The shorter sequence gives the rows (fewer stripes, as fast); the tie-break stays the subject's end
  // first, then the query's. A pair keeps its orientation in both passes.
  std::vector<bool> transposed(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) transposed[i] = pairs[i].second.size() < pairs[i].first.size();
  // (score, query residues, subject residues) up to the best cell of each pair (q, s) of `which`: the
  // passes of one shape (rows a lane) in one launch.
  struct End {
    int score = 0;
    std::uint64_t query = 0, subject = 0;
  };
  // bands[i]: the diagonals pair i's pass computes (in the pass's orientation), or none.
  const auto local_passes = [&](const std::vector<std::pair<std::string_view, std::string_view>>& views,
                                const std::vector<std::size_t>& which,
                                const std::vector<std::optional<DiagonalBand>>& bands) {
    std::vector<End> ends(views.size());
    // By shape, and banded or not (whole passes may take the packed kernel).
    std::map<std::pair<int, bool>, std::vector<std::size_t>> by_shape;
    const auto band_of = [&](std::size_t i) { return bands[i] ? &*bands[i] : nullptr; };
    for (const std::size_t i : which)
      by_shape[{impl_->rows_per_lane_for(transposed[i] ? views[i].second.size() : views[i].first.size(), band_of(i)),
                bands[i].has_value()}]
          .push_back(i);
    for (const auto& [key, members] : by_shape) {
      const int shape = key.first;
      std::vector<Impl::PassInput> inputs;
      for (const std::size_t i : members) {
        const auto [q, s] = views[i];
        inputs.push_back(transposed[i] ? Impl::PassInput{s, q, true, false, true, 0, 0, band_of(i)}
                                       : Impl::PassInput{q, s, true, false, false, 0, 0, band_of(i)});
      }
      const std::vector<PassResult> results = impl_->passes(inputs, shape, nullptr);
      for (std::size_t n = 0; n < members.size(); ++n) {
        const PassResult& r = results[n];
        const std::uint64_t row = static_cast<std::uint64_t>(r.row), column = static_cast<std::uint64_t>(r.column) + 1;
        ends[members[n]] = transposed[members[n]] ? End{r.score, column, row} : End{r.score, row, column};
      }
    }
    return ends;
  };
  std::vector<std::size_t> all(pairs.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const std::vector<End> ends = local_passes(pairs, all, std::vector<std::optional<DiagonalBand>>(pairs.size()));
  // The starts: the same passes over the reversed prefixes up to each end, in the band of the
  // alignments that start there (local_start_band) where that pays.
  std::vector<std::string> reversed(2 * pairs.size());
  std::vector<std::pair<std::string_view, std::string_view>> prefixes(pairs.size());
  std::vector<std::size_t> scored;
  std::vector<std::optional<DiagonalBand>> start_bands(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (ends[i].score == 0) continue;
    const auto [query, subject] = pairs[i];
    spans[i].score = ends[i].score;
    spans[i].query_end = ends[i].query;
    spans[i].subject_end = ends[i].subject;
    if (!with_starts) continue;
    reversed[2 * i].assign(std::make_reverse_iterator(query.begin() + static_cast<std::ptrdiff_t>(ends[i].query)),
                           query.rend());
    reversed[2 * i + 1].assign(
        std::make_reverse_iterator(subject.begin() + static_cast<std::ptrdiff_t>(ends[i].subject)), subject.rend());
    prefixes[i] = {reversed[2 * i], reversed[2 * i + 1]};
    scored.push_back(i);
    // In the pass's orientation (the band is symmetric), reaching the last row (stripes past the band's
    // rows would wait for the ones above forever).
    const std::size_t m = transposed[i] ? ends[i].subject : ends[i].query;
    const std::size_t n = transposed[i] ? ends[i].query : ends[i].subject;
    if (std::optional<DiagonalBand> band = local_start_band(m, n, ends[i].score, impl_->scoring)) {
      band->low = std::min<std::int64_t>(band->low, static_cast<std::int64_t>(n) - static_cast<std::int64_t>(m));
      if (impl_->start_band_pays(m, n, *band)) start_bands[i] = band;
    }
  }
  const std::vector<End> starts = local_passes(prefixes, scored, start_bands);
  for (const std::size_t i : scored) {
    if (starts[i].score != spans[i].score)
      throw std::logic_error("long pair: the reverse pass scores " + std::to_string(starts[i].score) +
                             ", the forward pass " + std::to_string(spans[i].score));
    spans[i].query_begin = spans[i].query_end - starts[i].query;
    spans[i].subject_begin = spans[i].subject_end - starts[i].subject;
  }
  return spans;
}

Span LongPairAligner::span(std::string_view query, std::string_view subject, AlignmentMode mode) {
  if (mode == AlignmentMode::local) return local_spans({{query, subject}}).front();
  if (mode == AlignmentMode::xdrop || !accepts(impl_->scoring, query.size(), subject.size(), mode))
    throw std::invalid_argument("long pair: a query of " + std::to_string(query.size()) + " and a subject of " +
                                std::to_string(subject.size()) + " residues is not accepted in this mode");
  impl_->begin_call();
  Span span;
  const std::string reversed_query(query.rbegin(), query.rend());
  const std::string reversed_subject(subject.rbegin(), subject.rend());
  // The reversed prefix of `length` residues: the tail of the reversed sequence.
  const auto reversed_prefix = [](const std::string& reversed, std::size_t length) {
    return std::string_view(reversed).substr(reversed.size() - length);
  };
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
      span.score = impl_->global_corner(query, subject, &*guess, last);
      const AfterGuess after = after_guess(query.size(), subject.size(), span.score, *guess, impl_->scoring);
      if (after.proven) return span;
      band = after.band;
    }
    span.score = impl_->global_corner(query, subject, band ? &*band : nullptr, last);
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

LongPairAligner::ScoreBound LongPairAligner::global_score_bound(std::string_view query, std::string_view subject) {
  if (!accepts(impl_->scoring, query.size(), subject.size(), AlignmentMode::global))
    throw std::invalid_argument("long pair: a query of " + std::to_string(query.size()) + " and a subject of " +
                                std::to_string(subject.size()) + " residues is not accepted in this mode");
  impl_->begin_call();
  std::vector<int2> last;
  const std::optional<DiagonalBand> guess = guess_band(query.size(), subject.size());
  if (impl_->guess_pays(subject.size()) && guess) {
    const std::int64_t lower = impl_->global_corner(query, subject, &*guess, last);
    return {lower, after_guess(query.size(), subject.size(), lower, *guess, impl_->scoring).proven};
  }
  return {impl_->global_corner(query, subject, nullptr, last), true};
}

void LongPairAligner::global_rows(std::string_view a, std::string_view b, std::int32_t top_open, std::size_t spacing,
                                  std::vector<std::int32_t>& h, std::vector<std::int32_t>& ins,
                                  const DiagonalBand* band) {
  if (!accepts(impl_->scoring, a.size(), b.size(), AlignmentMode::global) ||
      (spacing < a.size() && (spacing == 0 || spacing % kRowSpacing != 0)))
    throw std::invalid_argument("long pair: rows every " + std::to_string(spacing) + " of " + std::to_string(a.size()) +
                                " x " + std::to_string(b.size()) + " residues are not accepted");
  impl_->begin_call();
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

void LongPairAligner::set_packed_passes(bool allowed) { impl_->packed_allowed = allowed; }

std::uint64_t LongPairAligner::last_cells() const { return impl_->cells; }
std::vector<LongPairAligner::PassTime> LongPairAligner::last_pass_times() const { return impl_->pass_times; }

void LongPairAligner::set_stripe_timeline(bool on) { impl_->timeline = on; }

std::vector<std::vector<LongPairAligner::StripeClock>> LongPairAligner::last_stripe_timelines() const {
  return impl_->timelines;
}

}  // namespace warpsearch::gpu
