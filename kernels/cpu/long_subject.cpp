#include "kernels/cpu/long_subject.hpp"

#include <algorithm>
#include <array>

namespace warpsearch::cpu {

namespace {

// The longest span of an alignment of query_length residues whose pairs score at most best_pairs in
// all: the subject residues beyond the query's length stand against gaps, each costing at least extend.
std::uint64_t reach_of(std::size_t query_length, std::int64_t best_pairs, const ScoringScheme& scoring,
                       std::int64_t threshold) {
  const std::int64_t lowest = std::max<std::int64_t>(threshold, 1);
  if (best_pairs < lowest) return 0;
  return static_cast<std::uint64_t>(query_length) +
         static_cast<std::uint64_t>((best_pairs - lowest) / scoring.gap_extend());
}

}  // namespace

std::uint64_t alignment_reach(std::size_t query_length, const ScoringScheme& scoring, std::int64_t threshold) {
  return reach_of(query_length, static_cast<std::int64_t>(query_length) * scoring.matrix().max_score(), scoring,
                  threshold);
}

std::uint64_t alignment_reach(std::string_view query_codes, const ScoringScheme& scoring, std::int64_t threshold) {
  std::array<int, kMaxCodes> row_best{};
  for (int a = 0; a < kMaxCodes; ++a) {
    const auto& row = scoring.matrix().row(static_cast<std::uint8_t>(a));
    row_best[static_cast<std::size_t>(a)] = std::max(0, static_cast<int>(*std::max_element(row.begin(), row.end())));
  }
  std::int64_t best_pairs = 0;
  for (const char code : query_codes) {
    const auto c = static_cast<std::uint8_t>(code);
    best_pairs += c < kMaxCodes ? row_best[c] : scoring.matrix().max_score();
  }
  return reach_of(query_codes.size(), best_pairs, scoring, threshold);
}

std::vector<SubjectSegment> plan_segments(std::uint64_t subject_length, std::uint64_t reach,
                                          std::uint64_t segment_length) {
  std::vector<SubjectSegment> segments;
  const std::uint64_t step = std::max<std::uint64_t>(segment_length, 1);
  const std::uint64_t context = reach > 0 ? reach - 1 : 0;
  for (std::uint64_t first = 0; first < subject_length || segments.empty(); first += step) {
    const std::uint64_t end = subject_length - first > step ? first + step : subject_length;
    segments.push_back({first > context ? first - context : 0, first, end});
    if (end == subject_length) break;
  }
  return segments;
}

ColumnScan scan_segment(const StripedScorer& scorer, std::string_view subject_codes, const SubjectSegment& segment,
                        std::int64_t threshold) {
  const std::string_view part = subject_codes.substr(segment.begin, segment.end - segment.begin);
  ColumnScan scan = scorer.scan_columns(part, segment.first - segment.begin, threshold);
  if (scan.best.score > 0) scan.best.subject_end += static_cast<std::uint32_t>(segment.begin);
  for (ColumnRange& range : scan.hot) {
    range.begin += segment.begin;
    range.end += segment.begin;
  }
  return scan;
}

ColumnScan join_segments(const std::vector<ColumnScan>& scans) {
  ColumnScan joined;
  for (const ColumnScan& scan : scans) {
    if (scan.best.score > joined.best.score) joined.best = scan.best;
    for (const ColumnRange& range : scan.hot) {
      if (!joined.hot.empty() && joined.hot.back().end == range.begin)
        joined.hot.back().end = range.end;
      else
        joined.hot.push_back(range);
    }
  }
  return joined;
}

}  // namespace warpsearch::cpu
