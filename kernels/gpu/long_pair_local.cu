// The long-pair aligner's calls over several pairs (kernels/gpu/long_pair.hpp): local spans (an end
// pass, then a start pass, each of all the pairs of one shape in one launch) and local scans.
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/gpu/long_pair.hpp"
#include "kernels/gpu/long_pair_impl.cuh"

namespace warpsearch::gpu {

std::vector<Span> LongPairAligner::local_spans(const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
                                               const std::vector<std::int64_t>& min_scores) {
  if (!min_scores.empty() && min_scores.size() != pairs.size())
    throw std::invalid_argument("long pair: " + std::to_string(min_scores.size()) + " least scores for " +
                                std::to_string(pairs.size()) + " pairs");
  for (const auto& [query, subject] : pairs)
    if (!accepts(impl_->scoring, query.size(), subject.size(), AlignmentMode::local))
      throw not_accepted(query.size(), subject.size());
  impl_->begin_call();
  std::vector<Span> spans(pairs.size());
  if (pairs.empty()) return spans;
  // The shorter sequence gives the rows (fewer stripes, as fast); the tie-break stays the subject's end
  // first, then the query's. A pair keeps its orientation in both passes.
  std::vector<bool> transposed(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) transposed[i] = pairs[i].second.size() < pairs[i].first.size();
  // (score, query residues, subject residues) up to the best cell of each pair (q, s) of `which`.
  struct End {
    int score = 0;
    std::uint64_t query = 0, subject = 0;
  };
  // bands[i]: the diagonals pair i's pass computes (in the pass's orientation), or none.
  const auto local_passes = [&](const std::vector<std::pair<std::string_view, std::string_view>>& views,
                                const std::vector<std::size_t>& which,
                                const std::vector<std::optional<DiagonalBand>>& bands) {
    std::vector<Impl::PassInput> inputs;
    for (const std::size_t i : which) {
      const auto [q, s] = views[i];
      const DiagonalBand* band = bands[i] ? &*bands[i] : nullptr;
      inputs.push_back(transposed[i] ? Impl::PassInput{s, q, true, false, true, 0, 0, band}
                                     : Impl::PassInput{q, s, true, false, false, 0, 0, band});
    }
    const std::vector<PassResult> results = impl_->local_passes(inputs);
    std::vector<End> ends(views.size());
    for (std::size_t n = 0; n < which.size(); ++n) {
      const PassResult& r = results[n];
      const std::uint64_t row = static_cast<std::uint64_t>(r.row), column = static_cast<std::uint64_t>(r.column) + 1;
      ends[which[n]] = transposed[which[n]] ? End{r.score, column, row} : End{r.score, row, column};
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
    if (!min_scores.empty() && ends[i].score < min_scores[i]) continue;  // its start is not wanted
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

std::vector<LongPairAligner::LocalScan> LongPairAligner::local_scans(
    const std::vector<std::pair<std::string_view, std::string_view>>& pairs, const std::vector<int>& thresholds) {
  for (const auto& [query, subject] : pairs)
    if (!accepts(impl_->scoring, query.size(), subject.size(), AlignmentMode::local))
      throw not_accepted(query.size(), subject.size());
  impl_->begin_call();
  std::vector<LocalScan> scans(pairs.size());
  std::vector<Impl::PassInput> inputs;
  for (const auto& [query, subject] : pairs) inputs.push_back({subject, query, true, false, false, 0, 0});
  const std::vector<PassResult> results = impl_->local_passes(inputs);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    LocalScan& scan = scans[i];
    scan.score = results[i].score;
    const std::uint64_t length = pairs[i].second.size(), stripe_rows = results[i].stripe_rows;
    for (std::size_t k = 0; k < results[i].stripe_scores.size(); ++k) {
      if (results[i].stripe_scores[k] < thresholds[i]) continue;
      const std::uint64_t begin = k * stripe_rows, end = std::min(length, begin + stripe_rows);
      if (!scan.hot.empty() && scan.hot.back().second == begin)
        scan.hot.back().second = end;
      else
        scan.hot.emplace_back(begin, end);
    }
  }
  return scans;
}

}  // namespace warpsearch::gpu
