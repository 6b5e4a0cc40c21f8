// Pair alignment: the full alignment of a query and one subject, local (for the hits a search reports),
// global or semi-global (kernels/alignment_mode.hpp; the rules and tie-breaks of kernels/reference.hpp).
//
// 1. A forward pass of the striped kernel (kernels/cpu/striped.hpp) gives the score and the end: local =
//    the maximal cell with the smallest subject end, then the smallest query end; global = (m, n);
//    semiglobal = (m, the smallest subject end among the optimal alignments).
// 2. The same kernel, in the same mode, over the reversed prefixes that end there gives the start (its
//    own tie-break, the smallest reversed subject then query end, is the reference's: largest subject
//    start, then largest query start). Global starts at (0, 0) and needs no reverse pass.
// 3. A global alignment of the two substrings (the rectangle), whose optimal score equals the pair's
//    score, gives the operations. Its traceback table is bounded: beyond
//    AlignmentLimits::full_traceback_cells, only checkpoint rows are kept and the table is rebuilt one
//    band of rows at a time (O(sqrt(m) * n) memory; a 100,000 x 100,000 pair needs about 200 MB). Each
//    row is computed with the horizontal gaps as a prefix maximum, so its columns vectorise
//    (kernels/cpu/alignment.cpp).
// The operations are replayed with the scoring; a replayed score that differs from the forward score
// throws std::logic_error (a bug, never expected). Steps 1-2 alone are pair_span(); step 3 alone is
// align_in_rectangle(), for spans computed elsewhere (the GPU).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/alignment_mode.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::cpu {

// Score and rectangle of an alignment: query [query_begin, query_end) against subject
// [subject_begin, subject_end), 0-based, end exclusive. Local score 0: every coordinate 0.
struct AlignmentSpan {
  std::int64_t score = 0;
  std::uint32_t query_begin = 0, query_end = 0, subject_begin = 0, subject_end = 0;
};

struct PairAlignment {
  int score = 0;  // may be negative (global, semiglobal)
  std::uint32_t query_begin = 0, query_end = 0, subject_begin = 0, subject_end = 0;  // 0-based, end exclusive
  // One char per alignment column: 'M' aligned pair, 'I' query residue against a gap, 'D' subject
  // residue against a gap. Empty when the rectangle is empty (local: the score is 0, no alignment
  // scores above zero).
  std::string operations;
  // identities: 'M' columns of equal residue codes; mismatches: the other 'M' columns;
  // gap_opens: runs of 'I' or 'D'; gaps: 'I' and 'D' columns.
  std::uint32_t identities = 0, mismatches = 0, gap_opens = 0, gaps = 0;
};

struct AlignmentLimits {
  // Largest traceback table (one byte per cell) built whole; larger pairs use checkpointed rows.
  std::uint64_t full_traceback_cells = std::uint64_t{1} << 25;
};

// The local case, for the search's hits.
using LocalAlignment = PairAlignment;

// Steps 1 and 2: score and rectangle, with the striped kernels of the given instruction set. Throws
// std::overflow_error for pairs beyond the 32-bit kernels' bound (StripedScorer).
AlignmentSpan pair_span(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                        AlignmentMode mode, Isa isa = best_isa());

// Step 3: the operations of a global alignment of the span's rectangle, which must score span.score
// (std::logic_error naming the rectangle and both scores otherwise). A rectangle outside the sequences
// or with begin > end throws std::invalid_argument.
PairAlignment align_in_rectangle(std::string_view query_codes, std::string_view subject_codes,
                                 const ScoringScheme& scoring, const AlignmentSpan& span,
                                 const AlignmentLimits& limits = AlignmentLimits{});

// Steps 1 to 3, every pass (the traceback's rows too) with the given instruction set; align_in_rectangle
// uses best_isa(). The operations do not depend on it.
PairAlignment align_pair(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                         AlignmentMode mode, const AlignmentLimits& limits = AlignmentLimits{},
                         Isa isa = best_isa());

// align_pair in local mode.
LocalAlignment align_local(std::string_view query_codes, std::string_view subject_codes,
                           const ScoringScheme& scoring, const AlignmentLimits& limits = AlignmentLimits{});

// Run-length form of operations, e.g. "12M2I30M". Throws std::invalid_argument on a character other
// than M, I or D.
std::string cigar(const std::string& operations);

}  // namespace warpsearch::cpu
