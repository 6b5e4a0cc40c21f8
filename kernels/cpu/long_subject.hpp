// Long subjects (chromosomes, genomes, long reads) against one query, exactly, in segments that can be
// scanned independently (by threads here, by thread blocks on a GPU).
//
// Why the seams are exact. Let T be the lowest score that matters (the query's reporting threshold) and
// W = reach(T) the longest subject span of any local alignment scoring >= T: its subject residues that are
// not paired with query residues stand against gaps, each costing at least `extend`, and at most m pairs
// score at most max_score each, so  T <= m * max_score - (span - m) * extend,  span <= m + (m * max_score -
// T) / extend. A segment owns the subject positions [first, end) and is scanned from begin = first - (W -
// 1) (clipped at 0). For a cell (i, j) with j in [first, end): the segment's DP value H'(i, j) is the best
// alignment ending there that starts at or after begin, so H' <= H, the whole-subject value. If H(i, j) >=
// T, an optimal alignment ending at (i, j) spans at most W positions, starts at or after j - W + 1 >= begin,
// and so H'(i, j) = H(i, j). Cells below T may come out lower, and nothing below T is ever reported. So
// every column maximum >= T, the best score when it is >= T, and the best cell (the smallest subject
// position, then query position, holding the maximum) are those of the unsegmented pass; the segments'
// results are joined in subject order.
//
// Thread safety: pure functions; scan_segment may run on many threads at once with one StripedScorer.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/cpu/column_range.hpp"
#include "kernels/cpu/striped.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::cpu {

// The longest subject span of a local alignment of a query of query_length residues scoring at least
// threshold (>= 1); 0 when no alignment can reach it.
std::uint64_t alignment_reach(std::size_t query_length, const ScoringScheme& scoring, std::int64_t threshold);
// The same, bounded by the query's own residues: each pairs with at most the best score of its matrix
// row (BLOSUM62's rows top at 4 to 11, its maximum), so a protein query's reach is about half the
// bound from the length alone; DNA's is the same.
std::uint64_t alignment_reach(std::string_view query_codes, const ScoringScheme& scoring, std::int64_t threshold);

struct SubjectSegment {
  std::uint64_t begin = 0;  // first position scanned (context starts here)
  std::uint64_t first = 0;  // first position owned: reported maxima end at or after it
  std::uint64_t end = 0;    // one past the last position owned and scanned
};

// The owned length of a segment for a reach: long enough that the context (reach - 1 positions) costs
// little, short enough that a genome gives every thread several segments.
inline std::uint64_t segment_length_for(std::uint64_t reach) {
  return reach * 8 > (std::uint64_t{1} << 18) ? reach * 8 : std::uint64_t{1} << 18;
}

// Owned ranges of about segment_length positions covering [0, subject_length), each with reach - 1
// positions of context before it. One segment when the subject is not longer than segment_length.
std::vector<SubjectSegment> plan_segments(std::uint64_t subject_length, std::uint64_t reach,
                                          std::uint64_t segment_length);

// The segment's part of scorer.scan_columns over the whole subject, in whole-subject positions.
ColumnScan scan_segment(const StripedScorer& scorer, std::string_view subject_codes, const SubjectSegment& segment,
                        std::int64_t threshold);

// Joins the scans of consecutive segments (in subject order) into the whole subject's: the best cell
// of the first segment holding the highest score, and the hot ranges end to end.
ColumnScan join_segments(const std::vector<ColumnScan>& scans);

}  // namespace warpsearch::cpu
