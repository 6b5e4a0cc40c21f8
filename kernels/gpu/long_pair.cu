// The long-pair aligner (kernels/gpu/long_pair.hpp): construction, options, a pair's span, global
// rows and bounds. Its state and passes: kernels/gpu/long_pair_impl.cuh; local spans and scans of
// several pairs: kernels/gpu/long_pair_local.cu.
#include "kernels/gpu/long_pair.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "kernels/gpu/long_pair_impl.cuh"

namespace warpsearch::gpu {

std::vector<PassResult> LongPairAligner::Impl::passes(const std::vector<PassInput>& inputs, int rows_per_lane,
                                                      std::vector<int2>* rows) {
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
  const bool packed_kernel = local && packed_fits(rows_per_lane) &&
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
                                          static_cast<std::size_t>(stripes) * sizeof(int4), cudaMemcpyDeviceToHost, s));
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
        result.stripe_scores.push_back(b4.x);
        if (b4.x > result.score ||
            (b4.x == result.score && before(inputs[i].rows_first, b4.y, b4.z, result.column, result.row))) {
          result.score = b4.x;
          result.column = b4.y;
          result.row = b4.z;
        }
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

void LongPairAligner::Impl::launch(int rows_per_lane, long long busy, bool packed_kernel, const LongPairBatch& batch) {
  const auto kernel = packed_kernel         ? (rows_per_lane == 16 ? long_pair_packed_kernel<16>  // 16 or 32
                                                                   : long_pair_packed_kernel<32>)
                      : rows_per_lane == 8  ? long_pair_kernel<8>
                      : rows_per_lane == 16 ? long_pair_kernel<16>
                                            : long_pair_kernel<32>;
  int blocks_per_sm = 0;
  WARPSEARCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, 32 * kWarpsPerBlock, 0));
  const long long most = static_cast<long long>(std::max(1, blocks_per_sm)) * multiprocessors;
  const int blocks =
      static_cast<int>(std::max<long long>(1, std::min((busy + kWarpsPerBlock - 1) / kWarpsPerBlock, most)));
  kernel<<<blocks, 32 * kWarpsPerBlock, 0, stream.get()>>>(batch);
  WARPSEARCH_CUDA_CHECK_LAUNCH();
}

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

Span LongPairAligner::span(std::string_view query, std::string_view subject, AlignmentMode mode) {
  if (mode == AlignmentMode::local) return local_spans({{query, subject}}).front();
  if (mode == AlignmentMode::xdrop || !accepts(impl_->scoring, query.size(), subject.size(), mode))
    throw not_accepted(query.size(), subject.size());
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
    throw not_accepted(query.size(), subject.size());
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
