// Hit alignment: the full local alignment of a query and one subject (for the hits a search reports).
//
// 1. A forward Smith-Waterman pass gives the score and the end cell (tie-break of kernels/reference.hpp:
//    smallest subject end, then smallest query end).
// 2. The same pass over the reversed prefixes that end there gives the start (its own tie-break, the
//    smallest reversed subject then query position, is the reference's: largest subject start, then
//    largest query start).
// 3. A global alignment of the two substrings, whose optimal score equals the local score, gives the
//    operations. Its traceback table is bounded: beyond AlignmentLimits::full_traceback_cells, only
//    checkpoint rows are kept and the table is rebuilt one band of rows at a time (O(sqrt(m) * n) memory;
//    a 100,000 x 100,000 pair needs about 200 MB).
// The operations are replayed with the scoring; a replayed score that differs from the forward score
// throws std::logic_error (a bug, never expected).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "profile/scoring.hpp"

namespace warpsearch::cpu {

struct LocalAlignment {
  int score = 0;
  std::uint32_t query_begin = 0, query_end = 0, subject_begin = 0, subject_end = 0;  // 0-based, end exclusive
  // One char per alignment column: 'M' aligned pair, 'I' query residue against a gap, 'D' subject
  // residue against a gap. Empty when the score is 0 (no alignment scores above zero).
  std::string operations;
  // identities: 'M' columns of equal residue codes; mismatches: the other 'M' columns;
  // gap_opens: runs of 'I' or 'D'; gaps: 'I' and 'D' columns.
  std::uint32_t identities = 0, mismatches = 0, gap_opens = 0, gaps = 0;
};

struct AlignmentLimits {
  // Largest traceback table (one byte per cell) built whole; larger pairs use checkpointed rows.
  std::uint64_t full_traceback_cells = std::uint64_t{1} << 25;
};

LocalAlignment align_local(std::string_view query_codes, std::string_view subject_codes,
                           const ScoringScheme& scoring, const AlignmentLimits& limits = AlignmentLimits{});

// Run-length form of operations, e.g. "12M2I30M". Throws std::invalid_argument on a character other
// than M, I or D.
std::string cigar(const std::string& operations);

}  // namespace warpsearch::cpu
